"""The period phrases an auditor or analyst types, as regular expressions, each with what it means.

Each rule reads one form ("fiscal 2023", "Q3 FY24", "the June 2023 quarter", "first nine months of
fiscal 2023", "H1 2024", "YTD Q3 FY24", "at year-end 2023", "31-Dec-23"...) into readings (:class:`Reading`):
the nominal period against the filing's calendar (:mod:`auditflow.env.filing_calendar`), why it is
meant, and how plainly (fiscal before calendar when the phrase says neither). Which rule's match is
read, and how readings become candidates in the filing's own dates, is :mod:`auditflow.env.periods`'
job (docs/query-forms.md, "Period phrases by meaning").
"""
from __future__ import annotations

import calendar as _cal
import datetime as dt
import re
from dataclasses import dataclass
from typing import Callable

from auditflow.env.filing_calendar import CALENDAR_YEAR, DAY, TOLERANCE_DAYS, FilingCalendar, Shape
from auditflow.xbrl.model import Period

FIRST_YEAR, LAST_YEAR = 1900, 2199  # years a phrase may name; others are no period (and no date overflow)


@dataclass(frozen=True)
class Reading:
    """One period a phrase may mean, in nominal dates, with why and how plainly (``pref``: 0 first)."""

    nominal: Period
    reason: str
    pref: int = 0
    exact: bool = False  # the phrase gave the dates: another date is only the nearest, not the calendar's
    only_if_present: bool = False  # offered only when the filing has it (a bare date read as a span)


class NoCalendar(Exception):
    """A relative phrase ("last fiscal year", "Q2") in a filing that does not say which year it reports."""


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
def _by_basis(cal: FilingCalendar, basis: str, build: Callable[[Shape, str], tuple[Period, str]]) -> list[Reading]:
    """The fiscal reading, the calendar one, or both (fiscal first) when the phrase does not say; one
    reading when the filer's fiscal year is the calendar year."""
    fiscal_shape, fiscal_word = cal.fiscal, "fiscal"
    if cal.is_calendar_year:
        period, what = build(fiscal_shape, "")
        return [Reading(period, f"{what} (the filer's fiscal year is the calendar year: {cal.fye_words()})")]
    out = []
    if basis in ("fiscal", "either"):
        period, what = build(fiscal_shape, fiscal_word)
        out.append(Reading(period, f"{what} ({cal.fye_words()})"))
    if basis in ("calendar", "either"):
        period, what = build(CALENDAR_YEAR, "calendar")
        note = "" if basis == "calendar" else "; the phrase does not say fiscal"
        out.append(Reading(period, f"{what}{note}", pref=len(out)))
    return out


def _year_readings(cal: FilingCalendar, year: int, basis: str, said: str) -> list[Reading]:
    def build(shape: Shape, word: str) -> tuple[Period, str]:
        p = shape.year(year)
        return p, f"{said} = {word + ' ' if word else ''}year {year}, {p.start} to {p.end}"
    return _by_basis(cal, basis, build)


def _quarter_readings(cal: FilingCalendar, year: int, q: int, basis: str, said: str) -> list[Reading]:
    def build(shape: Shape, word: str) -> tuple[Period, str]:
        p = shape.quarter(year, q)
        return p, f"{said} = Q{q} of {word + ' ' if word else ''}{year}, {p.start} to {p.end}"
    return _by_basis(cal, basis, build)


def _first_readings(cal: FilingCalendar, year: int, months: int, basis: str, said: str) -> list[Reading]:
    def build(shape: Shape, word: str) -> tuple[Period, str]:
        p = shape.first(year, months)
        return p, f"{said} = the first {months} months of {word + ' ' if word else ''}{year}, {p.start} to {p.end}"
    return _by_basis(cal, basis, build)


def _doc_year(cal: FilingCalendar) -> int:
    year = cal.document_year
    if year is None:
        raise NoCalendar("the filing gives neither dei:DocumentFiscalYearFocus nor dei:DocumentPeriodEndDate")
    return year


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
    return Period(dt.date(y, mo, last if month_end else min(end.day, last)) + DAY, end)


def _r_span(cal, m):  # "six months ended June 30, 2024", "the quarter ended September 30, 2024"
    end = _date(m, "t")
    if end is None:
        return []
    months = _span_months(m)
    return [Reading(_ending(end, months), f"{m[0].strip()} = the {months} months ending {end}", exact=True)]


def _r_range(cal, m):  # "from January 1, 2024 to June 30, 2024", "2024-01-01..2024-06-30"
    if m["aiso2"]:
        start, end = dt.date.fromisoformat(m["aiso2"]), dt.date.fromisoformat(m["biso2"])
    else:
        start, end = _date(m, "a"), _date(m, "b")
    if start is None or end is None or end < start:
        return []
    return [Reading(Period(start, end), f"{m[0].strip()} = {start} to {end}", exact=True)]


def _r_date(cal, m):  # "as of December 31, 2022", "the December 31, 2022 balance sheet", "September 30, 2023"
    d = _date(m, "i")
    if d is None:
        return []
    out = [Reading(Period(None, d), f"{m[0].strip()} = the instant {d}", exact=True)]
    if m["iat"]:  # "as of", "at", "on": a balance-sheet date, nothing else
        return out
    for i, months in enumerate((12, 3, 6, 9), 1):  # a period ending that day, when the filing has one
        out.append(Reading(_ending(d, months), f"{m[0].strip()} read as the {months} months ending {d}", pref=i,
                            exact=True, only_if_present=True))
    return out


def _r_month_instant(cal, m):  # "as of June 2024", "at the end of March 2023"
    d = _date(m, "j")
    return [Reading(Period(None, d), f"{m[0].strip()} = the end of that month, {d}")] if d else []


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
    return [Reading(p, f"{why} ({cal.fye_words()})")]


def _r_month_quarter(cal, m):  # "the June 2023 quarter", "the quarter ending June 2023"
    end = _date(m, "d") or _date(m, "d2")
    if end is None:
        return []
    return [Reading(_ending(end, 3), f"{m[0].strip()} = the three months ending in {end:%B %Y}, {_ending(end, 3)}")]


def _r_relative_quarter(cal, m):  # "the latest quarter", "the prior quarter", "the same quarter last year"
    if cal.document_end is None:
        raise NoCalendar("the filing gives no dei:DocumentPeriodEndDate")
    said, end = m[0].strip(), cal.document_end
    if re.search(r"year|ago", said, re.I):
        end = _ending(end, 12).start - DAY
        what = "the document's quarter a year earlier"
    elif re.search(r"prior|previous|preceding|sequential", said, re.I):
        end = _ending(end, 3).start - DAY
        what = "the quarter before the document's"
    else:
        what = "the document's quarter"
    p = _ending(end, 3)
    return [Reading(p, f"{said} = {what}, three months ending {end} (dei:DocumentPeriodEndDate {cal.document_end})")]


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

    def build(shape: Shape, word: str) -> tuple[Period, str]:
        p = shape.last(year, 6)
        return p, f"{said} = the last six months of {word + ' ' if word else ''}{year}, {p.start} to {p.end}"
    return _by_basis(cal, basis, build)


def _r_ytd(cal, m):  # "year to date", "YTD", "fiscal 2024 year-to-date"
    if cal.document_end is None:
        raise NoCalendar("the filing gives no dei:DocumentPeriodEndDate")
    year = _doc_year(cal)
    y = _year(m, "g") or _year(m, "g2")
    if y is None and (_names_year(m, "g") or _names_year(m, "g2")):
        return []
    if y is not None and y[0] != year:
        return _year_readings(cal, y[0], y[1], m[0].strip())  # a past year "to date" is that whole year
    start = cal.fiscal.end(year - 1) + DAY
    p = Period(start, cal.document_end)
    return [Reading(p, f"{m[0].strip()} = fiscal {year} from its start to the document's end, {p.start} to {p.end} "
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

    def build(shape: Shape, word: str) -> tuple[Period, str]:
        d = shape.end(year)
        return Period(None, d), f"{said} = the end of {word + ' ' if word else ''}{year}, {d}"
    return _by_basis(cal, "fiscal" if m["yef"] else "either", build)


def _r_year_end(cal, m):  # "at year-end 2023", "fiscal 2022 year end"
    y = _year(m, "k") or _year(m, "k2")
    if y is None:
        return []
    year, basis = y
    said = m[0].strip()

    def build(shape: Shape, word: str) -> tuple[Period, str]:
        d = shape.end(year)
        return Period(None, d), f"{said} = the end of {word + ' ' if word else ''}{year}, {d}"
    return _by_basis(cal, basis, build)


def _r_relative_year_end(cal, m):  # "at year-end", "the prior year-end", "end of last year"
    prior = re.search(r"prior|previous|preceding|last", m[0], re.I) is not None
    year = _doc_year(cal) - 1 if prior else _recent_year(cal)
    d = cal.fiscal.end(year)
    whose = "the end of the year before the document's" if prior else "the latest fiscal year end by the document's end"
    return [Reading(Period(None, d), f"{m[0].strip()} = {whose}, fiscal {year}: {d} ({cal.fye_words()})")]


def _r_period_end(cal, m):  # "the end of the quarter", "the balance sheet date", "period end"
    if cal.document_end is None:
        raise NoCalendar("the filing gives no dei:DocumentPeriodEndDate")
    d = cal.document_end
    return [Reading(Period(None, d), f"{m[0].strip()} = the document's period end {d} (dei:DocumentPeriodEndDate)")]


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
    out = [Reading(r.nominal, f"{said} = {what}: {r.reason}", r.pref)
           for r in _year_readings(cal, year, basis, f"fiscal {year}")]
    if word in ("last", "latest", "most recent") and cal.annual:
        prior = _year_readings(cal, year - 1, basis, f"fiscal {year - 1}")[0]
        out.append(Reading(prior.nominal, f"{said} read as the year before the document's: {prior.reason}", pref=1))
    if word in ("current", "this") and not cal.annual and cal.document_end is not None:
        start = cal.fiscal.end(year - 1) + DAY
        out.append(Reading(Period(start, cal.document_end), f"{said} so far: fiscal {year} to the document's end "
                            f"{cal.document_end}", pref=1))
    return out


_YEAR_Q = _year_re("a")
RULES: tuple[tuple[str, re.Pattern, Callable], ...] = tuple((name, re.compile(rx, re.I), fn) for name, rx, fn in (
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
