"""The baselines' prompts: a companion of each prompt profile (docs/baselines.md, "Prompts").

A built-in profile ``NAME`` keeps its baselines' prompts in ``profiles/NAME.baselines.yaml`` rather than in
``NAME.yaml`` itself: the profile file's sha256 is stamped into every AuditResult, so adding keys to it
would change the recorded digest of every audit made before the baselines existed. ``natural`` (the
policy's profile for questions in words) has none of its own and uses ``guided``'s. A user's own profile
file has no companion: the baselines refuse it, saying so. The companion's sha256 is stamped beside the
profile's in a baseline's result.
"""
from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from typing import Mapping

from auditflow.agents.configs import BASELINES
from auditflow.agents.profile import PROFILE_DIR, PromptProfile, ProfileError, _read_yaml

FALLBACK = {"natural": "guided"}


@dataclass(frozen=True)
class BaselinePrompts:
    """What a baseline's model reads besides its context: the shared system text, how to report, and
    one instruction per baseline."""

    system: str
    report: str  # how a retrieval baseline answers: one call of final_report
    task: Mapping[str, str]
    sha256: str
    agent_report: str = ""  # how the herculean agent reports: after the tools it needs

    def system_of(self, baseline: str) -> str:
        """The herculean agent reads its own system text (its tools); the one-call baselines share one."""
        return self.task[baseline] if baseline == "herculean" else self.system


def parse_baseline_prompts(data: Mapping, raw: bytes, source: str) -> BaselinePrompts:
    def need(key: str) -> str:
        value = data.get(key)
        if not isinstance(value, str) or not value.strip():
            raise ProfileError(f"{source}: the baselines need a text {key!r} (see "
                               "auditflow/agents/profiles/guided.baselines.yaml)")
        return value

    return BaselinePrompts(system=need("system"), report=need("report"), task={b: need(b) for b in BASELINES},
                           sha256=hashlib.sha256(raw).hexdigest(), agent_report=need("herculean-report"))


@functools.lru_cache(maxsize=None)
def _builtin(name: str) -> BaselinePrompts:
    path = PROFILE_DIR / f"{name}.baselines.yaml"
    raw = path.read_bytes()
    data = _read_yaml(raw, f"builtin:{path.name}")
    if not isinstance(data, Mapping):
        raise ProfileError(f"builtin:{path.name}: a YAML mapping is needed")
    return parse_baseline_prompts(data, raw, f"builtin:{path.name}")


def baseline_prompts(profile: PromptProfile) -> BaselinePrompts:
    """The baselines' prompts of a built-in ``profile``; :class:`ProfileError` for a user's file."""
    if profile.source.startswith("builtin:"):
        name = profile.source.split(":", 1)[1]
        return _builtin(FALLBACK.get(name, name))
    raise ProfileError(f"{profile.source}: the baseline configurations ({', '.join(BASELINES)}) run with a built-in "
                       "prompt profile (guided or plain), whose prompts for them are in "
                       "auditflow/agents/profiles/<name>.baselines.yaml")
