"""Shared test fixtures.

The repository has no installed package metadata yet, so the checkout is put on ``sys.path`` here
to make ``pytest`` work from any working directory.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from auditflow.dataroot import resolve_data_root  # noqa: E402
from auditflow.errors import DataRootError  # noqa: E402

# pytester drives the pytest plugin's own tests (tests/plugin/); a plugin list is only allowed in a
# top-level conftest, so it is declared here.
pytest_plugins = ["pytester"]


@pytest.fixture(scope="session")
def data_root() -> Path:
    """The data root; its absence fails the test (a skipped rule test would look like a pass)."""
    try:
        return resolve_data_root()
    except DataRootError as exc:
        pytest.fail(f"data root not available: {exc}")


@pytest.fixture(scope="session")
def taxonomy(data_root: Path):
    """The real taxonomy set and graph, from the shared disk cache (built once, then warm)."""
    from auditflow.graphs.taxonomy_graph import load_taxonomy_graph
    from auditflow.xbrl.packages import TaxonomySet

    tset = TaxonomySet.discover(data_root)
    return tset, load_taxonomy_graph(tset)
