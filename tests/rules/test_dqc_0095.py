"""DQC.US.0095: its conformance case and the examples of docs/rules/DQC_US_0095.md."""
from __future__ import annotations

from builders import dei, gaap
from conformance import FY_END, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0095"


def case():
    b = base()
    b.fact(dei("EntityCommonStockSharesOutstanding"), 12150000, "2025-02-14", unit="shares", decimals=0)
    b.fact(gaap("CommonStockSharesOutstanding"), 12150, FY_END, unit="shares", decimals=0)
    return b, ["DQC.US.0095.9528"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0095_same_scale_and_old_balance_sheet_dates_are_fine(data_root):
    b = base()
    b.fact(dei("EntityCommonStockSharesOutstanding"), 12150000, "2025-02-14", unit="shares", decimals=0)
    b.fact(gaap("CommonStockSharesOutstanding"), 12000000, FY_END, unit="shares", decimals=0)
    b.fact(gaap("CommonStockSharesOutstanding"), 12000, "2024-10-01", unit="shares", decimals=0)  # 136 days before
    r = run("0095", b, data_root)
    assert codes(r) == [] and r.consistent == 1
