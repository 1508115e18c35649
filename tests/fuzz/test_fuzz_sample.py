"""CI's sample of the fuzz run (issue 18): 200+ damaged inputs over the bundled sample, and a few over
the real filings when the data root is there. Every input gives a result or a typed error naming a
file; no crash, hang, 500 MB peak, network use or read of the canary beside the input.

The full run (1,000+ inputs) is ``python benchmarks/fuzz.py``; its last figures are in docs/reliability.md.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.fuzz.damage import KINDS  # noqa: E402
from tests.fuzz.harness import PEAK_LIMIT_MB, SAMPLES, Plan, real_filings, run_plan  # noqa: E402

SAMPLE_INPUTS = 200
REAL_INPUTS = 24


def _assert_clean(run) -> None:
    s = run.summary()
    assert not run.bad(), "\n".join(f"#{o.index} {o.kind} on {o.source}: {o.outcome}: {o.detail}" for o in run.bad())
    assert s["typed_errors_without_file"] == 0, [o.detail for o in run.outcomes if not o.names_file]
    assert s["peak_mb_max"] < PEAK_LIMIT_MB


def test_fuzz_sample_of_damaged_sample_filings(tmp_path):
    run = run_plan(Plan(list(SAMPLES), SAMPLE_INPUTS, seed=18), data_root=None, timeout=60, workdir=tmp_path)
    assert len(run.outcomes) >= 200 and {o.kind for o in run.outcomes} == set(KINDS)
    _assert_clean(run)
    assert run.summary()["by_outcome"]["result"] > 20  # damage that leaves a checkable filing is checked


def test_fuzz_sample_of_damaged_real_filings(tmp_path, data_root):
    sources = real_filings(data_root)
    if not sources:
        pytest.skip("no real filings under the data root")
    run = run_plan(Plan(sources, REAL_INPUTS, seed=18), data_root=data_root, timeout=120, workdir=tmp_path)
    _assert_clean(run)
