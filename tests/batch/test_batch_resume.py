"""Must show (issue 43): kill -9 of the client mid-batch, then ``--resume``: every filing is in the
results file exactly once, no line is partial, and the resumed run checked only the filings that were
not recorded yet. Also the results file's own guarantees: a torn last line is cut, a file with
results is not appended to without --resume."""
from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from auditflow.batch.output import ResultsFile
from auditflow.batch.task import FilingRecord
from auditflow.errors import InputError
from tests.batch.conftest import REPO, auditflow, batch_findings, cli_env, real_filings

def _hashes(path) -> list[str]:
    return [json.loads(x)["sha256"] for x in path.read_text().splitlines()]


@pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                    reason="needs the batch extra: pip install 'pytest-auditflow[batch]'")
def test_kill_9_of_the_client_then_resume(tmp_path, data_root, serial_findings):
    out = tmp_path / "results.jsonl"
    args = ["check", "--batch", str(data_root / "filings"), str(data_root / "filings-rolled"), "--workers", "2",
            "--out", str(out), "--no-progress"]
    # no filing cache: every filing is parsed, so the batch lasts long enough to be killed in its middle
    env = cli_env(data_root, AUDITFLOW_FILING_CACHE="off")
    client = subprocess.Popen([sys.executable, "-m", "auditflow.cli.main", *args], env=env, cwd=REPO,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and client.poll() is None:
            if out.exists() and out.read_bytes().count(b"\n") >= 6:
                break
            time.sleep(0.05)
        assert client.poll() is None, "the batch ended before it could be killed"
        os.kill(client.pid, signal.SIGKILL)
        client.wait(30)
    finally:
        try:  # the local cluster's worker processes, orphaned by the kill: same session, started here
            os.killpg(client.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    data = out.read_bytes()
    whole = data[: data.rfind(b"\n") + 1]
    before = [json.loads(x)["sha256"] for x in whole.splitlines()]
    assert 6 <= len(before) < 29, f"killed after {len(before)} of 29 filings"

    proc = auditflow([*args, "--resume"], data_root, AUDITFLOW_FILING_CACHE="off")
    assert proc.returncode == 1, proc.stderr
    after = _hashes(out)  # every line parses: none is partial
    assert after[: len(before)] == before, "the records written before the kill are kept as they were"
    assert sorted(set(after)) == sorted(after) and len(after) == 29, "each filing exactly once"
    rerun = after[len(before):]
    assert set(rerun) == set(after) - set(before), "only the unfinished filings were run again"
    assert f"{29 - len(before)} checked now, {len(before)} already recorded" in proc.stderr
    assert batch_findings(out) == serial_findings
    assert len(real_filings(data_root)) == 29


def _record(n: int) -> FilingRecord:
    return FilingRecord(f"f{n}", f"{n:064x}", "ok", ["0015"], findings=[{"code": "x", "rule": "0015"}])


def test_a_torn_last_line_is_cut_and_its_filing_not_counted_done(tmp_path):
    path = tmp_path / "r.jsonl"
    with ResultsFile.open(path, resume=False) as results:
        results.append(_record(1))
        results.append(_record(2))
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"error": null, "filing": "f3", "findi')  # a write cut off by kill -9
    with ResultsFile.open(path, resume=True) as results:
        assert results.torn_bytes == len(b'{"error": null, "filing": "f3", "findi')
        assert results.done() == {_record(1).sha256, _record(2).sha256}
        results.append(_record(3))
    lines = path.read_bytes().splitlines(keepends=True)
    assert [json.loads(x)["filing"] for x in lines] == ["f1", "f2", "f3"]
    assert all(x.endswith(b"\n") for x in lines)


def test_results_are_not_appended_to_without_resume(tmp_path):
    path = tmp_path / "r.jsonl"
    with ResultsFile.open(path, resume=False) as results:
        results.append(_record(1))
    with pytest.raises(InputError, match="--resume"):
        ResultsFile.open(path, resume=False)


def test_a_foreign_file_is_refused_with_its_line(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"sha256": "ab", "filing": "x", "status": "ok", "rules": []}\nnot json\n')
    with pytest.raises(InputError, match=r"r.jsonl:2: this line is not a batch record"):
        ResultsFile.open(path, resume=True)
