"""DQC.US.0013: its conformance case, every reconciling item, the fallbacks for income before tax, the
exclusions, and real filings perturbed, corrected and untouched (docs/rules/DQC_US_0013.md)."""
from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from auditflow.mutations import Mutation, apply_mutation
from auditflow.rules.dqc_0013 import ITEMS, PREFIX
from auditflow.xbrl.model import Unit
from auditflow.xbrl.qname import QName
from builders import XBRLI, ext, gaap
from conformance import FY, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import edited, load, run_rule

RULE = "0013"
IBT = gaap("IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest")


def filing(income=1000, rate="-0.02", item="TaxCredits", period=FY, dims=None):
    b = base()
    b.units["pure"] = Unit("pure", (QName(XBRLI, "pure", "xbrli"),))
    if income is not None:
        b.fact(IBT, income, FY)
    b.fact(gaap(PREFIX + item), rate, period, dims or {}, unit="pure", decimals=3)
    return b


def case():
    return filing(), ["DQC.US.0013.2774"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


@pytest.mark.parametrize("sid,item", ITEMS)
def test_0013_every_item_trips_its_code_when_negative_and_income_positive(sid, item, data_root):
    assert codes(run(RULE, filing(item=item), data_root)) == [f"DQC.US.0013.{sid}"]
    assert codes(run(RULE, filing(item=item, rate="0.02"), data_root)) == []


def test_0013_a_loss_before_tax_or_no_income_or_another_period_is_not_checked(data_root):
    for b in (filing(income=-1000), filing(income=0), filing(income=None), filing(period="2023-01-01..2023-12-31")):
        r = run(RULE, b, data_root)
        assert codes(r) == [] and r.consistent == 0


def test_0013_income_before_tax_falls_back_as_dqc_does(data_root):
    before = gaap("IncomeLossFromContinuingOperationsBeforeIncomeTaxesMinorityInterestAndIncomeLossFromEquityMethodInvestments")
    equity = gaap("IncomeLossFromEquityMethodInvestments")
    b = filing(income=None)
    b.fact(before, -100, FY)
    b.fact(equity, 300, FY)  # -100 + 300 > 0
    f = run(RULE, b, data_root).findings[0]
    assert f.code == "DQC.US.0013.2774" and "(200, from IncomeLossFromContinuingOperationsBeforeIncomeTaxesMinority" in f.message
    b = filing(income=None)
    b.fact(gaap("IncomeLossFromContinuingOperationsBeforeIncomeTaxesDomestic"), -500, FY)
    b.fact(gaap("IncomeLossFromContinuingOperationsBeforeIncomeTaxesForeign"), 400, FY)  # -100: a loss
    assert codes(run(RULE, b, data_root)) == []
    b.fact(equity, 200, FY)  # -500 + 400 + 200 > 0
    assert codes(run(RULE, b, data_root)) == ["DQC.US.0013.2774"]


def test_0013_the_total_wins_over_the_fallbacks(data_root):
    b = filing(income=-1)
    b.fact(gaap("IncomeLossFromContinuingOperationsBeforeIncomeTaxesDomestic"), 500, FY)
    assert codes(run(RULE, b, data_root)) == []


def test_0013_dimensions_align_and_dqc_exclusions_apply(data_root):
    seg = gaap("StatementBusinessSegmentsAxis")
    legal = QName("http://xbrl.sec.gov/dei/2024", "LegalEntityAxis", "dei")
    b = filing(dims={legal: ext("SubsidiaryOneMember")})  # income is reported without dimensions only
    assert codes(run(RULE, b, data_root)) == []
    b.fact(IBT, 50, FY, {legal: ext("SubsidiaryOneMember")})
    assert codes(run(RULE, b, data_root)) == ["DQC.US.0013.2774"]
    for dims in ({legal: ext("ConsolidationEliminationsMember")},  # a member name with "eliminat"
                 {seg: ext("WidgetsMember")},  # an excluded axis
                 {gaap("ConsolidationItemsAxis"): gaap("CorporateNonSegmentMember")}):  # an excluded member
        b = filing(dims=dims)
        b.fact(IBT, 50, FY, dims)
        r = run(RULE, b, data_root)
        assert codes(r) == [] and any("may be negative" in c.reason for c in r.checks)


@pytest.mark.slow
def test_0013_a_real_filing_untouched_is_clean_and_a_flipped_credit_is_reported(data_root):
    tol = load(data_root, "tol-10k-2023-10-31")
    assert codes(run_rule(RULE, tol, data_root)) == []
    credit = next(f for f in tol.facts if f.concept.local == PREFIX + "TaxCredits" and f.number and f.number > 0)
    flipped = apply_mutation(tol, Mutation("flip_sign", credit.key))
    r = run_rule(RULE, flipped, data_root)
    assert [(f.code, f.fact_id, f.expected) for f in r.findings] == [("DQC.US.0013.2774", credit.key, credit.number)]


@pytest.mark.slow
def test_0013_a_real_sign_error_is_reported_and_its_correction_is_clean(data_root):
    mdnc = load(data_root, "mdnc-10k-2025-02-28")
    r = run_rule(RULE, mdnc, data_root)
    assert codes(r) == ["DQC.US.0013.9789"] and r.findings[0].reported == Decimal("-0.04")
    fixed = edited(mdnc, change=lambda f: replace(f, value="0.04") if f.key == r.findings[0].fact_id else f)
    assert codes(run_rule(RULE, fixed, data_root)) == []
