"""Shared test fixtures.

The repository has no installed package metadata yet, so the checkout is put on ``sys.path`` here
to make ``pytest`` work from any working directory.
"""
from __future__ import annotations

import os
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


# CI sets this (.ci/run): there a missing data root fails the tests that need it, since a skipped rule
# test would look like a pass. Elsewhere (a fresh clone without the data) those tests are skipped.
REQUIRE_ENV = "AUDITFLOW_REQUIRE_DATA_ROOT"


@pytest.fixture(scope="session")
def data_root() -> Path:
    """The data root; without it the test is skipped, saying why (failed when $AUDITFLOW_REQUIRE_DATA_ROOT is set)."""
    try:
        return resolve_data_root(start=REPO)
    except DataRootError as exc:
        if os.environ.get(REQUIRE_ENV):
            pytest.fail(f"data root not available: {exc}")
        pytest.skip(f"needs the AuditFlow data root: {exc}")


@pytest.fixture(scope="session")
def taxonomy(data_root: Path):
    """The real taxonomy set and graph, from the shared disk cache (built once, then warm)."""
    from auditflow.graphs.taxonomy_store import load_taxonomy_graph
    from auditflow.xbrl.packages import TaxonomySet

    tset = TaxonomySet.discover(data_root)
    return tset, load_taxonomy_graph(tset)
