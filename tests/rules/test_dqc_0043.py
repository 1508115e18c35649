"""DQC.US.0043: its conformance case and the examples of docs/rules/DQC_US_0043.md."""
from __future__ import annotations

from builders import ext, gaap
from conformance import CF_URI, FY, _cash_flow, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0043"


def case():
    b = base()
    b.fact(gaap("NetCashProvidedByUsedInOperatingActivities"), 1000, FY)
    return _cash_flow(b, "NetCashProvidedByUsedInOperatingActivities", ext("GainOnSaleOfWidgets"), 1), ["DQC.US.0043.7488"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0043_the_right_weight_and_concepts_without_a_balance_are_said(data_root):
    b = base()
    b.fact(gaap("NetCashProvidedByUsedInOperatingActivities"), 1000, FY)
    _cash_flow(b, "NetCashProvidedByUsedInOperatingActivities", ext("GainOnSaleOfWidgets"), -1)
    b.calc(CF_URI, gaap("NetCashProvidedByUsedInOperatingActivities"), [(gaap("DepreciationDepletionAndAmortization"), 1)])
    r = run("0043", b, data_root)
    assert codes(r) == [] and r.consistent == 1 and r.not_applicable == 1
    assert any("1 descendants" in w and "1 of them standard" in w for w in r.warnings)


def test_0043_stops_at_net_income_items(data_root):
    b = base()
    b.fact(gaap("NetCashProvidedByUsedInOperatingActivities"), 1000, FY)
    _cash_flow(b, "NetCashProvidedByUsedInOperatingActivities", gaap("ProfitLoss"), 1)
    b.calc(CF_URI, gaap("ProfitLoss"), [(ext("GainOnSaleOfWidgets"), 1)])
    assert codes(run("0043", b, data_root)) == []
