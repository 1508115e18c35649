"""FinMR labels for one case, and the suite metrics built from them.

The label follows FinAuditing's FinMR protocol in strict order (docs/metrics.md):

* **S** structural: no valid output (no valid final report, or no result at all);
* **E** the reported (extracted) value is wrong;
* **C** the expected (calculated) value is wrong, with zero tolerance after numeric normalisation,
  or both values are right but the conclusion is not (decision, or the triggered rules the case states);
* **A** all right.

FinMR's gold cases are all violations, so there a wrong conclusion always comes with a wrong expected
value; a suite with consistent and unverifiable cases meets right values beside a wrong decision (a
"violation" with no expected value on a case nothing can verify), and A must not count it. The verdict
(consistent / violation) is also judged on its own, as FinMR's VAcc does. A value the case does not
state is not compared. A case *passes* when nothing it states differs: decision,
triggered rules (as a set), both values, and the tools that must have been called.

Metrics: Joint ACC = A / N, SER/EER/CER = S/E/C over N, VAcc = right verdicts / N, invalid rate
= S / N, where N is every case that ran (FinMR's 67-case denominator; see docs/metrics.md).

A case whose own inputs are wrong (a concept, period or member its filing does not have, a missing
filing, a bad ``inject:``) gets :data:`INPUT` instead of a label: the model never ran, so it is counted
apart (``Tally.input_errors``) and is in none of the rates above.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Iterable, Mapping

from auditflow.agents.reports import AuditResult
from auditflow.cases.model import Expectation
from auditflow.rules.finding import dec_str

LABELS: dict[str, str] = {
    "A": "all right",
    "S": "structural: no valid output",
    "E": "reported value wrong",
    "C": "expected value or conclusion wrong",
}
ORDER = ("A", "S", "E", "C")
INPUT = "input"  # not a FinMR label: an input error of the case itself, never scored (see the module docstring)


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One stated expectation the audit did not meet (values as display strings)."""

    field: str
    expected: str
    actual: str


@dataclass(frozen=True, slots=True)
class Judgement:
    label: str
    verdict_right: bool
    mismatches: tuple[Mismatch, ...] = ()

    @property
    def passed(self) -> bool:
        return self.label not in ("S", INPUT) and not self.mismatches


def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, Decimal):
        return dec_str(value) or "null"
    if isinstance(value, (list, tuple, frozenset, set)):
        return "[" + ", ".join(sorted(map(str, value))) + "]"
    return str(value)


def same_number(a: Decimal | None, b: Decimal | None) -> bool:
    """Zero-tolerance numeric equality of normalised amounts (None equals only None)."""
    return (a is None and b is None) or (a is not None and b is not None and a == b)


def tools_called(result: AuditResult | None) -> frozenset[str]:
    """Tools any auditor ran successfully during the audit."""
    if result is None:
        return frozenset()
    return frozenset().union(*(t.tools_run for t in result.transcripts)) if result.transcripts else frozenset()


def judge(expect: Expectation, result: AuditResult | None) -> Judgement:
    """The deterministic FinMR label, the verdict, and every stated expectation that was not met."""
    if result is None or result.structural_failure:
        return Judgement("S", False, (Mismatch("output", "a valid final report", "none (structural failure)"),))
    out: list[Mismatch] = []
    if result.decision != expect.decision:
        out.append(Mismatch("decision", expect.decision, result.decision))
    if "triggered_rules" in expect.checked and set(result.triggered_rules) != set(expect.triggered_rules):
        out.append(Mismatch("triggered_rules", _show(expect.triggered_rules), _show(result.triggered_rules)))
    label = "A"
    if expect.fact is not None and not same_fact(expect.fact, result.fact):
        # the auditors audited another fact than the question means: a wrong pick, whatever they computed
        out.append(Mismatch("fact", str(expect.fact), _fact_text(result.fact)))
        label = "E"
    for name, wrong in (("reported_value", "E"), ("expected_value", "C")):
        want, got = getattr(expect, name), getattr(result, name)
        if name in expect.checked and not same_number(want, got):
            out.append(Mismatch(name, _show(want), _show(got)))
            label = wrong if label == "A" else label
    if label == "A" and any(m.field in ("decision", "triggered_rules") for m in out):
        label = "C"  # right values, wrong conclusion (see the module docstring)
    missing = [t for t in expect.tools_called if t not in tools_called(result)]
    if missing:
        out.append(Mismatch("tools_called", _show(expect.tools_called), f"missing {', '.join(missing)}"))
    return Judgement(label, result.decision == expect.decision, tuple(out))


def same_fact(want, got: dict | None) -> bool:
    """Whether the audited fact (``AuditResult.fact``) is the one a case names (a FactSelector)."""
    if not got:
        return False
    return (want.concept == got.get("concept") and want.period == got.get("period")
            and dict(want.dimensions) == dict(got.get("dimensions") or {}))


def _fact_text(fact: dict | None) -> str:
    if not fact:
        return "no fact (no checker examined one)"
    dims = "".join(f" [{a}={m}]" for a, m in sorted((fact.get("dimensions") or {}).items()))
    return f"{fact.get('concept')} @ {fact.get('period')}{dims}"


@dataclass
class Tally:
    """Counts for one group of cases (a rule family, or the total)."""

    n: int = 0
    labels: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ORDER, 0))
    verdict_right: int = 0
    passed: int = 0
    judged: int = 0  # cases with an LLM-judge label
    agreed: int = 0  # ... that agree with the deterministic label
    input_errors: int = 0  # cases that did not run for an input error of their own: not in n

    def add(self, row: Mapping[str, Any]) -> None:
        if row["label"] == INPUT:
            self.input_errors += 1
            return
        self.n += 1
        self.labels[row["label"]] = self.labels.get(row["label"], 0) + 1
        self.verdict_right += bool(row.get("verdict_right"))
        self.passed += bool(row.get("passed"))
        if row.get("judge_label"):
            self.judged += 1
            self.agreed += row["judge_label"] == row["label"]

    def rate(self, count: int) -> float | None:
        return count / self.n if self.n else None

    @property
    def joint_acc(self) -> float | None:
        return self.rate(self.labels["A"])

    @property
    def vacc(self) -> float | None:
        return self.rate(self.verdict_right)

    @property
    def invalid_rate(self) -> float | None:
        return self.rate(self.labels["S"])

    def to_json(self) -> dict[str, Any]:
        rates = {f"{k.lower()}_rate": self.rate(v) for k, v in self.labels.items() if k != "A"}
        return {"n": self.n, **self.labels, "passed": self.passed, "verdict_right": self.verdict_right,
                "joint_acc": self.joint_acc, "vacc": self.vacc, "invalid_rate": self.invalid_rate,
                "ser": rates["s_rate"], "eer": rates["e_rate"], "cer": rates["c_rate"],
                "judge_agreement": self.agreed / self.judged if self.judged else None, "judged": self.judged,
                **({"input_errors": self.input_errors} if self.input_errors else {})}  # absent: results unchanged


def tally(rows: Iterable[Mapping[str, Any]]) -> tuple[dict[str, Tally], Tally]:
    """Per rule family (sorted) and total tallies of case rows (``rule``, ``label``, ``verdict_right``...)."""
    by_rule: dict[str, Tally] = {}
    total = Tally()
    for row in rows:
        if row["label"] != INPUT:  # a family is not shown for cases that never ran
            by_rule.setdefault(row["rule"], Tally()).add(row)
        total.add(row)
    return dict(sorted(by_rule.items())), total
