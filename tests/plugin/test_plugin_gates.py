"""CI gates: a minimum Joint ACC and a baseline comparison decide the session's exit status."""
from __future__ import annotations

import json

import pytest
from plugin_cases import ASSETS_OK, ASSETS_WRONG, RECEIVABLE_OK, REVENUE_OK, case_file

# The same revenue case, but the filing is changed first, as a worse model or prompt would answer
REVENUE_REGRESSED = REVENUE_OK + """\
    inject:
      - set_value: {concept: us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax, period: 2024-01-01..2024-12-31}
        value: "250,500,000"
"""


def test_min_joint_acc_gate_fails_the_session_below_the_threshold(pytester: pytest.Pytester, af_args) -> None:
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, ASSETS_WRONG))
    result = pytester.runpytest(*af_args, "--auditflow-min-joint-acc=90%")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["gate min-joint-acc: FAILED - Joint ACC 50.0% < required 90.0%"])


def test_passed_gates_decide_the_session_despite_known_failures(pytester: pytest.Pytester, af_args) -> None:
    """A pass-rate style gate: the failing case is shown, but the suite is good enough."""
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, ASSETS_WRONG))
    result = pytester.runpytest(*af_args, "--auditflow-min-joint-acc=0.5")
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["gate min-joint-acc: ok - Joint ACC 50.0% >= required 50.0%",
                                 "gates passed: the 1 failing case(s) above do not fail the session"])


def test_gates_never_hide_other_failures(pytester: pytest.Pytester, af_args) -> None:
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK))
    pytester.makepyfile(test_plain="def test_broken():\n    assert False\n")
    result = pytester.runpytest(*af_args, "--auditflow-min-joint-acc=0.5")
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_baseline_gate_names_the_regressed_cases(pytester: pytest.Pytester, af_args) -> None:
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, ASSETS_WRONG, REVENUE_OK))
    base = pytester.runpytest(*af_args, "--auditflow-json=baseline.json")
    base.assert_outcomes(passed=2, failed=1)  # the known failure is part of the reviewed baseline
    same = pytester.runpytest(*af_args, "--auditflow-baseline=baseline.json")
    assert same.ret == pytest.ExitCode.OK
    same.stdout.fnmatch_lines(["gate baseline: ok - Joint ACC 66.7% vs baseline 66.7% on 3 shared case(s), "
                               "allowed drop 0.0%"])

    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, ASSETS_WRONG, REVENUE_REGRESSED))
    worse = pytester.runpytest(*af_args, "--auditflow-baseline=baseline.json", "--auditflow-json=now.json")
    assert worse.ret == pytest.ExitCode.TESTS_FAILED
    worse.stdout.fnmatch_lines(["gate baseline: FAILED - Joint ACC 33.3% vs baseline 66.7% on 3 shared case(s), "
                                "allowed drop 0.0%; regressed: acme.case.yaml::revenue-members (A->E, passed->failed)"])
    gates = json.loads((pytester.path / "now.json").read_text())["gates"]
    assert gates == [{"name": "baseline", "ok": False, "message": gates[0]["message"],
                      "regressed": ["acme.case.yaml::revenue-members"]}]

    # with a significance level, one flip in three cases is what the paired bootstrap cannot tell from noise
    noise = pytester.runpytest(*af_args, "--auditflow-baseline=baseline.json", "--auditflow-alpha=0.05")
    assert noise.ret == pytest.ExitCode.OK
    noise.stdout.fnmatch_lines(["gate baseline: ok - Joint ACC 33.3% vs baseline 66.7% on 3 shared case(s), allowed "
                                "drop 0.0%, paired bootstrap p = 0.* (alpha 0.05); regressed: acme.case.yaml::revenue-members*"])

    tolerant = pytester.runpytest(*af_args, "--auditflow-baseline=baseline.json", "--auditflow-max-drop=0.4")
    assert tolerant.ret == pytest.ExitCode.OK  # the regression is still named, within the allowed drop
    tolerant.stdout.fnmatch_lines(["gate baseline: ok - *regressed: acme.case.yaml::revenue-members*"])


def test_gates_work_under_xdist(pytester: pytest.Pytester, af_args) -> None:
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, ASSETS_WRONG, REVENUE_OK))
    result = pytester.runpytest_subprocess(*af_args, "-n", "2", "--auditflow-min-joint-acc=0.9", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["gate min-joint-acc: FAILED - Joint ACC 66.7% < required 90.0%"])
    result = pytester.runpytest_subprocess(*af_args, "-n", "2", "--auditflow-min-joint-acc=0.6", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK


def test_a_missing_baseline_is_a_usage_error(pytester: pytest.Pytester, af_args) -> None:
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK))
    result = pytester.runpytest(*af_args, "--auditflow-baseline=nope.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--auditflow-baseline *nope.json does not exist; write one from a reviewed run*"])


def test_gates_never_hide_a_crashing_case(pytester: pytest.Pytester, af_args) -> None:
    pytester.makeconftest("def pytest_auditflow_make_models(spec, **kwargs):\n    raise RuntimeError('boom')\n")
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK))
    result = pytester.runpytest(*af_args, "--auditflow-min-joint-acc=0")
    result.assert_outcomes(failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*RuntimeError: boom*"])  # a bug shows its traceback


# -- the gate holes of issue 17: a gate must not pass by accident ----------------------------------------

def test_a_failing_case_absent_from_the_baseline_is_a_regression(pytester: pytest.Pytester, af_args) -> None:
    """A new case that fails is a new failure: the gate fails and names it, whatever the allowed drop."""
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, REVENUE_OK))
    pytester.runpytest(*af_args, "--auditflow-json=baseline.json").assert_outcomes(passed=2)
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, REVENUE_OK, ASSETS_WRONG))
    result = pytester.runpytest(*af_args, "--auditflow-baseline=baseline.json", "--auditflow-max-drop=50%",
                                "--auditflow-json=now.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["gate baseline: FAILED - Joint ACC 100.0% vs baseline 100.0% on 2 shared case(s), "
                                 "allowed drop 50.0%; 1 new failing case(s), not in the baseline: "
                                 "acme.case.yaml::assets-wrong-expected"])
    gate = json.loads((pytester.path / "now.json").read_text())["gates"][0]
    assert gate["regressed"] == ["acme.case.yaml::assets-wrong-expected"]

    # a new case that passes is no regression
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, REVENUE_OK, RECEIVABLE_OK))
    assert pytester.runpytest(*af_args, "--auditflow-baseline=baseline.json").ret == pytest.ExitCode.OK


def test_nothing_to_compare_with_failing_cases_fails(pytester: pytest.Pytester, af_args) -> None:
    """No node id in common (e.g. the rootdir moved): with failures the session fails, not "ok"."""
    pytester.makefile(".case.yaml", other=case_file(ASSETS_OK))
    pytester.runpytest(*af_args, "--auditflow-json=baseline.json").assert_outcomes(passed=1)
    pytester.path.joinpath("other.case.yaml").unlink()
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, ASSETS_WRONG))
    result = pytester.runpytest(*af_args, "--auditflow-baseline=baseline.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["gate baseline: FAILED - no case of this run is in the baseline; nothing to compare; "
                                 "1 new failing case(s), not in the baseline: acme.case.yaml::assets-wrong-expected"])

    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK))  # nothing to compare, nothing failing: ok
    result = pytester.runpytest(*af_args, "--auditflow-baseline=baseline.json")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["gate baseline: ok - no case of this run is in the baseline; nothing to compare"])


@pytest.mark.parametrize("value,shown", [("1", "100.0%"), ("0.5", "50.0%"), ("50%", "50.0%"), ("100%", "100.0%")])
def test_threshold_a_fraction_or_a_percentage_with_a_sign(pytester: pytest.Pytester, af_args, value, shown) -> None:
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, ASSETS_WRONG))
    result = pytester.runpytest(*af_args, f"--auditflow-min-joint-acc={value}")
    result.stdout.fnmatch_lines([f"gate min-joint-acc: * required {shown}"])


@pytest.mark.parametrize("value", ["1.5", "80", "150%", "-0.1", "nan", "0.8%%"])
def test_threshold_anything_else_is_a_usage_error(pytester: pytest.Pytester, af_args, value) -> None:
    """``1.5`` used to mean 1.5 %, while ``1`` meant 100 %: now a number above 1 needs its % sign."""
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK))
    for option in ("--auditflow-min-joint-acc", "--auditflow-max-drop"):
        result = pytester.runpytest(*af_args, f"{option}={value}")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines([f"*{option} must be a fraction from 0 to 1 like 0.8, or a percentage with % like "
                                     f"80%, got {value!r}*"])
