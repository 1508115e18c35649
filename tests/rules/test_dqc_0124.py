"""DQC.US.0124: its conformance case, the examples of docs/rules/DQC_US_0124.md, and real filings mutated."""
from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest

from auditflow.rules.dqc_0124 import months_before
from builders import GAAP_NS, ext, gaap, presentation_arcs
from conformance import BS_URI, FY_END, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import concept_is, edited, load, run_rule

RULE = "0124"
LOCATION = gaap("StatementOfFinancialPositionLocationBalanceAxis")
OROU, FROU = gaap("OperatingLeaseRightOfUseAsset"), gaap("FinanceLeaseRightOfUseAsset")
FLL, FLLC, FLLN = gaap("FinanceLeaseLiability"), gaap("FinanceLeaseLiabilityCurrent"), gaap("FinanceLeaseLiabilityNoncurrent")
ALL_CODES = ["DQC.US.0124.9584", "DQC.US.0124.9585", "DQC.US.0124.9586", "DQC.US.0124.9587", "DQC.US.0124.9588"]
AAPL = "aapl-10k-2023-09-30"  # says where every lease amount is with the extensible lists
NCMI = "ncmi-10k-2023-12-28"  # tags its operating right-of-use asset only in the notes


def with_balance_sheet(b, *line_items):
    b.role(BS_URI, "0002 - Statement - Balance Sheet")
    b.arcs += presentation_arcs(BS_URI, gaap("StatementOfFinancialPositionAbstract"), [gaap("Assets"), *line_items])
    return b


def case():
    b = with_balance_sheet(base())
    b.fact(OROU, 900, FY_END)
    return b, ["DQC.US.0124.9588"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0124_every_sub_rule_trips(data_root):
    b = with_balance_sheet(base())
    for concept in (FLL, FLLC, FLLN, FROU, OROU):
        b.fact(concept, 500, FY_END)
    assert codes(run(RULE, b, data_root)) == ALL_CODES


@pytest.mark.parametrize("on_face, settled", [
    (FLLC, {"DQC.US.0124.9584", "DQC.US.0124.9585"}),  # the current part on the balance sheet settles the total too
    (FLL, {"DQC.US.0124.9584", "DQC.US.0124.9585", "DQC.US.0124.9586"}),
    (gaap("PropertyPlantAndEquipmentAndFinanceLeaseRightOfUseAssetAfterAccumulatedDepreciationAndAmortization"),
     {"DQC.US.0124.9587"}),
])
def test_0124_a_line_on_the_face_statements_settles_its_amounts(on_face, settled, data_root):
    b = with_balance_sheet(base(), on_face)
    for concept in (FLL, FLLC, FLLN, FROU, OROU):
        b.fact(concept, 500, FY_END)
    assert codes(run(RULE, b, data_root)) == [c for c in ALL_CODES if c not in settled]


def test_0124_an_extensible_list_settles_it(data_root):
    b, _ = case()
    b.fact(gaap("OperatingLeaseRightOfUseAssetStatementOfFinancialPositionExtensibleList"),
           f"{GAAP_NS}#OtherAssetsNoncurrent", FY_END, unit=None, decimals=None)
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 1


def test_0124_the_location_axis_must_spread_the_amount(data_root):
    one = with_balance_sheet(base())
    one.fact(FLLC, 500, FY_END)
    one.fact(FLLC, 500, FY_END, {LOCATION: gaap("OtherLiabilitiesCurrentMember")})  # the whole amount, one caption
    r = run(RULE, one, data_root)
    assert codes(r) == ["DQC.US.0124.9585"] and "OtherLiabilitiesCurrentMember" in r.findings[0].message
    part = with_balance_sheet(base())
    part.fact(FLLC, 500, FY_END)
    part.fact(FLLC, 200, FY_END, {LOCATION: gaap("OtherLiabilitiesCurrentMember")})
    assert codes(run(RULE, part, data_root)) == []
    two = with_balance_sheet(base())
    two.fact(FLLC, 500, FY_END)
    two.fact(FLLC, 200, FY_END, {LOCATION: gaap("OtherLiabilitiesCurrentMember")})
    two.fact(FLLC, 300, FY_END, {LOCATION: gaap("AccountsPayableCurrentMember")})
    assert codes(run(RULE, two, data_root)) == []


def test_0124_zero_old_dimensional_and_quarterly_amounts_are_not_read(data_root):
    b = with_balance_sheet(base())
    b.fact(OROU, 0, FY_END)
    b.fact(OROU, 700, "2023-09-30")  # 15 months before 2024-12-31 is the cutoff: still read
    b.fact(OROU, 800, "2023-09-29")  # older: not read
    b.fact(OROU, 900, FY_END, {gaap("StatementBusinessSegmentsAxis"): ext("RetailMember")})
    assert codes(run(RULE, b, data_root)) == ["DQC.US.0124.9588"]
    q = with_balance_sheet(base(doc_type="10-Q", focus="Q3"))
    q.fact(OROU, 900, FY_END)
    assert codes(run(RULE, q, data_root)) == []


def test_0124_months_before_clamps_the_day():
    assert months_before(dt.date(2024, 5, 31), 15) == dt.date(2023, 2, 28)
    assert months_before(dt.date(2024, 12, 31), 15) == dt.date(2023, 9, 30)


@pytest.mark.slow
def test_0124_real_filing_with_its_lists_is_consistent_and_fails_without_them(data_root):
    filing = load(data_root, AAPL)
    r = run_rule(RULE, filing, data_root)
    assert r.findings == () and r.consistent > 0
    dropped = edited(filing, drop=concept_is("OperatingLeaseRightOfUseAssetStatementOfFinancialPositionExtensibleList"))
    r = run_rule(RULE, dropped, data_root)
    assert codes(r) == ["DQC.US.0124.9588"] * 2  # 2023-09-30 and 2022-09-24


@pytest.mark.slow
def test_0124_real_asset_only_in_the_notes_and_mended_with_a_list(data_root):
    filing = load(data_root, NCMI)
    r = run_rule(RULE, filing, data_root)
    assert codes(r) == ["DQC.US.0124.9588"] * 2
    fact = next(f for f in filing.facts if f.concept.local == OROU.local)
    listed = replace(fact, concept=replace(fact.concept, local=OROU.local + "StatementOfFinancialPositionExtensibleList"),
                     value=f"{fact.concept.namespace}#OtherAssetsNoncurrent", unit_id=None, decimals=None)
    mended = run_rule(RULE, edited(filing, add=[listed]), data_root)
    assert mended.findings == () and mended.consistent == 2
