"""The ixt and ixt-sec transformation rules, one row per behaviour worth pinning down.

Expected values follow the XBRL International registries (TR1-TR5) and the SEC registry of
2015-08-31 as EDGAR applies it (e.g. ``duryear`` spills fractions into months and days with
30.4375 days a month, which is what the SEC-extracted instances of real filings contain).
"""
from __future__ import annotations

import pytest

from auditflow.xbrl.qname import QName
from auditflow.xbrl.transforms import IXT_SEC, TransformError, apply_transform

TR1 = "http://www.xbrl.org/inlineXBRL/transformation/2010-04-20"
TR2 = "http://www.xbrl.org/inlineXBRL/transformation/2011-07-31"
TR3 = "http://www.xbrl.org/inlineXBRL/transformation/2015-02-26"
TR4 = "http://www.xbrl.org/inlineXBRL/transformation/2020-02-12"
TR5 = "http://www.xbrl.org/inlineXBRL/transformation/2022-02-16"
SEC = IXT_SEC
NBSP = "\u00a0"

CASES = [
    # -- numbers: grouping removed, no sign in the text ----------------------------------------------
    (TR3, "numdotdecimal", "1,234.5", "1234.5"),
    (TR3, "numdotdecimal", "1,000,000", "1000000"),
    (TR3, "numdotdecimal", "  352,583 ", "352583"),
    (TR3, "numdotdecimal", f"1{NBSP}234{NBSP}567.89", "1234567.89"),
    (TR3, "numdotdecimal", f"{NBSP}12.50{NBSP}", "12.50"),
    (TR3, "numdotdecimal", "0.0001", "0.0001"),
    (TR3, "numdotdecimal", "1234567", "1234567"),
    (TR3, "numdotdecimal", ".5", "0.5"),
    (TR3, "numcommadecimal", "1.499,99", "1499.99"),
    (TR3, "numcommadecimal", "0,5", "0.5"),
    (TR3, "numcommadecimal", "1 234,5", "1234.5"),
    (TR4, "num-dot-decimal", "1,499.99", "1499.99"),
    (TR4, "num-comma-decimal", "1.234.567,89", "1234567.89"),
    (TR5, "num-dot-decimal", "42", "42"),
    (TR4, "numdotdecimal", "7", "7"),  # unhyphenated spelling accepted in a TR4 namespace
    (TR3, "num-dot-decimal", "7", "7"),  # and the hyphenated one in TR3
    (TR3, "numunitdecimal", "5 dollars 25 cents", "5.25"),
    (TR3, "numdotdecimalin", "1,23,45,678.90", "12345678.90"),
    (TR1, "numcommadot", "1,234.56", "1234.56"),
    (TR1, "numdotcomma", "1.234,56", "1234.56"),
    (TR1, "numspacedot", "1 234.56", "1234.56"),
    # -- fixed values and dashes -----------------------------------------------------------------------
    (TR3, "zerodash", "\u2014", "0"),
    (TR3, "zerodash", "-", "0"),
    (TR3, "zerodash", " \u2013 ", "0"),
    (TR2, "zerodash", "--", "0"),
    (TR4, "fixed-zero", "nil", "0"),
    (TR4, "fixed-empty", "anything", ""),
    (TR3, "nocontent", "anything", ""),
    (TR4, "fixed-false", "No", "false"),
    (TR4, "fixed-true", "Yes", "true"),
    (TR3, "booleanfalse", "x", "false"),
    (TR3, "booleantrue", "x", "true"),
    # -- dates -------------------------------------------------------------------------------------------
    (TR3, "datemonthdayyearen", f"September{NBSP}30, 2023", "2023-09-30"),
    (TR3, "datemonthdayyearen", "Dec. 31, 22", "2022-12-31"),
    (TR3, "datemonthdayyearen", "april 12 2021", "2021-04-12"),
    (TR3, "datemonthdayyearen", "September 30th, 2023", "2023-09-30"),
    (TR3, "datelongmonthdayyearen", "March 31, 2021", "2021-03-31"),
    (TR3, "datedaymonthyear", "2.12.2021", "2021-12-02"),
    (TR3, "datedaymonthyear", "1.1.99", "1999-01-01"),
    (TR3, "datemonthdayyear", "12-30-2021", "2021-12-30"),
    (TR3, "datemonthdayyear", "2/16/22", "2022-02-16"),
    (TR3, "dateyearmonthday", "2021.12.31", "2021-12-31"),
    (TR3, "datedaymonthyearen", "13. Dec. 21", "2021-12-13"),
    (TR3, "datedaymonthen", "2 Sept.", "--09-02"),
    (TR3, "datemonthdayen", "February 29", "--02-29"),
    (TR3, "datemonthyearen", "December 2021", "2021-12"),
    (TR3, "dateyearmonthen", "2021 December", "2021-12"),
    (TR3, "datemonthyear", "02-1999", "1999-02"),
    (TR3, "datedaymonth", "11.12", "--12-11"),
    (TR3, "datemonthday", "12-1", "--12-01"),
    (TR4, "date-day-month-year", "01 02 2020", "2020-02-01"),
    (TR4, "date-month-day-year", "01/12/2022", "2022-01-12"),
    (TR4, "date-monthname-day-year-en", "dec. 1, 2022", "2022-12-01"),
    (TR4, "date-day-monthname-year-en", "1 Aug 2022", "2022-08-01"),
    (TR4, "date-year-month-day", " 2022/1/2 ", "2022-01-02"),
    (TR4, "date-monthname-day-en", "April/1", "--04-01"),
    (TR4, "date-day-monthname-en", "30 August", "--08-30"),
    (TR4, "date-month-year", "12.2022", "2022-12"),
    (TR4, "date-year-month", "99/1", "1999-01"),
    (TR4, "date-monthname-year-en", "Sept. 2000", "2000-09"),
    (TR4, "date-year-monthname-en", "2022-dec", "2022-12"),
    (TR5, "date-monthname-day-year-en", "June 30, 2024", "2024-06-30"),
    (TR1, "datelongus", "March 31, 2009", "2009-03-31"),
    (TR1, "dateslasheu", "31/03/2009", "2009-03-31"),
    # -- SEC: numbers in words and special values ----------------------------------------------------
    (SEC, "numwordsen", "no", "0"),
    (SEC, "numwordsen", "None", "0"),
    (SEC, "numwordsen", "zero", "0"),
    (SEC, "numwordsen", "one", "1"),
    (SEC, "numwordsen", "twenty-one", "21"),
    (SEC, "numwordsen", "nineteen hundred forty-four", "1944"),
    (SEC, "numwordsen", "Seventy Thousand and one", "70001"),
    (SEC, "numwordsen", "two million, five hundred thousand", "2500000"),
    (SEC, "numinf", "unlimited", "INF"),
    (SEC, "numneginf", "x", "-INF"),
    (SEC, "numnan", "n/a", "NaN"),
    # -- SEC: booleans -------------------------------------------------------------------------------
    (SEC, "boolballotbox", "\u2610", "false"),
    (SEC, "boolballotbox", "\u2611", "true"),
    (SEC, "boolballotbox", " \u2612 ", "true"),
    (SEC, "yesnoballotbox", "\u2612", "Yes"),
    (SEC, "boolyesno", "Yes", "true"),
    (SEC, "boolyesno", "no", "false"),
    # -- SEC: durations ------------------------------------------------------------------------------
    (SEC, "durwordsen", "five years", "P5Y"),
    (SEC, "durwordsen", "five-year", "P5Y"),
    (SEC, "durwordsen", "90 days", "P90D"),
    (SEC, "durwordsen", "24 months", "P24M"),
    (SEC, "durwordsen", "Five years, two months", "P5Y2M"),
    (SEC, "durwordsen", "ONE MONTH AND THREE DAYS", "P1M3D"),
    (SEC, "durwordsen", "zero days", "P0D"),
    (SEC, "duryear", " 1.2", "P1Y2M12D"),
    (SEC, "duryear", "2.5", "P2Y6M"),
    (SEC, "duryear", "3.00", "P3Y"),
    (SEC, "duryear", "9.9 ", "P9Y10M24D"),
    (SEC, "duryear", "0", "P0Y"),
    (SEC, "duryear", "-2.5", "-P2Y6M"),
    (SEC, "durmonth", "1.5", "P1M15D"),
    (SEC, "durweek", "2", "P14D"),
    (SEC, "durday", "30", "P30D"),
    (SEC, "durday", "1.5", "P1DT12H"),
    (SEC, "durhour", "5", "PT5H"),
    # -- SEC: enumerations ---------------------------------------------------------------------------
    (SEC, "exchnameen", "New York Stock Exchange", "NYSE"),
    (SEC, "exchnameen", "The Nasdaq Stock Market LLC", "NASDAQ"),
    (SEC, "exchnameen", "Nasdaq Global Select Market", "NASDAQ"),
    (SEC, "exchnameen", "NYSE American", "NYSEAMER"),
    (SEC, "exchnameen", "NYSE Arca, Inc.", "NYSEArca"),
    (SEC, "exchnameen", "Cboe BZX Exchange, Inc.", "CboeBZX"),
    (SEC, "stateprovnameen", "Delaware", "DE"),
    (SEC, "stateprovnameen", "New  York", "NY"),
    (SEC, "stateprovnameen", "Washington D.C.", "DC"),
    (SEC, "stateprovnameen", "Ontario", "ON"),
    (SEC, "countrynameen", "United States", "US"),
    (SEC, "countrynameen", "Cayman Islands", "KY"),
    (SEC, "countrynameen", "The Netherlands", "NL"),
    (SEC, "edgarprovcountryen", "Delaware", "DE"),
    (SEC, "edgarprovcountryen", "Cayman Islands", "E9"),
    (SEC, "edgarprovcountryen", "Ontario", "A6"),
    (SEC, "edgarprovcountryen", "Ontario, Canada", "A6"),
    (SEC, "edgarprovcountryen", "United Kingdom", "X0"),
    (SEC, "entityfilercategoryen", "Large Accelerated Filer", "Large Accelerated Filer"),
    (SEC, "entityfilercategoryen", "Non-accelerated filer", "Non-accelerated Filer"),
    (SEC, "entityfilercategoryen", "accelerated filer", "Accelerated Filer"),
]

INVALID = [
    (TR3, "numdotdecimal", "(1,234)"),  # parentheses are presentation; the sign attribute carries sign
    (TR3, "numdotdecimal", "-5"),
    (TR3, "numdotdecimal", "1,23"),  # a group of two digits
    (TR3, "numdotdecimal", "12a"),
    (TR3, "numdotdecimal", ""),
    (TR3, "numdotdecimal", "\u2014"),  # a dash needs zerodash
    (TR3, "numcommadecimal", "1,234.5"),
    (TR3, "zerodash", "0"),
    (TR3, "zerodash", ""),
    (TR3, "datemonthdayyearen", "Foo 3, 2020"),
    (TR3, "datemonthdayyearen", "February 30, 2023"),
    (TR3, "datemonthdayyear", "13/01/2023"),
    (TR4, "date-day-month", "31.02"),
    (SEC, "numwordsen", "one two"),
    (SEC, "numwordsen", "a lot"),
    (SEC, "durwordsen", "two months one year"),
    (SEC, "durwordsen", "several years"),
    (SEC, "duryear", "1.2 years"),
    (SEC, "boolballotbox", "X"),
    (SEC, "boolyesno", "maybe"),
    (SEC, "exchnameen", "Tokyo Stock Exchange"),
    (SEC, "stateprovnameen", "Atlantis"),
    (SEC, "countrynameen", "Narnia"),
    (SEC, "entityfilercategoryen", "Smaller Reporting Company"),
    (TR3, "nosuchrule", "1"),
    ("http://example.com/not-a-registry", "numdotdecimal", "1"),
]


@pytest.mark.parametrize(("namespace", "name", "text", "expected"), CASES, ids=[f"{c[1]}:{c[2]!r}" for c in CASES])
def test_transform(namespace: str, name: str, text: str, expected: str) -> None:
    assert apply_transform(QName(namespace, name, "ixt"), text) == expected


@pytest.mark.parametrize(("namespace", "name", "text"), INVALID, ids=[f"{c[1]}:{c[2]!r}" for c in INVALID])
def test_transform_refuses(namespace: str, name: str, text: str) -> None:
    with pytest.raises(TransformError) as info:
        apply_transform(QName(namespace, name, "ixt"), text)
    assert str(info.value)  # a message a filer can act on, never an empty error


def test_transform_error_is_a_value_error() -> None:
    """Callers that only know ValueError (e.g. generic number parsing) still catch it."""
    assert issubclass(TransformError, ValueError)
