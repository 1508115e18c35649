"""Running cases: pass, fail with a diff, could-not-run, skip, JUnit properties, --lf, plugged-in models."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from plugin_cases import ASSETS_OK, ASSETS_WRONG, RECEIVABLE_OK, REVENUE_OK, case_file


def test_a_passing_and_a_failing_case_with_its_diff(pytester: pytest.Pytester, af_args) -> None:
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, ASSETS_WRONG))
    result = pytester.runpytest(*af_args)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([
        "AuditFlow case assets-wrong-expected (acme.case.yaml:12): expected_value expected 216150001, got 216150000",
        "  query  : us-gaap:Assets @ 2024-12-31, rule hint 0126",
        "  run    : model policy, config full, record mode none",
        "  label  : C (expected value or conclusion wrong), verdict right",
        "Expected vs actual:",
        "   decision: violation",
        '   reported_value: "226150000"',
        '  -expected_value: "216150001"',
        '  +expected_value: "216150000"',
        "Evidence path:",
        # facts named as a reader names them (concept, period, value), never by per-session handles
        '  *check_calc_tree {"fact": "us-gaap:Assets for 2024-12-31 (226150000)"}: 0126: violation DQC.US.0126.9590 '
        'reported 226150000 expected 216150000*',
        "Senior's diagnosis:",
        "  round 1: accepted - *",
        "FAILED acme.case.yaml::assets-wrong-expected - AuditFlow case*",
    ])
    assert "Traceback" not in result.stdout.str()


def test_numbers_compare_after_normalisation(pytester: pytest.Pytester, af_args) -> None:
    """"(12,500,000)" equals -12500000 and "226,150,000" equals 226150000: no failure for formatting."""
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, RECEIVABLE_OK))
    pytester.runpytest(*af_args).assert_outcomes(passed=2)


def test_an_inject_selector_matching_nothing_says_so(pytester: pytest.Pytester, af_args) -> None:
    case = ASSETS_OK + "    inject:\n      - remove: {concept: us-gaap:Revenues, period: 2024-12-31}\n"
    pytester.makefile(".case.yaml", acme=case_file(case))
    result = pytester.runpytest(*af_args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["Input error of the case: acme.case.yaml:13: inject[0]: selector us-gaap:Revenues "
                                 "@ 2024-12-31 names nothing in the filing: concept us-gaap:Revenues is not in the filing."])


def test_inject_changes_the_audited_filing(pytester: pytest.Pytester, af_args) -> None:
    fixed = """\
  - id: assets-fixed
    query: {concept: us-gaap:Assets, period: 2024-12-31}
    inject:
      - set_value: {concept: us-gaap:Assets, period: 2024-12-31}
        value: "216,150,000"
    expect: {decision: consistent, triggered_rules: [], reported_value: 216150000, expected_value: 216150000}
"""
    pytester.makefile(".case.yaml", acme=case_file(fixed, ASSETS_OK))  # the second case sees the original filing
    pytester.runpytest(*af_args).assert_outcomes(passed=2)


def test_a_case_needing_the_data_root_is_skipped_without_one(pytester: pytest.Pytester, monkeypatch) -> None:
    monkeypatch.setenv("AUDITFLOW_DATA_ROOT", str(pytester.path / "no-such-folder"))
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK + "    requires: [data_root]\n", REVENUE_OK))
    result = pytester.runpytest("--auditflow", "-rs")
    result.assert_outcomes(skipped=1, passed=1)
    result.stdout.fnmatch_lines(["*needs the AuditFlow data root*AUDITFLOW_DATA_ROOT*--auditflow-data-root=DIR*"])
    # the report says, in one line, how many cases were skipped and why
    result.stdout.fnmatch_lines(["AuditFlow: 1 case(s) run (1 skipped), model policy*",
                                 "skipped 1 case(s): needs the AuditFlow data root (real filings, DQC lists), none "
                                 "found: put it at ../shared/data beside the project, *"])


def test_junit_xml_carries_the_case_properties(pytester: pytest.Pytester, af_args) -> None:
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, ASSETS_WRONG))
    pytester.runpytest(*af_args, "--junitxml=junit.xml")
    cases = {tc.get("name"): {p.get("name"): p.get("value") for p in tc.iter("property")}
             for tc in ET.parse(pytester.path / "junit.xml").getroot().iter("testcase")}
    assert cases["assets-calc"]["auditflow.label"] == "A"
    assert cases["assets-calc"]["auditflow.rule"] == "0126"
    assert cases["assets-wrong-expected"]["auditflow.label"] == "C"
    assert cases["assets-wrong-expected"]["auditflow.expected_value"] == "216150000"
    assert cases["assets-wrong-expected"]["auditflow.triggered_rules"] == "DQC.US.0126.9590"
    assert {"auditflow.credibility", "auditflow.cache_hits", "auditflow.cache_misses", "auditflow.decision"} <= set(
        cases["assets-calc"])


def test_last_failed_reruns_only_the_failing_case(pytester: pytest.Pytester, af_args) -> None:
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, ASSETS_WRONG, REVENUE_OK))
    pytester.runpytest(*af_args).assert_outcomes(passed=2, failed=1)
    result = pytester.runpytest(*af_args, "--lf")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["collected 1 item", "run-last-failure: rerun previous 1 failure"])


PLUGGED_MODELS = """
from pathlib import Path

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from auditflow.llm import CacheMissError


def pytest_auditflow_make_models(config, spec, cache_dir, record_mode, case_id, stats):
    if spec == "fake-judge":  # a judge that always answers A
        return lambda role: FakeListChatModel(responses=["A"])
    if spec == "never-recorded":
        def factory(role):
            raise CacheMissError(case_id=case_id, role=role, key="0" * 64, model=spec, mode=record_mode,
                                 reason="no entry", directory=Path(cache_dir))
        return factory
    return None
"""


def test_llm_judge_agreement_is_reported(pytester: pytest.Pytester, af_args) -> None:
    pytester.makeconftest(PLUGGED_MODELS)
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, ASSETS_WRONG))
    result = pytester.runpytest(*af_args, "--auditflow-judge-model=fake-judge", "--auditflow-json=out.json")
    result.assert_outcomes(passed=1, failed=1)  # the deterministic label decides pass/fail
    result.stdout.fnmatch_lines(["LLM judge agrees with the deterministic labels on 1/2 cases (50.0%)"])


def test_a_cache_miss_in_replay_mode_says_how_to_re_record(pytester: pytest.Pytester, af_args) -> None:
    pytester.makeconftest(PLUGGED_MODELS)
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK))
    result = pytester.runpytest(*af_args, "--auditflow-model=never-recorded", "--auditflow-cache-dir=llm-cache")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "AuditFlow case assets-calc (acme.case.yaml:5): LLM cache miss in replay mode*",
        "LLM cache miss in replay mode (record mode none): LLM cache miss for case assets-calc*",
        "*Re-record it (this calls the model) with:",
        f"  pytest --auditflow acme.case.yaml::assets-calc --auditflow-model never-recorded --auditflow-config full "
        f"--auditflow-record-mode new_episodes --auditflow-cache-dir {pytester.path / 'llm-cache'}",
        "then review and commit the cache folder.",
        # nothing of this case is recorded with that model: the hint for a model recorded on an eval subset
        "This case has no call recorded with never-recorded at all. If that model was recorded on an eval subset "
        "row (auditflow eval --configs full+subset=N), replay only those cases with --auditflow-subset N.",
    ])


def test_option_errors_say_what_is_accepted(pytester: pytest.Pytester, af_args) -> None:
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK))
    result = pytester.runpytest(*af_args, "--auditflow-config=fastest")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--auditflow-config 'fastest' is not one of full, single-agent, *"])
    result = pytester.runpytest(*af_args, "--auditflow-min-joint-acc=lots")
    result.stderr.fnmatch_lines(["*--auditflow-min-joint-acc must be a fraction from 0 to 1 like 0.8, or a percentage with % like 80%*"])


COUNTING_MODELS = """
def pytest_auditflow_make_models(config, spec, cache_dir, record_mode, case_id, stats):
    stats.count("hits", key=f"key-of-{case_id}")  # as the LLM cache does for every entry it reads
    stats.count("writes", key="shared-key")
    return None  # then the default (policy) backend runs the case
"""


def test_the_used_cache_keys_are_written_for_a_prune(pytester: pytest.Pytester, af_args) -> None:
    pytester.makeconftest(COUNTING_MODELS)
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, ASSETS_WRONG))
    result = pytester.runpytest(*af_args, "--auditflow-used-keys=keep.json", "--auditflow-json=out.json")
    result.assert_outcomes(passed=1, failed=1)
    keep = json.loads((pytester.path / "keep.json").read_text())
    assert keep == {"used_keys": ["key-of-assets-calc", "key-of-assets-wrong-expected", "shared-key"]}
    result.stdout.fnmatch_lines(["3 used LLM cache keys written to *keep.json (keep them: auditflow cache prune DIR --used*"])
    rows = json.loads((pytester.path / "out.json").read_text())["cases"]
    assert rows and all("cache_keys" not in r for r in rows)  # the results file stays small
