"""DQC.US.0062: its conformance case and the examples of docs/rules/DQC_US_0062.md."""
from __future__ import annotations

from builders import gaap, presentation_arcs, srt
from conformance import CF_URI, FY, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0062"


def case():
    b = base()
    b.role(CF_URI, "0006 - Statement - Cash Flows")
    b.arcs += presentation_arcs(CF_URI, gaap("StatementOfCashFlowsAbstract"), [gaap("NetCashProvidedByUsedInOperatingActivities")])
    return b, ["DQC.US.0062.7501"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0062_a_change_in_cash_without_dimensions_is_enough(data_root):
    change = gaap("CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsPeriodIncreaseDecreaseIncludingExchangeRateEffect")
    b, _ = case()
    b.fact(change, 0, FY, {srt("ConsolidatedEntitiesAxis"): srt("ParentCompanyMember")})
    assert codes(run("0062", b, data_root)) == ["DQC.US.0062.7501"]
    b.fact(change, 0, FY)
    assert codes(run("0062", b, data_root)) == []
