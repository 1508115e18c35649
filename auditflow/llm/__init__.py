"""The LLM layer: model specs, provider adapters, the local model, constrained tool calls, the call cache.

The contract the rest of AuditFlow relies on (kept stable while the pieces are built):

* ``make_model_factory(spec, *, cache_dir=None, record_mode="none", case_id=None, stats=None)`` returns a
  ``ModelFactory``: a callable ``role -> langchain chat model`` for :func:`auditflow.agents.audit.run_audit`.
  ``spec`` is ``"policy"`` (the deterministic planner, no LLM, no cache) or a model spec string such as
  ``local:qwen2.5-coder-1.5b``, ``openai:gpt-4o``, ``openai-compatible:http://host:port/v1#model``.
  LLM-backed models are wrapped in the disk cache (``record_mode`` in none/once/new_episodes/all);
  ``stats`` (a :class:`auditflow.llm.cache.CacheStats`) accumulates hits, misses and writes.
"""
