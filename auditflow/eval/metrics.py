"""The paper's metrics for one configuration, from its case records.

The counting is the plugin's (:class:`auditflow.cases.labels.Tally`): every case that ran is in the
denominator N, FinMR's labels in strict order S, E, C, A; Joint ACC = A / N, SER/EER/CER = S/E/C
over N, VAcc = right verdicts / N, per-rule ACC = Joint ACC of a DQC family's cases. A label A does
not need the verdict (FinMR judges it apart), so VAcc is also given on the consistent cases alone:
a model that always answers "violation" has a high VAcc on a violation-only corpus and 0% there.

Added to FinMR's counts:

* **invalid-output rate**: cases in which some auditor emitted at least one output that failed
  validation (a malformed tool call or report, even if it recovered), or no audit result came
  back at all; it includes every S case, and shows how often a backbone needs the validator;
* **means of credibility, rounds and tool calls** over the cases that produced an audit result
  (a cache miss or an input error has none to average).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from statistics import fmean
from typing import Any, Iterable, Sequence

from auditflow.cases.labels import Tally, tally
from auditflow.contract import DECISIONS_REPORTED
from auditflow.eval.causes import CAUSES
from auditflow.eval.records import CACHE_MISS, CRASH, INPUT, CaseRecord
from auditflow.rules.registry import agent_rules

FAMILIES: tuple[str, ...] = tuple(agent_rules())  # the audited families: the registry's agent rules
DECISIONS = DECISIONS_REPORTED
DIGITS = 6  # rates and means in JSON: rounded, so the document does not show float noise


@dataclass(frozen=True)
class ConfigMetrics:
    """One configuration's counts and rates (rates are None when their denominator is 0)."""

    config: str
    protocol: str
    model: str
    total: Tally
    by_rule: dict[str, Tally]
    by_decision: dict[str, Tally]
    invalid_outputs: int = 0
    with_result: int = 0
    mean_credibility: float | None = None
    mean_rounds: float | None = None
    mean_tool_calls: float | None = None
    problems: dict[str, int] = field(default_factory=dict)  # cache_miss / input / crash -> cases
    causes: dict[str, int] = field(default_factory=dict)  # why cases are not A -> cases (causes.CAUSES order)

    @property
    def n(self) -> int:
        return self.total.n

    @property
    def joint_acc(self) -> float | None:
        return self.total.joint_acc

    def rate(self, label: str) -> float | None:
        """SER (``S``), EER (``E``), CER (``C``) or the Joint ACC (``A``)."""
        return self.total.rate(self.total.labels[label])

    @property
    def invalid_rate(self) -> float | None:
        return self.total.rate(self.invalid_outputs)

    def rule_acc(self, rule: str) -> float | None:
        t = self.by_rule.get(rule)
        return t.joint_acc if t else None

    def families(self) -> list[str]:
        return [*FAMILIES, *(r for r in self.by_rule if r not in FAMILIES)]

    def to_json(self) -> dict[str, Any]:
        r = lambda x: None if x is None else round(x, DIGITS)  # noqa: E731
        t = self.total
        return {
            "config": self.config, "protocol": self.protocol, "model": self.model, "n": t.n,
            "labels": dict(t.labels), "passed": t.passed, "verdict_right": t.verdict_right,
            "joint_acc": r(t.joint_acc), "vacc": r(t.vacc), "ser": r(self.rate("S")), "eer": r(self.rate("E")),
            "cer": r(self.rate("C")), "invalid_outputs": self.invalid_outputs, "invalid_rate": r(self.invalid_rate),
            "by_rule": {k: _tally_json(v) for k, v in self.by_rule.items()},
            "by_expected_decision": {k: _tally_json(v) for k, v in self.by_decision.items()},
            "with_result": self.with_result, "mean_credibility": r(self.mean_credibility),
            "mean_rounds": r(self.mean_rounds), "mean_tool_calls": r(self.mean_tool_calls),
            "problems": dict(self.problems), "causes": dict(self.causes),
        }


def _tally_json(t: Tally) -> dict[str, Any]:
    r = lambda x: None if x is None else round(x, DIGITS)  # noqa: E731
    return {"n": t.n, "labels": dict(t.labels), "verdict_right": t.verdict_right, "passed": t.passed,
            "joint_acc": r(t.joint_acc), "vacc": r(t.vacc)}


def _mean(values: Iterable[float | int | None]) -> float | None:
    xs = [float(v) for v in values if v is not None]
    return fmean(xs) if xs else None


def config_metrics(config: str, protocol: str, model: str, records: Sequence[CaseRecord]) -> ConfigMetrics:
    """The metrics of one configuration's records (see the module docstring for the definitions)."""
    by_rule, total = tally(r.row() for r in records)
    by_decision: dict[str, Tally] = {}
    for d in [*DECISIONS, *sorted({r.expected_decision for r in records} - set(DECISIONS))]:
        rows = [r.row() for r in records if r.expected_decision == d]
        if rows or d in DECISIONS[:2]:  # violation and consistent always shown, even at n = 0
            by_decision[d] = tally(rows)[1]
    ran = [r for r in records if r.has_result]
    problems = {k: sum(r.error_kind == k for r in records) for k in (CACHE_MISS, INPUT, CRASH)}
    return ConfigMetrics(
        config, protocol, model, total, by_rule, by_decision,
        invalid_outputs=sum(r.invalid_output for r in records), with_result=len(ran),
        mean_credibility=_mean(r.credibility for r in ran), mean_rounds=_mean(r.rounds for r in ran),
        mean_tool_calls=_mean(r.tool_calls for r in ran), problems={k: v for k, v in problems.items() if v},
        causes=cause_counts(r.cause for r in records))


def cause_counts(causes: Iterable[str | None]) -> dict[str, int]:
    """Cases per cause of not being A (None: an A case), in the order of
    :data:`auditflow.eval.causes.CAUSES`, only those seen (the eval table and the pytest report share it)."""
    seen = [c for c in causes if c is not None]
    order = [*CAUSES, *sorted(set(seen) - set(CAUSES))]
    return {c: seen.count(c) for c in order if c in seen}
