"""DQC.US.0121: its conformance case, the examples of docs/rules/DQC_US_0121.md, and real filings mutated."""
from __future__ import annotations

from dataclasses import replace

import pytest

from builders import gaap, presentation_arcs
from conformance import FY, FY_END, PRIOR_END, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import edited, load, run_rule, with_document_type

RULE = "0121"
MIN_PAYMENTS = gaap("OperatingLeasesFutureMinimumPaymentsDue")
CAPITAL_REPAYMENTS = gaap("RepaymentsOfLongTermCapitalLeaseObligations")
NCMI = "ncmi-10k-2023-12-28"  # tags pre-Topic 842 operating-lease minimum payments at its 2023 year end
AAPL = "aapl-10k-2023-09-30"


def case():
    b = base()
    b.fact(MIN_PAYMENTS, 16000, FY_END)
    return b, ["DQC.US.0121.9581"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0121_only_facts_ending_on_the_document_period_end(data_root):
    b = base()
    b.fact(MIN_PAYMENTS, 15000, PRIOR_END)  # the comparative year: not flagged
    b.fact(gaap("LongTermDebtAndCapitalLeaseObligationsMaturitiesRepaymentsOfPrincipalInYearTwo"), 5, FY_END)  # exception
    b.fact(CAPITAL_REPAYMENTS, 300, FY)
    r = run(RULE, b, data_root)
    assert codes(r) == ["DQC.US.0121.9581"] and r.consistent == 1
    assert "FinanceLeasePrincipalPayments" in r.findings[0].message


def test_0121_a_prior_to_adoption_disclosure_is_excluded(data_root):
    b, _ = case()
    uri = "http://example.com/role/LeasesPriorToAdoptionOfTopic842Details"
    b.role(uri, "0042 - Disclosure - Leases, prior to adoption of Topic 842 (Details)")
    b.arcs += presentation_arcs(uri, gaap("LeasesAbstract"), [MIN_PAYMENTS])
    assert codes(run(RULE, b, data_root)) == []


@pytest.mark.parametrize("doc_type", ["8-K", "6-K", "S-4", "10-12G"])
def test_0121_current_reports_and_excluded_registrations_are_skipped(doc_type, data_root):
    b = base(doc_type=doc_type)
    b.fact(MIN_PAYMENTS, 16000, FY_END)
    r = run(RULE, b, data_root)
    assert codes(r) == []


def test_0121_an_s1_is_excluded_before_its_own_dates_are_read(data_root):
    """DQC's S-1 branch (private-company adoption dates) is never reached: S-1 is a report type it excludes."""
    s1 = base(doc_type="S-1")
    s1.fact(MIN_PAYMENTS, 16000, FY_END)
    s1.fact(gaap("OperatingLeasesRentExpenseNet"), 12, "2024-01-01..2024-12-31")
    assert codes(run(RULE, s1, data_root)) == []


def test_0121_a_text_block_is_quoted_shortly(data_root):
    b = base()
    b.fact(gaap("OperatingLeasesOfLesseeDisclosureTextBlock"), "<p>" + "Leases. " * 100 + "</p>", FY, unit=None, decimals=None)
    msg = run(RULE, b, data_root).findings[0].message
    assert "Leases. Leases." in msg and "<p>" not in msg and msg.count("Leases.") < 30


@pytest.mark.slow
def test_0121_real_filing_with_pre_842_elements(data_root):
    """ncmi's 2023 10-K tags OperatingLeasesFutureMinimumPaymentsDue (and its maturities) at 2023-12-28."""
    r = run_rule(RULE, load(data_root, NCMI), data_root)
    assert MIN_PAYMENTS.local in {f.concept.local for f in r.findings}
    assert set(codes(r)) == {"DQC.US.0121.9581"}
    relabelled = run_rule(RULE, with_document_type(load(data_root, NCMI), "8-K"), data_root)
    assert relabelled.findings == ()


@pytest.mark.slow
def test_0121_real_clean_filing_and_a_capital_lease_repayment_put_in(data_root):
    filing = load(data_root, AAPL)
    assert run_rule(RULE, filing, data_root).findings == ()
    # aapl's repayments of term debt for fiscal 2023, retagged as capital lease repayments
    target = next(f for f in filing.facts if f.concept.local == "RepaymentsOfLongTermDebt"
                  and not filing.contexts[f.context_id].dimensions
                  and filing.contexts[f.context_id].period.end.isoformat() == "2023-09-30")
    mutated = edited(filing, change=lambda f: replace(f, concept=replace(f.concept, local=CAPITAL_REPAYMENTS.local))
                     if f.key == target.key else f)
    r = run_rule(RULE, mutated, data_root)
    assert codes(r) == ["DQC.US.0121.9581"] and "FinanceLeasePrincipalPayments" in r.findings[0].message
