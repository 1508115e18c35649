"""Periods in words, as financial statements print them, and back.

A plain-words question names its period the way a reader of the statements would ("three months
ended July 1, 2023", "fiscal year ended September 30, 2023", "as of December 31, 2024"), and a search
shows each candidate fact's period in the same words next to its ``A..B`` form, so a small model
compares words with words instead of dates in its head (docs/query-forms.md). The case generator
writes questions with :func:`period_phrase`; the deterministic policy reads them with
:func:`parse_period_phrase`.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from auditflow.xbrl.model import Period

MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December")
SPAN_WORDS = {3: "three months", 6: "six months", 9: "nine months", 12: "year"}
_WORD_MONTHS = {"three": 3, "3": 3, "six": 6, "6": 6, "nine": 9, "9": 9, "twelve": 12, "12": 12}


def date_words(d: dt.date) -> str:
    """``September 30, 2023``."""
    return f"{MONTH_NAMES[d.month - 1]} {d.day}, {d.year}"


def span_months(period: Period) -> int | None:
    """A duration's length in whole months (3, 6, 9, 12...), or None when it is not close to one."""
    if period.start is None or period.end is None:
        return None
    days = (period.end - period.start).days + 1
    months = round(days / 30.44)
    return months if months > 0 and abs(days - months * 30.44) <= 7 else None


def period_phrase(period: Period, *, fiscal: bool = False) -> str:
    """How a statement heads the period: "as of ...", "three months ended ...", "year ended ...".
    ``Period.end`` of a duration is its last day (inclusive), as in the ``A..B`` notation."""
    if period.end is None:
        return "forever"
    if period.start is None:
        return f"as of {date_words(period.end)}"
    months = span_months(period)
    if months in SPAN_WORDS:
        span = SPAN_WORDS[months]
        if months == 12 and fiscal:
            span = "fiscal year"
        return f"{span} ended {date_words(period.end)}"
    return f"period from {date_words(period.start)} to {date_words(period.end)}"


@dataclass(frozen=True)
class PeriodWords:
    """A period as a question names it: its end (or instant) date and, for a duration, its length."""

    end: dt.date
    months: int | None  # None: an instant ("as of")
    start: dt.date | None = None  # only when the question gives both dates

    def matches(self, period: Period) -> bool:
        if self.months is None:
            return period.start is None and period.end == self.end
        if period.start is None or period.end != self.end:
            return False
        if self.start is not None:
            return period.start == self.start
        return span_months(period) == self.months


_DATE = r"(January|February|March|April|May|June|July|August|September|October|November|December)\s+(\d{1,2}),?\s+(\d{4})"
_ISO = r"(\d{4}-\d{2}-\d{2})"


def _date(m: re.Match, at: int) -> dt.date:
    return dt.date(int(m.group(at + 2)), MONTH_NAMES.index(m.group(at).capitalize()) + 1, int(m.group(at + 1)))


def parse_period_phrase(text: str) -> tuple[PeriodWords, str] | None:
    """The period a question names, and the question without it; None when it names none.

    Understands "as of|at <date>", "<three|six|nine> months ended <date>", "(fiscal) year ended
    <date>", "period from <date> to <date>", and ISO dates ("2023-09-30", "2022-10-01..2023-09-30").
    """
    patterns = (
        (rf"(?:for\s+the\s+)?period\s+from\s+{_DATE}\s+to\s+{_DATE}", "range"),
        (rf"(?:for\s+the\s+)?(?:(three|six|nine|twelve|3|6|9|12)[\s-]+months?|(?:fiscal\s+)?year)\s+ended\s+{_DATE}", "span"),
        (rf"(?:as\s+of|at)\s+{_DATE}", "instant"),
        (rf"{_ISO}\s*\.\.\s*{_ISO}", "iso_range"),
        (_ISO, "iso_instant"),
    )
    for pattern, kind in patterns:
        m = re.search(pattern, text, flags=re.IGNORECASE)
        if m is None:
            continue
        rest = (text[: m.start()] + text[m.end():]).strip(" ,;:.?")
        if kind == "range":
            start, end = _date(m, 1), _date(m, 4)
            return PeriodWords(end, _months_between(start, end), start), rest
        if kind == "span":
            months = _WORD_MONTHS[m.group(1).lower()] if m.group(1) else 12
            return PeriodWords(_date(m, 2), months), rest
        if kind == "instant":
            return PeriodWords(_date(m, 1), None), rest
        if kind == "iso_range":
            start, end = dt.date.fromisoformat(m.group(1)), dt.date.fromisoformat(m.group(2))
            return PeriodWords(end, _months_between(start, end), start), rest
        return PeriodWords(dt.date.fromisoformat(m.group(1)), None), rest
    return None


def _months_between(start: dt.date, end: dt.date) -> int:
    """The span's length in months, 0 when it is no whole number of months: with both dates given the
    period is matched by them, and it is a duration whatever its length (None would make it an instant)."""
    return span_months(Period(start, end)) or 0
