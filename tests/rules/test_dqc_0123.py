"""DQC.US.0123: its conformance case and the examples of docs/rules/DQC_US_0123.md."""
from __future__ import annotations

from builders import gaap
from conformance import FY_END, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0123"


def case():
    b = base()
    b.fact(gaap("StockholdersEquity"), 500000, FY_END, {gaap("StatementClassOfStockAxis"): gaap("CommonClassAMember")})
    return b, ["DQC.US.0123.9583"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0123_with_the_equity_component_or_as_a_bdc_is_fine(data_root):
    b = base()
    b.fact(gaap("StockholdersEquity"), 500000, FY_END, {gaap("StatementClassOfStockAxis"): gaap("CommonClassAMember"),
                                                      gaap("StatementEquityComponentsAxis"): gaap("CommonStockMember")})
    assert codes(run("0123", b, data_root)) == []
    b, _ = case()
    b.fact(gaap("NetAssetValuePerShare"), 10, FY_END, {gaap("StatementClassOfStockAxis"): gaap("CommonClassAMember")})
    assert codes(run("0123", b, data_root)) == []
