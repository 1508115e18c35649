"""Reports and the AuditResult artifact: deterministic JSON, round trips, and the final-report gate."""
from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest

from auditflow.agents.fusion import FusionInput, fuse_reports
from auditflow.agents.reports import (
    JUNIOR_REPORT_SCHEMA, AgentTranscript, AuditResult, EvidenceStep, JuniorReport, SeniorReview, ToolCall,
    TranscriptStep, fusion_input, parse_junior_report,
)
from auditflow.contract import InvalidReportError, normalise_number
from auditflow.env.query import AuditQuery
from auditflow.errors import AuditflowError

CALC = EvidenceStep("check_calc_tree", {"concept": "us-gaap:Assets", "period": "2024-12-31"},
                    "sum of children 1200 != 1234", ("f:assets", "f:cash"))
SIGN = EvidenceStep("check_sign", {"concept": "us-gaap:Assets"}, "sign ok", ("f:assets",))
HISTORY = EvidenceStep("get_fact_history", {"concept": "us-gaap:Assets"}, "3 periods", ("f:assets-2023",))


def _report(role="A1", **kw) -> JuniorReport:
    base = dict(role=role, decision="violation", triggered_rules=("DQC.US.0126.9590",),
                reported_value=Decimal("1234"), expected_value=Decimal("1200"), confidence=0.8,
                evidence_path=(CALC, SIGN), rationale="children do not add up")
    return JuniorReport(**{**base, **kw})


def _result(**kw) -> AuditResult:
    reports = (_report("A1"), _report("A2", confidence=0.7))
    fusion = fuse_reports([fusion_input(r) for r in reports], "violation")
    step = TranscriptStep("tool_call", tool_call=ToolCall("check_calc_tree", {"concept": "us-gaap:Assets"},
                                                          {"outcome": "violation", "expected": Decimal("1200")}))
    transcript = AgentTranscript.from_rounds("A1", [[step, TranscriptStep("refused_final", "missing check_sign")],
                                                    [TranscriptStep("final_report", "{...}")]])
    base = dict(
        query=AuditQuery("acme-10k-2024", "us-gaap:Assets", "2024-12-31", rule_hint="0126", case_id="c1"),
        config="full", decision=fusion.decision, triggered_rules=("DQC.US.0126.9590",),
        reported_value=Decimal("1234"), expected_value=Decimal("1.2E+3"), evidence_path=(CALC,),
        credibility=fusion.credibility, conflict=fusion.conflict, bel=fusion.bel, pl=fusion.pl, betp=fusion.betp,
        rounds=2, reports=reports, reviews=(SeniorReview(1, False, "wrong_period", {"A2": "use FY2024"}),
                                            SeniorReview(2, True)),
        transcripts=(transcript,), fusion=fusion, timings={"total_s": 12.3456789, "llm_s": 10.0},
    )
    return AuditResult(**{**base, **kw})


# --- Round trips and determinism ---------------------------------------------------------------------

@pytest.mark.parametrize("obj", [
    CALC, _report(), SeniorReview(1, False, "missing_fact", {"A1": "look up Cash", "A2": "ok"}),
    ToolCall("get_fact", {"concept": "us-gaap:Cash"}, {"value": "5"}, None, "call-1"),
    AgentTranscript.from_rounds("A2", [[TranscriptStep("message", "hi")], [TranscriptStep("invalid_output", "x")]]),
], ids=lambda o: type(o).__name__)
def test_round_trip(obj):
    again = type(obj).from_json(json.loads(json.dumps(obj.to_json())))
    assert again == obj
    assert again.to_json() == obj.to_json()


def test_audit_result_round_trip_keeps_timings_out_of_equality():
    r = _result()
    again = AuditResult.from_json(json.loads(json.dumps(r.to_json(include_timings=True))))
    assert again == r
    assert again.timings == {"total_s": 12.345679, "llm_s": 10.0}
    assert again.canonical_json() == r.canonical_json()
    assert AuditResult.from_json(r.to_json()).timings == {}


def test_timings_are_excluded_from_comparisons():
    a, b = _result(timings={"total_s": 1.0}), _result(timings={"total_s": 99.0})
    assert a == b
    assert a.canonical_json() == b.canonical_json()
    assert "timings" not in a.to_json() and "timings" not in a.canonical_json()
    assert a.to_json(include_timings=True)["timings"] == {"total_s": 1.0}


def test_canonical_json_is_byte_stable_and_plain():
    text = _result().canonical_json()
    assert text == _result().canonical_json()
    assert text == json.dumps(json.loads(text), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    obj = json.loads(text)
    assert obj["expected_value"] == "1200" and obj["reported_value"] == "1234"  # no exponent
    assert obj["query"]["case_id"] == "c1" and obj["query"]["concept"] == "us-gaap:Assets"
    assert obj["interval"] == [obj["bel"], obj["pl"]]
    assert obj["transcripts"][0]["rounds"][0][0]["tool_call"]["result"]["expected"] == "1200"
    assert obj["fusion"]["decision"] == "violation"


def test_results_are_hashable_and_accept_a_query_as_json():
    r = _result()
    assert hash(r) == hash(_result(timings={"other": 1.0}))
    assert _result(query=r.query) == r


def test_floats_are_rounded_to_six_decimals():
    r = _result(credibility=0.123456789, conflict=1 / 3)
    assert (r.credibility, r.conflict) == (0.123457, 0.333333)
    assert re.search(r"\d\.\d{7,}", r.canonical_json()) is None


def test_non_ascii_text_survives_canonical_json():
    r = _result(reports=(_report(rationale="Θ — ignorance"),))
    assert "Θ — ignorance" in r.canonical_json()


def test_transcript_counts_and_tools_run():
    t = _result().transcripts[0]
    assert (t.tool_calls, t.invalid_outputs, t.refused_finals) == (1, 0, 1)
    assert t.tools_run == frozenset({"check_calc_tree"})


def test_rule_codes_are_a_sorted_set():
    r = _report(triggered_rules=("DQC.US.0126.9590", "DQC.US.0015.2944", "DQC.US.0126.9590"))
    assert r.triggered_rules == ("DQC.US.0015.2944", "DQC.US.0126.9590")


def test_bad_decisions_and_conflict_sources_are_rejected():
    with pytest.raises(InvalidReportError, match="decision must be one of"):
        _report(decision="maybe")
    with pytest.raises(ValueError, match="conflict_source"):
        SeniorReview(1, False, "bad_luck")
    with pytest.raises(ValueError, match="not 'incomplete_calculation_neighbourhood'"):
        SeniorReview(1, False, "incomplete_calculation_neighbourhood", different_facts=True)
    with pytest.raises(ValueError, match="decision"):
        _result(decision="probably")


def test_a_review_says_two_facts_differ_only_when_they_did_and_its_json_says_so_only_then():
    guessed = SeniorReview(2, False, "wrong_period", reason="reported values differ: likely a different period")
    seen = SeniorReview(2, False, "wrong_period", different_facts=True)
    assert not guessed.names_different_facts and seen.names_different_facts
    assert "different_facts" not in guessed.to_json() and seen.to_json()["different_facts"] is True
    assert SeniorReview.from_json(seen.to_json()) == seen and SeniorReview.from_json(guessed.to_json()) == guessed


# --- Numbers as models write them --------------------------------------------------------------------

@pytest.mark.parametrize("raw, expected", [
    ("1,234", "1234"), ("(1,234)", "-1234"), ("$1,234", "1234"), ("-1234.0", "-1234"),
    ("($1,234.50)", "-1234.5"), ("-$1,234", "-1234"), ("$-1,234", "-1234"), ("1,234,567.89", "1234567.89"),
    ("USD 1,000", "1000"), ("1,000 USD", "1000"), (" 42 ", "42"), ("\u22127", "-7"), ("+5", "5"),
    ("1.5E3", "1500"), ("0.000", "0"), ("-0", "0"), (".5", "0.5"), (1234, "1234"), (-12.5, "-12.5"),
    (Decimal("1.20E+3"), "1200"),
])
def test_normalise_number(raw, expected):
    assert normalise_number(raw) == Decimal(expected)
    assert str(normalise_number(raw)) == expected


@pytest.mark.parametrize("raw", [None, "", "null", "N/A", "none"])
def test_normalise_number_no_value(raw):
    assert normalise_number(raw) is None


@pytest.mark.parametrize("raw, match", [
    ("abc", "not a number"), ("1,23", "not a number"), ("12,34,567", "not a number"), ("$", "not a number"),
    ("()", "not a number"), ("NaN", "not a number"), ("Infinity", "not a number"), ("1.2.3", "not a number"),
    ("--5", "more than one minus"), ("(-5)", "more than one minus"), (True, "boolean"),
    (float("inf"), "finite"), ([1], "expected a number"),
])
def test_normalise_number_rejects(raw, match):
    with pytest.raises(InvalidReportError, match=match):
        normalise_number(raw)


# --- The final-report gate ---------------------------------------------------------------------------

def _final(**kw) -> dict:
    base = {"decision": "violation", "triggered_rules": ["DQC.US.0126.9590"], "reported_value": "(1,234)",
            "expected_value": "$1,200", "confidence": 0.9, "evidence": ["f:assets"], "rationale": "calc"}
    return {**base, **kw}


def test_parse_a_valid_report_and_build_its_evidence_path():
    r = parse_junior_report(_final(), "A1", steps=(SIGN, HISTORY, CALC))
    assert (r.role, r.decision, r.triggered_rules) == ("A1", "violation", ("DQC.US.0126.9590",))
    assert (r.reported_value, r.expected_value, r.confidence) == (Decimal(-1234), Decimal(1200), 0.9)
    assert [s.tool for s in r.evidence_path] == ["check_sign", "check_calc_tree", "final_report"]
    assert r.evidence_path[-1].facts == ("f:assets",)


def test_parse_is_lenient_on_spelling_not_on_meaning():
    r = parse_junior_report(_final(decision="Unable to verify", triggered_rules=[], reported_value=None,
                                   expected_value=1200, confidence="0.5", evidence=[]), "A2")
    assert (r.decision, r.expected_value, r.confidence, r.evidence_path) == ("unable_to_verify", 1200, 0.5, ())


@pytest.mark.parametrize("change, message", [
    ({"decision": "maybe"}, "decision must be one of consistent, violation, unable_to_verify, got 'maybe'"),
    ({"triggered_rules": ["0126"]}, "full codes as the checkers return them (DQC.US.<rule>.<number>), got '0126'"),
    ({"triggered_rules": "DQC.US.0126.9590"}, "triggered_rules must be a list"),
    ({"triggered_rules": []}, "decision is violation but triggered_rules is empty"),
    ({"decision": "consistent"}, "decision is consistent but triggered_rules is not empty"),
    ({"confidence": 1.5}, "confidence must be a number between 0 and 1, got 1.5"),
    ({"confidence": True}, "confidence must be a number between 0 and 1"),
    ({"confidence": "1.2.3"}, "confidence must be a number between 0 and 1, got '1.2.3'"),
    ({"confidence": "high"}, "confidence must be a number between 0 and 1, got 'high'"),
    ({"confidence": float("nan")}, "confidence must be a number between 0 and 1"),
    ({"expected_value": "about 1200"}, "expected_value: 'about 1200' is not a number"),
    ({"evidence": "f:assets"}, "evidence must be a list of fact handles"),
    ({"rationale": 3}, "rationale must be a string"),
    ({"verdict": "violation"}, "unknown field 'verdict'"),
])
def test_invalid_reports_are_rejected_with_clear_messages(change, message):
    with pytest.raises(InvalidReportError) as exc:
        parse_junior_report(_final(**change), "A1")
    assert message in str(exc.value)
    assert str(exc.value).startswith("invalid final report from A1: ")
    assert "Call the final-report tool again" in str(exc.value)
    assert isinstance(exc.value, AuditflowError) and exc.value.role == "A1"


def test_missing_fields_are_named_once_and_all_problems_reported_together():
    with pytest.raises(InvalidReportError) as exc:
        parse_junior_report({"decision": "violation", "confidence": 2}, "A2")
    problems = exc.value.problems
    assert "missing field 'triggered_rules'" in problems and "missing field 'evidence'" in problems
    assert not any("decision must be" in p for p in problems)
    assert any("confidence" in p for p in problems)


def test_non_object_report_is_rejected():
    with pytest.raises(InvalidReportError, match="must be a JSON object, got list"):
        parse_junior_report(["violation"], "A1")


def test_schema_and_parser_agree():
    props, required = JUNIOR_REPORT_SCHEMA["properties"], JUNIOR_REPORT_SCHEMA["required"]
    assert props["decision"]["enum"] == ["consistent", "violation", "unable_to_verify"]
    assert re.match(props["triggered_rules"]["items"]["pattern"], "DQC.US.0117.9551")
    assert not re.match(props["triggered_rules"]["items"]["pattern"], "DQC.US.117.1")
    assert set(required) <= set(props) and JUNIOR_REPORT_SCHEMA["additionalProperties"] is False
    for key in required:
        with pytest.raises(InvalidReportError, match=f"missing field '{key}'"):
            parse_junior_report({k: v for k, v in _final().items() if k != key}, "A1")
    assert parse_junior_report({k: v for k, v in _final().items() if k != "rationale"}, "A1").rationale == ""


# --- From reports to fusion --------------------------------------------------------------------------

def test_fusion_input_names_the_skipped_required_tools():
    required = ("check_calc_tree", "check_dim_consistency", "check_sign", "get_fact_history")
    fi = fusion_input(_report("A2"), required_tools=required)
    assert fi == FusionInput("A2", "violation", 0.8, 1.0, ("check_dim_consistency", "get_fact_history"))
    ran = fusion_input(_report("A2"), required_tools=required, tools_run=required)
    assert ran.skipped_tools == ()
