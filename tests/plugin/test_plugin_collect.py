"""Collection: which files become cases, selection by -k / -m, and a bad case file as one failing item."""
from __future__ import annotations

import pytest
from plugin_cases import ASSETS_OK, REVENUE_OK, SAMPLE, case_file, report_block


def test_case_files_are_collected_and_other_yaml_is_not(pytester: pytest.Pytester, af_args) -> None:
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, REVENUE_OK))
    pytester.makefile(".yaml", suite=case_file(ASSETS_OK).replace("assets-calc", "keyed"))  # top-level auditflow:
    pytester.makefile(".yaml", workflow="name: ci\non: push\njobs: {}\n")  # not a case file: never read
    pytester.makefile(".yml", compose="services:\n  auditflow: {image: x}\n")  # auditflow: not at top level
    result = pytester.runpytest(*af_args, "--collect-only", "-q")
    result.stdout.fnmatch_lines(["acme.case.yaml::assets-calc", "acme.case.yaml::revenue-members", "suite.yaml::keyed"])
    assert "workflow" not in result.stdout.str() and "compose" not in result.stdout.str()
    assert result.ret == 0


def test_nothing_is_collected_without_the_switch(pytester: pytest.Pytester) -> None:
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK))
    result = pytester.runpytest("--collect-only", "-q")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_ini_switch_enables_collection(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nauditflow = true\n")
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK))
    pytester.runpytest("--collect-only", "-q").stdout.fnmatch_lines(["acme.case.yaml::assets-calc"])


def test_selection_by_keyword_tag_and_rule_marker(pytester: pytest.Pytester, af_args) -> None:
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, REVENUE_OK))
    pytester.runpytest(*af_args, "-k", "revenue").assert_outcomes(passed=1, deselected=1)
    pytester.runpytest(*af_args, "-m", "smoke").assert_outcomes(passed=1, deselected=1)
    pytester.runpytest(*af_args, "-m", "dqc_0126", "--strict-markers").assert_outcomes(passed=1, deselected=1)


BAD_CASES = [
    ("  - id: x\n    query: {concept: us-gaap:Assets, period: 2024-12-31}\n    expect: {decision: violated}\n",
     "7: cases[0].expect.decision: must be one of consistent, violation, unable_to_verify, got 'violated'"),
    ("  - id: x\n    query: {concept: us-gaap:Assets, period: 2024-12-31, rule_hint: 0126}\n    expect: {decision: consistent}\n",
     "6: cases[0].query.rule_hint: must be string, got integer 86 (quote it: YAML reads unquoted digits"),
    ("  - id: x\n    query: {concept: Assets, period: 2024-12-31}\n    expect: {decision: consistent}\n",
     "6: cases[0].query.concept: 'Assets' does not match"),
    ("  - id: x\n    query: {concept: us-gaap:Assets, period: 2024-12-31}\n    expect: {decision: consistent}\n"
     "  - id: x\n    query: {concept: us-gaap:Assets, period: 2024-12-31}\n    expect: {decision: consistent}\n",
     "8: cases[1].id: duplicate case id 'x' (first used on line 5)"),
    ("  - id: x\n    query: {concept: us-gaap:Assets, period: 2024-12-31}\n    inject: [{flip_sign: f-bs-13, remove: f-bs-13}]\n"
     "    expect: {decision: consistent}\n",
     "7: cases[0].inject[0]: must have exactly one of set_value, flip_sign, remove (got flip_sign, remove)"),
    ("  - id: x\n    query: {concept: us-gaap:Assets, period: 2024-12-31}\n"
     "    expect: {decision: violation, tools_called: [check_sine]}\n",
     "7: cases[0].expect.tools_called[0]: unknown tool 'check_sine'; did you mean check_sign?"),
    ("  - id: x\n    query: {concept: us-gaap:Assets, period: 2024-12-31}\n    expect:\n      decision: consistent\n"
     "      decision: violation\n",
     "9: cases[0].expect.decision: duplicate key 'decision'"),
    ("  - id: x\n    query: {concept: us-gaap:Assets, period: [2024\n",
     "6: YAML syntax:"),
]


@pytest.mark.parametrize(("cases", "message"), BAD_CASES)
def test_schema_errors_are_one_failing_item_naming_file_line_and_field(pytester: pytest.Pytester, af_args,
                                                                        cases: str, message: str) -> None:
    pytester.makefile(".case.yaml", bad=case_file(cases))
    result = pytester.runpytest(*af_args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["FAILED bad.case.yaml::bad.case.yaml - *"])
    assert f"\n  bad.case.yaml:{message}" in result.stdout.str()
    assert "Traceback" not in result.stdout.str()


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_bad_file_is_one_failing_item_and_the_good_files_cases_run(pytester: pytest.Pytester, af_args,
                                                                      workers: list[str]) -> None:
    """Issue 44, item 11: no "Interrupted: 1 error during collection"; the broken file is one failing
    item named after it, and the good file's cases run and pass (without --continue-on-collection-errors)."""
    pytester.makefile(".case.yaml", good=case_file(ASSETS_OK, REVENUE_OK), bad="auditflow: 3\ncases: []\n")
    result = pytester.runpytest(*af_args, *workers)
    out = result.stdout.str()
    result.assert_outcomes(passed=2, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "Interrupted" not in out and "error during collection" not in out and "INTERNALERROR" not in out
    result.stdout.fnmatch_lines(["FAILED bad.case.yaml::bad.case.yaml - *"])
    assert "  bad.case.yaml:1: auditflow: must be one of 1, 2, got 3" in out and "  bad.case.yaml:2: cases: needs at least 1 item" in out
    report = report_block(out)
    assert "AuditFlow: 2 case(s) run" in report  # the broken file adds no case row to the table
    assert "1 case file(s) could not be used, their cases did not run (see the failures above): bad.case.yaml" in report


def test_a_bad_case_file_fails_the_session_even_when_the_gates_pass(pytester: pytest.Pytester, af_args) -> None:
    """Gates decide case verdicts only: a file that could not be read is never gated away."""
    pytester.makefile(".case.yaml", good=case_file(ASSETS_OK), bad="auditflow: 3\ncases: []\n")
    result = pytester.runpytest(*af_args, "--auditflow-min-joint-acc=0.5")
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "gate min-joint-acc: ok" in result.stdout.str()


def test_relative_filing_paths_are_relative_to_the_case_file(pytester: pytest.Pytester, af_args) -> None:
    sub = pytester.mkdir("suite")
    rel = "../" * len(sub.resolve().parts[1:]) + str(SAMPLE).lstrip("/")
    (sub / "rel.case.yaml").write_text(case_file(ASSETS_OK, filing=rel))
    pytester.runpytest(*af_args, "suite").assert_outcomes(passed=1)
