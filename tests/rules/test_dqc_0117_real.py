"""DQC.US.0117 on every real filing of the data root: runs without crashing and in reasonable time.

The counts are printed (``pytest -s``), not asserted: they are observations, not expectations.
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from auditflow.graphs.environment import build_environment
from auditflow.rules.dqc_0117 import rule_0117

pytestmark = pytest.mark.slow

MAX_SECONDS = 2.0


def _folders(data_root: Path) -> list[Path]:
    return [p for sub in ("filings-rolled", "filings") for p in sorted((data_root / sub).iterdir()) if p.is_dir()]


def test_rule_0117_runs_on_every_real_filing(data_root):
    folders = _folders(data_root)
    assert folders, f"no filings under {data_root}"
    ran = 0
    for folder in folders:
        env = build_environment(folder)
        t = time.perf_counter()
        r = rule_0117(env, data_root=data_root)
        elapsed = time.perf_counter() - t
        ran += 1
        print(f"{folder.name:28s} findings={len(r.findings):3d} consistent={r.consistent:4d} "
              f"not_applicable={r.not_applicable:4d} warnings={len(r.warnings)} {elapsed:.3f}s")
        for f in r.findings:
            print(f"    {f.code} {f.concept} {f.period} reported={f.reported} expected={f.expected} [{f.role}]")
        assert elapsed < MAX_SECONDS, f"{folder.name}: rule_0117 took {elapsed:.2f}s"
        assert r.violations == len(r.findings)
    assert ran == len(folders)
