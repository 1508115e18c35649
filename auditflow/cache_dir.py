"""Where AuditFlow keeps what it derives from the data root between runs: the taxonomy graph, the
filing cache, the DQC constants and the taxonomy packages' META-INF. One definition, so every cache
follows ``$AUDITFLOW_CACHE_DIR`` alike (the local models live elsewhere: auditflow.llm.install).
"""
from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "AUDITFLOW_CACHE_DIR"


def default_cache_dir() -> Path:
    """``$AUDITFLOW_CACHE_DIR``, else ``~/.cache/auditflow/taxonomy``."""
    return Path(os.environ.get(CACHE_ENV) or "~/.cache/auditflow/taxonomy").expanduser()
