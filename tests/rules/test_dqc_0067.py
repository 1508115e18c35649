"""DQC.US.0067: its conformance case, the examples of docs/rules/DQC_US_0067.md, and real filings with an
old-standard fact added, or with their ASC 606 facts removed."""
from __future__ import annotations

from dataclasses import replace

import pytest

from auditflow.xbrl.qname import QName
from builders import gaap, srt
from conformance import FY, FY_END, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import edited, load, run_rule

RULE = "0067"
NEW = gaap("RevenueFromContractWithCustomerExcludingAssessedTax")  # network 606000
OLD = gaap("DeferredRevenueAndCreditsCurrent")  # network 440000
SCENARIO = {srt("StatementScenarioAxis"): srt("ScenarioPreviouslyReportedMember")}


def case():
    b = base()
    b.fact(NEW, 1000, FY)
    b.fact(OLD, 50, FY_END)
    return b, ["DQC.US.0067.7644"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0067_old_concepts_alone_are_consistent_and_every_old_fact_is_one_finding(data_root):
    b = base()
    b.fact(OLD, 50, FY_END)
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 1
    b, _ = case()
    b.fact(gaap("DeferredRevenueDisclosureTextBlock"), "<p>Revenue <b>is</b> recognized &amp; ...</p>", FY, unit=None,
           decimals=None)
    r = run(RULE, b, data_root)
    assert codes(r) == ["DQC.US.0067.7644"] * 2
    assert "RevenueFromContractWithCustomerExcludingAssessedTax" in r.findings[0].message
    assert 'reports "Revenue is recognized & ..." for us-gaap:DeferredRevenueDisclosureTextBlock' in r.findings[1].message


def test_0067_the_scenario_axis_counts_on_neither_side_and_nils_are_not_reported(data_root):
    b = base()
    b.fact(NEW, 1000, FY, SCENARIO)
    b.fact(OLD, 50, FY_END)
    assert codes(run(RULE, b, data_root)) == []
    b = base()
    b.fact(NEW, 1000, FY)
    b.fact(OLD, 50, FY_END, SCENARIO)
    b.fact(OLD, None, FY_END, nil=True)
    assert codes(run(RULE, b, data_root)) == []


def test_0067_a_long_text_is_quoted_to_300_characters(data_root):
    b = base()
    b.fact(NEW, 1000, FY)
    b.fact(gaap("DeferredRevenueDisclosureTextBlock"), "x" * 400, FY, unit=None, decimals=None)
    assert f'"{"x" * 300}..."' in run(RULE, b, data_root).findings[0].message


@pytest.mark.slow
def test_0067_a_real_filing_with_an_old_standard_fact_added_is_reported(data_root):
    aapl = load(data_root, "aapl-10k-2023-09-30")
    assert codes(run_rule(RULE, aapl, data_root)) == []
    model = next(f for f in aapl.facts if f.concept.local == "ContractWithCustomerLiabilityCurrent")
    old = replace(model, concept=QName(model.concept.namespace, OLD.local, "us-gaap"), id="added-old")
    r = run_rule(RULE, edited(aapl, add=[old]), data_root)
    assert codes(r) == ["DQC.US.0067.7644"] and "ContractWithCustomerLiabilityCurrent" in r.findings[0].message


@pytest.mark.slow
def test_0067_a_real_mix_is_reported_and_clean_once_the_old_concepts_are_the_only_ones(data_root):
    cfn = load(data_root, "cfn-10q-2024-09-30")
    r = run_rule(RULE, cfn, data_root)
    assert sorted(f.concept.local for f in r.findings) == ["DeferredRevenueDisclosureTextBlock",
                                                          "ShippingAndHandlingCostPolicyTextBlock"]
    new_locals = set(r.findings[0].message.split("adopted: ", 1)[1].split(". Use", 1)[0].split(", "))
    only_old = edited(cfn, drop=lambda f: f.concept.local in new_locals)
    r = run_rule(RULE, only_old, data_root)
    assert codes(r) == [] and r.consistent == 2
