"""Issue 44, item 2: a data root that exists but lacks what cases read is one usage error naming the parts.

Before, an empty or partly restored data root ran every case into an "LLM cache miss" with a re-record
command (without dqc/ the checkers answer differently from the recordings), or into one missing-filing
failure per case.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_cases import ASSETS_OK, case_file

from auditflow.cases.loader import load_case_file
from auditflow.cases.root_parts import check_case_root, missing_parts
from auditflow.errors import DataRootError

REPO = Path(__file__).resolve().parents[2]


def test_the_shipped_cases_with_an_empty_data_root_give_one_message_and_no_cache_miss(tmp_path: Path) -> None:
    """The issue's command, on the project's own cases and ini (the recorded local model, replay only)."""
    empty = tmp_path / "EMPTY_DIR"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "--auditflow", "cases/", f"--auditflow-data-root={empty}",
                           "-p", "no:cacheprovider"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR, out[-3000:]
    assert "cache miss" not in out.lower() and "re-record" not in out.lower()
    errors = [line for line in out.splitlines() if line.startswith("ERROR:")]
    assert len(errors) == 1, out[-3000:]
    assert f"the data root {empty} (--auditflow-data-root or ini auditflow_data_root) lacks what audit cases read: " \
           "dqc/" in errors[0]
    assert "filings/ or filings-rolled/" in errors[0] and "taxonomy/ is missing too" in errors[0]


def test_a_partial_root_from_the_environment_names_only_what_is_missing(pytester: pytest.Pytester, data_root: Path,
                                                                        monkeypatch) -> None:
    partial = pytester.mkdir("restored")
    for part in ("dqc", "taxonomy"):  # filings/ and filings-rolled/ did not come back
        (partial / part).symlink_to(data_root / part, target_is_directory=True)
    monkeypatch.setenv("AUDITFLOW_DATA_ROOT", str(partial))
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK))
    result = pytester.runpytest("--auditflow")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert f"the data root {partial.resolve()} ($AUDITFLOW_DATA_ROOT) lacks what audit cases read: filings/ or " \
           "filings-rolled/" in err
    assert "dqc/" not in err.split("lacks", 1)[1].split(".", 1)[0] and "taxonomy/ is missing too" not in err


def test_a_root_with_what_cases_read_runs_and_no_root_still_skips(pytester: pytest.Pytester, data_root: Path,
                                                                  monkeypatch) -> None:
    enough = pytester.mkdir("enough")
    (enough / "dqc").symlink_to(data_root / "dqc", target_is_directory=True)
    (enough / "filings").mkdir()  # empty: every case here gives its filing's path
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK))
    pytester.runpytest("--auditflow", f"--auditflow-data-root={enough}").assert_outcomes(passed=1)
    monkeypatch.setenv("AUDITFLOW_DATA_ROOT", str(pytester.path / "no-such-folder"))  # no root at all: as before
    pytester.runpytest("--auditflow").assert_outcomes(passed=1)


def test_the_judge_needs_its_rubric_in_the_root(tmp_path: Path, data_root: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "dqc").symlink_to(data_root / "dqc", target_is_directory=True)
    (root / "filings").mkdir()
    assert missing_parts(root) == []
    assert [p.shown for p in missing_parts(root, judge=True)] == ["finmr/judge_prompt.txt"]
    with pytest.raises(DataRootError, match=r"lacks what audit cases read: finmr/judge_prompt.txt"):
        check_case_root(root, how="test", judge=True)
    check_case_root(None, how="test", judge=True)  # no data root at all is not this error


def test_with_the_cases_known_filings_are_needed_only_by_cases_that_name_one(tmp_path: Path, data_root: Path) -> None:
    """``auditflow eval`` knows its cases: a root without filings/ is enough for cases given by path."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "dqc").symlink_to(data_root / "dqc", target_is_directory=True)
    by_path = load_case_file(REPO / "cases" / "acme-sample.case.yaml")
    by_name = load_case_file(REPO / "cases" / "injected-real.case.yaml")
    assert missing_parts(root, cases=by_path) == []
    assert [p.shown for p in missing_parts(root, cases=by_path + by_name)] == ["filings/ or filings-rolled/"]
    assert [p.shown for p in missing_parts(root)] == ["filings/ or filings-rolled/"]  # the plugin: not known yet


def test_auditflow_eval_refuses_the_same_root_before_any_case_runs(tmp_path: Path) -> None:
    from auditflow.cases.settings import RunSettings
    from auditflow.eval.collect import collect_cases
    from auditflow.eval.plan import parse_configs
    from auditflow.eval.records import Redactor
    from auditflow.eval.runner import run_eval

    ran: list[str] = []
    cases = collect_cases([REPO / "cases" / "acme-sample.case.yaml"], display=str).cases
    with pytest.raises(DataRootError, match=r"lacks what audit cases read: dqc/ .*point --data-root or "):
        run_eval(cases, parse_configs("policy", model="policy"), RunSettings(data_root=tmp_path), jobs=1,
                 redact=Redactor(), run_one=lambda case, settings: ran.append(case.id))
    assert ran == []
