"""Building the model factory a case runs with, against the LLM layer's contract.

The contract (``auditflow.llm``): ``make_model_factory(spec, *, cache_dir, record_mode, case_id,
stats)`` returns ``role -> chat model``; ``stats`` (``auditflow.llm.cache.CacheStats``) counts
cache hits, misses and writes. Until that layer is installed, the deterministic ``policy`` spec is
served by :func:`auditflow.agents.audit.policy_models` and any other spec is a clear error; the
cache counters then stay at zero (the policy makes no LLM calls). The LLM judge's model comes from
``auditflow.llm.make_judge_model``, which caches it apart from the auditors' calls.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from auditflow.cases.errors import ModelSpecError

POLICY = "policy"
RECORD_MODES = ("none", "once", "new_episodes", "all")
STAT_FIELDS = ("hits", "misses", "writes")
ModelFactory = Callable[[str], Any]


def make_models(spec: str, *, cache_dir: Path | None, record_mode: str, case_id: str | None,
                stats: Any = None) -> ModelFactory:
    """The ``role -> model`` factory for ``spec``, through the LLM layer when it is installed."""
    try:
        from auditflow.llm import make_model_factory  # type: ignore[attr-defined]
    except ImportError:
        make_model_factory = None
    if make_model_factory is not None:
        return make_model_factory(spec, cache_dir=cache_dir, record_mode=record_mode, case_id=case_id, stats=stats)
    if spec == POLICY:
        from auditflow.agents.audit import policy_models

        return policy_models
    raise ModelSpecError(
        f"model spec {spec!r} needs the LLM layer (auditflow.llm.make_model_factory), which this install does "
        f"not provide yet; use --auditflow-model {POLICY} (the deterministic planner), or provide models through "
        "the pytest_auditflow_make_models hook in a conftest.py.")


def make_judge(spec: str, *, cache_dir: Path | None, record_mode: str, case_id: str | None, stats: Any = None) -> Any:
    """The LLM judge's chat model (cached apart from the auditors', see ``auditflow.llm.make_judge_model``)."""
    try:
        from auditflow.llm import make_judge_model  # type: ignore[attr-defined]
    except ImportError:
        raise ModelSpecError(
            f"the LLM judge ({spec!r}) needs the LLM layer (auditflow.llm.make_judge_model), which this install "
            "does not provide; drop --auditflow-judge-model, or provide the model through the "
            "pytest_auditflow_make_models hook.") from None
    return make_judge_model(spec, cache_dir=cache_dir, record_mode=record_mode, case_id=case_id, stats=stats)


def new_stats() -> Any:
    """A fresh cache-statistics object of the LLM layer, or None when the layer is not installed."""
    try:
        from auditflow.llm import CacheStats  # type: ignore[attr-defined]
    except ImportError:
        return None
    return CacheStats()


def used_keys(stats: Any) -> tuple[str, ...]:
    """The cache keys a run read or wrote, sorted (none without the LLM layer)."""
    return tuple(sorted(getattr(stats, "used_keys", None) or ()))


def stats_counts(stats: Any) -> dict[str, int]:
    """``{"hits", "misses", "writes"}`` from a stats object (attributes or a ``to_json`` mapping)."""
    if stats is None:
        return dict.fromkeys(STAT_FIELDS, 0)
    src = stats.to_json() if hasattr(stats, "to_json") else {k: getattr(stats, k, 0) for k in STAT_FIELDS}
    return {k: int(src.get(k, 0) or 0) for k in STAT_FIELDS}


def is_cache_miss(exc: BaseException) -> bool:
    """Whether ``exc`` is the LLM cache refusing a call in replay mode (a miss with record mode none/once)."""
    try:
        from auditflow.llm import CacheMissError  # type: ignore[attr-defined]
    except ImportError:
        CacheMissError = None
    if CacheMissError is not None and isinstance(exc, CacheMissError):
        return True
    return any("cachemiss" in cls.__name__.lower() for cls in type(exc).__mro__)
