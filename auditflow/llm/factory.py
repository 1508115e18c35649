"""``make_model_factory``: a model spec and a cache setting -> ``role -> chat model`` for ``run_audit``.

Layers, outside in: :class:`~auditflow.llm.cache.CachedChatModel` (one per role: the role is part of
the key) -> :class:`~auditflow.llm.toolcalls.ToolCallingAdapter` (every tool-call route but the native
one: the local model, Transformers, an OpenAI-compatible server by default) ->
:class:`~auditflow.llm.remote.RemoteChatModel` (remote providers: bounded retries, typed failures naming
the endpoint) -> the provider's langchain model. The route (``ModelSpec.tool_route``) is in the cache key
of remote providers; the in-process providers' keys are as they were recorded. The provider model is built once per process
and only on the first real call: a warm replay never loads a model, imports a provider or needs a key.
Transformers models (hf) serve one call at a time behind a process-wide lock, whatever the number of
roles and concurrent cases; the local llama.cpp server decodes up to its number of conversation slots
at once (the two juniors of a case share a batch) and limits itself.
"""
from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from auditflow.llm.cache import JUDGE_DIR, RECORD_MODES, CachedChatModel, CacheError, LLMCache
from auditflow.llm.specs import TOOLS, ModelSpec, ModelSpecError, build_chat_model
from auditflow.llm.stats import CacheStats
from auditflow.llm.toolcalls import ToolCallingAdapter, key_material

POLICY = "policy"

IN_PROCESS_LOCK = threading.RLock()  # one call at a time into a model that is not thread-safe (hf)
_INNER: dict[str, Any] = {}
_INNER_LOCK = threading.Lock()


def inner_model(spec: ModelSpec | str) -> Any:
    """The process's single instance of the provider model for ``spec`` (tool-call adapter included)."""
    spec = spec if isinstance(spec, ModelSpec) else ModelSpec.parse(spec)
    text = str(spec)
    with _INNER_LOCK:  # held while building: two threads must not both load a 1 GB model
        if text not in _INNER:
            model = build_chat_model(spec)
            if not spec.in_process:
                from auditflow.llm.remote import RemoteChatModel, endpoint_of

                model = RemoteChatModel(inner=model, endpoint=endpoint_of(model, spec.endpoint), spec=str(spec))
            if spec.tool_route != TOOLS:
                model = ToolCallingAdapter(inner=model, call_lock=IN_PROCESS_LOCK if spec.serialised else None,
                                           render_history=spec.history)
            _INNER[text] = model
        return _INNER[text]


def clear_inner_models() -> None:
    """Forget the process's provider models (tests; switching models in a long-lived process)."""
    with _INNER_LOCK:
        _INNER.clear()


@dataclass(frozen=True)
class RoleModels:
    """``role -> CachedChatModel``: the ModelFactory ``run_audit`` takes; ``cache`` is shared by the roles."""

    spec: str
    make_inner: Callable[[], Any]
    cache: LLMCache | None = None
    key_material: Callable[[list], dict] | None = None
    repeat: int = 0  # --auditflow-repeats: > 0 is in every cache key (CachedChatModel.cache_key)

    def __call__(self, role: str) -> CachedChatModel:
        return CachedChatModel(role=role, spec=self.spec, make_inner=self.make_inner, llm_cache=self.cache,
                               key_material=self.key_material, repeat=self.repeat)


def _cache(cache_dir, record_mode: str, case_id: str | None, stats: CacheStats | None) -> LLMCache | None:
    if record_mode not in RECORD_MODES:
        raise CacheError(f"unknown record mode {record_mode!r}: choose one of {', '.join(RECORD_MODES)}")
    if cache_dir is None:
        if record_mode != "none":
            raise CacheError(f"record mode {record_mode!r} records into a cache: give a cache directory too")
        return None
    return LLMCache(cache_dir, record_mode, case_id=case_id, stats=stats)


def make_model_factory(spec: str | ModelSpec, *, cache_dir: Path | str | None = None, record_mode: str = "none",
                       case_id: str | None = None, stats: CacheStats | None = None, repeat: int = 0):
    """The CONTRACT (see :mod:`auditflow.llm`): a model spec -> ``role -> chat model``.

    Make one factory per audit case (``case_id`` names the case in cache entries and miss errors, and
    ``once`` decides per case). Without ``cache_dir`` every call goes to the model. The deterministic
    ``policy`` is no language model: the layer that runs audits serves it
    (:func:`auditflow.cases.models.make_models`), so this layer never imports the agents.
    """
    if isinstance(spec, str) and spec.strip() == POLICY:
        raise ModelSpecError(f"{POLICY!r} is the deterministic planner, not a language model: it is served by "
                             "auditflow.cases.models.make_models, not by the LLM layer")
    parsed = spec if isinstance(spec, ModelSpec) else ModelSpec.parse(spec)
    cache = _cache(cache_dir, record_mode, case_id, stats)
    return RoleModels(str(parsed), functools.partial(inner_model, parsed), cache, route_key_material(parsed), repeat)


def route_key_material(spec: ModelSpec) -> Callable[[list], dict] | None:
    """What the tool-call route adds to a cache key. In-process providers: the adapter's hashes only,
    as their calls were recorded (adding the route would turn every recorded call into a miss). Remote
    providers: the route too, so a native-route answer is never replayed for a constrained request."""
    if spec.in_process:
        return functools.partial(key_material, render_history=spec.history) if spec.text_only else None
    return functools.partial(remote_key_material, route=spec.tool_route, render_history=spec.history)


def remote_key_material(tools: list, *, route: str, render_history: bool | str) -> dict:
    adapter = key_material(tools, render_history=render_history) if route != TOOLS else {}
    return {**adapter, "tool_route": route}


def make_judge_model(spec: str | ModelSpec, *, cache_dir: Path | str | None = None, record_mode: str = "none",
                     case_id: str | None = None, stats: CacheStats | None = None) -> CachedChatModel:
    """An LLM judge's model, cached in its own folder ``<cache_dir>/judge`` with its own statistics."""
    judge_dir = Path(cache_dir) / JUDGE_DIR if cache_dir is not None else None
    factory = make_model_factory(spec, cache_dir=judge_dir, record_mode=record_mode, case_id=case_id, stats=stats)
    if not isinstance(factory, RoleModels):
        raise CacheError("the judge needs a language model spec, not the deterministic policy")
    return factory("judge")
