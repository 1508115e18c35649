"""DQC.US.0099: its conformance case, the examples of docs/rules/DQC_US_0099.md, and a real filing edited."""
from __future__ import annotations

import pytest

from auditflow.xbrl.model import PARENT_CHILD, PRESENTATION, Arc
from builders import ext, gaap
from conformance import CF_URI, FY, FY_END, IS_URI, BS_URI, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import load, run_rule, with_arcs

RULE = "0099"
CODE = "DQC.US.0099.9533"
AAPL = "filings/aapl-10k-2023-09-30"


def _statement(b, uri, definition, root, lines, calc=()):
    b.role(uri, definition)
    b.arcs += [Arc(PRESENTATION, PARENT_CHILD, uri, root, q, order=n) for n, q in enumerate(lines, 1)]
    for parent, children in calc:
        b.calc(uri, parent, [(ch, 1) for ch in children])
    return b


def _income(b, calc=True, extra=()):
    lines = [gaap("Revenues"), gaap("CostOfRevenue"), gaap("GrossProfit"), *extra]
    _statement(b, IS_URI, "0003 - Statement - Operations", gaap("IncomeStatementAbstract"), lines,
               [(gaap("GrossProfit"), [gaap("Revenues"), gaap("CostOfRevenue")])] if calc else ())
    for q in lines:
        if not q.local.endswith("Abstract"):
            b.fact(q, 1000, FY)
    return b


def case():
    return _income(base(), extra=[gaap("AdvertisingExpense")]), [CODE]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0099_an_income_statement_whose_items_are_all_summed_is_consistent(data_root):
    r = run(RULE, _income(base()), data_root)
    assert codes(r) == [] and r.consistent == 1


def test_0099_the_finding_lists_every_unsummed_item_of_the_network(data_root):
    r = run(RULE, _income(base(), calc=False), data_root)
    assert codes(r) == [CODE]
    assert r.findings[0].message.count("us-gaap:") >= 3 and "0003 - Statement - Operations" in r.findings[0].message


def test_0099_exceptions_and_supplemental_items_are_not_listed(data_root):
    b = _income(base(), extra=[gaap("ComprehensiveIncomeNetOfTax"), gaap("SupplementalIncomeStatementElementsAbstract")])
    b.arcs.append(Arc(PRESENTATION, PARENT_CHILD, IS_URI, gaap("SupplementalIncomeStatementElementsAbstract"),
                      gaap("AdvertisingExpense")))
    b.fact(gaap("AdvertisingExpense"), 5, FY)
    assert codes(run(RULE, b, data_root)) == []


def test_0099_cash_flow_statement_and_its_supplemental_disclosures(data_root):
    b = base()
    lines = [gaap("NetCashProvidedByUsedInOperatingActivities"), gaap("ProfitLoss"), gaap("PaymentsToAcquireProductiveAssets"),
             gaap("SupplementalCashFlowInformationAbstract")]
    _statement(b, CF_URI, "0006 - Statement - Cash Flows", gaap("StatementOfCashFlowsAbstract"), lines,
               [(gaap("NetCashProvidedByUsedInOperatingActivities"), [gaap("ProfitLoss")])])
    b.arcs.append(Arc(PRESENTATION, PARENT_CHILD, CF_URI, gaap("SupplementalCashFlowInformationAbstract"),
                      gaap("IncomeTaxesPaidNet")))
    for q in (*lines[:3], gaap("IncomeTaxesPaidNet")):
        b.fact(q, 100, FY)
    r = run(RULE, b, data_root)
    assert codes(r) == [CODE] and "PaymentsToAcquireProductiveAssets" in r.findings[0].message  # not below a supplemental abstract
    assert "IncomeTaxesPaidNet" not in r.findings[0].message and "SupplementalCashFlowInformationAbstract" in r.findings[0].message


def test_0099_balance_sheet_instant_items_and_parenthetical_networks(data_root):
    b = base()
    _statement(b, BS_URI, "0002 - Statement - Balance Sheet", gaap("StatementOfFinancialPositionAbstract"),
               [gaap("Cash"), gaap("Assets"), gaap("CommitmentsAndContingencies")])
    for q in (gaap("Cash"), gaap("Assets")):
        b.fact(q, 100, FY_END)
    _statement(b, BS_URI + "Parenthetical", "0003 - Statement - Balance Sheet (Parenthetical)",
               gaap("StatementOfFinancialPositionAbstract"), [gaap("AllowanceForDoubtfulAccountsReceivableCurrent")])
    b.fact(gaap("AllowanceForDoubtfulAccountsReceivableCurrent"), 5, FY_END)
    r = run(RULE, b, data_root)
    assert codes(r) == [CODE] and "us-gaap:Cash" in r.findings[0].message
    assert "Allowance" not in r.findings[0].message and "Commitments" not in r.findings[0].message


def test_0099_a_partner_without_facts_or_declaration_still_links(data_root):
    b = _income(base())
    b.facts = [f for f in b.facts if f.concept.local != "GrossProfit"]  # its type is then unknown to us
    assert codes(run(RULE, b, data_root)) == []


def test_0099_extension_items_are_listed_too(data_root):
    from auditflow.xbrl.model import Concept
    b = _income(base(), extra=[ext("WidgetFees")])
    filing = b.filing()
    filing.concepts[ext("WidgetFees")] = Concept(ext("WidgetFees"), data_type="{http://www.xbrl.org/2003/instance}monetaryItemType",
                                               period_type="duration")
    from auditflow.graphs.environment import build_environment
    from auditflow.rules import registry
    from auditflow.rules.resources import Resources
    r = registry.get(RULE).run(build_environment(filing), Resources(data_root))
    assert codes(r) == [CODE] and "ext:WidgetFees" in r.findings[0].message


# -- a real filing: Apple's 10-K sums every item of its four statements ---------------------------------------

@pytest.mark.slow
def test_0099_real_aapl_10k_untouched_has_no_finding(data_root):
    r = run_rule(RULE, load(data_root, AAPL), data_root)
    assert r.findings == () and r.consistent == 4


@pytest.mark.slow
def test_0099_real_aapl_10k_with_research_taken_out_of_the_calculation_is_reported(data_root):
    filing = load(data_root, AAPL)
    cut = with_arcs(filing, drop=lambda a: a.kind == "calculation" and a.target.local == "ResearchAndDevelopmentExpense")
    r = run_rule(RULE, cut, data_root)
    assert codes(r) == [CODE] and "OPERATIONS" in r.findings[0].role
    assert r.findings[0].concept.local == "ResearchAndDevelopmentExpense"
