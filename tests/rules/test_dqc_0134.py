"""DQC.US.0134: its conformance case, the examples of docs/rules/DQC_US_0134.md, and real filings mutated."""
from __future__ import annotations

import pytest

from auditflow.xbrl.qname import QName
from builders import ext, gaap
from conformance import FY_END, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import load, run_rule, with_dimension

RULE = "0134"
AFS = gaap("AvailableForSaleSecuritiesDebtSecurities")
TYPE_AXIS = gaap("InvestmentTypeAxis")
INSTRUMENT_AXIS = gaap("FinancialInstrumentAxis")
AAPL = "aapl-10k-2023-09-30"  # its debt securities are broken down on FinancialInstrumentAxis
NCMI = "ncmi-10k-2023-12-28"  # breaks them down on InvestmentTypeAxis with its own members


def case():
    b = base()
    b.fact(AFS, 700, FY_END, {TYPE_AXIS: ext("CertificatesOfDepositMember")})
    return b, ["DQC.US.0134.9834"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0134_allowed_members_and_the_instrument_axis_are_fine(data_root):
    b = base()
    b.fact(AFS, 700, FY_END, {TYPE_AXIS: gaap("ShortTermInvestmentsMember")})
    b.fact(AFS, 800, FY_END, {TYPE_AXIS: gaap("FixedMaturitiesMember"), gaap("CashAndCashEquivalentsAxis"): ext("XMember")})
    b.fact(AFS, 900, FY_END, {INSTRUMENT_AXIS: gaap("USTreasurySecuritiesMember")})
    b.fact(AFS, 2400, FY_END)
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 2  # the fixed-maturities fact is not selected at all


def test_0134_cash_axes_and_the_advice_for_a_fact_with_the_instrument_axis(data_root):
    b = base()
    b.fact(AFS, 100, FY_END, {gaap("CashAndCashEquivalentsAxis"): ext("MoneyMarketMember")})
    b.fact(AFS, 200, FY_END, {TYPE_AXIS: ext("CorporateMember"), INSTRUMENT_AXIS: gaap("CorporateDebtSecuritiesMember")})
    r = run(RULE, b, data_root)
    assert codes(r) == ["DQC.US.0134.9834"] * 2
    assert "CashAndCashEquivalentsAxis" in r.findings[0].message and "hierarchy" not in r.findings[0].message
    assert "InvestmentTypeAxis" in r.findings[1].message and "hierarchy" in r.findings[1].message


@pytest.mark.slow
def test_0134_real_filing_untouched_and_a_fact_moved_onto_the_investment_type_axis(data_root):
    filing = load(data_root, AAPL)
    assert run_rule(RULE, filing, data_root).findings == ()
    first = next(f for f in filing.facts if f.concept.local in ("AvailableForSaleSecuritiesDebtSecurities",
                                                                 "AvailableForSaleDebtSecuritiesAmortizedCostBasis"))
    ns = first.concept.namespace
    mutated = with_dimension(filing, lambda f: f.key == first.key, QName(ns, TYPE_AXIS.local, "us-gaap"),
                             QName(ns, "ShortTermInvestmentsMember", "us-gaap"))
    assert run_rule(RULE, mutated, data_root).findings == ()  # an allowed member
    mutated = with_dimension(filing, lambda f: f.key == first.key, QName(ns, TYPE_AXIS.local, "us-gaap"),
                             QName(ns.replace("us-gaap", "aapl"), "CertificatesOfDepositMember", "aapl"))
    assert codes(run_rule(RULE, mutated, data_root)) == ["DQC.US.0134.9834"]


@pytest.mark.slow
def test_0134_real_filing_with_its_own_investment_types(data_root):
    r = run_rule(RULE, load(data_root, NCMI), data_root)
    assert codes(r) == ["DQC.US.0134.9834"] * 8
