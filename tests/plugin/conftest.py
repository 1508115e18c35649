"""Fixtures for the pytest plugin's tests (pytester is enabled in tests/conftest.py).

Generated case files name the sample filing by absolute path (``plugin_cases.SAMPLE``), so they run
from pytester's temporary directory; only DQC 0015 needs the data root (its concept list), which
``af_args`` passes explicitly.
"""
from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def af_args(data_root: Path) -> list[str]:
    """The plugin switched on, with the data root given explicitly.

    ``--opt=value`` form: pytest picks the rootdir before plugin options are known, and a separate
    path-like value would be taken for a test path. The inner run re-imports nothing, so pytest's
    "already imported, cannot rewrite" warning about the entry-point plugin is noise here.
    """
    return ["--auditflow", f"--auditflow-data-root={data_root}", "-W", "ignore::pytest.PytestAssertRewriteWarning"]


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch) -> None:
    """Report lines are long; keep each on one line so assertions can match it whole (tests of the
    width itself set their own COLUMNS)."""
    monkeypatch.setenv("COLUMNS", "250")
