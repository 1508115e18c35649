"""DQC.US.0055: its conformance case and the examples of docs/rules/DQC_US_0055.md."""
from __future__ import annotations

from builders import ext, gaap, presentation_arcs
from conformance import COUNTRY_US, FY, PEN_URI, PLAN_AXIS, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0055"


def case():
    b = base()
    b.role(PEN_URI, "0100 - Disclosure - Retirement Plans (Details)")
    b.arcs += presentation_arcs(PEN_URI, PLAN_AXIS, [gaap("RetirementPlanSponsorLocationDomain")])
    b.arcs += presentation_arcs(PEN_URI, gaap("RetirementPlanSponsorLocationDomain"), [gaap("DomesticPlanMember")])
    return b, ["DQC.US.0055.9843"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0055_countries_below_the_groups_and_paths_without_them(data_root):
    b, _ = case()
    b.arcs += presentation_arcs(PEN_URI, gaap("DomesticPlanMember"), [COUNTRY_US])
    assert codes(run("0055", b, data_root)) == []
    b = base()
    dom = gaap("RetirementPlanSponsorLocationDomain")
    b.arcs += presentation_arcs(PEN_URI, PLAN_AXIS, [dom])
    b.arcs += presentation_arcs(PEN_URI, dom, [ext("UnitedKingdomPlanMember")])
    assert codes(run("0055", b, data_root)) == ["DQC.US.0055.7493", "DQC.US.0055.9842"]
    b = base()
    b.arcs += presentation_arcs(PEN_URI, PLAN_AXIS, [dom])
    b.arcs += presentation_arcs(PEN_URI, dom, [gaap("ForeignPlanMember")])
    assert codes(run("0055", b, data_root)) == ["DQC.US.0055.9844"]
    b.fact(gaap("DefinedBenefitPlanServiceCost"), 500, FY, {PLAN_AXIS: gaap("ForeignPlanMember")})
    assert codes(run("0055", b, data_root)) == []  # values reported for ForeignPlanMember itself
