"""DQC.US.0137: its conformance case, the examples of docs/rules/DQC_US_0137.md, and a real filing."""
from __future__ import annotations

import pytest

from builders import gaap
from conformance import FY, FY_END, PRIOR_END, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import edited, load, run_rule

RULE = "0137"
BS_AXIS = gaap("BalanceSheetLocationAxis")
IS_AXIS = gaap("IncomeStatementLocationAxis")
HEDGED = gaap("HedgedAssetFairValueHedge")  # its companion: HedgedAssetStatementOfFinancialPositionExtensibleEnumeration


def case():
    b = base()
    b.fact(HEDGED, 5000, FY_END, {BS_AXIS: gaap("OtherAssetsNoncurrentMember")})
    return b, ["DQC.US.0137.9838"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0137_the_message_names_the_axis_and_the_enumeration(data_root):
    b, _ = case()
    f = run(RULE, b, data_root).findings[0]
    assert "BalanceSheetLocationAxis" in f.message and "HedgedAssetStatementOfFinancialPositionExtensibleEnumeration" in f.message


def test_0137_two_facts_on_the_axis_are_a_breakdown(data_root):
    b, _ = case()
    b.fact(HEDGED, 4000, PRIOR_END, {BS_AXIS: gaap("OtherAssetsNoncurrentMember")})
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 1


def test_0137_a_duration_line_item_reads_the_income_statement_axis(data_root):
    b = base()
    gain = gaap("DerivativeGainLossOnDerivativeNet")
    b.fact(gain, 12, FY, {BS_AXIS: gaap("OtherAssetsMember")})  # the wrong axis for a duration item: not counted
    assert codes(run(RULE, b, data_root)) == []
    b.fact(gain, 12, FY, {IS_AXIS: gaap("OtherNonoperatingIncomeExpenseMember")})
    assert codes(run(RULE, b, data_root)) == ["DQC.US.0137.9838"]


def test_0137_a_line_item_without_the_axis_or_outside_the_list_is_fine(data_root):
    b = base()
    b.fact(HEDGED, 5000, FY_END)
    b.fact(gaap("Revenues"), 7, FY, {IS_AXIS: gaap("OtherNonoperatingIncomeExpenseMember")})
    assert codes(run(RULE, b, data_root)) == []


def test_0137_only_periodic_reports(data_root):
    """11-K is in the rule-form lookup, but the rule itself reads only 10-K/10-Q/20-F/40-F reports."""
    b = base(doc_type="11-K")
    b.fact(HEDGED, 5000, FY_END, {BS_AXIS: gaap("OtherAssetsNoncurrentMember")})
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.checks[0].reason.startswith("form not in scope")


@pytest.mark.slow
def test_0137_real_filing_with_one_of_its_two_location_facts_removed(data_root):
    """aapl 2022 reports HedgedAssetFairValueHedge twice on BalanceSheetLocationAxis (consistent); with one of
    the two removed, the one left is the single location fact DQC flags."""
    filing = load(data_root, "aapl-10k-2022-09-24")
    untouched = run_rule(RULE, filing, data_root)
    assert untouched.findings == () and untouched.consistent == 2
    hedged = [f for f in filing.facts if f.concept.local == "HedgedAssetFairValueHedge"
              and "BalanceSheetLocationAxis" in {a.local for a, _ in filing.contexts[f.context_id].dimensions}]
    assert len(hedged) == 2
    mutated = edited(filing, drop=lambda f: f is hedged[1])
    r = run_rule(RULE, mutated, data_root)
    assert codes(r) == ["DQC.US.0137.9838"] and r.findings[0].fact_id == hedged[0].key
