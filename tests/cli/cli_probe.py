"""Run ``auditflow`` in a fresh interpreter with a probe around ``main()`` and read back what the probe
reported: what a one-shot command imports or collects can only be seen from a process of its own."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def run_probe(probe: str, args: list[str], tmp_path: Path, tag: str) -> Any:
    """Run ``probe`` (Python source taking the repository and the command line as ``sys.argv[1:]``) with
    a cache directory of its own; the JSON it last wrote to stderr after ``TAG=``."""
    env = {"AUDITFLOW_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", probe, str(REPO), *args], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=300)
    lines = [x for x in proc.stderr.splitlines() if x.startswith(f"{tag}=")]
    assert lines, proc.stderr[-2000:]
    return json.loads(lines[-1][len(tag) + 1:])
