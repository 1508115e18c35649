"""DQC.US.0053: its conformance case and the examples of docs/rules/DQC_US_0053.md."""
from __future__ import annotations

from builders import gaap
from conformance import FY, PLAN_AXIS, assert_clean_sample, assert_conformance, base

RULE = "0053"


def case():
    b = base()
    b.fact(gaap("DefinedBenefitPlanServiceCost"), 1000, FY, {PLAN_AXIS: gaap("NonUsMember")})
    return b, ["DQC.US.0053.7489"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)
