"""The terminal report: its content, the same with and without xdist, width and encoding; the JSON file."""
from __future__ import annotations

import json

import pytest
from plugin_cases import ASSETS_OK, ASSETS_WRONG, RECEIVABLE_OK, REVENUE_OK, case_file, report_block

CASES = (ASSETS_OK, ASSETS_WRONG, RECEIVABLE_OK, REVENUE_OK)


def test_report_counts_labels_by_rule_family(pytester: pytest.Pytester, af_args, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    pytester.makefile(".case.yaml", acme=case_file(*CASES))
    result = pytester.runpytest(*af_args, "--auditflow-slowest=2")
    result.assert_outcomes(passed=3, failed=1)
    block = report_block(result.stdout.str())
    lines = [" ".join(line.split()) for line in block.splitlines()]
    header = " ".join(block.split("rule family")[0].split())  # the header wraps at 100 columns
    assert header.startswith("AuditFlow: 4 case(s) run, model policy (deterministic policy, no LLM), config full, "
                             "prompts guided (") and "), record mode none" in header, header
    assert "rule family cases passed A S E C Joint ACC VAcc invalid" in lines
    assert "DQC.US.0015 1 1 1 0 0 0 100.0% 100.0% 0.0%" in lines
    assert "DQC.US.0126 2 1 1 0 0 1 50.0% 100.0% 0.0%" in lines
    assert "other 1 1 1 0 0 0 100.0% 100.0% 0.0%" in lines  # no rule hint, no rule expected
    assert "total 4 3 3 0 0 1 75.0% 100.0% 0.0%" in lines
    assert "why not A: wrong conclusion on the meant fact 1" in lines  # docs/metrics.md
    assert "LLM cache: 0 hits, 0 misses, 0 writes" in lines
    assert "slowest 2 case(s):" in lines


def test_report_under_xdist_equals_the_serial_report(pytester: pytest.Pytester, af_args, monkeypatch) -> None:
    """Workers send rows as user_properties; the controller alone renders, from rows sorted by node id."""
    monkeypatch.setenv("COLUMNS", "100")
    pytester.makefile(".case.yaml", acme=case_file(*CASES), more=case_file(REVENUE_OK, ASSETS_OK))
    args = (*af_args, "--auditflow-slowest=0", "--auditflow-json=results.json", "-p", "no:cacheprovider")

    def results() -> str:
        """The results file as written: wall-clock seconds go to results.timings.json, so it is byte for byte."""
        timings = json.loads((pytester.path / "results.timings.json").read_text())
        assert len(timings["cases"]) == 6 and all(t["seconds"] >= 0 for t in timings["cases"].values())
        return (pytester.path / "results.json").read_text()

    serial = pytester.runpytest_subprocess(*args)
    serial_results = results()
    parallel = pytester.runpytest_subprocess(*args, "-n", "2")
    assert serial.ret == parallel.ret == pytest.ExitCode.TESTS_FAILED
    parallel.stdout.fnmatch_lines(["created: 2/2 workers"])
    assert report_block(parallel.stdout.str()) == report_block(serial.stdout.str())
    assert results() == serial_results


def test_report_is_ascii_when_the_terminal_is_not_utf8(pytester: pytest.Pytester, af_args, monkeypatch) -> None:
    monkeypatch.setenv("PYTHONIOENCODING", "ascii")
    monkeypatch.setenv("COLUMNS", "100")
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK))
    result = pytester.runpytest_subprocess(*af_args, "-p", "no:cacheprovider")
    block = report_block(result.stdout.str())
    assert block.isascii() and "\\u" not in block
    assert "| DQC.US.0126 |" in block and "+---" in block


def test_report_fits_the_terminal_width(pytester: pytest.Pytester, af_args, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    pytester.makefile(".case.yaml", acme=case_file(*CASES))
    block = report_block(pytester.runpytest(*af_args, "--auditflow-slowest=0").stdout.str())
    table = [line for line in block.splitlines() if "DQC" in line or "Joint" in line or "total" in line]
    assert table and max(len(line) for line in table) <= 60


def test_json_results_hold_cases_and_aggregates(pytester: pytest.Pytester, af_args) -> None:
    pytester.makefile(".case.yaml", acme=case_file(*CASES))
    pytester.runpytest(*af_args, "--auditflow-json=out/results.json")
    doc = json.loads((pytester.path / "out" / "results.json").read_text())
    assert doc["auditflow_results"] == 1
    from auditflow.agents.profile import builtin_profile

    guided = builtin_profile("guided")
    assert doc["settings"] == {"model": "policy", "config": "full", "record_mode": "none", "judge_model": None,
                               "prompt_profile": f"guided ({guided.sha256[:12]})", "shuffle": None}
    by_id = {c["case_id"]: c for c in doc["cases"]}
    assert [c["nodeid"] for c in doc["cases"]] == sorted(c["nodeid"] for c in doc["cases"])
    wrong = by_id["assets-wrong-expected"]
    assert (wrong["label"], wrong["passed"], wrong["verdict_right"], wrong["rule"]) == ("C", False, True, "0126")
    assert (wrong["reported_value"], wrong["expected_value"], wrong["decision"]) == ("226150000", "216150000", "violation")
    assert wrong["cause"] == "wrong conclusion on the meant fact" and by_id["assets-calc"]["cause"] is None
    total = doc["aggregates"]["total"]
    assert (total["n"], total["A"], total["C"], total["joint_acc"], total["vacc"], total["cer"]) == (4, 3, 1, 0.75, 1.0, 0.25)
    assert doc["aggregates"]["by_rule"]["0126"]["joint_acc"] == 0.5
    assert doc["cache"] == {"hits": 0, "misses": 0, "writes": 0}
