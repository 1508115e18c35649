"""Period phrases as people type them, resolved against one filing's calendar.

An analyst asks for "the first nine months of fiscal 2023", "Q3 FY24", "the June 2023 quarter", "H1
2024" or "the December 31, 2022 balance sheet"; the tools take a period only as ``YYYY-MM-DD`` or
``YYYY-MM-DD..YYYY-MM-DD``. Between the two stands the filer's calendar, which only the filing knows:
its fiscal year end (``dei:CurrentFiscalYearEndDate``), how its fiscal years are numbered
(``dei:DocumentFiscalYearFocus`` against ``dei:DocumentPeriodEndDate``), and, for a 52/53-week filer,
the actual dates of its contexts, which sit up to a week away from the nominal month end. This module
reads a phrase into the periods it can mean (fiscal and calendar readings of "2023" for a September
filer, both ranked), moves each onto the filing's own dates when one lies within a week, and says for
every candidate why it matched and whether the filing reports facts for it (docs/query-forms.md,
"Period phrases by meaning").

It is pure: :func:`read_period` takes a :class:`FilingCalendar` (built from an environment by
:func:`calendar_of`, or from dei values and periods by :func:`calendar_from`) and a text. The tool
``resolve_period`` (:data:`PERIOD_TOOLS`) shows its candidates. :mod:`auditflow.env.phrases` stays as
it is: the recorded observations depend on its three statement-heading forms.
"""
from __future__ import annotations

import calendar as _cal
import datetime as dt
import re
from dataclasses import dataclass
from typing import Callable, Mapping

from auditflow.env.envcache import memo
from auditflow.env.tool_base import Tool, ToolContext, ToolError, object_schema
from auditflow.xbrl.model import Period

TOLERANCE_DAYS = 7  # a 52/53-week year ends on a weekday within a week of its nominal month end
MAX_CANDIDATES = 5
FIRST_YEAR, LAST_YEAR = 1900, 2199  # years a phrase may name; others are no period (and no date overflow)
DEI = "http://xbrl.sec.gov/dei/"
_DAY = dt.timedelta(days=1)


# -- the filing's calendar -------------------------------------------------------------------------
@dataclass(frozen=True)
class _Shape:
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
        return Period(self.end(year - 1) + _DAY, self.end(year))

    def quarter(self, year: int, q: int) -> Period:
        return Period(self.shifted(year, -3 * (5 - q)) + _DAY, self.shifted(year, -3 * (4 - q)))

    def first(self, year: int, months: int) -> Period:
        return Period(self.end(year - 1) + _DAY, self.shifted(year, months - 12))

    def last(self, year: int, months: int) -> Period:
        return Period(self.shifted(year, -months) + _DAY, self.end(year))

    def year_of(self, d: dt.date) -> int:
        """The year whose span holds ``d`` (a week's tolerance at its end)."""
        y = d.year - self.offset
        if d > self.end(y) + dt.timedelta(days=TOLERANCE_DAYS):
            return y + 1
        if d <= self.end(y - 1) - dt.timedelta(days=TOLERANCE_DAYS):
            return y - 1
        return y


CALENDAR_YEAR = _Shape(12, 31, 0, True)


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
    def fiscal(self) -> _Shape:
        m, d = self.fiscal_year_end
        return _Shape(m, d, self.year_offset, d >= (28 if m == 2 else _cal.monthrange(2001, m)[1]))

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


# -- what a reader returns -------------------------------------------------------------------------
@dataclass(frozen=True)
class PeriodCandidate:
    """One period a phrase may mean, in the filing's own dates when it has them."""

    period: Period
    in_filing: bool  # some context of the filing has exactly this period
    facts: int  # how many facts the filing reports for it
    reason: str  # why the phrase means it, e.g. "fiscal 2023 = the fiscal year ending 2023-09-30 (...)"

    @property
    def notation(self) -> str:
        """The period as tool arguments write it: ``2024-06-30`` or ``2024-01-01..2024-06-30``."""
        return str(self.period)


@dataclass(frozen=True)
class PeriodReading:
    """A text read for a period: the words read (``""``: none), the text without them, the candidates."""

    text: str
    matched: str
    rest: str
    candidates: tuple[PeriodCandidate, ...]


@dataclass(frozen=True)
class _Reading:
    nominal: Period
    reason: str
    pref: int = 0
    exact: bool = False  # the phrase gave the dates: another date is only the nearest, not the calendar's
    only_if_present: bool = False


# -- the phrases -------------------------------------------------------------------------------------
_MONTHS = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10,
           "nov": 11, "dec": 12}
_ORDINAL = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_COUNT = {"three": 3, "3": 3, "six": 6, "6": 6, "nine": 9, "9": 9, "twelve": 12, "12": 12}
_WEEKS = {"13": 3, "26": 6, "39": 9, "52": 12, "53": 12}
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
          r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")


def _date_re(p: str) -> str:
    """A full date: "September 30, 2024", "Sept. 30 2024", "Jun 30 '25", "30 June 2025", "31-Dec-23",
    "2024-09-30", "9/30/2024", "6/30/25"."""
    return (rf"(?:(?P<{p}m>{_MONTH})\s+(?P<{p}d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<{p}y>\d{{4}}|'\d{{2}})(?!\d)"
            rf"|(?P<{p}df>\d{{1,2}})(?:st|nd|rd|th)?(?:\s+|-)(?P<{p}dm>{_MONTH})(?:,?\s+|-)(?P<{p}dy>\d{{4}}|\d{{2}})(?!\d)"
            rf"|(?P<{p}iso>\d{{4}}-\d{{2}}-\d{{2}})|(?P<{p}us>\d{{1,2}}/\d{{1,2}}/(?:\d{{4}}|\d{{2}}))(?!\d))")


def _month_year_re(p: str) -> str:
    """A month without its day ("June 2023"): the month's end."""
    return rf"(?P<{p}mm>{_MONTH}),?\s+(?P<{p}my>\d{{4}})"


def _year_re(p: str) -> str:
    """A year, fiscal ("fiscal 2023", "fiscal year 2023", "FY23", "2023 fiscal year"), calendar ("calendar
    2023", "CY23") or either ("2023")."""
    return (rf"(?:(?:fiscal(?:\s+year)?\s*'?|fy\s*'?)(?P<{p}fy>\d{{4}}|\d{{2}})(?!\d)|(?P<{p}fy2>(?:19|20)\d{{2}})\s+fiscal(?:\s+year)?"
            rf"|(?:calendar(?:\s+year)?\s+|cy\s*'?)(?P<{p}cy>\d{{4}}|\d{{2}})(?!\d)|(?<![\d$,.-])(?P<{p}by>(?:19|20)\d{{2}})(?!\d|-\d|,\d{{3}}))")


_QUARTER = r"(?:(?P<{p}qf0>fiscal\s+|f)?q(?P<{p}q>[1-4])|(?P<{p}qw>first|second|third|fourth|1st|2nd|3rd|4th)\s+(?P<{p}qf>fiscal\s+)?quarter|(?P<{p}qn>[1-4])q)"


def _quarter_re(p: str) -> str:
    return _QUARTER.replace("{p}", p)


def _date(m: re.Match, p: str) -> dt.date | None:
    g = m.groupdict()
    try:
        if g.get(p + "m"):
            return _plausible(dt.date(_full_year(g[p + "y"]), _MONTHS[g[p + "m"][:3].lower()], int(g[p + "d"])))
        if g.get(p + "dm"):
            return _plausible(dt.date(_full_year(g[p + "dy"]), _MONTHS[g[p + "dm"][:3].lower()], int(g[p + "df"])))
        if g.get(p + "iso"):
            return _plausible(dt.date.fromisoformat(g[p + "iso"]))
        if g.get(p + "us"):
            mo, day, yr = g[p + "us"].split("/")
            return _plausible(dt.date(_full_year(yr), int(mo), int(day)))
        if g.get(p + "mm"):
            y, mo = int(g[p + "my"]), _MONTHS[g[p + "mm"][:3].lower()]
            return _plausible(dt.date(y, mo, _cal.monthrange(y, mo)[1]))
    except ValueError:  # "February 30, 2024": no date
        return None
    return None


def _full_year(text: str) -> int:
    """``2024`` or a two-digit year ("'25", "23") in this century."""
    digits = text.lstrip("'")
    return 2000 + int(digits) if len(digits) == 2 else int(digits)


def _year(m: re.Match, p: str) -> tuple[int, str] | None:
    """(year, "fiscal" | "calendar" | "either") of a :func:`_year_re` match; None for a year no filing has."""
    g = m.groupdict()
    for key, basis in (("fy", "fiscal"), ("fy2", "fiscal"), ("cy", "calendar"), ("by", "either")):
        text = g.get(p + key)
        if text:
            year = 2000 + int(text) if len(text) == 2 else int(text)
            return (year, basis) if FIRST_YEAR <= year <= LAST_YEAR else None
    return None


def _names_year(m: re.Match, p: str) -> bool:
    """Whether the match holds a year at all (one :func:`_year` may have refused)."""
    return any(m.groupdict().get(p + key) for key in ("fy", "fy2", "cy", "by"))


def _plausible(d: dt.date) -> dt.date | None:
    return d if FIRST_YEAR <= d.year <= LAST_YEAR else None


def _quarter(m: re.Match, p: str) -> int:
    g = m.groupdict()
    return int(g.get(p + "q") or g.get(p + "qn") or _ORDINAL[g[p + "qw"].lower()])


# -- readings: each names the nominal period and why ---------------------------------------------------
def _by_basis(cal: FilingCalendar, basis: str, build: Callable[[_Shape, str], tuple[Period, str]]) -> list[_Reading]:
    """The fiscal reading, the calendar one, or both (fiscal first) when the phrase does not say; one
    reading when the filer's fiscal year is the calendar year."""
    fiscal_shape, fiscal_word = cal.fiscal, "fiscal"
    if cal.is_calendar_year:
        period, what = build(fiscal_shape, "")
        return [_Reading(period, f"{what} (the filer's fiscal year is the calendar year: {cal.fye_words()})")]
    out = []
    if basis in ("fiscal", "either"):
        period, what = build(fiscal_shape, fiscal_word)
        out.append(_Reading(period, f"{what} ({cal.fye_words()})"))
    if basis in ("calendar", "either"):
        period, what = build(CALENDAR_YEAR, "calendar")
        note = "" if basis == "calendar" else "; the phrase does not say fiscal"
        out.append(_Reading(period, f"{what}{note}", pref=len(out)))
    return out


def _year_readings(cal: FilingCalendar, year: int, basis: str, said: str) -> list[_Reading]:
    def build(shape: _Shape, word: str) -> tuple[Period, str]:
        p = shape.year(year)
        return p, f"{said} = {word + ' ' if word else ''}year {year}, {p.start} to {p.end}"
    return _by_basis(cal, basis, build)


def _quarter_readings(cal: FilingCalendar, year: int, q: int, basis: str, said: str) -> list[_Reading]:
    def build(shape: _Shape, word: str) -> tuple[Period, str]:
        p = shape.quarter(year, q)
        return p, f"{said} = Q{q} of {word + ' ' if word else ''}{year}, {p.start} to {p.end}"
    return _by_basis(cal, basis, build)


def _first_readings(cal: FilingCalendar, year: int, months: int, basis: str, said: str) -> list[_Reading]:
    def build(shape: _Shape, word: str) -> tuple[Period, str]:
        p = shape.first(year, months)
        return p, f"{said} = the first {months} months of {word + ' ' if word else ''}{year}, {p.start} to {p.end}"
    return _by_basis(cal, basis, build)


def _doc_year(cal: FilingCalendar) -> int:
    year = cal.document_year
    if year is None:
        raise _NoCalendar("the filing gives neither dei:DocumentFiscalYearFocus nor dei:DocumentPeriodEndDate")
    return year


class _NoCalendar(Exception):
    """A relative phrase ("last fiscal year", "Q2") in a filing that does not say which year it reports."""


def _recent_year(cal: FilingCalendar) -> int:
    """The latest fiscal year completed by the document's end: its own in an annual report, else the one before."""
    year = _doc_year(cal)
    return year if cal.annual else year - 1


def _span_months(m: re.Match) -> int:
    g = m.groupdict()
    if g.get("sn"):
        return _COUNT[g["sn"].lower()]
    if g.get("sw"):
        return _WEEKS[g["sw"]]
    if g.get("sm"):
        return int(g["sm"])
    if g.get("shalf"):
        return 6
    if g.get("sqq") or g.get("sfq"):
        return 3
    return 12


def _ending(end: dt.date, months: int) -> Period:
    """``months`` months ending on ``end`` (a month-end date keeps month ends)."""
    month_end = end.day == _cal.monthrange(end.year, end.month)[1]
    y, mo = divmod(end.month - 1 - months, 12)
    y, mo = end.year + y, mo + 1
    last = _cal.monthrange(y, mo)[1]
    return Period(dt.date(y, mo, last if month_end else min(end.day, last)) + _DAY, end)


def _r_span(cal, m):  # "six months ended June 30, 2024", "the quarter ended September 30, 2024"
    end = _date(m, "t")
    if end is None:
        return []
    months = _span_months(m)
    return [_Reading(_ending(end, months), f"{m[0].strip()} = the {months} months ending {end}", exact=True)]


def _r_range(cal, m):  # "from January 1, 2024 to June 30, 2024", "2024-01-01..2024-06-30"
    if m["aiso2"]:
        start, end = dt.date.fromisoformat(m["aiso2"]), dt.date.fromisoformat(m["biso2"])
    else:
        start, end = _date(m, "a"), _date(m, "b")
    if start is None or end is None or end < start:
        return []
    return [_Reading(Period(start, end), f"{m[0].strip()} = {start} to {end}", exact=True)]


def _r_date(cal, m):  # "as of December 31, 2022", "the December 31, 2022 balance sheet", "September 30, 2023"
    d = _date(m, "i")
    if d is None:
        return []
    out = [_Reading(Period(None, d), f"{m[0].strip()} = the instant {d}", exact=True)]
    if m["iat"]:  # "as of", "at", "on": a balance-sheet date, nothing else
        return out
    for i, months in enumerate((12, 3, 6, 9), 1):  # a period ending that day, when the filing has one
        out.append(_Reading(_ending(d, months), f"{m[0].strip()} read as the {months} months ending {d}", pref=i,
                            exact=True, only_if_present=True))
    return out


def _r_month_instant(cal, m):  # "as of June 2024", "at the end of March 2023"
    d = _date(m, "j")
    return [_Reading(Period(None, d), f"{m[0].strip()} = the end of that month, {d}")] if d else []


def _r_quarter_year(cal, m, p="a"):  # "Q2 2024", "third quarter of fiscal 2023", "Q3 FY24", "FY24 Q3"
    year, basis = _year(m, p) or (None, "either")
    if year is None:
        return []
    if m.groupdict().get(p + "qf") or m.groupdict().get(p + "qf0"):
        basis = "fiscal"
    return _quarter_readings(cal, year, _quarter(m, p), basis, m[0].strip())


def _r_year_quarter(cal, m):
    return _r_quarter_year(cal, m, "b")


def _r_quarter_short(cal, m):  # "Q3'24", "3Q24", "Q3 24"
    return _quarter_readings(cal, 2000 + int(m["syy"]), int(m["hq"] or m["hqn"]), "either", m[0].strip())


def _r_quarter_alone(cal, m):  # "Q2", "the fourth quarter": the document's fiscal year
    q, year = _quarter(m, "c"), _doc_year(cal)
    p = cal.fiscal.quarter(year, q)
    if cal.document_end is not None and p.end > cal.document_end + dt.timedelta(days=TOLERANCE_DAYS):
        year -= 1
        p = cal.fiscal.quarter(year, q)
    why = f"{m[0].strip()} with no year = Q{q} of fiscal {year}, the latest by the document's end, {p.start} to {p.end}"
    return [_Reading(p, f"{why} ({cal.fye_words()})")]


def _r_month_quarter(cal, m):  # "the June 2023 quarter", "the quarter ending June 2023"
    end = _date(m, "d") or _date(m, "d2")
    if end is None:
        return []
    return [_Reading(_ending(end, 3), f"{m[0].strip()} = the three months ending in {end:%B %Y}, {_ending(end, 3)}")]


def _r_relative_quarter(cal, m):  # "the latest quarter", "the prior quarter", "the same quarter last year"
    if cal.document_end is None:
        raise _NoCalendar("the filing gives no dei:DocumentPeriodEndDate")
    said, end = m[0].strip(), cal.document_end
    if re.search(r"year|ago", said, re.I):
        end = _ending(end, 12).start - _DAY
        what = "the document's quarter a year earlier"
    elif re.search(r"prior|previous|preceding|sequential", said, re.I):
        end = _ending(end, 3).start - _DAY
        what = "the quarter before the document's"
    else:
        what = "the document's quarter"
    p = _ending(end, 3)
    return [_Reading(p, f"{said} = {what}, three months ending {end} (dei:DocumentPeriodEndDate {cal.document_end})")]


def _r_first_months(cal, m):  # "first nine months of fiscal 2023", "the first six months"
    months = _COUNT[m["fn"].lower()] if m["fn"] else 3 * {"two": 2, "2": 2, "three": 3, "3": 3}[m["fq"].lower()]
    y = _year(m, "e")
    if y is None and _names_year(m, "e"):
        return []
    if y is None:
        year, basis = _doc_year(cal), "fiscal"
    else:
        year, basis = y
    if months == 12:
        return _year_readings(cal, year, basis, m[0].strip())
    return _first_readings(cal, year, months, basis, m[0].strip())


def _r_half(cal, m):  # "first half of 2024", "H1 2024", "1H24", "the second half of fiscal 2023"
    second = (m["h"] or "").lower().startswith(("second", "2")) or "2" in (m["hn"] or m["hn2"] or "")
    y = _year(m, "f")
    if y is None and _names_year(m, "f"):
        return []
    if y is None and m["hyy"]:
        y = (2000 + int(m["hyy"]), "either")
    year, basis = y if y is not None else (_doc_year(cal), "fiscal")
    said = m[0].strip()
    if not second:
        return _first_readings(cal, year, 6, basis, said)

    def build(shape: _Shape, word: str) -> tuple[Period, str]:
        p = shape.last(year, 6)
        return p, f"{said} = the last six months of {word + ' ' if word else ''}{year}, {p.start} to {p.end}"
    return _by_basis(cal, basis, build)


def _r_ytd(cal, m):  # "year to date", "YTD", "fiscal 2024 year-to-date"
    if cal.document_end is None:
        raise _NoCalendar("the filing gives no dei:DocumentPeriodEndDate")
    year = _doc_year(cal)
    y = _year(m, "g") or _year(m, "g2")
    if y is None and (_names_year(m, "g") or _names_year(m, "g2")):
        return []
    if y is not None and y[0] != year:
        return _year_readings(cal, y[0], y[1], m[0].strip())  # a past year "to date" is that whole year
    start = cal.fiscal.end(year - 1) + _DAY
    p = Period(start, cal.document_end)
    return [_Reading(p, f"{m[0].strip()} = fiscal {year} from its start to the document's end, {p.start} to {p.end} "
                        f"({cal.fye_words()})")]


def _r_ytd_quarter(cal, m):  # "YTD Q3 FY24", "year to date through fiscal Q3 2022": the first 3, 6 or 9 months
    q = _quarter(m, "u")
    y = _year(m, "u") or ((2000 + int(m["uyy"]), "either") if m["uyy"] else None)
    if y is None and _names_year(m, "u"):
        return []
    year, basis = y if y is not None else (_doc_year(cal), "fiscal")
    if m.groupdict().get("uqf") or m.groupdict().get("uqf0"):
        basis = "fiscal"
    if q == 4:
        return _year_readings(cal, year, basis, m[0].strip())
    return _first_readings(cal, year, 3 * q, basis, m[0].strip())


def _r_months_short(cal, m):  # "9M FY23", "9M22", "6M24": the first n months of the year
    y = _year(m, "n") or ((2000 + int(m["nyy"]), "either") if m["nyy"] else None)
    if y is None:
        return []
    months = int(m["mn"])
    if months == 12:
        return _year_readings(cal, y[0], y[1], m[0].strip())
    return _first_readings(cal, y[0], months, y[1], m[0].strip())


def _r_year_end_short(cal, m):  # "FYE20", "YE22", "FYE 2023": the end of that (fiscal) year
    year = _full_year(m["yey"])
    if not FIRST_YEAR <= year <= LAST_YEAR:
        return []
    said = m[0].strip()

    def build(shape: _Shape, word: str) -> tuple[Period, str]:
        d = shape.end(year)
        return Period(None, d), f"{said} = the end of {word + ' ' if word else ''}{year}, {d}"
    return _by_basis(cal, "fiscal" if m["yef"] else "either", build)


def _r_year_end(cal, m):  # "at year-end 2023", "fiscal 2022 year end"
    y = _year(m, "k") or _year(m, "k2")
    if y is None:
        return []
    year, basis = y
    said = m[0].strip()

    def build(shape: _Shape, word: str) -> tuple[Period, str]:
        d = shape.end(year)
        return Period(None, d), f"{said} = the end of {word + ' ' if word else ''}{year}, {d}"
    return _by_basis(cal, basis, build)


def _r_relative_year_end(cal, m):  # "at year-end", "the prior year-end", "end of last year"
    prior = re.search(r"prior|previous|preceding|last", m[0], re.I) is not None
    year = _doc_year(cal) - 1 if prior else _recent_year(cal)
    d = cal.fiscal.end(year)
    whose = "the end of the year before the document's" if prior else "the latest fiscal year end by the document's end"
    return [_Reading(Period(None, d), f"{m[0].strip()} = {whose}, fiscal {year}: {d} ({cal.fye_words()})")]


def _r_period_end(cal, m):  # "the end of the quarter", "the balance sheet date", "period end"
    if cal.document_end is None:
        raise _NoCalendar("the filing gives no dei:DocumentPeriodEndDate")
    d = cal.document_end
    return [_Reading(Period(None, d), f"{m[0].strip()} = the document's period end {d} (dei:DocumentPeriodEndDate)")]


def _r_year(cal, m):  # "fiscal 2023", "FY2023", "2022", "the year 2022", "calendar 2023"
    if (y := _year(m, "y")) is None:
        return []
    year, basis = y
    if basis == "either" and (word := re.match(r"the\s+(fiscal|calendar)\s", m[0], re.I)):  # "the fiscal year 2023"
        basis = word[1].lower()
    return _year_readings(cal, year, basis, m[0].strip())


def _r_relative_year(cal, m):  # "last fiscal year", "the prior year", "this fiscal year"
    said, word = m[0].strip(), m["ry"]
    basis = "fiscal"
    if word in ("prior", "previous", "preceding"):
        year, what = _doc_year(cal) - 1, "the year before the document's"
    elif word in ("current", "this"):
        year, what = _doc_year(cal), "the document's year"
    else:
        year, what = _recent_year(cal), "the latest fiscal year completed by the document's end"
    out = [_Reading(r.nominal, f"{said} = {what}: {r.reason}", r.pref)
           for r in _year_readings(cal, year, basis, f"fiscal {year}")]
    if word in ("last", "latest", "most recent") and cal.annual:
        prior = _year_readings(cal, year - 1, basis, f"fiscal {year - 1}")[0]
        out.append(_Reading(prior.nominal, f"{said} read as the year before the document's: {prior.reason}", pref=1))
    if word in ("current", "this") and not cal.annual and cal.document_end is not None:
        start = cal.fiscal.end(year - 1) + _DAY
        out.append(_Reading(Period(start, cal.document_end), f"{said} so far: fiscal {year} to the document's end "
                            f"{cal.document_end}", pref=1))
    return out


_YEAR_Q = _year_re("a")
_RULES: tuple[tuple[str, re.Pattern, Callable], ...] = tuple((name, re.compile(rx, re.I), fn) for name, rx, fn in (
    ("range", rf"(?:(?:the\s+)?period\s+)?(?:from|between)\s+{_date_re('a')}\s+(?:to|through|thru|and|until)\s+{_date_re('b')}"
              rf"|(?P<aiso2>\d{{4}}-\d{{2}}-\d{{2}})\s*\.\.\s*(?P<biso2>\d{{4}}-\d{{2}}-\d{{2}})", _r_range),
    ("span", r"(?:(?P<sn>three|six|nine|twelve|3|6|9|12)[\s-]+months?|(?P<sw>13|26|39|52|53)[\s-]+weeks?"
             r"|(?P<shalf>(?:first\s+|second\s+)?half[\s-]+year|(?:first\s+|second\s+)?half)"
             r"|(?:(?:first|second|third|fourth|1st|2nd|3rd|4th)\s+(?:fiscal\s+)?)?(?P<sqq>quarter)|(?P<sfq>fiscal\s+quarter)"
             r"|(?P<sm>3|6|9|12)m"
             rf"|(?P<sy>(?:fiscal\s+)?year|fy))\s+(?:that\s+)?(?:ended|ending|through|thru|to)\s+(?:on\s+)?"
             rf"(?:{_date_re('t')}|{_month_year_re('t')})", _r_span),
    ("date", rf"(?:(?P<iat>as\s+(?:of|at)|at|on)\s+(?:the\s+)?)?{_date_re('i')}", _r_date),
    ("month_instant", rf"(?:as\s+(?:of|at)|at)\s+(?:the\s+end\s+of\s+)?{_month_year_re('j')}", _r_month_instant),
    ("quarter_year", rf"{_quarter_re('a')}(?:\s+of)?(?:\s+the)?,?\s*{_YEAR_Q}", _r_quarter_year),
    ("year_quarter", rf"{_year_re('b')},?\s+{_quarter_re('b')}", _r_year_quarter),
    ("quarter_short", r"(?<![\w])(?:q(?P<hq>[1-4])|(?P<hqn>[1-4])q)\s*'?(?P<syy>\d{2})(?!\d)", _r_quarter_short),
    ("quarter", rf"(?<![\w]){_quarter_re('c')}(?![\w])", _r_quarter_alone),
    ("month_quarter", rf"(?:the\s+)?(?:{_month_year_re('d')}\s+quarter|quarter\s+(?:ended|ending)\s+(?:in\s+)?{_month_year_re('d2')})",
     _r_month_quarter),
    ("relative_quarter", r"(?:the\s+)?(?:(?P<rqprev>prior|previous|preceding|sequential)\s+quarter"
                         r"|(?:same|comparable|corresponding)\s+quarter\s+(?:of\s+|in\s+)?(?:the\s+)?(?P<rqyear>last|prior|previous)\s+year"
                         r"|(?:prior|last)[\s-]+year(?:'s)?\s+quarter|year[\s-]+ago\s+quarter"
                         r"|(?:last|latest|most\s+recent|current|this|reported)\s+quarter)", _r_relative_quarter),
    ("first_months", rf"(?:the\s+)?(?:first|1st)\s+(?:(?P<fn>three|six|nine|twelve|3|6|9|12)\s+months|(?P<fq>two|three|2|3)\s+"
                     rf"(?:fiscal\s+)?quarters)(?:\s+(?:of|in)\s+(?:the\s+)?{_year_re('e')})?",
     _r_first_months),
    ("half", rf"(?:the\s+)?(?:(?P<h>first|1st|second|2nd)\s+half(?:[\s-]+year)?(?:\s+(?:of|in))?(?:\s+the)?\s*"
             rf"|(?<![\w])h(?P<hn>[12])\s*'?|(?<![\w])(?P<hn2>[12])h\s*'?)(?:{_year_re('f')}|(?P<hyy>\d{{2}})(?!\d))?", _r_half),
    ("ytd", rf"(?:(?:{_year_re('g')})\s+)?(?:fiscal\s+)?(?:year[\s-]+to[\s-]+date|ytd)(?:\s+(?:of\s+|in\s+)?{_year_re('g2')})?", _r_ytd),
    ("ytd_quarter", rf"(?:ytd|year[\s-]+to[\s-]+date)\s+(?:through\s+|thru\s+|to\s+)?(?:the\s+)?{_quarter_re('u')}"
                    rf"(?:(?:\s+of)?,?\s*{_year_re('u')}|\s*'(?P<uyy>\d{{2}})(?!\d))?", _r_ytd_quarter),
    ("months_short", rf"(?<![\w])(?P<mn>3|6|9|12)m\s*(?:{_year_re('n')}|'?(?P<nyy>\d{{2}})(?!\d))", _r_months_short),
    ("year_end_short", r"(?<![\w])(?P<yef>f)?ye\s*'?(?P<yey>\d{4}|\d{2})(?!\d)", _r_year_end_short),
    ("year_end", rf"(?:(?:fiscal\s+)?year[\s-]+end(?:ed)?(?:\s+of)?\s+{_year_re('k')}|{_year_re('k2')}\s+(?:fiscal\s+)?year[\s-]+end)",
     _r_year_end),
    ("relative_year_end", r"(?:the\s+)?(?:(?P<ryprior>prior|previous|preceding|last)[\s-]+(?:fiscal\s+)?year[\s-]+end"
                          r"|end\s+of\s+(?:the\s+)?(?:last|prior|previous)\s+(?:fiscal\s+)?year|(?:fiscal\s+)?year[\s-]+end)", _r_relative_year_end),
    ("period_end", r"(?:the\s+)?(?:end\s+of\s+the\s+(?:quarter|period|reporting\s+period)|(?:quarter|period)[\s-]+end"
                   r"|balance\s+sheet\s+date)", _r_period_end),
    ("year", rf"(?:the\s+(?:(?:fiscal|calendar)\s+)?year\s+)?{_year_re('y')}", _r_year),
    ("relative_year", r"(?:the\s+)?(?P<ry>last|latest|most\s+recent|prior|previous|preceding|current|this)\s+(?:completed\s+)?(?:fiscal\s+)?year",
     _r_relative_year),
))


_INSTANT_BEFORE = re.compile(r"(?:(?:at|as\s+(?:of|at)|by|on)\s+)?(?:the\s+)?(?:(?P<end>end|close)|(?P<start>beginning|start|opening))"
                             r"(?:\s+of\s+(?:the\s+)?|-)$", re.I)
_INSTANT_AFTER = re.compile(r"^(?:'s)?\s*(?:consolidated\s+)?(?:balance\s+sheets?|statements?\s+of\s+financial\s+position)", re.I)
_NORMALISE = str.maketrans({"\u2019": "'", "\u2018": "'", "\u2013": "-", "\u2014": "-", "\u00a0": " "})
_LEFTOVER = re.compile(r"(?:\s+|^)(?:in|for|during|of|at|as\s+of|on|over|from|the|by|through|since)\s*$", re.I)


def read_period(cal: FilingCalendar, text: str) -> PeriodReading:
    """The period ``text`` names, read against the filing's calendar, with its candidates best first.

    The longest period phrase in the text is read (so "first nine months of fiscal 2023" wins over its
    "fiscal 2023"); "the end of ..." before it or "balance sheet" after it makes it an instant. Candidates
    the filing has come first, then by how the phrase is most plainly read (fiscal before calendar
    unless it says calendar); at most :data:`MAX_CANDIDATES`. No phrase: ``matched == ""`` and no
    candidates. A relative phrase in a filing without dei values raises :class:`ToolError`.
    """
    norm = text.translate(_NORMALISE)  # same length: spans index the text
    best: tuple[int, int, int, re.Match, Callable] | None = None
    for rank, (name, rx, fn) in enumerate(_RULES):
        for m in rx.finditer(norm):
            if m.end() == m.start() or not _word_bounded(norm, m):
                continue
            cand = (m.end() - m.start(), -rank, -m.start(), m, fn)
            if best is None or cand[:3] > best[:3]:
                best = cand
    if best is None:
        return PeriodReading(text, "", text.strip(), ())
    _, _, _, m, fn = best
    start, end = m.start(), m.end()
    before = _INSTANT_BEFORE.search(norm[:start])
    after = _INSTANT_AFTER.match(norm[end:])
    try:
        readings = fn(cal, m)
        if before is not None:
            start = before.start()
            readings = [_instant(r, at_start=bool(before["start"])) for r in readings]
        if after is not None:
            end += after.end()
            readings = [_instant(r, at_start=False) for r in readings]
        ranked = _rank(cal, readings)
    except _NoCalendar as exc:
        raise ToolError("bad_arguments", f"{m[0].strip()!r} is relative to the document, but {exc}: name the year "
                        "(e.g. 'fiscal 2023')") from None
    except (ValueError, OverflowError):  # a year no calendar holds ("fiscal 0000"): read as no period
        ranked = ()
    return PeriodReading(text, text[start:end].strip(), _rest(text, start, end), ranked)


def _word_bounded(norm: str, m: re.Match) -> bool:
    """A match that neither starts nor ends inside a word ("sq3" and "2023q" are not quarters)."""
    a, b = m.start(), m.end()
    return not (a > 0 and norm[a - 1].isalnum() and norm[a].isalnum()) and not (
        b < len(norm) and norm[b].isalnum() and norm[b - 1].isalnum())


def _instant(r: _Reading, *, at_start: bool) -> _Reading:
    p = r.nominal
    if p.is_instant:
        return r
    d = (p.start - _DAY) if at_start else p.end
    where = "beginning" if at_start else "end"
    return _Reading(Period(None, d), f"the {where} of {r.reason}: the instant {d}", r.pref, r.exact, r.only_if_present)


def without_phrase(text: str, matched: str) -> str:
    """``text`` without the period words ``matched`` (as :func:`read_period` or ``resolve_period``'s
    ``read`` gives them) and the little words that tied them in ("in", "for the"...): what is left names
    the line item and its members."""
    at = text.find(matched) if matched else -1
    return _rest(text, at, at + len(matched)) if at >= 0 else " ".join(text.split()).strip(" ,;:.?!")


def _rest(text: str, start: int, end: int) -> str:
    head = _LEFTOVER.sub("", text[:start].rstrip(" ,;:("))
    while (shorter := _LEFTOVER.sub("", head)) != head:
        head = shorter
    tail = text[end:].strip(" ,;:.?!)")
    return " ".join(f"{head} {tail}".split()).strip(" ,;:.?!")


def _rank(cal: FilingCalendar, readings: list[_Reading]) -> tuple[PeriodCandidate, ...]:
    scored: list[tuple[tuple, PeriodCandidate]] = []
    seen: set[Period] = set()
    for i, r in enumerate(readings):
        period, note = _snap(cal, r)
        if period in seen or (r.only_if_present and period not in cal.facts_by_period):
            continue
        seen.add(period)
        have = period in cal.facts_by_period
        facts = cal.facts_by_period.get(period, 0)
        scored.append(((not have, r.pref, i), PeriodCandidate(period, have, facts, r.reason + note)))
    return tuple(c for _, c in sorted(scored, key=lambda sc: sc[0]))[:MAX_CANDIDATES]


def _snap(cal: FilingCalendar, r: _Reading) -> tuple[Period, str]:
    """The reading's period in the filing's own dates: itself when a context has it, else the filing's
    period of the same kind whose ends lie within :data:`TOLERANCE_DAYS` (nearest, then most facts)."""
    p = r.nominal
    if p in cal.facts_by_period:
        return p, ""
    tol = TOLERANCE_DAYS
    near = []
    for q in cal.facts_by_period:
        if q.forever or q.is_instant != p.is_instant or q.end is None:
            continue
        gap = abs((q.end - p.end).days) + (abs((q.start - p.start).days) if not p.is_instant else 0)
        if abs((q.end - p.end).days) <= tol and (p.is_instant or abs((q.start - p.start).days) <= tol):
            near.append((gap, -cal.facts_by_period[q], str(q), q))
    if not near:
        return p, f"; {p} is not a period of the filing"
    q = min(near)[3]
    if r.exact:
        return q, f"; the filing has no {p}, the nearest is {q}"
    return q, f"; in the filing as {q} (its 52/53-week dates, within {tol} days)"


# -- the tool -------------------------------------------------------------------------------------------
def resolve_period(ctx: ToolContext, args: dict) -> dict:
    """``resolve_period``: a phrase -> the filing's periods it may mean, ranked, each with its reason."""
    phrase = " ".join(str(args["phrase"]).split())
    cal = calendar_of(ctx.env)
    reading = read_period(cal, phrase)
    if not reading.candidates:
        latest = sorted((p for p in cal.facts_by_period if not p.forever), key=lambda p: (p.end, p.days), reverse=True)
        raise ToolError("bad_arguments", f"no period phrase in {phrase!r}: name one such as 'fiscal 2023', 'Q2 2024', "
                        "'first half of 2024', 'six months ended June 30, 2024' or 'as of December 31, 2022'",
                        [str(p) for p in latest])
    ranked = [{"rank": i, "period": c.notation, "in_filing": c.in_filing, "facts": c.facts, "reason": c.reason}
              for i, c in enumerate(reading.candidates, 1)]
    return {"phrase": phrase, "read": reading.matched, "candidates": ctx.order(ranked, "resolve_period", phrase),
            "count": len(ranked)}


PERIOD_TOOLS: tuple[Tool, ...] = (
    Tool("resolve_period", "Turn a period phrase ('fiscal 2023', 'Q2 2024', 'first nine months of fiscal 2023', "
         "'H1 2024', 'as of December 31, 2022') into the filing's periods, best first: each with the reason it "
         "matches and how many facts the filing reports for it.", "static",
         object_schema({"phrase": {"type": "string", "minLength": 1,
                                   "description": "the period as the question words it, or the whole question"}},
                       ("phrase",)), resolve_period),
)
