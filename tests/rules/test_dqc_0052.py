"""DQC.US.0052: its conformance case and the examples of docs/rules/DQC_US_0052.md."""
from __future__ import annotations

from builders import gaap
from conformance import COUNTRY_US, FY, PLAN_AXIS, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0052"


def case():
    b = base()
    b.fact(gaap("DefinedBenefitPlanServiceCost"), 1000, FY, {PLAN_AXIS: gaap("DomesticPlanMember")})
    return b, ["DQC.US.0052.7487"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0052_0053_other_members_are_fine(data_root):
    b = base()
    b.fact(gaap("DefinedBenefitPlanServiceCost"), 1000, FY, {PLAN_AXIS: COUNTRY_US})
    b.fact(gaap("DefinedBenefitPlanServiceCost"), 500, FY, {PLAN_AXIS: gaap("ForeignPlanMember")})
    for rule in ("0052", "0053"):
        r = run(rule, b, data_root)
        assert codes(r) == [] and r.consistent == 2
