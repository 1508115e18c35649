"""Hooks the AuditFlow plugin offers to conftest.py files and other plugins."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_auditflow_make_models(config: pytest.Config, spec: str, cache_dir: Path | None, record_mode: str,
                                 case_id: str | None, stats: Any, repeat: int) -> Any:
    """Return a model factory (``role -> langchain chat model``) for ``spec``, or None to decline.

    Called once per case (and once more for the LLM judge, with ``case_id`` ending in ``#judge``).
    Use it to plug in a custom or fake model; when no implementation answers, AuditFlow's own
    ``auditflow.llm.make_model_factory`` is used (``policy`` only, until the LLM layer is installed).
    ``stats`` is the case's cache-statistics object: count hits, misses and writes into it.
    ``repeat`` is which run of the case this is with ``--auditflow-repeats K`` (0 to K-1; the case id of
    a repeat above 0 ends in ``#repeatN``): a cache of your own should key each repeat apart.
    """
