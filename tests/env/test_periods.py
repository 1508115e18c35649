"""Period phrases read against a real filing's calendar (auditflow.env.periods): one test per form an
auditor types, on real filings of the data root, each asserting the top candidate and that the filing
has facts for it; the 52/53-week, calendar-versus-fiscal and relative cases; the tool's observation."""
from __future__ import annotations

import datetime as dt
import json

import pytest

from auditflow.env.periods import PERIOD_TOOLS, calendar_from, calendar_of, read_period
from auditflow.env.schema import validate
from auditflow.env.tool_base import ToolContext, ToolError
from auditflow.env.tools import TOOLS
from auditflow.graphs.environment import build_environment
from auditflow.xbrl.model import Period

FILINGS = {
    "aapl10k": "filings/aapl-10k-2023-09-30",  # FYE last Saturday of September (--09-30), 52/53 weeks
    "aapl10q": "filings/aapl-10q-2023-07-01",  # Apple's fiscal Q3 2023
    "tsla10q": "filings/tsla-10q-2024-06-30",  # calendar-year filer, Q2
    "nflx10q": "filings/nflx-10q-2024-09-30",  # calendar-year filer, Q3
    "amzn10k": "filings/amzn-10k-2022-12-31",
    "ncmi10k": "filings-rolled/ncmi-10k-2023-12-28",  # December 52/53-week year (--12-28)
    "tol10k": "filings-rolled/tol-10k-2023-10-31",  # October fiscal year, month-end quarters
    "upxi10q": "filings-rolled/upxi-10q-2023-09-30",  # June fiscal year: its Q1 FY2024 ended September 30, 2023
}


@pytest.fixture(scope="module")
def calendars(data_root):
    """Each filing's calendar, loaded once (a dict filled on first use)."""
    cache: dict = {}

    def get(name: str):
        if name not in cache:
            cache[name] = calendar_of(build_environment(data_root / FILINGS[name]))
        return cache[name]
    return get


def top(calendars, name: str, text: str):
    reading = read_period(calendars(name), text)
    assert reading.candidates, f"{text!r} on {name}: no candidate"
    first = reading.candidates[0]
    assert first.in_filing and first.facts > 0, f"{text!r} on {name}: {first}"
    return first, reading


# -- the calendar itself ------------------------------------------------------------------------------
def test_the_calendar_comes_from_dei(calendars):
    apple = calendars("aapl10k")
    assert (apple.fiscal_year_end, apple.fiscal_year_focus, apple.fiscal_period_focus, apple.document_end) == (
        (9, 30), 2023, "FY", dt.date(2023, 9, 30))
    assert apple.fye_source == "dei:CurrentFiscalYearEndDate" and apple.year_offset == 0
    assert not apple.is_calendar_year and calendars("tsla10q").is_calendar_year
    assert calendars("ncmi10k").is_calendar_year  # --12-28: a December 52/53-week year


def test_a_calendar_without_dei_assumes_the_calendar_year_and_wrong_values_never_raise():
    p = Period(dt.date(2024, 1, 1), dt.date(2024, 12, 31))
    cal = calendar_from({"CurrentFiscalYearEndDate": "--13-45", "DocumentFiscalYearFocus": "twenty",
                         "DocumentPeriodEndDate": "not a date"}, {p: 3})
    assert cal.fiscal_year_end == (12, 31) and cal.fiscal_year_focus is None and cal.document_end is None
    assert "calendar year assumed" in cal.fye_source
    assert read_period(cal, "fiscal 2024").candidates[0].period == p
    with pytest.raises(ToolError, match="relative to the document"):
        read_period(cal, "last fiscal year")


def test_an_annual_report_without_a_fiscal_year_end_takes_its_period_end():
    cal = calendar_from({"DocumentPeriodEndDate": "2023-06-30", "DocumentFiscalPeriodFocus": "FY",
                         "DocumentFiscalYearFocus": "2023"}, {})
    assert cal.fiscal_year_end == (6, 30) and "DocumentPeriodEndDate" in cal.fye_source
    assert read_period(cal, "fiscal 2023").candidates[0].period == Period(dt.date(2022, 7, 1), dt.date(2023, 6, 30))


def test_a_fiscal_year_named_after_the_year_it_starts_in():
    """A retailer whose fiscal 2024 ends on February 1, 2025: dei's focus against the period end says so."""
    cal = calendar_from({"CurrentFiscalYearEndDate": "--02-01", "DocumentFiscalYearFocus": "2024",
                         "DocumentFiscalPeriodFocus": "FY", "DocumentPeriodEndDate": "2025-02-01"}, {})
    assert cal.year_offset == 1
    assert read_period(cal, "fiscal 2024").candidates[0].period == Period(dt.date(2024, 2, 2), dt.date(2025, 2, 1))


# -- fiscal and calendar years ---------------------------------------------------------------------------
def test_fiscal_2023_is_apples_52_53_week_year(calendars):
    first, reading = top(calendars, "aapl10k", "fiscal 2023")
    assert first.notation == "2022-09-25..2023-09-30"
    assert "--09-30 per dei:CurrentFiscalYearEndDate" in first.reason and "52/53-week" in first.reason
    assert reading.matched == "fiscal 2023" and reading.rest == ""


@pytest.mark.parametrize("text", ["FY2023", "FY23", "fiscal year 2023", "the 2023 fiscal year", "FY '23"])
def test_fiscal_year_spellings(calendars, text):
    first, _ = top(calendars, "aapl10k", text)
    assert first.notation == "2022-09-25..2023-09-30"


def test_a_bare_year_offers_fiscal_then_calendar_for_a_september_filer(calendars):
    reading = read_period(calendars("aapl10k"), "2023")
    assert [c.notation for c in reading.candidates] == ["2022-09-25..2023-09-30", "2023-01-01..2023-12-31"]
    fiscal, calendar = reading.candidates
    assert fiscal.in_filing and "fiscal year 2023" in fiscal.reason
    assert not calendar.in_filing and "calendar year 2023" in calendar.reason and "not a period of the filing" in calendar.reason


def test_a_bare_year_of_a_december_filer_is_the_calendar_year(calendars):
    first, reading = top(calendars, "amzn10k", "the year 2022")
    assert first.notation == "2022-01-01..2022-12-31" and len(reading.candidates) == 1
    assert "fiscal year is the calendar year" in first.reason


def test_calendar_year_of_a_december_52_53_week_filer_lands_on_its_dates(calendars):
    first, _ = top(calendars, "ncmi10k", "2022")
    assert first.notation == "2021-12-31..2022-12-29"


def test_last_fiscal_year_is_relative_to_the_document(calendars):
    annual = read_period(calendars("aapl10k"), "last fiscal year").candidates
    assert [c.notation for c in annual] == ["2022-09-25..2023-09-30", "2021-09-26..2022-09-24"]
    first, _ = top(calendars, "aapl10q", "last fiscal year")  # a Q3 report: the last completed year is 2022
    assert first.notation == "2021-09-26..2022-09-24"
    first, _ = top(calendars, "aapl10k", "the prior year")
    assert first.notation == "2021-09-26..2022-09-24"


# -- quarters --------------------------------------------------------------------------------------------
def test_q2_2024_of_a_calendar_year_filer(calendars):
    first, _ = top(calendars, "tsla10q", "Q2 2024")
    assert first.notation == "2024-04-01..2024-06-30"


def test_the_june_2023_quarter_is_apples_fiscal_third_quarter(calendars):
    first, _ = top(calendars, "aapl10q", "the June 2023 quarter")
    assert first.notation == "2023-04-02..2023-07-01" and "June 2023" in first.reason


def test_third_quarter_of_2024(calendars):
    first, _ = top(calendars, "nflx10q", "third quarter of 2024")
    assert first.notation == "2024-07-01..2024-09-30"


@pytest.mark.parametrize("text", ["Q3 FY23", "Q3 fiscal 2023", "third fiscal quarter of 2023", "FY23 Q3", "3Q23"])
def test_fiscal_quarter_spellings(calendars, text):
    first, _ = top(calendars, "aapl10q", text)
    assert first.notation == "2023-04-02..2023-07-01"


def test_a_quarter_without_fiscal_offers_the_calendar_reading_too(calendars):
    """Apple's Q3 report: the fiscal Q3 2023 is in the filing, the calendar Q3 (July-September) is not."""
    cands = read_period(calendars("aapl10q"), "third quarter of 2023").candidates
    assert [c.notation for c in cands] == ["2023-04-02..2023-07-01", "2023-07-01..2023-09-30"]
    assert [c.in_filing for c in cands] == [True, False]


def test_the_quarter_ended_a_date(calendars):
    first, reading = top(calendars, "nflx10q", "Revenue for the quarter ended September 30, 2024")
    assert first.notation == "2024-07-01..2024-09-30" and reading.rest == "Revenue"


def test_a_quarter_ended_on_a_nominal_date_finds_the_52_week_dates(calendars):
    first, _ = top(calendars, "aapl10k", "the quarter ended September 30, 2023")
    assert first.notation == "2023-07-02..2023-09-30"
    first, _ = top(calendars, "aapl10k", "year ended September 30, 2022")  # Apple's FY2022 ended September 24
    assert first.notation == "2021-09-26..2022-09-24" and "nearest" in first.reason


def test_quarters_of_an_october_fiscal_year(calendars):
    first, _ = top(calendars, "tol10k", "Q2 FY23")
    assert first.notation == "2023-02-01..2023-04-30"
    first, _ = top(calendars, "tol10k", "the July 2023 quarter")
    assert first.notation == "2023-05-01..2023-07-31"


def test_the_latest_quarter_and_the_same_quarter_a_year_earlier(calendars):
    first, _ = top(calendars, "tsla10q", "the most recent quarter")
    assert first.notation == "2024-04-01..2024-06-30"
    first, _ = top(calendars, "tsla10q", "the same quarter last year")
    assert first.notation == "2023-04-01..2023-06-30"


# -- year-to-date spans ------------------------------------------------------------------------------------
def test_first_nine_months_of_fiscal_2023(calendars):
    question = "How much did Apple spend repurchasing its own stock in the first nine months of fiscal 2023?"
    first, reading = top(calendars, "aapl10q", question)
    assert first.notation == "2022-09-25..2023-07-01"
    assert reading.matched == "the first nine months of fiscal 2023"
    assert reading.rest == "How much did Apple spend repurchasing its own stock"


def test_six_months_ended_june_30_2024(calendars):
    first, _ = top(calendars, "tsla10q", "six months ended June 30, 2024")
    assert first.notation == "2024-01-01..2024-06-30"


@pytest.mark.parametrize("text", ["Tesla's capital expenditures in the first half of 2024", "H1 2024", "1H24",
                                  "first six months of 2024", "year to date", "YTD", "26 weeks ended June 30, 2024"])
def test_first_half_spellings(calendars, text):
    first, _ = top(calendars, "tsla10q", text)
    assert first.notation == "2024-01-01..2024-06-30"


def test_nine_months_ended_and_year_to_date_in_a_q3_report(calendars):
    question = "Cash spent on share repurchases in the nine months ended September 30, 2024"
    first, reading = top(calendars, "nflx10q", question)
    assert first.notation == "2024-01-01..2024-09-30" and reading.rest == "Cash spent on share repurchases"
    first, _ = top(calendars, "aapl10q", "year-to-date")
    assert first.notation == "2022-09-25..2023-07-01" and "fiscal 2023 from its start" in first.reason


# -- instants ----------------------------------------------------------------------------------------------
def test_the_december_31_2022_balance_sheet(calendars):
    first, reading = top(calendars, "amzn10k", "Total current assets on the December 31, 2022 balance sheet")
    assert first.notation == "2022-12-31" and first.period.is_instant
    assert len(reading.candidates) == 1 and reading.rest == "Total current assets"


def test_as_of_a_date_is_only_the_instant(calendars):
    reading = read_period(calendars("tsla10q"), "Cash as of December 31, 2023")
    assert [c.notation for c in reading.candidates] == ["2023-12-31"] and reading.rest == "Cash"


def test_a_bare_date_is_the_instant_first_then_periods_ending_that_day(calendars):
    cands = read_period(calendars("nflx10q"), "September 30, 2024").candidates
    assert [c.notation for c in cands] == ["2024-09-30", "2024-07-01..2024-09-30", "2024-01-01..2024-09-30"]


def test_at_year_end_2023(calendars):
    first, _ = top(calendars, "aapl10k", "Total assets at year-end 2023")
    assert first.notation == "2023-09-30"
    first, _ = top(calendars, "ncmi10k", "at year-end 2023")
    assert first.notation == "2023-12-28"


def test_at_the_end_of_a_fiscal_year_lands_on_its_last_saturday(calendars):
    first, reading = top(calendars, "aapl10k", "inventories at the end of fiscal 2022")
    assert first.notation == "2022-09-24" and reading.rest == "inventories"


def test_end_of_q2_without_a_year_is_the_documents_year(calendars):
    first, _ = top(calendars, "aapl10q", "end of Q2")
    assert first.notation == "2023-04-01"  # Apple's fiscal Q2 2023 ended on April 1
    first, _ = top(calendars, "tsla10q", "at the end of Q1")
    assert first.notation == "2024-03-31"


def test_year_end_in_a_quarterly_report_is_the_last_completed_one(calendars):
    first, _ = top(calendars, "tsla10q", "cash at year-end")
    assert first.notation == "2023-12-31"


def test_a_date_the_filing_lacks_by_days_comes_with_the_nearest(calendars):
    first, _ = top(calendars, "ncmi10k", "as of December 31, 2023")
    assert first.notation == "2023-12-28" and "nearest is 2023-12-28" in first.reason


# -- analyst shorthand and other date spellings ---------------------------------------------------------
@pytest.mark.parametrize("name, text, expected", [
    ("tsla10q", "cash as at 30 June 2024", "2024-06-30"),
    ("tsla10q", "BS 31-Dec-23 inventory", "2023-12-31"),
    ("tsla10q", "inventory 6/30/24", "2024-06-30"),
    ("tsla10q", "on the Jun 30 '24 balance sheet", "2024-06-30"),
    ("tsla10q", "6M ended Jun 30 '24", "2024-01-01..2024-06-30"),
    ("tsla10q", "end-Q2 2024", "2024-06-30"),
    ("tsla10q", "YE23", "2023-12-31"),
    ("nflx10q", "over the first three quarters of 2024", "2024-01-01..2024-09-30"),
    ("nflx10q", "YTD Q3 FY24", "2024-01-01..2024-09-30"),
    ("nflx10q", "year to date through Q3 2023", "2023-01-01..2023-09-30"),
    ("nflx10q", "9M24 revenue", "2024-01-01..2024-09-30"),
    ("amzn10k", "FY ended 31-Dec-22", "2022-01-01..2022-12-31"),
    ("aapl10k", "FYE23", "2023-09-30"),
    ("aapl10k", "as at 24 September 2022", "2022-09-24"),
    ("upxi10q", "at the end of fiscal Q1 2024", "2023-09-30"),
])
def test_shorthand_and_date_spellings(calendars, name, text, expected):
    first, _ = top(calendars, name, text)
    assert first.notation == expected


# -- nothing to read, and the tool -------------------------------------------------------------------------
def test_words_without_a_period_give_no_candidate(calendars):
    reading = read_period(calendars("tsla10q"), "capital expenditures of 2,023 units")
    assert reading.matched == "" and reading.candidates == ()


@pytest.mark.parametrize("text", ["fiscal 0000", "as of 0001-01-01", "year ended January 1, 0001", "calendar 0000",
                                  "first nine months of fiscal 0000", "February 30, 2024", "9999-12-31..0001-01-01"])
def test_dates_no_calendar_holds_are_no_period_and_never_raise(calendars, text):
    reading = read_period(calendars("aapl10k"), text)
    assert reading.candidates == ()


@pytest.fixture(scope="module")
def tesla_ctx(data_root):
    return ToolContext(build_environment(data_root / FILINGS["tsla10q"]), data_root)


def test_resolve_period_tool_shows_ranked_candidates_with_reasons(tesla_ctx):
    tool = PERIOD_TOOLS[0]
    args = {"phrase": "Tesla's capital expenditures in the first half of 2024"}
    assert tool.name == "resolve_period" and validate(args, tool.input_schema) is None
    assert validate({"phrase": "H1", "extra": 1}, tool.input_schema) is not None
    obs = tool.function(tesla_ctx, args)
    json.dumps(obs)
    assert obs["read"] == "the first half of 2024" and obs["count"] == 1
    assert obs["candidates"][0] == {"rank": 1, "period": "2024-01-01..2024-06-30", "in_filing": True, "facts": 218,
                                    "reason": obs["candidates"][0]["reason"]}
    with pytest.raises(ToolError) as err:
        tool.function(tesla_ctx, {"phrase": "capital expenditures"})
    assert err.value.type == "bad_arguments" and err.value.close_matches


def test_the_recorded_tool_set_is_unchanged():
    """resolve_period is offered by a new tool-set version, never added to the recorded registry."""
    assert "resolve_period" not in TOOLS
