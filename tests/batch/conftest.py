"""Helpers of the batch tests: running ``auditflow`` in a process of its own, and the findings of a
serial ``auditflow check --format json`` on the real filings, to compare a batch with."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FOLDERS = ("filings", "filings-rolled")


def cli_env(data_root: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DASK_", "PYTEST_"))}
    env.update({"AUDITFLOW_DATA_ROOT": str(data_root), "PYTHONPATH": str(REPO), **extra})
    return env


def auditflow(args: list[str], data_root: Path, *, timeout: float = 300, **extra: str) -> subprocess.CompletedProcess:
    """``auditflow ARGS`` in a fresh interpreter, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "auditflow.cli.main", *args], capture_output=True, text=True,
                          env=cli_env(data_root, **extra), cwd=REPO, timeout=timeout)


def real_filings(data_root: Path) -> list[Path]:
    return [p for sub in FOLDERS for p in sorted((data_root / sub).iterdir()) if p.is_dir()]


def sorted_findings(findings: list[dict]) -> list[str]:
    return sorted(json.dumps(f, sort_keys=True) for f in findings)


def batch_findings(path: Path) -> dict[str, list[str]]:
    """filing path -> its sorted findings, from a results file (each line must be a whole record)."""
    out: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        assert row["status"] == "ok", row
        assert row["path"] not in out, f"{row['path']} recorded twice"
        out[row["path"]] = sorted_findings(row["findings"])
    return out


@pytest.fixture(scope="session")
def serial_findings(data_root: Path) -> dict[str, list[str]]:
    """filing path -> sorted findings of ``auditflow check --format json`` on the 29 real filings."""
    proc = auditflow(["check", "--format", "json", *map(str, real_filings(data_root))], data_root)
    assert proc.returncode in (0, 1), proc.stderr
    return {f["filing"]: sorted_findings(f["findings"]) for f in json.loads(proc.stdout)["filings"]}
