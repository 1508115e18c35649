"""The configurations compared in the paper, selectable by name."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProtocolConfig:
    name: str
    roles: tuple[str, ...] = ("compliance", "forensic")
    checks: bool = True  # the deterministic checker tools (and their authority in fusion)
    gating: bool = True  # required-tool gating
    fusion: bool = True  # evidential fusion; False: the Senior picks one report
    senior: bool = True
    direct: bool = False  # no tools: filing excerpts in the prompt, one-shot answer
    max_rounds: int = 2
    baseline: str | None = None  # one of the paper's baselines (auditflow.agents.baselines, docs/baselines.md)


# The paper's baselines (docs/baselines.md), by configuration name: auditflow.agents.baselines has a runner
# and prompts for each.
BASELINES = ("vanilla-rag", "graphrag", "treerag", "herculean")


def _baseline(name: str) -> ProtocolConfig:
    """A baseline: its own single role, no checkers, no gating, no Senior."""
    return ProtocolConfig(name, roles=(name,), checks=False, gating=False, senior=False, baseline=name)


CONFIGS = {
    "full": ProtocolConfig("full"),
    "single-agent": ProtocolConfig("single-agent", roles=("single",), senior=False),
    "direct-llm": ProtocolConfig("direct-llm", roles=("direct",), checks=False, gating=False, senior=False, direct=True),
    "no-checks": ProtocolConfig("no-checks", checks=False),
    "no-gating": ProtocolConfig("no-gating", gating=False),
    "no-fusion": ProtocolConfig("no-fusion", fusion=False),
    **{name: _baseline(name) for name in BASELINES},
}


def get_config(name: str, *, max_rounds: int | None = None) -> ProtocolConfig:
    from dataclasses import replace

    from auditflow.errors import AuditflowError

    if name not in CONFIGS:
        raise AuditflowError(f"unknown configuration {name!r}; choose from {', '.join(CONFIGS)}")
    cfg = CONFIGS[name]
    return replace(cfg, max_rounds=max_rounds) if max_rounds is not None else cfg
