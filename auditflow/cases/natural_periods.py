"""Periods in the words people use, read against the filer's own calendar (for ``cases/natural``).

A question says "fiscal 2023", "Q2 FY24", "the June 2023 quarter", "the first nine months of fiscal 2023",
"H1 2024", "at year-end 2022" or "on the Dec. 31, 2022 balance sheet", not "2022-09-25..2023-07-01". Which
of those name a given period depends on the filer's calendar: its fiscal year end (Apple's ends on the last
Saturday of September, Upexi's in June, Medinotec's in February) and how it numbers its years. Both come
from its own ``dei`` facts, checked against each other (:func:`fiscal_calendar`); a wording is only offered
when the calendar reads it back as exactly the period meant. See cases/natural/README.md.
"""
from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass

from auditflow.env.phrases import span_months
from auditflow.xbrl.filing import Filing
from auditflow.xbrl.model import Period

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
MONTHS_SHORT = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
MONTHS_DOT = ("Jan.", "Feb.", "March", "April", "May", "June", "July", "Aug.", "Sept.", "Oct.", "Nov.", "Dec.")
ORDINALS = ("first", "second", "third", "fourth")
SPAN_NUMBERS = {3: "three", 6: "six", 9: "nine", 12: "twelve"}


# -- the filer's calendar --------------------------------------------------------------------------

def nominal_month(d: dt.date) -> tuple[int, int] | None:
    """(year, month) a period end belongs to: the month it closes, or the month before for the first days of
    a month (52/53-week years end on a Saturday: Apple's fiscal 2023 quarter "June 2023" ended July 1,
    2023). None for a date in the middle of a month, which no calendar word names."""
    if d.day <= 7:
        prior = d - dt.timedelta(days=d.day)
        return prior.year, prior.month
    if d.day >= 20:
        return d.year, d.month
    return None


@dataclass(frozen=True)
class FiscalCalendar:
    """How a filer numbers its years and quarters, from its own ``dei`` facts.

    ``fye_month``: the month its fiscal year closes in; ``shift``: its fiscal year's number minus the
    calendar year that year closes in (0, or -1 for filers who name a year by the one it starts in);
    ``fiscal_words``: False when the ``dei`` focus disagrees with the dates (then only dates are used).
    """

    fye_month: int
    shift: int = 0
    fiscal_words: bool = True

    @property
    def calendar(self) -> bool:
        """The fiscal year is the calendar year, so "2023" and "Q2 2024" need no "fiscal"."""
        return self.fiscal_words and self.fye_month == 12 and self.shift == 0

    def fiscal_year(self, end: dt.date) -> int | None:
        nm = nominal_month(end)
        if nm is None:
            return None
        year, month = nm
        return (year if month <= self.fye_month else year + 1) + self.shift

    def quarter(self, end: dt.date) -> int | None:
        """The fiscal quarter (1-4) closing at ``end``; None when ``end`` closes no quarter."""
        nm = nominal_month(end)
        if nm is None:
            return None
        months = (nm[1] - self.fye_month) % 12
        return None if months % 3 else (months // 3 or 4)


def dei_text(filing: Filing, local: str) -> str | None:
    """The first non-dimensional ``dei`` fact of this local name, as text with plain spaces."""
    for f in filing.facts:
        if f.concept.local == local and f.concept.namespace.startswith("http://xbrl.sec.gov/dei/") \
                and not filing.contexts[f.context_id].dimensions and f.value:
            return " ".join(f.value.replace("\xa0", " ").split())
    return None


def fiscal_calendar(filing: Filing) -> FiscalCalendar:
    """The filer's calendar from ``CurrentFiscalYearEndDate`` (``--09-30``), checked against its document
    period end date, fiscal year focus and fiscal period focus; dates only when they disagree."""
    try:
        doc_end = dt.date.fromisoformat(dei_text(filing, "DocumentPeriodEndDate") or "")
        focus_year = int(dei_text(filing, "DocumentFiscalYearFocus") or "")
    except ValueError:
        return FiscalCalendar(12, 0, False)
    focus = (dei_text(filing, "DocumentFiscalPeriodFocus") or "").upper()
    fye = dei_text(filing, "CurrentFiscalYearEndDate") or ""
    m = re.fullmatch(r"--(\d{2})-(\d{2})", fye)
    nm = nominal_month(dt.date(2001, int(m.group(1)), min(int(m.group(2)), 28 if m.group(1) == "02" else 30))) \
        if m else nominal_month(doc_end) if focus == "FY" else None
    if nm is None:
        return FiscalCalendar(12, 0, False)
    cal = FiscalCalendar(nm[1])
    year = cal.fiscal_year(doc_end)
    quarter = cal.quarter(doc_end)
    want = {"FY": 4, "Q1": 1, "Q2": 2, "Q3": 3, "Q4": 4}.get(focus)
    if year is None or quarter is None or quarter != want or focus_year - year not in (0, -1):
        return FiscalCalendar(nm[1], 0, False)
    return FiscalCalendar(nm[1], focus_year - year)


# -- periods in words --------------------------------------------------------------------------------

@dataclass(frozen=True)
class PeriodWording:
    """One way to name a period: ``phrase`` runs on after a noun or verb ("in the first half of 2024",
    "as of Dec. 31, 2022"); ``short`` is the analyst's token ("H1 2024"), or None when there is none."""

    style: str  # a tag: period_<style>
    phrase: str
    short: str | None = None


def date_text(d: dt.date, style: int) -> str:
    """A date in one of the spellings people type."""
    return (f"{MONTHS[d.month - 1]} {d.day}, {d.year}",
            f"{MONTHS_DOT[d.month - 1]} {d.day}, {d.year}",
            f"{MONTHS_SHORT[d.month - 1]} {d.day} {d.year}",
            f"{d.month}/{d.day}/{d.year}",
            f"{d.day} {MONTHS[d.month - 1]} {d.year}",
            d.isoformat())[style % 6]


def _short_date(d: dt.date, style: int) -> str:
    return (f"{d.month}/{d.day}/{d.year % 100:02d}", f"{d.day}-{MONTHS_SHORT[d.month - 1]}-{d.year % 100:02d}",
            f"{MONTHS_SHORT[d.month - 1]} {d.day} '{d.year % 100:02d}")[style % 3]


def period_wordings(period: Period, cal: FiscalCalendar, rng: random.Random) -> list[PeriodWording]:
    """Every wording of ``period`` the filer's calendar supports, each naming that period alone."""
    if period.end is None:
        return []
    d = period.end
    date = date_text(d, rng.randrange(1, 6) if period.start is None else rng.randrange(6))  # no "as of <Month D, YYYY>"
    short = _short_date(d, rng.randrange(3))
    if period.start is None:
        return _instant_wordings(d, date, short, cal)
    months = span_months(period)
    out = [PeriodWording("dates", f"between {date_text(period.start, 1)} and {date_text(d, 1)}")]
    if months in SPAN_NUMBERS:
        n = SPAN_NUMBERS[months]
        out = [PeriodWording("dates", f"for the {rng.choice((n, str(months)))} months ending {date}",
                             f"{months}M ended {short}"),
               PeriodWording("dates", f"in the {n} months to {date}", f"{months}M to {short}")]
        if months == 3:
            out.append(PeriodWording("dates", f"for the quarter ended {date}", f"qtr ended {short}"))
        if months == 12:
            out.append(PeriodWording("dates", f"for the year ending {date}", f"FY ended {short}"))
    if months in SPAN_NUMBERS and _aligned(period, months, cal):
        out += _calendar_wordings(d, months, cal)
    return out


def _aligned(period: Period, months: int, cal: FiscalCalendar) -> bool:
    """Whether the period is a fiscal quarter (3 months) or runs from the fiscal year's start."""
    if not cal.fiscal_words or period.start is None or period.end is None:
        return False
    start, end = nominal_month(period.start - dt.timedelta(days=1)), nominal_month(period.end)
    if start is None or end is None or ((end[0] - start[0]) * 12 + end[1] - start[1]) != months:
        return False
    quarter = cal.quarter(period.end)
    if quarter is None:
        return False
    return months == 3 or quarter * 3 == months


def _calendar_wordings(d: dt.date, months: int, cal: FiscalCalendar) -> list[PeriodWording]:
    fy, q = cal.fiscal_year(d), cal.quarter(d)
    assert fy is not None and q is not None  # _aligned checked both
    yy = f"{fy % 100:02d}"
    nm = nominal_month(d)
    out: list[PeriodWording] = []
    if months == 12:
        out += [PeriodWording("fiscal_year", f"in fiscal {fy}", f"FY{yy}"),
                PeriodWording("fiscal_year", f"for fiscal year {fy}", f"FY {fy}"),
                PeriodWording("fiscal_year", f"in FY{fy}", f"FY{fy}")]
        if cal.calendar:
            out += [PeriodWording("calendar_year", f"in {fy}", f"{fy}"),
                    PeriodWording("calendar_year", f"for full-year {fy}", f"FY{yy}"),
                    PeriodWording("calendar_year", f"for calendar {fy}", f"CY{yy}")]
    elif months == 3:
        out += [PeriodWording("fiscal_quarter", f"in fiscal Q{q} {fy}", f"Q{q} FY{yy}"),
                PeriodWording("fiscal_quarter", f"in the {ORDINALS[q - 1]} quarter of fiscal {fy}", f"FQ{q} {fy}")]
        if nm is not None:
            out.append(PeriodWording("month_quarter", f"in the {MONTHS[nm[1] - 1]} {nm[0]} quarter",
                                     f"{MONTHS_SHORT[nm[1] - 1]}-{nm[0] % 100:02d} qtr"))
        if cal.calendar:
            out += [PeriodWording("calendar_quarter", f"in Q{q} {fy}", f"Q{q} {fy}"),
                    PeriodWording("calendar_quarter", f"in the {ORDINALS[q - 1]} quarter of {fy}", f"{q}Q{yy}")]
    elif months == 6:
        out += [PeriodWording("year_to_date", f"in the first half of fiscal {fy}", f"H1 FY{yy}"),
                PeriodWording("year_to_date", f"in the first six months of fiscal {fy}", f"6M FY{yy}")]
        if cal.calendar:
            out += [PeriodWording("year_to_date", f"in the first half of {fy}", f"H1 {fy}"),
                    PeriodWording("year_to_date", f"in H1 {fy}", f"1H{yy}")]
    elif months == 9:
        out += [PeriodWording("year_to_date", f"in the first nine months of fiscal {fy}", f"9M FY{yy}"),
                PeriodWording("year_to_date", f"year to date through fiscal Q3 {fy}", f"YTD Q3 FY{yy}")]
        if cal.calendar:
            out += [PeriodWording("year_to_date", f"in the first nine months of {fy}", f"9M {fy}"),
                    PeriodWording("year_to_date", f"over the first three quarters of {fy}", f"9M{yy}")]
    return out


def _instant_wordings(d: dt.date, date: str, short: str, cal: FiscalCalendar) -> list[PeriodWording]:
    out = [PeriodWording("instant_date", f"as of {date}", short), PeriodWording("instant_date", f"at {date}", short),
           PeriodWording("instant_date", f"as at {date_text(d, 4)}", short)]
    q = cal.quarter(d) if cal.fiscal_words else None
    if q is not None or (not cal.fiscal_words and d.day >= 28):  # a balance sheet is dated at a quarter's end
        out.append(PeriodWording("balance_sheet", f"on the {date} balance sheet", f"BS {short}"))
    if q is None:
        return out
    fy = cal.fiscal_year(d)
    yy = f"{fy % 100:02d}"
    if q == 4:
        out += [PeriodWording("year_end", f"at the end of fiscal {fy}", f"FYE{yy}"),
                PeriodWording("year_end", f"at fiscal year-end {fy}", f"FY{yy} year-end")]
        if cal.calendar:
            out += [PeriodWording("year_end", f"at year-end {fy}", f"YE{yy}"),
                    PeriodWording("year_end", f"at the end of {fy}", f"end-{fy}")]
    else:
        out.append(PeriodWording("quarter_end", f"at the end of fiscal Q{q} {fy}", f"end of Q{q} FY{yy}"))
        if cal.calendar:
            out.append(PeriodWording("quarter_end", f"at the end of Q{q} {fy}", f"end-Q{q} {fy}"))
    return out
