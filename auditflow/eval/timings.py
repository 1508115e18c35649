"""``run.json``: what one run measured, kept out of the reproducible reports.

Wall-clock seconds per case and LLM cache counts (a recording run writes, a replay hits) differ on
every run of the same command, so they live here, never in ``results.md`` / ``results.json``. A
replayed run's seconds are the time of the environment and the replay, not of the model: compare
seconds between runs made the same way.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from statistics import fmean, median
from typing import Any, Sequence

from auditflow.eval.plan import EvalConfig
from auditflow.eval.records import CaseTiming

COUNTERS = ("hits", "misses", "writes")


@dataclass(frozen=True)
class ConfigTiming:
    """One configuration's seconds per case and cache counts in this run."""

    config: str
    cases: int
    seconds_total: float
    seconds_mean: float | None
    seconds_median: float | None
    seconds_max: float | None
    cache: dict[str, int]
    live_mean: dict[str, float] | None = None  # live model calls, tokens and seconds, mean per case (None on replay)

    def to_json(self) -> dict[str, Any]:
        r = lambda x: None if x is None else round(x, 3)  # noqa: E731
        out = {"config": self.config, "cases": self.cases, "seconds_total": r(self.seconds_total),
               "seconds_per_case_mean": r(self.seconds_mean), "seconds_per_case_median": r(self.seconds_median),
               "seconds_per_case_max": r(self.seconds_max), "cache": dict(self.cache)}
        if self.live_mean is not None:  # only a run that called a model: a replay's run.json is as it was
            out["llm_per_case_mean"] = dict(self.live_mean)
        return out


def live_mean(timings: Sequence[CaseTiming]) -> dict[str, float] | None:
    """Live calls, prompt and completion tokens and model seconds, mean over the cases (a case with no
    live call counts as 0), or None when no case called a model."""
    if not timings or not any(t.live for t in timings):
        return None
    keys = ("calls", "prompt_tokens", "completion_tokens", "seconds")
    return {k: round(fmean(float((t.live or {}).get(k, 0)) for t in timings), 3) for k in keys}


def config_timings(configs: Sequence[EvalConfig], timings: Sequence[CaseTiming]) -> list[ConfigTiming]:
    out = []
    for c in configs:
        secs = [t.seconds for t in timings if t.config == c.name]
        cache = {k: sum(int(t.cache.get(k, 0)) for t in timings if t.config == c.name) for k in COUNTERS}
        out.append(ConfigTiming(c.name, len(secs), sum(secs), fmean(secs) if secs else None,
                                median(secs) if secs else None, max(secs) if secs else None, cache,
                                live_mean([t for t in timings if t.config == c.name])))
    return out


def run_document(*, command: str, out: str, record_mode: str, jobs: int, wall_seconds: float,
                 per_config: Sequence[ConfigTiming], timings: Sequence[CaseTiming]) -> dict[str, Any]:
    """The ``run.json`` document of this run (its date, how it ran, timings and cache counts)."""
    return {
        "finished": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "command": command, "out": out, "record_mode": record_mode, "jobs": jobs, "wall_seconds": round(wall_seconds, 3),
        "configs": [t.to_json() for t in per_config],
        "cases": [{"config": t.config, "key": t.key, "seconds": t.seconds, "cache": dict(t.cache),
                   **({"llm": dict(t.live)} if t.live else {})} for t in timings],
    }
