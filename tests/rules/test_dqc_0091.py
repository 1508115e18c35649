"""DQC.US.0091: its conformance case, the examples of docs/rules/DQC_US_0091.md, and real filings."""
from __future__ import annotations

from decimal import Decimal

import pytest

from auditflow.mutations import Mutation, apply_mutation
from auditflow.rules.dqc_0091 import PERCENT_ITEMS, percent_items
from auditflow.rules.finding import Outcome
from builders import ext, gaap, make_unit
from conformance import FY, FY_END, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import load, run_rule

RULE = "0091"
CODE = "DQC.US.0091.9376"
RATE = gaap("DebtInstrumentInterestRateStatedPercentage")


def _pure(b):
    b.units["pure"] = make_unit("pure", "pure")
    return b


def case():
    b = _pure(base())
    b.fact(RATE, "5.75", FY_END, unit="pure", decimals=4)  # fine: 575 %, but under the 1,000 % line
    b.fact(RATE, "57.5", FY_END, {gaap("DebtInstrumentAxis"): ext("NotesMember")}, unit="pure", decimals=4)
    return b, [CODE]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0091_reads_the_fasb_list_of_percent_items(data_root):
    items = percent_items(str(data_root / PERCENT_ITEMS))
    assert len(items) > 300 and "DebtInstrumentInterestRateStatedPercentage" in items
    assert not any(i.startswith("EffectiveIncomeTaxRate") for i in items)
    assert "NumberOfReportableSegments" not in items


@pytest.mark.parametrize("concept, value, expected", [
    (RATE, "10", []),  # exactly 1,000 %: DQC's test is "greater than 10"
    (RATE, "10.01", [CODE]),
    (RATE, "-50", []),
    (gaap("EffectiveIncomeTaxRateReconciliationAtFederalStatutoryIncomeTaxRate"), "21", [CODE]),
    (gaap("EffectiveIncomeTaxRateContinuingOperations"), "21", []),  # DQC leaves the other tax rates out
    (gaap("InvestmentOwnedPercentOfNetAssets"), "150", []),
    (ext("WidgetYieldPercentage"), "50", []),  # an extension concept
    (gaap("NumberOfReportableSegments"), "50", []),  # pure, but not a percent item
])
def test_0091_which_values_are_reported(data_root, concept, value, expected):
    b = _pure(base())
    b.fact(concept, value, FY, unit="pure", decimals=2)
    r = run(RULE, b, data_root)
    assert codes(r) == expected
    if expected:
        assert r.findings[0].reported == Decimal(value) and "1,000 percent" in r.findings[0].message


def test_0091_nil_facts_are_not_checked(data_root):
    b = _pure(base())
    b.fact(RATE, None, FY_END, unit="pure", nil=True)
    assert run(RULE, b, data_root).checks == ()


# -- real filings -----------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_0091_real_nflx_10k_percentages_are_scaled_and_one_scaled_as_a_whole_number_is_reported(data_root):
    filing = load(data_root, "filings/nflx-10k-2023-12-31")
    before = run_rule(RULE, filing, data_root)
    assert before.findings == () and before.consistent > 10
    target = next(c.fact_id for c in before.checks if c.outcome is Outcome.CONSISTENT)
    scaled = abs(filing.fact_by_key(target).number) * 1000 + 11  # 0.05 written as 61: always past the line
    after = run_rule(RULE, apply_mutation(filing, Mutation("set_value", target, scaled)), data_root)
    assert [(f.code, f.fact_id) for f in after.findings] == [(CODE, target)]


@pytest.mark.slow
def test_0091_real_ncmi_10k_reports_its_three_whole_number_percentages(data_root):
    r = run_rule(RULE, load(data_root, "filings-rolled/ncmi-10k-2023-12-28"), data_root)
    assert sorted((f.concept.local, f.reported) for f in r.findings) == [
        ("LimitedLiabilityCompanyLLCOrLimitedPartnershipLPMembersOrLimitedPartnersOwnershipInterest", Decimal(100)),
        ("LineOfCreditFacilityUnusedCapacityCommitmentFeePercentage", Decimal(50)),
        ("ShareBasedCompensationArrangementByShareBasedPaymentAwardPercentageOfOutstandingStockMaximum", Decimal(20)),
    ]
