"""An audit query: which number to audit. The rule family, when given, is a hint, not the answer."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from auditflow.errors import AuditflowError
from auditflow.xbrl.model import Period


class QueryError(AuditflowError):
    """An audit query that cannot be understood (bad period, malformed dimension)."""


def parse_period(text: str) -> Period:
    """``2024-12-31`` (instant) or ``2024-01-01..2024-12-31`` (duration, inclusive end): one notation
    everywhere (queries, tool arguments, observations), because small models copy, they don't convert."""
    t = text.strip()
    try:
        if ".." in t:
            a, b = t.split("..", 1)
            return Period(dt.date.fromisoformat(a.strip()), dt.date.fromisoformat(b.strip()))
        return Period(None, dt.date.fromisoformat(t))
    except ValueError:
        raise QueryError(f"period {text!r} is neither YYYY-MM-DD (instant) nor YYYY-MM-DD..YYYY-MM-DD (duration)") from None


@dataclass(frozen=True)
class AuditQuery:
    filing: str
    concept: str  # a prefixed QName as filings write it, e.g. us-gaap:Assets
    period: str  # instant or start..end
    dimensions: tuple[tuple[str, str], ...] = ()  # (axis, member) prefixed QNames, sorted
    rule_hint: str | None = None  # "0015" | "0117" | "0126" | None
    case_id: str | None = None

    def __post_init__(self) -> None:
        parse_period(self.period)
        object.__setattr__(self, "dimensions", tuple(sorted(self.dimensions)))

    @property
    def period_value(self) -> Period:
        return parse_period(self.period)

    def to_json(self) -> dict:
        return {
            "case_id": self.case_id,
            "filing": self.filing,
            "concept": self.concept,
            "period": self.period,
            "dimensions": {a: m for a, m in self.dimensions},
            "rule_hint": self.rule_hint,
        }


def parse_dims(items: list[str]) -> tuple[tuple[str, str], ...]:
    """``["srt:ProductOrServiceAxis=acme:WidgetsMember"]`` -> pairs; malformed items are a QueryError."""
    out = []
    for item in items:
        axis, sep, member = item.partition("=")
        if not sep or ":" not in axis or not member.strip():
            raise QueryError(f"dimension {item!r} must look like prefix:Axis=prefix:Member")
        out.append((axis.strip(), member.strip()))
    return tuple(sorted(out))
