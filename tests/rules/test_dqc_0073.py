"""DQC.US.0073: its conformance case and the examples of docs/rules/DQC_US_0073.md."""
from __future__ import annotations

from builders import ext, gaap
from conformance import ASSET_AXIS, FY_END, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0073"


def case():
    b = base()
    b.fact(gaap("DefinedBenefitPlanBenefitObligation"), 1000000, FY_END, {ASSET_AXIS: gaap("EquitySecuritiesMember")})
    return b, ["DQC.US.0073.7648"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0073_plan_asset_items_and_extensions_are_fine(data_root):
    b = base()
    b.fact(gaap("DefinedBenefitPlanFairValueOfPlanAssets"), 1000000, FY_END, {ASSET_AXIS: gaap("EquitySecuritiesMember")})
    b.fact(ext("PlanAssetsHeldAbroad"), 5, FY_END, {ASSET_AXIS: gaap("EquitySecuritiesMember")})
    r = run("0073", b, data_root)
    assert codes(r) == [] and r.consistent == 1
