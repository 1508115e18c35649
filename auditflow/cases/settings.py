"""How cases run, as one value (kept apart from the runner so reading it imports no agent code)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from auditflow.cases.models import POLICY


@dataclass(frozen=True)
class RunSettings:
    """How cases run: model spec, protocol configuration, LLM cache, data root, optional LLM judge."""

    model: str = POLICY
    config: str = "full"
    record_mode: str = "none"
    cache_dir: Path | None = None
    data_root: Path | None = None
    judge_model: str | None = None
    prompts: str | None = None  # a prompt profile: a built-in name or a YAML file (None: the model's default)
    shuffle: int | None = None  # seed permuting every list observation (None: the tools' order)
    rootdir: Path | None = None  # the project's root (pytest's rootdir): a case's filing may lie under it

    def profile(self):
        """The prompt profile these settings run with (loaded, so a bad file fails before any case)."""
        from auditflow.agents.profile import load_profile

        return load_profile(self.prompts, model=self.model)
