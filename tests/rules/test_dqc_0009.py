"""DQC.US.0009: its conformance case and the examples of docs/rules/DQC_US_0009.md."""
from __future__ import annotations

from builders import gaap
from conformance import FY, FY_END, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0009"


def case():
    b = base()
    b.fact(gaap("CommonStockSharesOutstanding"), 2000, FY_END, unit="shares", decimals=0)
    b.fact(gaap("CommonStockSharesIssued"), 1500, FY_END, unit="shares", decimals=0)
    return b, ["DQC.US.0009.24"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0009_equal_after_rounding_is_fine_and_splits_skip_the_authorized_pairs(data_root):
    b = base()
    b.fact(gaap("CommonStockSharesOutstanding"), 1499, FY_END, unit="shares", decimals=-3)
    b.fact(gaap("CommonStockSharesIssued"), 1200, FY_END, unit="shares", decimals=-3)  # both round to 1,000
    assert codes(run("0009", b, data_root)) == []
    b = base()
    b.fact(gaap("CommonStockSharesOutstanding"), 2000, FY_END, unit="shares", decimals=0)
    b.fact(gaap("CommonStockSharesAuthorized"), 1500, FY_END, unit="shares", decimals=0)
    assert codes(run("0009", b, data_root)) == ["DQC.US.0009.15"]
    b.fact(gaap("StockIssuedDuringPeriodSharesStockSplits"), 10, FY, unit="shares", decimals=0)
    b.fact(gaap("StockIssuedDuringPeriodSharesStockSplits"), 10, "2023-01-01..2023-12-31", unit="shares", decimals=0)
    assert codes(run("0009", b, data_root)) == []
