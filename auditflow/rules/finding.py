"""The shape of what a DQC rule reports, shared by 0015, 0117 and 0126.

Three outcomes are kept apart on purpose: a *violation*, a check that ran and was *consistent*, and a
check that was *not applicable* (no total, out of scope, missing data). Merging "not applicable" into
"consistent" would let a filing pass a rule that never looked at it.

Everything is frozen so that results can be cached, compared in tests and shared between threads,
and ``to_json`` output is deterministic (sorted keys, plain decimal strings) so that reports diff cleanly.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Callable, Union

from auditflow.xbrl.model import Decimals, Member, Period, plain_decimal
from auditflow.xbrl.numbers import usable
from auditflow.xbrl.qname import QName

Dimensions = tuple[tuple[QName, Member], ...]


class Outcome(str, enum.Enum):
    VIOLATION = "violation"
    CONSISTENT = "consistent"  # checked and consistent
    NOT_APPLICABLE = "not_applicable"  # no total, out of scope, missing data...


def dec_str(d: Decimal | None) -> str | None:
    """A Decimal as a plain string without exponent: ``-1.25E+4`` -> ``"-12500"``, ``1.50`` -> ``"1.5"``.

    Reports are read by people and diffed by tools; scientific notation serves neither.
    """
    if d is None:
        return None
    if not d.is_finite():
        return str(d)
    return plain_decimal(d)


def dec_display(d: Decimal) -> str:
    """A Decimal for a message: thousands separators, the reported digits, never an exponent
    (except for a number beyond the bounds of :mod:`auditflow.xbrl.numbers`, which would print as
    a billion digits)."""
    return format(d, ",f") if usable(d) else str(d)


def display_amount(value: Any) -> str:
    """A JSON amount (a plain decimal string) for a reader, as :func:`dec_display` writes it; text as
    is; empty for None."""
    if value is None:
        return ""
    try:
        number = Decimal(str(value).strip().replace(",", ""))
    except ArithmeticError:
        return str(value)
    return dec_display(number) if number.is_finite() else str(value)


def render_message(template: str, **params: Any) -> str:
    """Fill a rule's message template; a missing parameter is a programming error, so it raises."""
    return template.format(**params)


def _qstr(q: QName | None) -> str | None:
    return str(q) if q is not None else None


def dims_json(dimensions: Dimensions) -> dict[str, str]:
    """``{"us-gaap:Axis": "acme:Member"}`` sorted by axis, typed members as their text."""
    return {str(a): str(m) for a, m in sorted(dimensions, key=lambda am: str(am[0]))}


def dims_text(dimensions: Dimensions) -> str:
    """``axis=member, axis=member`` for messages; empty string when there are none."""
    return ", ".join(f"{a}={m}" for a, m in sorted(dimensions, key=lambda am: str(am[0])))


def _sorted(d: dict[str, Any]) -> dict[str, Any]:
    return dict(sorted(d.items()))


@dataclass(frozen=True, slots=True)
class EvidenceItem:
    """One fact (or missing fact) a finding rests on: a member value, a calc child, the fact itself."""

    concept: QName | None
    fact_id: str | None = None
    value: Decimal | None = None
    weight: Decimal | None = None
    axis: QName | None = None
    member: Member | None = None
    context_id: str | None = None
    decimals: Decimals = None
    dimensions: Dimensions = ()
    role: str | None = None
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        return _sorted({
            "concept": _qstr(self.concept),
            "fact_id": self.fact_id,
            "value": dec_str(self.value),
            "weight": dec_str(self.weight),
            "axis": _qstr(self.axis),
            "member": str(self.member) if self.member is not None else None,
            "context_id": self.context_id,
            "decimals": self.decimals,
            "dimensions": dims_json(self.dimensions),
            "role": self.role,
            "note": self.note,
        })


@dataclass(frozen=True, slots=True)
class Finding:
    """One reported problem, with everything a filer needs to locate and fix it."""

    code: str  # full message code, e.g. DQC.US.0015.2944
    rule: str  # "0015" | "0117" | "0126"
    concept: QName
    fact_id: str | None  # Fact.key of the focus fact
    context_id: str | None
    period: Period | None
    dimensions: Dimensions
    unit: str | None
    decimals: Decimals
    reported: Decimal | None
    expected: Decimal | None
    tolerance: Decimal
    message: str
    evidence: tuple[EvidenceItem, ...] = ()
    role: str | None = None  # statement role definition, when the rule is statement-based
    severity: str = "error"  # the rule's level of this code (RuleSpec.level_of), set by the runner
    # Filled by the runner (auditflow.rules.runner.run_rules) for the filer's outputs (docs/check-log.md):
    # the concept's standard label, and the document (relative to the filing's folder) and source line
    # of the focus fact.
    label: str | None = None
    document: str | None = None
    line: int | None = None

    def to_json(self) -> dict[str, Any]:
        return _sorted({
            "code": self.code,
            "rule": self.rule,
            "severity": self.severity,
            "concept": str(self.concept),
            "fact_id": self.fact_id,
            "context": self.context_id,
            "period": _sorted(self.period.as_json()) if self.period is not None else None,
            "dimensions": dims_json(self.dimensions),
            "unit": self.unit,
            "decimals": self.decimals,
            "reported": dec_str(self.reported),
            "expected": dec_str(self.expected),
            "tolerance": dec_str(self.tolerance),
            "evidence": [e.to_json() for e in self.evidence],
            "role": self.role,
            "message": self.message,
            "label": self.label,
            "document": self.document,
            "line": self.line,
        })


@dataclass(frozen=True, slots=True)
class Cite:
    """A fact a check's reason names. Reports show its key; the auditors' tools show their handle
    for it, which is why a reason that names facts is kept in parts (:attr:`CheckRecord.parts`)
    rather than as a string that would have to be searched for keys afterwards."""

    fact_id: str


ReasonPart = Union[str, Cite]


@dataclass(frozen=True, slots=True)
class CheckRecord:
    """A check a rule considered, so callers can count checked / consistent / not applicable.

    A consistent check carries what it summed or compared, like a finding does: ``evidence``,
    ``expected`` and ``tolerance``. The agents' checker tools show exactly these (docs/protocol.md),
    so what the auditors read and what the rule decided come from one computation.
    ``reason`` is the text without the rule's location, which is ``where`` (0117's
    ``" [statement; table; axis; ...]"``); ``parts`` holds the reason split around the facts it cites
    (empty when it cites none).
    """

    rule: str
    outcome: Outcome
    concept: QName | None = None
    fact_id: str | None = None
    context_id: str | None = None
    reason: str = ""
    where: str = ""
    parts: tuple[ReasonPart, ...] = ()
    evidence: tuple[EvidenceItem, ...] = ()
    expected: Decimal | None = None
    tolerance: Decimal | None = None

    @property
    def text(self) -> str:
        """The reason as reports print it: with the cited facts' keys and the location."""
        return self.reason + self.where

    def reason_with(self, show: Callable[[str], str]) -> str:
        """The reason (without the location) with each cited fact written by ``show(fact key)``."""
        return _joined(self.parts, show) if self.parts else self.reason

    def to_json(self) -> dict[str, Any]:
        return _sorted({
            "rule": self.rule,
            "outcome": self.outcome.value,
            "concept": _qstr(self.concept),
            "fact_id": self.fact_id,
            "context_id": self.context_id,
            "reason": self.text,
        })


def _joined(parts: tuple[ReasonPart, ...], show: Callable[[str], str]) -> str:
    return "".join(show(p.fact_id) if isinstance(p, Cite) else p for p in parts)


def cited(*parts: ReasonPart) -> dict[str, Any]:
    """``reason`` and ``parts`` of a :class:`CheckRecord` whose reason names facts:
    ``CheckRecord(..., **cited("exact duplicate of fact ", Cite(key), "; evaluated once"))``."""
    return {"reason": _joined(parts, str), "parts": tuple(parts)}


@dataclass(frozen=True, slots=True)
class RuleResult:
    """Everything one rule produced on one filing. ``checks`` includes the violations."""

    rule: str
    findings: tuple[Finding, ...] = ()
    checks: tuple[CheckRecord, ...] = ()
    warnings: tuple[str, ...] = field(default=())

    def count(self, outcome: Outcome) -> int:
        return sum(1 for c in self.checks if c.outcome is outcome)

    @property
    def violations(self) -> int:
        return self.count(Outcome.VIOLATION)

    @property
    def consistent(self) -> int:
        return self.count(Outcome.CONSISTENT)

    @property
    def checked(self) -> int:
        """Checks that actually ran: violations plus consistent ones."""
        return self.violations + self.consistent

    @property
    def not_applicable(self) -> int:
        return self.count(Outcome.NOT_APPLICABLE)

    def to_json(self, *, include_checks: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule": self.rule,
            "findings": [f.to_json() for f in self.findings],
            "warnings": list(self.warnings),
            "counts": {
                "checked": self.checked,
                "consistent": self.consistent,
                "not_applicable": self.not_applicable,
                "violations": self.violations,
            },
        }
        if include_checks:
            out["checks"] = [c.to_json() for c in self.checks]
        return _sorted(out)

