"""DQC.US.0149: its conformance case, the examples of docs/rules/DQC_US_0149.md, and real filings."""
from __future__ import annotations

import pytest

from auditflow.xbrl.model import PARENT_CHILD, PRESENTATION
from builders import gaap, presentation_arcs
from conformance import BS_URI, FY_END, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import arc, load, run_rule, with_arcs

RULE = "0149"
NCA = gaap("NoncurrentAssets")
TABLE = gaap("ScheduleOfRevenuesFromExternalCustomersAndLongLivedAssetsTable")
GEO_URI = "http://example.com/role/GeographicInformation"


def geographic(table=TABLE):
    b = base()
    b.role(GEO_URI, "0030 - Disclosure - Geographic Information (Details)")
    b.arcs += presentation_arcs(GEO_URI, gaap("SegmentReportingAbstract"), [table])
    b.arcs += presentation_arcs(GEO_URI, table, [gaap("StatementLineItems")])
    b.arcs += presentation_arcs(GEO_URI, gaap("StatementLineItems"), [NCA])
    b.fact(NCA, 7000, FY_END)
    return b


def case():
    return geographic(gaap("ScheduleOfSegmentReportingInformationBySegmentTable")), ["DQC.US.0149.10075"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0149_below_the_long_lived_assets_table_is_fine(data_root):
    r = run(RULE, geographic(), data_root)
    assert codes(r) == [] and r.consistent == 1


def test_0149_the_message_names_the_table_it_is_under(data_root):
    b, _ = case()
    assert "below ScheduleOfSegmentReportingInformationBySegmentTable" in run(RULE, b, data_root).findings[0].message


def test_0149_on_the_balance_sheet(data_root):
    b = geographic()
    b.role(BS_URI, "0002 - Statement - Balance Sheet")
    b.arcs += presentation_arcs(BS_URI, gaap("StatementOfFinancialPositionAbstract"), [gaap("AssetsCurrent"), NCA])
    assert codes(run(RULE, b, data_root)) == ["DQC.US.0149.9943"]


def test_0149_in_a_statement_without_facts_still_trips_9943(data_root):
    b = base()
    b.role(BS_URI, "0002 - Statement - Balance Sheet")
    b.arcs += presentation_arcs(BS_URI, gaap("StatementOfFinancialPositionAbstract"), [NCA])
    assert codes(run(RULE, b, data_root)) == ["DQC.US.0149.9943"]


@pytest.mark.slow
def test_0149_real_filing_amzn_presents_long_lived_assets_in_the_segment_table(data_root):
    """amzn 2022 presents NoncurrentAssets only below its segment table: each of its 6 facts is 10075; with the
    concept also presented below the long-lived assets table, they are consistent."""
    filing = load(data_root, "amzn-10k-2022-12-31")
    r = run_rule(RULE, filing, data_root)
    assert codes(r) == ["DQC.US.0149.10075"] * 6
    segment = next(a for a in filing.arcs if a.kind == PRESENTATION and a.target.local == "NoncurrentAssets")
    fixed = with_arcs(filing, add=[arc(PRESENTATION, PARENT_CHILD, segment.role, TABLE, segment.source),
                                   arc(PRESENTATION, PARENT_CHILD, segment.role, segment.source, segment.target)])
    after = run_rule(RULE, fixed, data_root)
    assert after.findings == () and after.consistent == 6


@pytest.mark.slow
def test_0149_real_filing_with_noncurrent_assets_on_its_balance_sheet(data_root):
    filing = load(data_root, "aapl-10k-2023-09-30")
    untouched = run_rule(RULE, filing, data_root)
    assert untouched.findings == () and untouched.consistent == 8
    bs = next(a for a in filing.arcs if a.kind == PRESENTATION and a.target.local == "AssetsNoncurrent")
    nca = next(f.concept for f in filing.facts if f.concept.local == "NoncurrentAssets")
    r = run_rule(RULE, with_arcs(filing, add=[arc(PRESENTATION, PARENT_CHILD, bs.role, bs.source, nca)]), data_root)
    assert codes(r) == ["DQC.US.0149.9943"]
