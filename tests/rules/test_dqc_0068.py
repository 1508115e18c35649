"""DQC.US.0068: its conformance case, the examples of docs/rules/DQC_US_0068.md, and the real filings."""
from __future__ import annotations

import pytest

from auditflow.graphs.environment import build_environment
from auditflow.rules import registry
from auditflow.rules.resources import Resources
from builders import ext, gaap, srt
from conformance import COUNTRY_US, FY_END, PLAN_AXIS, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0068"
GEO_AXIS = srt("StatementGeographicalAxis")


def case():
    b = base()
    b.fact(gaap("DefinedBenefitPlanFairValueOfPlanAssets"), 345000, FY_END, {GEO_AXIS: COUNTRY_US})
    return b, ["DQC.US.0068.7641"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0068_the_sponsor_location_axis_and_other_line_items_are_fine(data_root):
    b = base()
    b.fact(gaap("DefinedBenefitPlanFairValueOfPlanAssets"), 345000, FY_END, {PLAN_AXIS: gaap("DomesticPlanMember")})
    b.fact(gaap("DefinedBenefitPlanFairValueOfPlanAssets"), 500000, FY_END)
    b.fact(gaap("Revenues"), 1000, "2024-01-01..2024-12-31", {GEO_AXIS: COUNTRY_US})  # not a pension line item
    b.fact(ext("PensionAssetsAbroad"), 7, FY_END, {GEO_AXIS: COUNTRY_US})  # an extension: not in the network
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 2


def test_0068_every_fact_on_the_axis_is_one_finding_naming_its_member(data_root):
    b, _ = case()
    b.fact(gaap("DefinedBenefitPlanBenefitObligation"), 400000, FY_END, {GEO_AXIS: srt("EuropeMember")})
    r = run(RULE, b, data_root)
    assert codes(r) == ["DQC.US.0068.7641"] * 2
    assert "EuropeMember" in r.findings[1].message and "EuropeMember" not in r.findings[0].message


def test_0068_a_quarterly_report_is_not_in_its_forms(data_root):
    q = base(doc_type="10-Q")
    q.fact(gaap("DefinedBenefitPlanFairValueOfPlanAssets"), 345000, FY_END, {GEO_AXIS: COUNTRY_US})
    assert codes(run(RULE, q, data_root)) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", ["aapl-10k-2023-09-30", "ibm-10k-2024-12-31", "nflx-10k-2023-12-31"])
def test_0068_real_10ks_report_no_pension_item_on_the_geographical_axis(name, data_root):
    """Real annual reports, untouched: the rule runs (their forms are in scope) and finds nothing."""
    result = registry.get(RULE).run(build_environment(data_root / "filings" / name), Resources(data_root))
    assert result.findings == ()
    assert not any(c.reason.startswith("form not in scope") for c in result.checks)
