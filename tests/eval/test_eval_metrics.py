"""Metrics of ``auditflow eval`` on hand-made records: every number exact."""
from __future__ import annotations

import pytest

from auditflow.eval.metrics import config_metrics
from auditflow.eval.records import CaseRecord, Redactor


def rec(key: str, rule: str, expected: str, label: str, verdict: bool, *, passed: bool | None = None,
        credibility: float | None = 0.9, rounds: int | None = 1, tools: int | None = 8, invalid: bool = False,
        error_kind: str | None = None) -> CaseRecord:
    has = error_kind is None
    return CaseRecord(key, rule, expected, label, verdict, label == "A" and verdict if passed is None else passed,
                      decision=(expected if verdict else "other") if has else None,
                      credibility=credibility if has else None, rounds=rounds if has else None,
                      tool_calls=tools if has else None, invalid_output=invalid or not has, error_kind=error_kind,
                      error="boom" if error_kind else None)


RECORDS = (
    rec("a", "0015", "violation", "A", True, credibility=1.0, rounds=1, tools=9),
    rec("b", "0015", "violation", "C", True, credibility=0.5, rounds=2, tools=12),
    rec("c", "0117", "consistent", "A", False, credibility=0.25, rounds=2, tools=10, invalid=True),
    rec("d", "0126", "consistent", "A", True, credibility=0.75, rounds=1, tools=9),
    rec("e", "0126", "violation", "E", True, credibility=0.5, rounds=1, tools=6),
    rec("f", "0126", "violation", "S", False, error_kind="cache_miss"),
    rec("g", "0126", "violation", "S", False, credibility=0.0, rounds=2, tools=3, invalid=True),
    rec("h", "other", "violation", "A", True, credibility=1.0, rounds=1, tools=8),
)


def test_rates_and_counts_are_exact() -> None:
    m = config_metrics("full", "full", "policy", RECORDS)
    assert m.n == 8
    assert m.total.labels == {"A": 4, "S": 2, "E": 1, "C": 1}
    assert (m.joint_acc, m.rate("S"), m.rate("E"), m.rate("C")) == (0.5, 0.25, 0.125, 0.125)
    assert m.total.vacc == 5 / 8
    assert m.invalid_outputs == 3 and m.invalid_rate == 0.375  # c (recovered), f (no result), g (structural)
    assert {k: (t.n, t.labels["A"]) for k, t in m.by_rule.items()} == {
        "0015": (2, 1), "0117": (1, 1), "0126": (4, 1), "other": (1, 1)}
    assert (m.rule_acc("0015"), m.rule_acc("0117"), m.rule_acc("0126")) == (0.5, 1.0, 0.25)
    assert m.families() == ["0015", "0117", "0126", "other"]


def test_consistent_cases_have_their_own_vacc() -> None:
    """A label A does not need the verdict: the consistent cases' VAcc shows an "always violation" model."""
    m = config_metrics("full", "full", "policy", RECORDS)
    cons = m.by_decision["consistent"]
    assert (cons.n, cons.verdict_right, cons.vacc, cons.joint_acc) == (2, 1, 0.5, 1.0)
    assert m.by_decision["violation"].n == 6 and "unable_to_verify" not in m.by_decision


def test_means_skip_cases_without_a_result() -> None:
    m = config_metrics("full", "full", "policy", RECORDS)
    assert m.with_result == 7
    assert m.mean_credibility == pytest.approx((1.0 + 0.5 + 0.25 + 0.75 + 0.5 + 0.0 + 1.0) / 7)
    assert m.mean_rounds == pytest.approx(10 / 7) and m.mean_tool_calls == pytest.approx(57 / 7)
    assert m.problems == {"cache_miss": 1}


def test_json_is_rounded_and_complete() -> None:
    doc = config_metrics("no-checks", "no-checks", "local:x", RECORDS).to_json()
    assert doc["joint_acc"] == 0.5 and doc["vacc"] == 0.625 and doc["ser"] == 0.25 and doc["eer"] == 0.125
    assert doc["mean_rounds"] == 1.428571 and doc["invalid_rate"] == 0.375
    assert doc["by_expected_decision"]["consistent"]["vacc"] == 0.5
    assert doc["by_rule"]["0126"] == {"n": 4, "labels": {"A": 1, "S": 2, "E": 1, "C": 0}, "verdict_right": 2,
                                      "passed": 1, "joint_acc": 0.25, "vacc": 0.5}


def test_no_cases_gives_no_rates() -> None:
    m = config_metrics("full", "full", "policy", ())
    assert (m.n, m.joint_acc, m.invalid_rate, m.mean_credibility) == (0, None, None, None)
    assert m.by_decision["consistent"].n == 0


def test_redactor_replaces_the_longest_folder_first() -> None:
    redact = Redactor.of(rootdir="/w/repo", cache_dir="/w/repo/.auditflow-cache", data_root=None)
    assert redact("miss in /w/repo/.auditflow-cache for /w/repo/cases/x") == "miss in <cache_dir> for <rootdir>/cases/x"
