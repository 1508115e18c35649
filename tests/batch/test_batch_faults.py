"""Faults of a batch (issue 43): a filing past --timeout-per-filing is a Timeout record and its check is
stopped; a worker killed under a filing has it retried once elsewhere, a second death is a WorkerDied
record; both make exit code 2 while the rest of the batch is recorded."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from auditflow.batch.task import TaskSpec, check_task
from auditflow.rules.runner import RULES
from tests.batch.conftest import REPO, auditflow, cli_env
from auditflow.llm.serve import free_port
from tests.batch.test_batch_cluster import bin_of, wait_for_workers

distributed = pytest.importorskip("distributed", reason="needs the batch extra: pip install 'pytest-auditflow[batch]'")

BIG = "ibm-10k-2024-12-31"  # the inline 10-K: the longest parse of the real filings


def test_a_filing_past_its_timeout_is_an_error_record_and_its_check_is_stopped(monkeypatch, data_root):
    monkeypatch.setenv("AUDITFLOW_FILING_CACHE", "off")
    monkeypatch.setenv("AUDITFLOW_DATA_ROOT", str(data_root))
    full = check_task(TaskSpec(BIG, "0" * 64, tuple(RULES)))
    assert full.status == "ok", full
    stopped = 0
    for share in (0.02, 0.3, 0.6):  # stopped at different points of the load and the rules
        record = check_task(TaskSpec(BIG, "0" * 64, tuple(RULES), timeout=full.seconds * share))
        if record.status == "ok":  # this time it was quicker than the share of the first run
            continue
        assert record.error["type"] == "Timeout", record
        stopped += 1
        deadline = time.monotonic() + 20
        while _checks_running() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not _checks_running(), "the abandoned check still runs"
    assert stopped >= 1
    again = check_task(TaskSpec(BIG, "0" * 64, tuple(RULES), timeout=600))  # the same process goes on, unharmed
    assert again.status == "ok" and again.findings == full.findings, again


def test_a_check_that_never_ends_is_stopped(monkeypatch, data_root):
    """A hang (here a loop that never ends where the rules would run) is stopped, not left spinning."""
    import auditflow.batch.task as task

    def forever(*args, **kwargs):
        while True:
            pass

    monkeypatch.setattr(task, "check_filing", forever)
    monkeypatch.setenv("AUDITFLOW_DATA_ROOT", str(data_root))
    record = check_task(TaskSpec(BIG, "0" * 64, tuple(RULES), timeout=0.2))
    assert record.error["type"] == "Timeout" and "--timeout-per-filing 0.2 s" in record.error["message"]
    deadline = time.monotonic() + 5
    while _checks_running() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not _checks_running(), "the endless check still runs"


def _checks_running() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("auditflow-check")]


def test_timeouts_on_a_local_cluster_exit_2_and_the_batch_goes_on(tmp_path, data_root):
    out = tmp_path / "r.jsonl"
    proc = auditflow(["check", "--batch", BIG, "aapl-10q-2023-07-01", "--workers", "1", "--timeout-per-filing",
                      "0.01", "--out", str(out), "--no-progress"], data_root, AUDITFLOW_FILING_CACHE="off")
    assert proc.returncode == 2, proc.stderr
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert sorted(r["filing"] for r in rows) == sorted([BIG, "aapl-10q-2023-07-01"])
    assert {r["error"]["type"] for r in rows} == {"Timeout"}
    assert "errors by type: Timeout: 2" in proc.stderr


@pytest.fixture
def cluster(tmp_path, data_root):
    """A scheduler (one retry for a task whose worker dies, as docs/batch.md's recipe starts it) and two
    workers on 127.0.0.1, stopped by the test."""
    port = free_port()
    env = cli_env(data_root, DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="1", AUDITFLOW_FILING_CACHE="off")
    addr = f"tcp://127.0.0.1:{port}"
    cmds = [["scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]]
    cmds += [["worker", addr, "--host", "127.0.0.1", "--nworkers", "1", "--nthreads", "1", "--no-dashboard"]] * 2
    procs = [subprocess.Popen([bin_of("dask"), *c], env=env, cwd=tmp_path, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True) for c in cmds]
    try:
        wait_for_workers(addr, 2)
        yield addr, procs
    finally:
        for p in reversed(procs):
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(20)


def _kill_under(client, deaths: int, stop: threading.Event) -> list[str]:
    """SIGKILL the worker process running a batch task, ``deaths`` times (a new worker each time)."""
    killed: list[str] = []
    while len(killed) < deaths and not stop.is_set():
        busy = [w for w, keys in client.processing().items()
                if any(str(k).startswith("auditflow-check-") for k in keys) and w not in killed]
        if busy:
            pids = client.run(os.getpid, workers=busy[:1])
            for w, pid in pids.items():
                os.kill(pid, signal.SIGKILL)
                killed.append(w)
        time.sleep(0.02)
    return killed


@pytest.mark.parametrize("deaths, status", [(1, "ok"), (2, "error")])
def test_a_worker_killed_under_a_filing(tmp_path, data_root, cluster, deaths, status):
    cluster, _ = cluster
    out = tmp_path / "r.jsonl"
    cmd = [sys.executable, "-m", "auditflow.cli.main", "check", "--batch", BIG, "--scheduler", cluster, "--out",
           str(out), "--no-progress"]
    with distributed.Client(cluster, timeout="30s") as client:
        stop = threading.Event()
        batch = subprocess.Popen(cmd, env=cli_env(data_root, AUDITFLOW_FILING_CACHE="off"), cwd=REPO,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        killer: list[list[str]] = []
        t = threading.Thread(target=lambda: killer.append(_kill_under(client, deaths, stop)))
        t.start()
        try:
            _, err = batch.communicate(timeout=300)
        finally:
            stop.set()
            t.join(30)
    assert len(killer[0]) == deaths, f"killed {killer[0]} (the task ended before it could be killed)"
    row = json.loads(out.read_text())
    assert row["status"] == status, row
    if status == "ok":  # retried on the worker still alive
        assert row["worker"] not in killer[0] and row["findings"] is not None
        assert batch.returncode in (0, 1), err
    else:
        assert row["error"]["type"] == "WorkerDied" and batch.returncode == 2, err


def test_a_lost_scheduler_stops_the_batch_in_one_line_and_resume_finishes_it(tmp_path, data_root, cluster):
    addr, procs = cluster
    out = tmp_path / "r.jsonl"
    args = ["check", "--batch", str(data_root / "filings"), str(data_root / "filings-rolled"), "--scheduler", addr,
            "--out", str(out), "--no-progress"]
    batch = subprocess.Popen([sys.executable, "-m", "auditflow.cli.main", *args], cwd=REPO, text=True,
                             env=cli_env(data_root, AUDITFLOW_FILING_CACHE="off"), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and batch.poll() is None and (not out.exists() or
                                                                    out.read_bytes().count(b"\n") < 3):
        time.sleep(0.05)
    os.killpg(procs[0].pid, signal.SIGKILL)  # the scheduler
    _, err = batch.communicate(timeout=120)
    assert batch.returncode == 2
    assert err.strip().splitlines() == [err.strip()] and "the dask cluster failed" in err and "--resume" in err, err
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert 3 <= len(rows) < 29 and {r["status"] for r in rows} == {"ok"}, "no error record for a lost cluster"
    proc = auditflow([*args[:4], "--workers", "2", *args[6:], "--resume"], data_root)
    assert proc.returncode == 1, proc.stderr
    assert len({json.loads(x)["sha256"] for x in out.read_text().splitlines()}) == 29
