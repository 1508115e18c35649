"""The auditors' behaviour analysis (auditflow.eval.behaviour, ``auditflow eval --behaviour``).

Unit checks of what a transcript reduces to, then the option end to end on the bundled sample's
recorded full-protocol run: the Compliance auditor has no dynamic tool, the table and the chart are
written, and without the option results.md is what it always was.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditflow.agents.reports import AgentTranscript, ToolCall, TranscriptStep
from auditflow.cli.main import main
from auditflow.eval.behaviour import behaviour_markdown, behaviour_rows, kind_of, transcript_behaviour

REPO = Path(__file__).resolve().parents[2]


def _t(role: str, *rounds: list[str]) -> AgentTranscript:
    steps = [[TranscriptStep("tool_call", tool_call=ToolCall(name)) for name in r] + [TranscriptStep("final_report")]
             for r in rounds]
    return AgentTranscript.from_rounds(role, steps)


def test_tools_are_static_dynamic_or_checks_in_every_tool_set():
    assert [kind_of(n) for n in ("search_concepts", "get_calc_children", "resolve_period", "find_facts",
                                 "get_fact_history", "check_sign", "final_report")] == [
        "static", "static", "static", "dynamic", "dynamic", "check", None]


def test_evidence_first_checks_last_is_read_from_the_first_round():
    ordered, first, mixed = transcript_behaviour([
        _t("forensic", ["get_fact_history", "check_sign", "check_calc_tree"], ["find_facts"]),
        _t("compliance", ["check_sign", "get_concept"]),
        _t("single", ["get_fact_history", "check_sign", "find_facts", "check_calc_tree"]),
    ])
    assert ordered.evidence_first_checks_last and ordered.calls_before_check == 1
    assert ordered.kinds == ("dynamic", "check", "check", "dynamic")  # shares count every round
    assert not first.evidence_first_checks_last and first.calls_before_check == 0
    assert not mixed.evidence_first_checks_last and mixed.calls_before_check == 1
    (never,) = transcript_behaviour([_t("herculean", ["find_facts", "get_calc_children"])])
    assert not never.evidence_first_checks_last and never.calls_before_check is None


def test_rows_count_shares_and_means_per_role():
    found = {"full": transcript_behaviour([_t("compliance", ["get_concept", "check_sign"]),
                                           _t("forensic", ["find_facts", "get_fact_history", "check_sign"]),
                                           _t("compliance", ["check_sign"])])}
    compliance, forensic = behaviour_rows(found, ["full"])
    assert (compliance.role, compliance.transcripts, compliance.calls, compliance.static, compliance.check) == (
        "compliance", 2, 3, 1, 2)
    assert compliance.ordered == 1 and compliance.mean_before_check == 0.5
    assert forensic.dynamic == 2 and forensic.ordered_share == 1.0 and forensic.mean_before_check == 2.0
    table = behaviour_markdown([compliance, forensic])
    assert "| full | compliance | 2 | 3 | 33.3% | 0.0% | 66.7% | 50.0% (1) | 0.50 (2) |" in table


def _eval(out: Path, data_root: Path, *extra: str) -> str:
    code = main(["eval", "cases/acme-sample.case.yaml", "--configs", "full", "--model", "local:qwen2.5-coder-1.5b",
                 "--bootstrap", "100", "--out", str(out), "--data-root", str(data_root), "--jobs", "1", *extra])
    assert code == 0
    return (out / "results.md").read_text(encoding="utf-8")


def test_eval_behaviour_on_the_recorded_sample(tmp_path, data_root, monkeypatch):
    monkeypatch.chdir(REPO)
    plain = _eval(tmp_path / "plain", data_root, "--no-charts")
    assert "Auditors' behaviour" not in plain and not (tmp_path / "plain" / "behaviour.json").exists()
    text = _eval(tmp_path / "with", data_root, "--behaviour")
    assert text.startswith(plain.split("\n", 4)[0]) and "--behaviour" in text.split("```")[1]
    rows = {r["role"]: r for r in json.loads((tmp_path / "with" / "behaviour.json").read_text())["rows"]}
    assert set(rows) == {"compliance", "forensic"}
    assert rows["compliance"]["dynamic"] == 0 and rows["compliance"]["check"] > 0  # no filing tool to call
    assert rows["forensic"]["dynamic"] > 0
    assert "| full | compliance |" in text and "| full | forensic |" in text
    pytest.importorskip("matplotlib")
    assert (tmp_path / "with" / "behaviour.png").read_bytes()[:4] == b"\x89PNG"
