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


def parse_configs(text: str, *, model: str) -> tuple[EvalConfig, ...]:
    """``full,single-agent,policy`` -> configurations in the order given (duplicates dropped).

    :raises AuditflowError: an empty list or an unknown name, with the accepted names.
    """
    names = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    if not names:
        raise AuditflowError(f"--configs needs at least one configuration: {', '.join(CONFIG_NAMES)}")
    unknown = [n for n in names if n not in CONFIG_NAMES]
    if unknown:
        raise AuditflowError(f"unknown configuration(s) {', '.join(map(repr, unknown))} in --configs; "
                             f"choose from {', '.join(CONFIG_NAMES)}")
    return tuple(EvalConfig(n, "full", POLICY) if n == POLICY_CONFIG else EvalConfig(n, n, model) for n in names)


def reference_config(configs: tuple[EvalConfig, ...]) -> str:
    """What the others are compared with: ``full`` when it runs, else the first configuration listed."""
    names = [c.name for c in configs]
    return REFERENCE if REFERENCE in names else names[0]
