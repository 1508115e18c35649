"""Issue 44, item 3: a typo in a case is an input error of that case, not the model's failure.

A case whose concept, period or member is not in its filing was a failed item labelled S: it inflated the
invalid rate and lowered Joint ACC. Now it is an input error with close matches (the check ``auditflow
audit`` runs, :func:`auditflow.agents.audit.check_query`), reported apart from the labels and counted in
no rate, in the pytest report, the results JSON, the gates and ``auditflow eval``.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from plugin_cases import ASSETS_OK, SAMPLE, case_file, report_block

from auditflow.cases.labels import INPUT, tally
from auditflow.cases.loader import load_case_file
from auditflow.cases.results import baseline_gate
from auditflow.cases.runner import run_case
from auditflow.cases.settings import RunSettings

ASETS = """\
  - id: assets-typo
    query: {concept: us-gaap:Asets, period: 2024-12-31, rule_hint: "0126"}
    expect: {decision: violation}
"""
TYPOS = {  # case snippet -> the close match the error must offer
    "concept": (ASETS, "close matches: us-gaap:Assets"),
    "period": ("  - id: period-typo\n    query: {concept: us-gaap:Assets, period: 2024-12-30}\n"
               "    expect: {decision: violation}\n", "close matches: 2024-12-31"),
    "member": ("  - id: member-typo\n    query:\n      concept: us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax\n"
               "      period: 2024-01-01..2024-12-31\n      dimensions: {srt:ProductOrServiceAxis: acme:WidgetsMembr}\n"
               "    expect: {decision: consistent}\n", "close matches: acme:WidgetsMember"),
}


def test_a_concept_typo_is_an_input_error_with_the_close_match_and_not_in_joint_acc(
        pytester: pytest.Pytester, af_args) -> None:
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, ASETS))
    result = pytester.runpytest(*af_args, "--auditflow-json=results.json")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert "Input error of the case: query us-gaap:Asets @ 2024-12-31: concept us-gaap:Asets is not in the filing; " \
           "close matches: us-gaap:Assets" in out
    assert "label  : none: an input error of the case, not scored" in out and "label  : S" not in out
    report = report_block(out)
    assert "AuditFlow: 1 case(s) run (1 more with an input error)" in report
    assert "input errors: 1 case(s) did not run" in report and "  acme.case.yaml:12 assets-typo" in report
    assert "why not A" not in report  # not a case the model got wrong
    total = [line.split() for line in report.splitlines() if line.strip().startswith("total")][0]
    assert total[1:8] == ["1", "1", "1", "0", "0", "0", "100.0%"]  # n, passed, A, S, E, C, Joint ACC

    doc = json.loads((pytester.path / "results.json").read_text())
    rows = {c["case_id"]: c for c in doc["cases"]}
    assert rows["assets-typo"]["label"] == INPUT and rows["assets-typo"]["cause"] is None
    assert "close matches: us-gaap:Assets" in rows["assets-typo"]["error"]
    total = doc["aggregates"]["total"]
    assert (total["n"], total["S"], total["joint_acc"], total["invalid_rate"], total["input_errors"]) == (1, 0, 1.0, 0.0, 1)
    assert list(doc["aggregates"]["by_rule"]) == ["0126"] and doc["aggregates"]["by_rule"]["0126"]["n"] == 1


@pytest.mark.parametrize("what", sorted(TYPOS))
def test_concept_period_and_member_typos_are_input_errors_of_the_case(what: str, tmp_path: Path) -> None:
    snippet, near = TYPOS[what]
    path = tmp_path / "x.case.yaml"
    path.write_text(case_file(snippet))
    outcome = run_case(load_case_file(path)[0], RunSettings())
    assert outcome.input_error and outcome.error_kind == "input" and outcome.judgement.label == INPUT
    assert near in outcome.error and not outcome.passed and outcome.result is None
    _, total = tally([{"rule": "x", "label": outcome.judgement.label, "verdict_right": False, "passed": False}])
    assert (total.n, total.input_errors, total.joint_acc, total.invalid_rate) == (0, 1, None, None)


def test_an_input_error_is_never_gated_away(pytester: pytest.Pytester, af_args) -> None:
    """Joint ACC leaves the typo out, so the gate passes; the typo still fails the session."""
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, ASETS))
    result = pytester.runpytest(*af_args, "--auditflow-min-joint-acc=1.0")
    out = result.stdout.str()
    assert "gate min-joint-acc: ok - Joint ACC 100.0% >= required 100.0%" in out
    assert result.ret == pytest.ExitCode.TESTS_FAILED and "gates passed" not in out


def test_the_baseline_gate_compares_labels_only_where_both_runs_have_one() -> None:
    base = {"a": {"nodeid": "a", "label": "A", "passed": True}, "b": {"nodeid": "b", "label": "A", "passed": True}}
    now = [{"nodeid": "a", "label": "A", "passed": True}, {"nodeid": "b", "label": INPUT, "passed": False}]
    gate = baseline_gate(now, base, 0.0)
    assert "Joint ACC 100.0% vs baseline 100.0% on 1 shared case(s) (1 with an input error, not compared)" in gate.message
    assert gate.regressed == ("b",)  # still named: it passed before


def test_auditflow_eval_leaves_input_errors_out_of_every_rate(tmp_path: Path) -> None:
    from auditflow.eval.collect import collect_cases
    from auditflow.eval.markdown import render_markdown
    from auditflow.eval.plan import parse_configs
    from auditflow.eval.records import Redactor
    from auditflow.eval.report import build_report, results_document
    from auditflow.eval.runner import run_eval

    (tmp_path / "acme.case.yaml").write_text(case_file(ASSETS_OK, ASETS, filing=SAMPLE))
    cases = collect_cases([tmp_path], display=lambda p: Path(p).name)
    configs = parse_configs("full,no-checks", model="policy")
    run = run_eval(cases.cases, configs, RunSettings(), jobs=1, redact=Redactor())
    report = build_report(run, cases, configs, command="auditflow eval x", seed=1, resamples=50)
    m = results_document(report)["metrics"]["full"]
    assert (m["n"], m["labels"]["S"], m["invalid_outputs"], m["problems"], m["causes"]) == (1, 0, 0, {"input": 1}, {})
    assert m["joint_acc"] == 1.0
    typo = [r for r in run.records["full"] if r.key.endswith("assets-typo")][0]
    assert (typo.label, typo.error_kind, typo.cause) == (INPUT, "input", None)
    assert "close matches: us-gaap:Assets" in typo.error
    assert all(c.result.n == 1 for c in report.comparisons)  # the paired bootstrap leaves it out too
    assert "each is an input error of its case, counted in no rate above" in render_markdown(report)


def test_update_expected_cannot_hide_an_input_error(pytester: pytest.Pytester, af_args) -> None:
    """--auditflow-update-expected passes the cases it rewrites; an input error has nothing to write."""
    path = pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK, ASETS))
    before = path.read_text()
    result = pytester.runpytest(*af_args, "--auditflow-update-expected")
    result.assert_outcomes(passed=1, failed=1)
    assert path.read_text() == before
