"""The LLM layer: model specs, provider adapters, the local model, constrained tool calls, the call cache.

The contract the rest of AuditFlow relies on (kept stable while the pieces are built):

* ``make_model_factory(spec, *, cache_dir=None, record_mode="none", case_id=None, stats=None)`` returns a
  ``ModelFactory``: a callable ``role -> langchain chat model`` for :func:`auditflow.agents.audit.run_audit`.
  ``spec`` is ``"policy"`` (the deterministic planner, no LLM, no cache) or a model spec string such as
  ``local:qwen2.5-coder-1.5b``, ``openai:gpt-4o``, ``openai-compatible:http://host:port/v1#model``.
  LLM-backed models are wrapped in the disk cache (``record_mode`` in none/once/new_episodes/all);
  ``stats`` (a :class:`auditflow.llm.cache.CacheStats`) accumulates hits, misses and writes.
"""
# Names are imported on first use (PEP 562): ``auditflow model install`` and ``auditflow check`` must
# not pay for importing langchain (seconds) just because they live in the same package.
_EXPORTS = {
    "auditflow.llm.cache": ("RECORD_MODES", "CachedChatModel", "CacheError", "CacheMissError", "CacheWriteError",
                            "LLMCache", "prune", "unused_entries"),
    "auditflow.llm.cachekey": ("CacheKey",),
    "auditflow.llm.concurrency": ("CaseOutcome", "arun_cases", "run_cases"),
    "auditflow.llm.factory": ("make_judge_model", "make_model_factory"),
    "auditflow.llm.specs": ("PROVIDERS", "MissingCredentialsError", "ModelSpec", "ModelSpecError",
                            "ProviderUnavailableError", "build_chat_model"),
    "auditflow.llm.stats": ("CacheStats",),
    "auditflow.llm.toolcalls": ("InvalidToolCall", "ToolCallingAdapter", "parse_tool_call", "tool_choice_schema"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'auditflow.llm' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
