"""Building the model factory a case runs with, against the LLM layer's contract.

The contract (``auditflow.llm``): ``make_model_factory(spec, *, cache_dir, record_mode, case_id,
stats)`` returns ``role -> chat model``; ``stats`` (``auditflow.llm.cache.CacheStats``) counts
cache hits, misses and writes. Until that layer is installed, the deterministic ``policy`` spec is
served by :func:`auditflow.agents.audit.policy_models` and any other spec is a clear error; the
cache counters then stay at zero (the policy makes no LLM calls). The LLM judge's model comes from
``auditflow.llm.make_judge_model``, which caches it apart from the auditors' calls.
"""
from __future__ import annotations

import importlib.util
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any, Callable

from auditflow.cases.errors import ModelSpecError

POLICY = "policy"
RECORD_MODES = ("none", "once", "new_episodes", "all")
STAT_FIELDS = ("hits", "misses", "writes")
ModelFactory = Callable[[str], Any]


def make_models(spec: str, *, cache_dir: Path | None, record_mode: str, case_id: str | None,
                stats: Any = None, repeat: int = 0) -> ModelFactory:
    """The ``role -> model`` factory for ``spec``: the deterministic policy, served here, or a language
    model through the LLM layer when it is installed. ``repeat`` > 0 (``--auditflow-repeats``) is part of
    every cache key, so each repeat of a case is recorded apart; repeat 0 keeps the keys it always had."""
    if spec.strip() == POLICY:
        from auditflow.agents.audit import policy_models

        return policy_models
    try:
        from auditflow.llm import make_model_factory  # type: ignore[attr-defined]
    except ImportError:
        make_model_factory = None
    if make_model_factory is not None:
        return make_model_factory(spec, cache_dir=cache_dir, record_mode=record_mode, case_id=case_id, stats=stats,
                                  repeat=repeat)
    raise ModelSpecError(
        f"model spec {spec!r} needs the LLM layer (auditflow.llm.make_model_factory), which this install does "
        f"not provide yet; use --auditflow-model {POLICY} (the deterministic planner), or provide models through "
        "the pytest_auditflow_make_models hook in a conftest.py.")


# provider -> (the package it imports, the environment variable with its key or None)
_NEEDS = {"local": ("xllamacpp", None), "openai": ("langchain_openai", "OPENAI_API_KEY"),
          "anthropic": ("langchain_anthropic", "ANTHROPIC_API_KEY"), "openrouter": ("langchain_openai", "OPENROUTER_API_KEY"),
          "together": ("langchain_openai", "TOGETHER_API_KEY"), "fireworks": ("langchain_openai", "FIREWORKS_API_KEY"),
          "openai-compatible": ("langchain_openai", None), "hf": ("langchain_huggingface", None)}
LOCAL_MODELS = ("qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b")  # auditflow.llm.local.MODEL_NAMES (a test keeps them equal)
_MODEL_FIELD = re.compile(rb'"model":\s*"([^"]*)"')


def recorded_models(cache_dir: Path, *, stop_at: str | None = None) -> Counter[str]:
    """How many recorded calls each model spec has in the cache folder (the judge's sub-folder apart);
    reads only the head of each entry, and stops early once ``stop_at`` is seen."""
    counts: Counter[str] = Counter()
    for path in sorted(Path(cache_dir).glob("*/*.json")):
        try:
            with open(path, "rb") as f:
                m = _MODEL_FIELD.search(f.read(1024))
        except OSError:
            continue
        if m:
            counts[m.group(1).decode("utf-8", "replace")] += 1
            if stop_at is not None and counts[stop_at]:
                break
    return counts


def check_model_spec(spec: str, *, record_mode: str, cache_dir: Path | None) -> None:
    """Refuse, before any case runs, a model spec every case would fail with.

    ``policy`` always works. Otherwise the spec must parse (``provider:model``), a ``local:`` model must be
    one AuditFlow can install, and: in replay mode (``none``) the cache must hold recorded calls of the
    spec (else every case would be a cache miss); in a recording mode the provider's package must be
    installed, its API key set and a local model installed, except in ``once`` over a cache that already
    holds calls of the spec (``auditflow audit``'s default replaying a recorded case needs no model).

    :raises ModelSpecError: what is wrong and what would work.
    """
    if spec == POLICY:
        return
    from auditflow.llm.specs import ModelSpec, ModelSpecError as BadSpec

    try:
        parsed = ModelSpec.parse(spec)
    except BadSpec as exc:
        raise ModelSpecError(f"unknown model {spec!r}: {exc}") from None
    if parsed.provider == "local" and parsed.model not in LOCAL_MODELS:
        raise ModelSpecError(f"unknown local model {parsed.model!r} in {spec!r}: the local provider runs "
                             f"{' or '.join(LOCAL_MODELS)} (auditflow model install 1.5b)")
    if record_mode == "none":
        recorded = recorded_models(cache_dir, stop_at=str(parsed)) if cache_dir is not None and Path(cache_dir).is_dir() else Counter()
        if recorded[str(parsed)] == 0:
            held = ", ".join(f"{m} ({n} calls)" for m, n in recorded.most_common()) or "nothing"
            raise ModelSpecError(
                f"unknown model {spec!r} for a replay: the LLM cache {cache_dir} holds no recorded call of it (it "
                f"holds {held}), so every case would be a cache miss in record mode none. {_ready(parsed)}To call "
                f"the model and record its answers, add {RECORD_ONCE}; or choose a recorded model or {POLICY}.")
        return
    if record_mode == "once" and cache_dir is not None and Path(cache_dir).is_dir() \
            and recorded_models(cache_dir, stop_at=str(parsed))[str(parsed)] > 0:
        return  # once replays what is recorded: the model is needed only at a miss, which then says what to install
    package, key = _NEEDS[parsed.provider]
    if not parsed.in_process:  # a bad AUDITFLOW_LLM_TIMEOUT / _MAX_RETRIES: one error now, not one per case
        from auditflow.llm.remote import settings

        settings()
    if importlib.util.find_spec(package) is None:
        raise ModelSpecError(f"model {spec!r} in record mode {record_mode} calls the model, which needs the package "
                             f"{package}: pip install 'pytest-auditflow[{EXTRA_OF.get(parsed.provider, parsed.provider)}]'")
    if key and not os.environ.get(key, "").strip():
        raise ModelSpecError(f"model {spec!r} in record mode {record_mode} calls the model, which needs an API key "
                             f"in the environment variable {key}")
    if parsed.provider == "local":
        from auditflow.llm.install import model_path

        if model_path(parsed.model.removeprefix("qwen2.5-coder-")) is None:
            raise ModelSpecError(f"model {spec!r} in record mode {record_mode} runs the local model, which is not "
                                 f"installed: auditflow model install {parsed.model.removeprefix('qwen2.5-coder-')}")


RECORD_ONCE = "--auditflow-record-mode once (pytest) or --record-mode once (auditflow audit, auditflow eval)"


def _ready(parsed: Any) -> str:
    """A sentence saying the model could be called now (installed, or a server answers), else nothing:
    a first live try then reads as the missing flag it is (issue 40), not as an unknown model."""
    if parsed.provider == "local":
        from auditflow.llm.install import model_path

        size = parsed.model.removeprefix("qwen2.5-coder-")
        return "The model is installed. " if model_path(size) is not None else ""
    if parsed.provider == "openai-compatible":
        import urllib.request

        try:
            with urllib.request.urlopen(f"{parsed.base_url.rstrip('/')}/models", timeout=2):
                return f"A server answers at {parsed.base_url}. "
        except Exception:  # noqa: BLE001 - unreachable, refused, not an OpenAI-style server: say nothing
            return ""
    key = _NEEDS[parsed.provider][1]
    return f"Its API key is set ({key}). " if key and os.environ.get(key, "").strip() else ""


EXTRA_OF = {"openrouter": "openai", "together": "openai", "fireworks": "openai", "openai-compatible": "openai"}


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


def is_model_error(exc: BaseException) -> bool:
    """Whether ``exc`` is a model that could not answer (``auditflow.llm.errors.ModelCallError``): a remote
    endpoint still failing after its retries (``RemoteModelError``, naming the endpoint) or the local model
    failing (``LocalModelError``). The case
    then ends with the S label, as a model that gave no answer, not as an input error of the case."""
    from auditflow.llm.errors import ModelCallError

    return isinstance(exc, ModelCallError)
