"""DQC.US.0120: its conformance case, the examples of docs/rules/DQC_US_0120.md, and a real filing mutated."""
from __future__ import annotations

from dataclasses import replace

import pytest

from builders import GAAP_NS, gaap, presentation_arcs
from conformance import BS_URI, FY_END, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import edited, load, run_rule

RULE = "0120"
ROU_LIST = gaap("OperatingLeaseRightOfUseAssetStatementOfFinancialPositionExtensibleList")
AAPL = "aapl-10k-2023-09-30"  # its six lease lists name OtherAssetsNoncurrent, PropertyPlantAndEquipmentNet, ...


def balance_sheet(definition="0002 - Statement - Balance Sheet", uri=BS_URI):
    b = base()
    b.role(uri, definition)
    b.arcs += presentation_arcs(uri, gaap("StatementOfFinancialPositionAbstract"),
                                [gaap("AssetsAbstract"), gaap("LiabilitiesAndStockholdersEquityAbstract")])
    b.arcs += presentation_arcs(uri, gaap("AssetsAbstract"), [gaap("OtherAssetsNoncurrent"), gaap("Assets")])
    b.arcs += presentation_arcs(uri, gaap("LiabilitiesAndStockholdersEquityAbstract"), [gaap("OtherLiabilitiesNoncurrent")])
    return b


def listed(b, list_concept, *names):
    b.fact(list_concept, " ".join(f"{GAAP_NS}#{n}" for n in names), FY_END, unit=None, decimals=None)
    return b


def case():
    b = listed(balance_sheet(), ROU_LIST, "PropertyPlantAndEquipmentNet")  # not on this balance sheet
    return b, ["DQC.US.0120.9578"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0120_each_value_of_a_list_is_checked(data_root):
    b = listed(balance_sheet(), ROU_LIST, "OtherAssetsNoncurrent", "Goodwill")
    listed(b, gaap("OperatingLeaseLiabilityNoncurrentStatementOfFinancialPositionExtensibleList"), "OtherLiabilitiesNoncurrent")
    r = run(RULE, b, data_root)
    assert codes(r) == ["DQC.US.0120.9578"] and r.consistent == 2
    assert "Goodwill" in r.findings[0].message and "Balance Sheet" in r.findings[0].message


def test_0120_an_abstract_or_a_non_monetary_concept_is_not_a_line_item(data_root):
    b = listed(balance_sheet(), ROU_LIST, "AssetsAbstract")
    b.arcs += presentation_arcs(BS_URI, gaap("AssetsAbstract"), [gaap("CommonStockSharesOutstanding")])
    b.fact(gaap("CommonStockSharesOutstanding"), 1000, FY_END, unit="shares", decimals=0)
    listed(b, gaap("FinanceLeaseRightOfUseAssetStatementOfFinancialPositionExtensibleList"), "CommonStockSharesOutstanding")
    assert codes(run(RULE, b, data_root)) == ["DQC.US.0120.9578"] * 2


def test_0120_the_balance_sheet_is_found_by_uri_and_parentheticals_are_not_it(data_root):
    b = listed(balance_sheet("0003 - Statement - Balance Sheet (Parenthetical)", "http://example.com/role/BalanceSheetParenthetical"),
               ROU_LIST, "OtherAssetsNoncurrent")
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 0 and r.checks[0].reason.startswith("no balance-sheet")
    other = listed(balance_sheet("0002 - Statement - Financial Position", "http://example.com/role/FinancialPosition"),
                   ROU_LIST, "OtherAssetsNoncurrent")
    assert codes(run(RULE, other, data_root)) == []


def test_0120_a_list_of_another_taxonomy_year_matches(data_root):
    b = balance_sheet()
    b.fact(ROU_LIST, "http://fasb.org/us-gaap/2023#OtherAssetsNoncurrent", FY_END, unit=None, decimals=None)
    assert codes(run(RULE, b, data_root)) == []


@pytest.mark.slow
def test_0120_real_filing_untouched_is_consistent(data_root):
    r = run_rule(RULE, load(data_root, AAPL), data_root)
    assert r.findings == () and r.consistent == 12


@pytest.mark.slow
def test_0120_real_list_pointing_at_a_concept_off_the_balance_sheet(data_root):
    """aapl's operating right-of-use assets are in OtherAssetsNoncurrent; say Goodwill instead and both periods' facts fail."""
    filing = edited(load(data_root, AAPL), change=lambda f: replace(f, value=f.value.replace("OtherAssetsNoncurrent", "Goodwill"))
                    if f.concept.local == ROU_LIST.local else f)
    r = run_rule(RULE, filing, data_root)
    assert codes(r) == ["DQC.US.0120.9578"] * 2 and all("Goodwill" in f.message for f in r.findings)
