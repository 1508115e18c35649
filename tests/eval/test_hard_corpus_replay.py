"""``pytest --auditflow cases/hard --auditflow-model local:qwen2.5-coder-1.5b -n 2`` replays the recorded
1.5B auditors with no model call, and labels every case as ``docs/hard/results.md`` reports.

``cases/hard`` is not collected by default (``norecursedirs``): its cases are there to be missed by
weak configurations, so the 1.5B model's E cases fail their items, which a default run must not
turn red. This test runs the command a user gates a model change with, in a subprocess, and checks
what CI must guarantee: every case ran from the committed cache (no miss, no write, the model never
loaded: record mode none), and each case's label equals the `full` row's record in
``docs/hard/results.json``, so the plugin and ``auditflow eval`` agree case by case.

Until the ``full`` row is recorded on every case (docs/hard/results.md gains it then), the test says so
and skips: it switches itself on with that commit.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCUMENTED = REPO / "docs" / "hard" / "results.json"


def test_the_hard_corpus_replays_from_the_committed_cache_as_documented(data_root: Path, tmp_path: Path) -> None:
    documented = json.loads(DOCUMENTED.read_text(encoding="utf-8"))
    if "full" not in documented["records"]:
        pytest.skip("the full row of cases/hard is not recorded yet (docs/hard/results.md has no full row)")
    out = tmp_path / "hard.json"
    env = {**os.environ, "AUDITFLOW_DATA_ROOT": str(data_root)}
    env.pop("AUDITFLOW_CACHE_DIR", None)  # the ini's committed cache, not CI's scratch folder
    cmd = [sys.executable, "-m", "pytest", "--auditflow", "cases/hard", "--auditflow-model", "local:qwen2.5-coder-1.5b",
           "-n", "2", "-p", "no:cacheprovider", "-q", "--auditflow-json", str(out), "--auditflow-record-mode", "none"]
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=1200)
    assert out.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["cache"]["misses"] == 0 and doc["cache"]["writes"] == 0, doc["cache"]
    expected = {r["key"]: r["label"] for r in documented["records"]["full"]}
    got = {c["nodeid"]: c["label"] for c in doc["cases"]}
    assert got == expected
    failed = not all(c["passed"] for c in doc["cases"])
    assert proc.returncode == (1 if failed else 0), proc.stdout[-3000:]
