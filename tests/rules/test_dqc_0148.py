"""DQC.US.0148: its conformance case, the examples of docs/rules/DQC_US_0148.md, and real filings."""
from __future__ import annotations

import pytest

from auditflow.xbrl.model import CALCULATION, SUMMATION_ITEM_2003
from builders import ext, gaap
from conformance import IS_URI, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import arc, load, run_rule, with_arcs

RULE = "0148"
OCI_ITEM = gaap("OtherComprehensiveIncomeLossForeignCurrencyTransactionAndTranslationAdjustmentNetOfTax")


def case():
    b = base()
    b.role(IS_URI, "0004 - Statement - Operations")
    b.calc(IS_URI, gaap("NetIncomeLoss"), [(gaap("OperatingIncomeLoss"), 1), (ext("OtherItems"), 1)])
    b.calc(IS_URI, ext("OtherItems"), [(OCI_ITEM, 1)])  # two levels down
    return b, ["DQC.US.0148.9874"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0148_net_income_items_below_other_comprehensive_income(data_root):
    b = base()
    b.role(IS_URI, "0005 - Statement - Comprehensive Income")
    b.calc(IS_URI, gaap("OtherComprehensiveIncomeLossNetOfTax"), [(OCI_ITEM, 1), (gaap("InterestExpenseDebt"), -1)])
    r = run(RULE, b, data_root)
    assert codes(r) == ["DQC.US.0148.10073"] and r.findings[0].concept.local == "InterestExpenseDebt"


def test_0148_a_proper_comprehensive_income_tree_is_fine(data_root):
    b = base()
    b.role(IS_URI, "0005 - Statement - Comprehensive Income")
    b.calc(IS_URI, gaap("ComprehensiveIncomeNetOfTax"), [(gaap("NetIncomeLoss"), 1), (gaap("OtherComprehensiveIncomeLossNetOfTax"), 1)])
    b.calc(IS_URI, gaap("OtherComprehensiveIncomeLossNetOfTax"), [(OCI_ITEM, 1)])
    b.calc(IS_URI, gaap("NetIncomeLoss"), [(gaap("OperatingIncomeLoss"), 1)])
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 2


def test_0148_a_concept_is_reported_once(data_root):
    b, _ = case()
    b.calc(IS_URI, gaap("ProfitLoss"), [(OCI_ITEM, 1)])
    assert codes(run(RULE, b, data_root)) == ["DQC.US.0148.9874"]


@pytest.mark.slow
def test_0148_real_filing_gevi_sums_net_income_into_other_comprehensive_income(data_root):
    """gevi's statement of operations has NetIncomeLoss (and all of its tree) below OtherComprehensiveIncomeLossNetOfTax:
    twelve net income items reported; without that one arc, none."""
    filing = load(data_root, "gevi-10q-2024-03-31")
    r = run_rule(RULE, filing, data_root)
    assert codes(r) == ["DQC.US.0148.10073"] * 12
    fixed = with_arcs(filing, drop=lambda a: a.kind == CALCULATION and a.source.local == "OtherComprehensiveIncomeLossNetOfTax"
                      and a.target.local == "NetIncomeLoss")
    assert run_rule(RULE, fixed, data_root).findings == ()


@pytest.mark.slow
def test_0148_real_filing_with_an_oci_item_added_below_net_income(data_root):
    filing = load(data_root, "aapl-10k-2023-09-30")
    assert run_rule(RULE, filing, data_root).findings == ()
    role = next(a.role for a in filing.arcs if a.kind == CALCULATION and a.source.local == "NetIncomeLoss")
    net_income = next(a.source for a in filing.arcs if a.kind == CALCULATION and a.source.local == "NetIncomeLoss")
    oci = arc(CALCULATION, SUMMATION_ITEM_2003, role, net_income, OCI_ITEM, weight=1)
    r = run_rule(RULE, with_arcs(filing, add=[oci]), data_root)
    assert codes(r) == ["DQC.US.0148.9874"] and r.findings[0].concept == OCI_ITEM
