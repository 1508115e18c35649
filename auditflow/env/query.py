"""An audit query: which number to audit. The rule family, when given, is a hint, not the answer."""
from __future__ import annotations

import datetime as dt
import re
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


QUERY_FORMS = ("structured", "finmr", "text")
# FinMR's question, as its data set writes it: a concept and a period, no dimensions, no rule.
FINMR_PATTERN = re.compile(
    r"reported\s+value\s+of\s+(?P<concept>[A-Za-z][\w.-]*:[A-Za-z_][\w.-]*)\s+in\s+the\s+instance\s+document\s+for\s+the\s+"
    r"period\s+(?P<start>\d{4}-\d{2}-\d{2})(?:\s+to\s+(?P<end>\d{4}-\d{2}-\d{2}))?", re.IGNORECASE)


def parse_finmr(text: str) -> tuple[str, str]:
    """(concept, period) of a FinMR question, e.g. "What's the reported value of us-gaap:X in the Instance
    document for the period 2021-09-01 to 2021-11-30?" -> ("us-gaap:X", "2021-09-01..2021-11-30")."""
    m = FINMR_PATTERN.search(text)
    if m is None:
        raise QueryError(f"FinMR question {text[:200]!r} does not read \"What's the reported value of PREFIX:Concept in the "
                         "Instance document for the period YYYY-MM-DD[ to YYYY-MM-DD]?\"")
    period = f"{m['start']}..{m['end']}" if m["end"] else m["start"]
    parse_period(period)
    return m["concept"], period


@dataclass(frozen=True)
class AuditQuery:
    """Which number to audit, in one of three forms (docs/query-forms.md):

    * ``structured``: ``concept``, ``period`` and ``dimensions`` name the fact exactly;
    * ``finmr``: ``text`` is a FinMR question (a concept and a period, no dimensions): the environment
      resolves it to the one non-dimensional fact of that concept and period, when there is exactly one;
    * ``text``: ``text`` is plain words (a label, a period phrase, member labels); nothing resolves it
      up front, the auditors find the fact.
    """

    filing: str
    concept: str | None = None  # a prefixed QName as filings write it, e.g. us-gaap:Assets
    period: str | None = None  # instant or start..end
    dimensions: tuple[tuple[str, str], ...] = ()  # (axis, member) prefixed QNames, sorted
    rule_hint: str | None = None  # "0015" | "0117" | "0126" | None
    case_id: str | None = None
    form: str = "structured"
    text: str | None = None

    def __post_init__(self) -> None:
        if self.form not in QUERY_FORMS:
            raise QueryError(f"query form {self.form!r} is not one of {', '.join(QUERY_FORMS)}")
        if self.form == "structured":
            if not self.concept or not self.period:
                raise QueryError("a structured query names concept and period")
            parse_period(self.period)
        else:
            if not isinstance(self.text, str) or not self.text.strip():
                raise QueryError(f"a {self.form} query needs its question text")
            if len(self.text) > MAX_QUESTION:
                raise QueryError(f"a question is at most {MAX_QUESTION} characters, this one {len(self.text)}")
            if self.form == "finmr":
                concept, period = parse_finmr(self.text)
                object.__setattr__(self, "concept", concept)
                object.__setattr__(self, "period", period)
            if self.dimensions:
                raise QueryError(f"a {self.form} query names no dimensions (members are named in its words)")
        object.__setattr__(self, "dimensions", tuple(sorted(self.dimensions)))

    @property
    def period_value(self) -> Period | None:
        return parse_period(self.period) if self.period else None

    @property
    def question(self) -> str | None:
        """What the auditors are asked when the harness does not hand over the fact."""
        return self.text if self.form != "structured" else None

    def to_json(self) -> dict:
        out = {
            "case_id": self.case_id,
            "filing": self.filing,
            "concept": self.concept,
            "period": self.period,
            "dimensions": {a: m for a, m in self.dimensions},
            "rule_hint": self.rule_hint,
        }
        if self.form != "structured":  # structured artifacts keep the shape they always had
            out.update(form=self.form, text=self.text)
        return out


MAX_QUESTION = 2000


def parse_dims(items: list[str]) -> tuple[tuple[str, str], ...]:
    """``["srt:ProductOrServiceAxis=acme:WidgetsMember"]`` -> pairs; malformed items are a QueryError."""
    out = []
    for item in items:
        axis, sep, member = item.partition("=")
        if not sep or ":" not in axis or not member.strip():
            raise QueryError(f"dimension {item!r} must look like prefix:Axis=prefix:Member")
        out.append((axis.strip(), member.strip()))
    return tuple(sorted(out))
