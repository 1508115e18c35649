"""The case engine without pytest: filings, inject selectors, FinMR labels and metrics, rewrites, judge."""
from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from auditflow.agents.reports import AuditResult
from auditflow.cases import CaseInputError, Expectation, FactSelector, RunSettings, judge, load_case_file, run_case, tally
from auditflow.cases.filings import resolve_filing
from auditflow.graphs.factory import shared_environment
from auditflow.cases.inject import resolve_selector
from auditflow.cases.judge_llm import judge_prompt, parse_label
from auditflow.cases.labels import INPUT
from auditflow.cases.results import baseline_gate, min_joint_acc_gate
from auditflow.cases.rewrite import rewrite_expectations

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "auditflow" / "samples" / "acme-10k-2024" / "xml"


def _result(decision="violation", rules=("DQC.US.0126.9590",), reported="226150000", expected="216150000",
            structural=False) -> AuditResult:
    return AuditResult(query={}, config="full", decision=decision, triggered_rules=rules, reported_value=reported,
                       expected_value=expected, evidence_path=(), credibility=1.0, conflict=0.0, bel=1.0, pl=1.0,
                       betp=1.0, rounds=1, structural_failure=structural)


EXPECT = Expectation("violation", ("DQC.US.0126.9590",), Decimal(226150000), Decimal(216150000), (),
                     frozenset({"decision", "triggered_rules", "reported_value", "expected_value"}))


@pytest.mark.parametrize(("result", "label", "verdict", "passed"), [
    (_result(), "A", True, True),
    (_result(reported="-226,150,000"), "E", True, False),
    (_result(expected="216150000.5"), "C", True, False),
    (_result(reported="1", expected="2"), "E", True, False),  # strict order: E before C
    (_result(decision="consistent", rules=()), "C", False, False),  # values right, conclusion wrong: not A
    (_result(rules=("DQC.US.0126.1",)), "C", True, False),  # right verdict and values, another rule
    (_result(structural=True), "S", False, False),
    (None, "S", False, False),
])
def test_finmr_labels(result, label: str, verdict: bool, passed: bool) -> None:
    j = judge(EXPECT, result)
    assert (j.label, j.verdict_right, j.passed) == (label, verdict, passed)


def test_metrics_follow_finmr() -> None:
    rows = [{"rule": "0015", "label": "A", "verdict_right": True, "passed": True},
            {"rule": "0015", "label": "C", "verdict_right": True, "passed": False, "judge_label": "C"},
            {"rule": "0126", "label": "S", "verdict_right": False, "passed": False, "judge_label": "A"},
            {"rule": "0126", "label": "A", "verdict_right": True, "passed": True}]
    by_rule, total = tally(rows)
    assert (total.joint_acc, total.vacc, total.invalid_rate) == (0.5, 0.75, 0.25)
    assert total.to_json()["cer"] == 0.25 and total.to_json()["judge_agreement"] == 0.5
    assert by_rule["0015"].joint_acc == 0.5 and list(by_rule) == ["0015", "0126"]
    assert min_joint_acc_gate(total, 0.5).ok and not min_joint_acc_gate(total, 0.6).ok


def test_baseline_gate_compares_shared_cases_only() -> None:
    base = {"a": {"label": "A", "passed": True}, "b": {"label": "C", "passed": False}, "gone": {"label": "A"}}
    now = [{"nodeid": "a", "label": "C", "passed": False}, {"nodeid": "b", "label": "A", "passed": True},
           {"nodeid": "new", "label": "A", "passed": True}]
    gate = baseline_gate(now, base, 0.0)
    assert gate.ok and gate.regressed == ("a",)  # one better, one worse: no net drop, but named
    assert "(1 baseline case(s) not run)" in gate.message


def test_filings_resolve_by_path_name_and_accession(data_root: Path, tmp_path: Path) -> None:
    assert resolve_filing(str(SAMPLE), case_dir=tmp_path, data_root=None) == SAMPLE
    assert resolve_filing("aapl-10k-2023-09-30", case_dir=tmp_path, data_root=data_root).name == "aapl-10k-2023-09-30"
    assert resolve_filing("0000320193-23-000106", case_dir=tmp_path, data_root=data_root).name == "aapl-10k-2023-09-30"
    with pytest.raises(CaseInputError, match="never downloads"):
        resolve_filing("0000000000-00-000000", case_dir=tmp_path, data_root=data_root)
    with pytest.raises(CaseInputError, match="no data root"):
        resolve_filing("aapl-10k-2023-09-30", case_dir=tmp_path, data_root=None)


def test_selectors_resolve_to_one_fact_key() -> None:
    env = shared_environment(SAMPLE)
    assert resolve_selector(env, FactSelector("us-gaap:Assets", "2024-12-31")) == "f-bs-13"
    # NetIncomeLoss FY2024 is reported twice with the same value: one number, mutated together
    assert resolve_selector(env, FactSelector("us-gaap:NetIncomeLoss", "2024-01-01..2024-12-31")) == "f-is-17"
    widgets = (("srt:ProductOrServiceAxis", "acme:WidgetsMember"),)
    key = resolve_selector(env, FactSelector("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
                                             "2024-01-01..2024-12-31", widgets))
    assert key == "f-is-01"
    with pytest.raises(ValueError, match="matches no fact"):
        resolve_selector(env, FactSelector("us-gaap:Goodwill", "2024-01-01..2024-12-31"))
    with pytest.raises(ValueError, match="names nothing in the filing"):
        resolve_selector(env, FactSelector("us-gaap:Revenues", "2024-12-31"))


def test_inject_works_on_a_copy_and_runs_are_deterministic(tmp_path: Path, data_root: Path) -> None:
    f = tmp_path / "x.case.yaml"
    f.write_text(f"auditflow: 1\ndefaults: {{filing: {SAMPLE}}}\ncases:\n"
                 "  - id: fixed\n    query: {concept: us-gaap:Assets, period: 2024-12-31}\n"
                 "    inject: [{set_value: f-bs-13, value: '216150000'}]\n"
                 "    expect: {decision: consistent, expected_value: 216150000}\n"
                 "  - id: bad-key\n    query: {concept: us-gaap:Assets, period: 2024-12-31}\n"
                 "    inject: [{flip_sign: f-bs-99}]\n    expect: {decision: consistent}\n")
    fixed, bad = load_case_file(f, display="x.case.yaml")
    settings = RunSettings(data_root=data_root)
    first, second = run_case(fixed, settings), run_case(fixed, settings)
    assert first.passed and first.result.canonical_json() == second.result.canonical_json()
    assert shared_environment(SAMPLE).filing.fact_by_key("f-bs-13").value == "226150000"  # untouched
    failed = run_case(bad, settings)
    assert failed.error_kind == "input" and failed.judgement.label == INPUT and failed.input_error  # not scored
    assert failed.error.startswith("x.case.yaml:10: inject[0]: flip_sign: no fact with key 'f-bs-99'")
    assert "Close matches among the fact keys: f-bs-29, f-bs-19, f-bs-09" in failed.error


def test_rewrite_keeps_comments_and_style(tmp_path: Path) -> None:
    f = tmp_path / "x.case.yaml"
    f.write_text("auditflow: 1\ncases:\n  - id: a  # first\n    expect: {decision: consistent}  # flow\n"
                 "  - id: b\n    expect:\n      decision: violation   # block\n      reported_value: '1'\n"
                 "    tags: [t]\n")
    new = {"decision": "violation", "triggered_rules": ["DQC.US.0015.2944"], "reported_value": "-5",
           "expected_value": None}
    assert rewrite_expectations(f, {0: new, 1: new}) == 2
    assert f.read_text() == (
        "auditflow: 1\ncases:\n  - id: a  # first\n"
        '    expect: {decision: violation, triggered_rules: [DQC.US.0015.2944], reported_value: "-5", '
        "expected_value: null}  # flow\n"
        '  - id: b\n    expect:\n      decision: violation\n      triggered_rules: [DQC.US.0015.2944]\n'
        '      reported_value: "-5"\n      expected_value: null\n    tags: [t]\n')


def test_llm_judge_prompt_and_label() -> None:
    template = 'true = {true_answer}\npred = {pred_answer}\nExample: {"extracted_value": "1"}'
    text = judge_prompt(template, EXPECT, _result(reported="-5"))
    assert 'true = {"extracted_value": "226150000", "calculated_value": "216150000"}' in text
    assert 'pred = {"extracted_value": "-5", "calculated_value": "216150000"}' in text
    assert 'Example: {"extracted_value": "1"}' in text
    assert judge_prompt(template, EXPECT, None).splitlines()[1] == 'pred = {"error": "no valid final report"}'
    assert [parse_label(t) for t in ("A", " C\n", "Output: E", "label S.", "none")] == ["A", "C", "E", "S", None]
