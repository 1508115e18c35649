"""DQC.US.0044: its conformance case and the examples of docs/rules/DQC_US_0044.md."""
from __future__ import annotations

from builders import gaap
from conformance import CF_URI, FY, _cash_flow, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0044"


def case():
    b = base()
    b.fact(gaap("InterestExpense"), 5000, FY)
    return _cash_flow(b, "NetCashProvidedByUsedInFinancingActivities", gaap("InterestExpense"), -1), ["DQC.US.0044.6834"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0044_cash_items_and_zero_values_are_fine(data_root):
    b = base()
    b.fact(gaap("RepaymentsOfLongTermDebt"), 5000, FY)
    b.fact(gaap("InterestExpense"), 0, FY)
    _cash_flow(b, "NetCashProvidedByUsedInFinancingActivities", gaap("RepaymentsOfLongTermDebt"), -1)
    b.calc(CF_URI, gaap("NetCashProvidedByUsedInFinancingActivities"), [(gaap("InterestExpense"), -1)])
    r = run("0044", b, data_root)
    assert codes(r) == [] and r.consistent == 1
