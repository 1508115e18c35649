"""Which configurations an evaluation runs: each is a protocol configuration plus a model spec.

``--configs`` names the paper's settings. All but one are protocol configurations
(:data:`auditflow.agents.configs.CONFIGS`) run with ``--model``; ``policy`` is the full protocol with
the deterministic policy backend whatever ``--model`` says, the non-LLM reference row of the table.
"""
from __future__ import annotations

from dataclasses import dataclass

from auditflow.agents.configs import CONFIGS
from auditflow.cases.models import POLICY
from auditflow.errors import AuditflowError

POLICY_CONFIG = "policy"
CONFIG_NAMES: tuple[str, ...] = (*CONFIGS, POLICY_CONFIG)
REFERENCE = "full"


@dataclass(frozen=True, slots=True)
class EvalConfig:
    """One row of the results table: its name, the protocol configuration and the model spec it runs."""

    name: str
    protocol: str
    model: str
    prompts: str | None = None  # a prompt profile (name or file) for this row; None: --prompts / the model's
    shuffle: int | None = None  # a shuffle seed for this row; None: --shuffle
    subset: int | None = None  # run on a stratified subset of this many cases (auditflow.eval.subset); None: all


def parse_configs(text: str, *, model: str) -> tuple[EvalConfig, ...]:
    """``full,single-agent,policy`` -> configurations in the order given (duplicates dropped).

    A row may vary the model, the prompt profile or the shuffle seed of a configuration:
    ``full@local:qwen2.5-coder-0.5b``, ``full+prompts=plain``, ``full+shuffle=1`` (combinable, the
    whole token is the row's name), so one table compares model sizes, profiles and orders; and a row
    too costly for every case may run on a stratified subset, ``full+shuffle=1+subset=60``, the same
    cases for every row with the same size.

    :raises AuditflowError: an empty list or an unknown name, with the accepted names.
    """
    names = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    if not names:
        raise AuditflowError(f"--configs needs at least one configuration: {', '.join(CONFIG_NAMES)}")
    return tuple(_one(n, model) for n in names)


def _one(token: str, model: str) -> EvalConfig:
    head, *options = token.split("+")
    base, _, row_model = head.partition("@")
    if base not in CONFIG_NAMES:
        raise AuditflowError(f"unknown configuration {base!r} in --configs; choose from {', '.join(CONFIG_NAMES)} "
                             "(a row may add @MODEL, +prompts=PROFILE, +shuffle=SEED, +subset=CASES)")
    extra: dict = {}
    for opt in options:
        key, _, value = opt.partition("=")
        if key == "prompts" and value:
            extra["prompts"] = value
        elif key in ("shuffle", "subset") and value.isdigit() and (key == "shuffle" or int(value) > 0):
            extra[key] = int(value)
        else:
            raise AuditflowError(f"{token!r} in --configs: {opt!r} is none of +prompts=PROFILE, +shuffle=SEED, "
                                 "+subset=CASES (a whole number of at least 1)")
    if base == POLICY_CONFIG:
        return EvalConfig(token, "full", POLICY, **extra)
    return EvalConfig(token, base, row_model or model, **extra)


def reference_config(configs: tuple[EvalConfig, ...]) -> str:
    """What the others are compared with: ``full`` when it runs, else the first configuration listed."""
    names = [c.name for c in configs]
    return REFERENCE if REFERENCE in names else names[0]
