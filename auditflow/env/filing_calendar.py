"""A filing's calendar: its fiscal year end, how its fiscal years are numbered, the periods it reports.

A period phrase ("fiscal 2023", "Q3 FY24", "at year-end") means different dates for different filers:
Apple's fiscal 2023 ran from September 25, 2022 to September 30, 2023, Toll Brothers' ends on October
31, a retailer's fiscal 2024 may end on February 1, 2025. The filing says which: its fiscal year end
(``dei:CurrentFiscalYearEndDate``), the fiscal year and period its document reports
(``dei:DocumentFiscalYearFocus``, ``dei:DocumentFiscalPeriodFocus``), the document's period end
(``dei:DocumentPeriodEndDate``) and its contexts' periods, whose 52/53-week dates sit up to a week
from the nominal month end. :mod:`auditflow.env.periods` reads phrases against it
(docs/query-forms.md, "Period phrases by meaning").
"""
from __future__ import annotations

import calendar as _cal
import datetime as dt
import re
from dataclasses import dataclass
from typing import Mapping

from auditflow.env.envcache import memo
from auditflow.xbrl.model import Period

TOLERANCE_DAYS = 7  # a 52/53-week year ends on a weekday within a week of its nominal month end
DEI = "http://xbrl.sec.gov/dei/"
DAY = dt.timedelta(days=1)


@dataclass(frozen=True)
class Shape:
    """How a kind of year runs: it ends on (month, day) of calendar year ``Y + offset`` for year ``Y``.
    ``month_end``: the end is the last day of its month (a quarter then ends on a month's last day)."""

    month: int
    day: int
    offset: int
    month_end: bool

    def end(self, year: int) -> dt.date:
        y = year + self.offset
        last = _cal.monthrange(y, self.month)[1]
        return dt.date(y, self.month, last if self.month_end else min(self.day, last))

    def shifted(self, year: int, months: int) -> dt.date:
        """The year's end moved by ``months`` (negative: earlier), keeping the day or the month's end."""
        d = self.end(year)
        y, m = divmod(d.month - 1 + months, 12)
        y, m = d.year + y, m + 1
        last = _cal.monthrange(y, m)[1]
        return dt.date(y, m, last if self.month_end else min(self.day, last))

    def year(self, year: int) -> Period:
        return Period(self.end(year - 1) + DAY, self.end(year))

    def quarter(self, year: int, q: int) -> Period:
        return Period(self.shifted(year, -3 * (5 - q)) + DAY, self.shifted(year, -3 * (4 - q)))

    def first(self, year: int, months: int) -> Period:
        return Period(self.end(year - 1) + DAY, self.shifted(year, months - 12))

    def last(self, year: int, months: int) -> Period:
        return Period(self.shifted(year, -months) + DAY, self.end(year))

    def year_of(self, d: dt.date) -> int:
        """The year whose span holds ``d`` (a week's tolerance at its end)."""
        y = d.year - self.offset
        if d > self.end(y) + dt.timedelta(days=TOLERANCE_DAYS):
            return y + 1
        if d <= self.end(y - 1) - dt.timedelta(days=TOLERANCE_DAYS):
            return y - 1
        return y


CALENDAR_YEAR = Shape(12, 31, 0, True)


@dataclass(frozen=True)
class FilingCalendar:
    """What a period phrase is read against: the filer's fiscal year and the periods its contexts hold."""

    fiscal_year_end: tuple[int, int]  # (month, day)
    fye_source: str  # where the fiscal year end came from, as a reason quotes it
    year_offset: int  # fiscal year Y ends in calendar year Y + year_offset (retailers ending early in Y+1: 1)
    fiscal_year_focus: int | None
    fiscal_period_focus: str | None  # FY, Q1, Q2, Q3, H1...
    document_end: dt.date | None
    facts_by_period: Mapping[Period, int]  # every context's period, with how many facts use it

    @property
    def fiscal(self) -> Shape:
        m, d = self.fiscal_year_end
        return Shape(m, d, self.year_offset, d >= (28 if m == 2 else _cal.monthrange(2001, m)[1]))

    @property
    def is_calendar_year(self) -> bool:
        """The fiscal year is the calendar year, give or take a 52/53-week week."""
        m, d = self.fiscal_year_end
        return (m == 12 and d >= 31 - TOLERANCE_DAYS) or (m == 1 and d <= TOLERANCE_DAYS)

    @property
    def document_year(self) -> int | None:
        """The fiscal year the document reports on."""
        if self.fiscal_year_focus is not None:
            return self.fiscal_year_focus
        return self.fiscal.year_of(self.document_end) if self.document_end is not None else None

    @property
    def annual(self) -> bool:
        return (self.fiscal_period_focus or "").upper() == "FY"

    def fye_words(self) -> str:
        m, d = self.fiscal_year_end
        return f"year end --{m:02d}-{d:02d} per {self.fye_source}"


def calendar_from(dei: Mapping[str, str], facts_by_period: Mapping[Period, int]) -> FilingCalendar:
    """A calendar from dei values by local name (``CurrentFiscalYearEndDate``: ``--09-30``,
    ``DocumentFiscalYearFocus``: ``2023``, ``DocumentFiscalPeriodFocus``: ``FY``,
    ``DocumentPeriodEndDate``: ``2023-09-30``) and the filing's periods. Values a filer wrote wrong are
    passed over, never raised: the calendar then falls back to what the other values say."""
    doc_end = _iso(dei.get("DocumentPeriodEndDate"))
    focus = (dei.get("DocumentFiscalPeriodFocus") or "").strip().upper() or None
    fy = dei.get("DocumentFiscalYearFocus", "").strip()
    fy_focus = int(fy) if re.fullmatch(r"\d{4}", fy) else None
    m = re.fullmatch(r"--(\d{2})-(\d{2})", (dei.get("CurrentFiscalYearEndDate") or "").strip())
    if m and 1 <= int(m[1]) <= 12 and 1 <= int(m[2]) <= 31:
        fye, source = (int(m[1]), int(m[2])), "dei:CurrentFiscalYearEndDate"
    elif doc_end is not None and focus == "FY":
        fye, source = (doc_end.month, doc_end.day), "dei:DocumentPeriodEndDate of an annual report"
    else:
        fye, source = (12, 31), "no dei:CurrentFiscalYearEndDate: the calendar year assumed"
    offset = 0
    if doc_end is not None and fy_focus is not None:
        shape = FilingCalendar(fye, source, 0, None, None, None, {}).fiscal
        offset = shape.year_of(doc_end) - fy_focus
        offset = offset if offset in (-1, 0, 1) else 0
    return FilingCalendar(fye, source, offset, fy_focus, focus, doc_end, dict(facts_by_period))


def _iso(text: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat((text or "").strip()[:10])
    except ValueError:
        return None


def calendar_of(env) -> FilingCalendar:
    """The calendar of an environment's filing (built once per environment)."""
    def build() -> FilingCalendar:
        filing = env.filing
        counts: dict[Period, int] = {c.period: 0 for c in filing.contexts.values()}
        dei: dict[str, str] = {}
        for f in filing.facts:
            ctx = filing.contexts.get(f.context_id)
            if ctx is None:
                continue
            counts[ctx.period] = counts.get(ctx.period, 0) + 1
            if f.concept.namespace.startswith(DEI) and not ctx.dimensions and f.value and f.concept.local not in dei:
                dei[f.concept.local] = f.value
        return calendar_from(dei, counts)

    return memo(env, "filing_calendar", build)


