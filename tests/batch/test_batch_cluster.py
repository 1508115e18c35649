"""Must show (issue 43): the cluster recipe of docs/batch.md, run as written (a scheduler and two
workers on 127.0.0.1, the data root given to each worker, then the batch with --scheduler), gives the
findings of a serial ``auditflow check``. The lines are read from the page itself, so the recipe and
this test cannot drift apart; only the port and the data root are put in."""
from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from auditflow.llm.serve import free_port
from tests.batch.conftest import REPO, batch_findings, cli_env

pytest.importorskip("distributed", reason="needs the batch extra: pip install 'pytest-auditflow[batch]'")

DOC = REPO / "docs" / "batch.md"


def recipe() -> list[str]:
    """The shell lines of the "A cluster" section's code block."""
    section = DOC.read_text(encoding="utf-8").split("## A cluster", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "docs/batch.md, 'A cluster', has no sh block"
    return [x for x in block.group(1).splitlines() if x.strip()]


def split(line: str, port: int, data_root: Path) -> tuple[dict[str, str], list[str]]:
    """A recipe line as (environment assignments, argv), with the test's port and data root."""
    line = line.replace("8786", str(port)).replace("/path/to/data", str(data_root))
    words = shlex.split(line)
    env = {}
    while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
        k, _, v = words.pop(0).partition("=")
        env[k] = v
    return env, words


def bin_of(name: str) -> str:
    """``dask`` and ``auditflow`` from this interpreter's environment."""
    return str(Path(sys.executable).parent / name)


def wait_for_workers(address: str, n: int, timeout: float = 120) -> None:
    from distributed import Client

    with Client(address, timeout="60s") as client:
        client.wait_for_workers(n, timeout=timeout)


def test_the_documented_cluster_recipe(tmp_path, data_root, serial_findings):
    lines = recipe()
    port = free_port()
    servers: list[subprocess.Popen] = []
    try:
        for line in lines[:-1]:
            env, argv = split(line, port, data_root)
            assert argv[0] == "dask" and "--host" in argv and argv[argv.index("--host") + 1] == "127.0.0.1", line
            servers.append(subprocess.Popen([bin_of("dask"), *argv[1:]], env=cli_env(data_root, **env), cwd=tmp_path,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                            start_new_session=True))
        assert [s.args[1] for s in servers] == ["scheduler", "worker", "worker"]
        wait_for_workers(f"tcp://127.0.0.1:{port}", 2)
        env, argv = split(lines[-1], port, data_root)
        assert argv[:2] == ["auditflow", "check"] and "--scheduler" in argv, lines[-1]
        out = tmp_path / "results.jsonl"
        argv[argv.index("--out") + 1] = str(out)
        proc = subprocess.run([bin_of("auditflow"), *argv[1:], "--no-progress"],
                              capture_output=True, text=True, env=cli_env(data_root, **env), cwd=tmp_path, timeout=300)
        assert proc.returncode == 1, proc.stderr
        assert batch_findings(out) == serial_findings
        rows = [json.loads(x) for x in out.read_text().splitlines()]
        assert all(r["worker"].startswith("tcp://127.0.0.1:") for r in rows)
        assert len({r["worker"] for r in rows}) == 2, "both workers took filings"
        assert f"scheduler tcp://127.0.0.1:{port}" in proc.stderr
    finally:
        for s in reversed(servers):
            if s.poll() is None:
                os.killpg(s.pid, signal.SIGTERM)
        for s in reversed(servers):
            try:
                s.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(s.pid, signal.SIGKILL)
                s.wait(10)
