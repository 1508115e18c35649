"""DQC.US.0046: its conformance case and the examples of docs/rules/DQC_US_0046.md."""
from __future__ import annotations

from builders import ext, gaap
from conformance import CF_URI, IS_URI, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0046"


def case():
    b = base()
    b.role(CF_URI, "0006 - Statement - Cash Flows")
    b.calc(CF_URI, gaap("NetCashProvidedByUsedInContinuingOperations"),
           [(gaap("NetCashProvidedByUsedInOperatingActivitiesContinuingOperations"), 1),
            (gaap("EffectOfExchangeRateOnCashAndCashEquivalentsContinuingOperations"), 1)])
    return b, ["DQC.US.0046.6840"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0046_the_right_total_and_depth_two(data_root):
    b = base()
    b.role(CF_URI, "0006 - Statement - Cash Flows")
    total = gaap("CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsPeriodIncreaseDecreaseIncludingExchangeRateEffect")
    b.calc(CF_URI, total, [(gaap("EffectOfExchangeRateOnCashAndCashEquivalentsContinuingOperations"), 1)])
    assert codes(run("0046", b, data_root)) == []
    b.role(IS_URI, "0005 - Statement - Comprehensive Income")
    b.calc(IS_URI, gaap("OtherComprehensiveIncomeLossNetOfTax"), [(ext("OciSubtotal"), 1)])
    b.calc(IS_URI, ext("OciSubtotal"), [(gaap("NetIncomeLoss"), 1)])
    assert codes(run("0046", b, data_root)) == ["DQC.US.0046.9279"]
