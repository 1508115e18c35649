"""``--auditflow-concurrency N``: up to N cases in flight in one process, the same results whatever N is.

The replay test runs the committed ``cases/`` corpus (recorded 1.5B calls, record mode none) with N=1 and
N=4 and compares the results JSON byte for byte (wall-clock seconds are written apart, to the timings file).
The overlap test measures what N changes: a model factory that waits (as a call to a server does) is
entered by N cases at once, never more, in one process and in each xdist worker.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.plugin.plugin_cases import ASSETS_OK, ASSETS_WRONG, RECEIVABLE_OK, REVENUE_OK, case_file

REPO = Path(__file__).resolve().parents[2]


def _replay(data_root: Path, out: Path, n: int) -> dict:
    env = {**os.environ, "AUDITFLOW_DATA_ROOT": str(data_root)}
    env.pop("AUDITFLOW_CACHE_DIR", None)  # the ini's committed cache
    cmd = [sys.executable, "-m", "pytest", "--auditflow", "cases/", "-p", "no:cacheprovider", "-q",
           "--auditflow-record-mode=none", f"--auditflow-json={out}", f"--auditflow-concurrency={n}"]
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert out.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    text = out.read_text(encoding="utf-8")
    return {"returncode": proc.returncode, "json": text, "doc": json.loads(text)}


def test_the_committed_corpus_replays_to_the_same_results_with_4_cases_in_flight(data_root: Path, tmp_path: Path) -> None:
    one = _replay(data_root, tmp_path / "n1.json", 1)
    four = _replay(data_root, tmp_path / "n4.json", 4)
    assert one["doc"]["cache"]["misses"] == 0 and one["doc"]["cache"]["writes"] == 0, one["doc"]["cache"]
    assert len(one["doc"]["cases"]) > 100 and not any(c.get("crashed") for c in one["doc"]["cases"])
    assert four["json"] == one["json"]
    assert four["returncode"] == one["returncode"]


WAITING_MODELS = """
import threading, time, json
from pathlib import Path

_lock = threading.Lock()
_now = [0]
_most = [0]


def pytest_auditflow_make_models(config, spec, cache_dir, record_mode, case_id, stats):
    with _lock:
        _now[0] += 1
        _most[0] = max(_most[0], _now[0])
    time.sleep(0.6)  # a model server's answer
    with _lock:
        _now[0] -= 1
    return None  # then the policy runs the case


def pytest_sessionfinish(session):
    name = getattr(session.config, "workerinput", {}).get("workerid", "main")
    Path(f"most-{name}.json").write_text(json.dumps(_most[0]))
"""

CASES = (ASSETS_OK, ASSETS_WRONG, REVENUE_OK, RECEIVABLE_OK)


def _most(path: Path) -> dict[str, int]:
    return {p.stem.removeprefix("most-"): json.loads(p.read_text()) for p in path.glob("most-*.json")}


def test_n_cases_are_in_flight_at_once_and_never_more(pytester: pytest.Pytester, af_args) -> None:
    pytester.makeconftest(WAITING_MODELS)
    pytester.makefile(".case.yaml", a=case_file(*CASES), b=case_file(*CASES))
    result = pytester.runpytest_subprocess(*af_args, "--auditflow-concurrency=3", "--auditflow-json=n3.json")
    result.assert_outcomes(passed=6, failed=2)
    assert _most(pytester.path) == {"main": 3}
    serial = pytester.runpytest_subprocess(*af_args, "--auditflow-concurrency=1", "--auditflow-json=n1.json")
    assert _most(pytester.path) == {"main": 1}

    assert (pytester.path / "n3.json").read_bytes() == (pytester.path / "n1.json").read_bytes()
    assert "seconds" not in (pytester.path / "n3.json").read_text()
    timings = json.loads((pytester.path / "n3.timings.json").read_text())["cases"]
    assert len(timings) == 8 and all(t["seconds"] >= 0 for t in timings.values())
    assert serial.ret == result.ret == pytest.ExitCode.TESTS_FAILED


def test_it_composes_with_xdist_n_per_worker(pytester: pytest.Pytester, af_args) -> None:
    pytester.makeconftest(WAITING_MODELS)
    pytester.makefile(".case.yaml", a=case_file(*CASES), b=case_file(*CASES))
    result = pytester.runpytest_subprocess(*af_args, "--auditflow-concurrency=2", "-n", "2", "--dist", "loadfile")
    result.assert_outcomes(passed=6, failed=2)
    assert {k: v for k, v in _most(pytester.path).items() if k != "main"} == {"gw0": 2, "gw1": 2}


def test_a_bad_concurrency_is_a_usage_error(pytester: pytest.Pytester, af_args) -> None:
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK))
    for bad in ("0", "many"):
        result = pytester.runpytest(*af_args, f"--auditflow-concurrency={bad}")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines([f"*--auditflow-concurrency / ini auditflow_concurrency must be a whole number of "
                                     f"at least 1 (cases in flight at once), got '{bad}'*"])
