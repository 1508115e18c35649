"""``--auditflow-update-expected``: rewrite expect: from actual results, keep the rest of the file."""
from __future__ import annotations

import pytest
from plugin_cases import ASSETS_OK, ASSETS_WRONG, REVENUE_OK, case_file

STALE = """\
  - id: revenue-stale
    # reviewed 2026-01: the expected total below predates a filing fix
    query: {concept: us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax, period: 2024-01-01..2024-12-31}
    expect:
      decision: violation
      triggered_rules: [DQC.US.0117.9574]
      reported_value: "240500000"
      expected_value: "230500000"
      tools_called: [check_dim_consistency, find_facts]
    tags: [smoke]  # keeps its place
"""


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_update_expected_round_trip(pytester: pytest.Pytester, af_args, xdist: list[str]) -> None:
    path = pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, ASSETS_WRONG, STALE, REVENUE_OK))
    before = path.read_text()
    run = pytester.runpytest_subprocess if xdist else pytester.runpytest
    pytester.runpytest(*af_args).assert_outcomes(passed=2, failed=2)

    updated = run(*af_args, *xdist, "--auditflow-update-expected", "-p", "no:cacheprovider")
    updated.assert_outcomes(passed=4)
    updated.stdout.fnmatch_lines(["--auditflow-update-expected: rewrote expect: of 2 case(s) in 1 file(s): acme.case.yaml"])

    after = path.read_text()
    assert after != before
    assert '      expected_value: "216150000"\n' in after  # the typo, fixed
    assert '    expect:\n      decision: consistent\n      triggered_rules: []\n      reported_value: "240500000"\n' \
           '      expected_value: "240500000"\n      tools_called: [check_dim_consistency]\n    tags: [smoke]  # keeps its place\n' \
           in after  # stale case: actual answer; only the required tools that were called stay
    assert "    # reviewed 2026-01: the expected total below predates a filing fix\n" in after
    assert after.count("\n") == before.count("\n")  # same keys, same lines: a small, reviewable diff
    pytester.runpytest(*af_args).assert_outcomes(passed=4)


def test_update_expected_leaves_passing_cases_as_written(pytester: pytest.Pytester, af_args) -> None:
    path = pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK))  # "226,150,000" stays as the author wrote it
    before = path.read_text()
    pytester.runpytest(*af_args, "--auditflow-update-expected").stdout.fnmatch_lines(
        ["--auditflow-update-expected: rewrote expect: of 0 case(s) in 0 file(s): none"])
    assert path.read_text() == before
