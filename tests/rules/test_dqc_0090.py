"""DQC.US.0090: its conformance case, the examples of docs/rules/DQC_US_0090.md, and real filings."""
from __future__ import annotations

from decimal import Decimal

import pytest

from auditflow.mutations import Mutation, apply_mutation
from auditflow.rules.finding import Outcome
from builders import ext, gaap
from conformance import FY_END, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import load, run_rule

RULE = "0090"
OPERATING, FINANCE = "DQC.US.0090.9374", "DQC.US.0090.9375"
CAL_URI = "http://example.com/role/LeaseLiabilityReconciliation"


def _lease(b, total, liability, excess, *, finance=False):
    prefix = "FinanceLease" if finance else "LesseeOperatingLease"
    b.fact(gaap(f"{prefix}LiabilityPaymentsDue"), total, FY_END)
    if liability is not None:
        b.fact(gaap("FinanceLeaseLiability" if finance else "OperatingLeaseLiability"), liability, FY_END)
    if excess is not None:
        b.fact(gaap(f"{prefix}LiabilityUndiscountedExcessAmount"), excess, FY_END)
    return b


def case():
    b = _lease(base(), 100000, 43000, 7000)  # 57,000 unexplained
    _lease(b, 50000, 45000, 4000, finance=True)  # 1,000 off, 2,000 allowed: consistent
    return b, [OPERATING]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0090_finance_lease_payments_that_do_not_reconcile(data_root):
    r = run(RULE, _lease(base(), 50000, 45000, 2000, finance=True), data_root)
    assert codes(r) == [FINANCE]
    f = r.findings[0]
    assert f.reported == 50000 and f.expected == 47000 and "FinanceLeaseLiability plus" in f.message


def test_0090_liability_plus_excess_is_consistent_and_the_excess_is_required(data_root):
    b = _lease(base(), 100000, 93000, 7000)
    assert codes(r := run(RULE, b, data_root)) == [] and r.consistent == 1
    r = run(RULE, _lease(base(), 100000, 43000, None), data_root)  # no excess: DQC's `<+` needs its right side
    assert codes(r) == [] and r.consistent == 0


def test_0090_the_filer_excuses_the_difference(data_root):
    with_ext = _lease(base(), 100000, 43000, 7000)
    with_ext.role(CAL_URI, "0900 - Disclosure - Leases (Details)")
    with_ext.calc(CAL_URI, gaap("LesseeOperatingLeaseLiabilityPaymentsDue"),
                  [(gaap("OperatingLeaseLiability"), 1), (ext("LeasesSignedNotRecorded"), 1)])
    assert codes(run(RULE, with_ext, data_root)) == []
    opted = _lease(base(), 100000, 43000, 7000)
    opted.fact(ext("LesseeOperatingLeaseLiabilityUndiscountedExcessAmountNotDisclosed"), "true", FY_END, unit=None,
               decimals=None)
    assert codes(run(RULE, opted, data_root)) == []


def test_0090_leases_not_yet_commenced(data_root):
    axis = gaap("UnrecordedUnconditionalPurchaseObligationByCategoryOfItemPurchasedAxis")
    b = _lease(base(), 100000, 93000, 7000)
    b.fact(gaap("UnrecordedUnconditionalPurchaseObligationBalanceSheetAmount"), 5000, FY_END,
           {axis: gaap("OperatingLeaseLeaseNotYetCommencedMember")})
    assert codes(run(RULE, b, data_root)) == []  # the payments leave out exactly the 5,000 not yet commenced
    b2 = _lease(base(), 105000, 93000, 7000)
    b2.fact(gaap("UnrecordedUnconditionalPurchaseObligationBalanceSheetAmount"), 5000, FY_END,
            {axis: gaap("OperatingLeaseLeaseNotYetCommencedMember")})
    assert codes(run(RULE, b2, data_root)) == []  # ... or include it
    b3 = _lease(base(), 110000, 93000, 7000)  # 5,000 more than all three
    b3.fact(gaap("UnrecordedUnconditionalPurchaseObligationBalanceSheetAmount"), 5000, FY_END,
            {axis: gaap("OperatingLeaseLeaseNotYetCommencedMember")})
    assert codes(run(RULE, b3, data_root)) == [OPERATING]


def test_0090_a_quarterly_report_is_not_checked(data_root):
    r = run(RULE, _lease(base(doc_type="10-Q"), 100000, 43000, 7000), data_root)
    assert codes(r) == [] and r.checks[0].reason.startswith("out of scope")


# -- real filings -----------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_0090_real_aapl_10k_reconciles_both_leases(data_root):
    r = run_rule(RULE, load(data_root, "filings/aapl-10k-2023-09-30"), data_root)
    assert r.findings == () and r.consistent == 2


@pytest.mark.slow
def test_0090_real_amzn_10k_with_a_payments_total_changed_is_reported(data_root):
    filing = load(data_root, "filings/amzn-10k-2022-12-31")
    before = run_rule(RULE, filing, data_root)
    assert before.findings == ()
    total = next(c.fact_id for c in before.checks if c.outcome is Outcome.CONSISTENT)
    changed = apply_mutation(filing, Mutation("set_value", total, filing.fact_by_key(total).number + Decimal(10) ** 9))
    after = run_rule(RULE, changed, data_root)
    assert [f.fact_id for f in after.findings] == [total] and after.findings[0].code in (OPERATING, FINANCE)


@pytest.mark.slow
def test_0090_real_hi_10k_reports_its_negative_imputed_interest(data_root):
    r = run_rule(RULE, load(data_root, "filings-rolled/hi-10k-2020-09-30"), data_root)
    assert [(f.code, f.reported, f.expected) for f in r.findings] == [
        (OPERATING, Decimal("166900000"), Decimal("137300000"))]
