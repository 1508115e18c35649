"""DQC.US.0140: its conformance case, the examples of docs/rules/DQC_US_0140.md, and real filings."""
from __future__ import annotations

import pytest

from auditflow.mutations import Mutation, apply_mutation
from builders import ext, gaap
from conformance import FY_END, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import load, run_rule

RULE = "0140"
AXIS = gaap("FinancialInstrumentAxis")
COST, GAIN, LOSS, FAIR = (gaap("AvailableForSaleDebtSecuritiesAmortizedCostBasis"),
                          gaap("AvailableForSaleDebtSecuritiesAccumulatedGrossUnrealizedGainBeforeTax"),
                          gaap("AvailableForSaleDebtSecuritiesAccumulatedGrossUnrealizedLossBeforeTax"),
                          gaap("AvailableForSaleSecuritiesDebtSecurities"))
EXCL_COST = gaap("DebtSecuritiesAvailableForSaleAmortizedCostExcludingAccruedInterestBeforeAllowanceForCreditLoss")
EXCL_ALLOWANCE = gaap("DebtSecuritiesAvailableForSaleAmortizedCostAllowanceForCreditLossExcludingAccruedInterest")
EXCL_AFTER = gaap("DebtSecuritiesAvailableForSaleAmortizedCostExcludingAccruedInterestAfterAllowanceForCreditLoss")
EXCL_FAIR = gaap("DebtSecuritiesAvailableForSaleExcludingAccruedInterest")
CAL = "http://example.com/role/Investments"


def schedule(fair=1030, cost=1000, gain=50, loss=20, dims=None, b=None, decimals=0):
    b = b or base()
    dims = dims or {}
    for concept, value in ((COST, cost), (GAIN, gain), (LOSS, loss), (FAIR, fair)):
        if value is not None:
            b.fact(concept, value, FY_END, dims, decimals=decimals)
    return b


def case():
    return schedule(fair=1130), ["DQC.US.0140.9861"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0140_a_schedule_that_cross_foots_per_security_type(data_root):
    b = schedule()
    schedule(fair=510, cost=500, gain=15, loss=5, dims={AXIS: gaap("USTreasurySecuritiesMember")}, b=b)
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 2


def test_0140_within_four_units_of_the_last_digit(data_root):
    # decimals -3: 4 * 1,000 is allowed; 1,030,000 + 4,000 passes, + 5,000 does not
    assert codes(run(RULE, schedule(fair=1034000, cost=1000000, gain=50000, loss=20000, decimals=-3), data_root)) == []
    assert codes(run(RULE, schedule(fair=1035000, cost=1000000, gain=50000, loss=20000, decimals=-3), data_root)) == ["DQC.US.0140.9861"]


def test_0140_without_losses_or_without_fair_value_nothing_is_computed(data_root):
    assert codes(run(RULE, schedule(fair=9999, loss=None), data_root)) == []
    r = run(RULE, schedule(fair=None), data_root)
    assert codes(r) == [] and r.consistent == 0


def test_0140_excluding_accrued_interest_with_an_allowance(data_root):
    b = base()
    for concept, value in ((EXCL_COST, 1000), (EXCL_ALLOWANCE, 10), (GAIN, 50), (LOSS, 20), (EXCL_FAIR, 1020)):
        b.fact(concept, value, FY_END, decimals=0)
    assert codes(run(RULE, b, data_root)) == []  # 1000 - 10 + 50 - 20
    b.fact(EXCL_AFTER, 1000, FY_END, decimals=0)  # "after the allowance" equal to the cost before it
    r = run(RULE, b, data_root)
    assert codes(r) == ["DQC.US.0140.9862"] and "not used by mistake" in r.findings[0].message


def test_0140_a_reversed_calculation_with_further_items_explains_the_difference(data_root):
    b = schedule(fair=1130)  # 100 more than 1000 + 50 - 20
    b.role(CAL, "0010 - Disclosure - Investments")
    b.calc(CAL, COST, [(FAIR, 1), (LOSS, 1), (GAIN, -1), (ext("OtherAdjustments"), -1)])
    b.fact(ext("OtherAdjustments"), 100, FY_END, decimals=0)
    assert codes(run(RULE, b, data_root)) == []


def test_0140_a_reversed_calculation_that_does_not_hold_is_named(data_root):
    b = schedule(fair=1130)
    b.role(CAL, "0010 - Disclosure - Investments")
    b.calc(CAL, COST, [(FAIR, 1), (LOSS, 1), (GAIN, -1), (ext("OtherAdjustments"), -1)])
    b.fact(ext("OtherAdjustments"), 60, FY_END, decimals=0)
    r = run(RULE, b, data_root)
    assert codes(r) == ["DQC.US.0140.9861"] and "OtherAdjustments of 60" in r.findings[0].message


def test_0140_a_reversed_calculation_of_the_expected_items_only_does_not_excuse(data_root):
    b = schedule(fair=1130)
    b.role(CAL, "0010 - Disclosure - Investments")
    b.calc(CAL, COST, [(FAIR, 1), (LOSS, 1), (GAIN, -1)])
    assert codes(run(RULE, b, data_root)) == ["DQC.US.0140.9861"]


@pytest.mark.slow
def test_0140_real_filing_with_a_fair_value_off_by_a_billion(data_root):
    """aapl 2023's schedule of marketable securities cross-foots (18 checks); one fair value raised by 10^9 does not."""
    filing = load(data_root, "aapl-10k-2023-09-30")
    untouched = run_rule(RULE, filing, data_root)
    assert untouched.findings == () and untouched.consistent == 18
    first = next(ch for ch in untouched.checks if ch.fact_id)
    fact = filing.fact_by_key(first.fact_id)
    mutated = apply_mutation(filing, Mutation("set_value", fact.key, fact.number + 10 ** 9))
    r = run_rule(RULE, mutated, data_root)
    assert codes(r) == ["DQC.US.0140.9861"] and r.findings[0].fact_id == fact.key
    assert r.findings[0].expected == fact.number
