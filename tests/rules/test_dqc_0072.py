"""DQC.US.0072: its conformance case, the examples of docs/rules/DQC_US_0072.md, and a real filing edited."""
from __future__ import annotations

from decimal import Decimal

import pytest

from auditflow.xbrl.model import DEFINITION, DIMENSION_DOMAIN, DOMAIN_MEMBER, Arc
from builders import AxisSpec, gaap
from conformance import ASSET_AXIS, FY_END, PEN_URI, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import context_where, edited, fact, load, run_rule, with_arcs

RULE = "0072"
CODE = "DQC.US.0072.7647"
PCT = gaap("DefinedBenefitPlanPlanAssetsInvestmentWithinPlanAssetCategoryPercentage")
DOMAIN = gaap("PlanAssetCategoriesDomain")
EQUITY = gaap("DefinedBenefitPlanEquitySecuritiesMember")
IBM = "filings/ibm-10k-2024-12-31"


def _pension(b, members):
    b.cube(PEN_URI, "0500 - Disclosure - Pension Assets (Details)", gaap("DefinedBenefitPlanTable"),
           [gaap("DefinedBenefitPlanFairValueOfPlanAssets"), PCT], [AxisSpec(ASSET_AXIS, DOMAIN, members)])
    return b


def case():
    b = base()
    b.fact(PCT, "0.23", FY_END, decimals=2)  # no axis at all
    return b, [CODE]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0072_a_sub_category_member_below_its_category_is_fine(data_root):
    b = _pension(base(), {EQUITY: [gaap("USEquitySecuritiesMember")]})
    b.fact(PCT, "0.4", FY_END, {ASSET_AXIS: gaap("USEquitySecuritiesMember")}, decimals=2)
    b.fact(PCT, "0.4", FY_END, {ASSET_AXIS: EQUITY}, decimals=2)  # below the domain, not the axis
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 2


def test_0072_a_member_hung_straight_off_the_axis_is_reported(data_root):
    b = base()
    b.role(PEN_URI, "0500 - Disclosure - Pension Assets (Details)")
    b.arcs.append(Arc(DEFINITION, DIMENSION_DOMAIN, PEN_URI, ASSET_AXIS, EQUITY))
    b.fact(PCT, "0.4", FY_END, {ASSET_AXIS: EQUITY}, decimals=2)
    r = run(RULE, b, data_root)
    assert codes(r) == [CODE] and "direct child" in r.findings[0].message and "EquitySecurities" in r.findings[0].message


def test_0072_nil_facts_and_filings_without_the_concept_are_not_checked(data_root):
    b = base()
    b.fact(PCT, None, FY_END, nil=True)
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 0


# -- a real filing: IBM's 10-K reports plan assets on DefinedBenefitPlanByPlanAssetCategoriesAxis --------------

def _ibm_equity_context(filing):
    return context_where(filing, lambda ctx: (ASSET_AXIS.local, EQUITY.local) in {(a.local, getattr(m, "local", None))
                                                                              for a, m in ctx.dimensions})


@pytest.mark.slow
def test_0072_real_ibm_untouched_and_with_a_well_placed_percentage_has_no_finding(data_root):
    filing = load(data_root, IBM)
    assert run_rule(RULE, filing, data_root).findings == ()
    added = edited(filing, add=[fact(PCT, "0.55", _ibm_equity_context(filing), unit="number", decimals=2)])
    r = run_rule(RULE, added, data_root)
    assert r.findings == () and r.consistent == 1


@pytest.mark.slow
def test_0072_real_ibm_percentage_without_the_axis_is_reported(data_root):
    filing = load(data_root, IBM)
    plain = context_where(filing, lambda ctx: not ctx.dimensions and ctx.period.is_instant)
    r = run_rule(RULE, edited(filing, add=[fact(PCT, "0.55", plain, unit="number", decimals=2)]), data_root)
    assert codes(r) == [CODE] and r.findings[0].reported == Decimal("0.55")
    assert "without DefinedBenefitPlanByPlanAssetCategoriesAxis" in r.findings[0].message


@pytest.mark.slow
def test_0072_real_ibm_member_moved_straight_under_the_axis_is_reported(data_root):
    filing = load(data_root, IBM)
    filing = edited(filing, add=[fact(PCT, "0.55", _ibm_equity_context(filing), unit="number", decimals=2)])
    moved = [a for a in filing.arcs if a.kind == DEFINITION and a.arcrole == DOMAIN_MEMBER and a.target == EQUITY]
    assert moved
    lifted = [Arc(DEFINITION, DIMENSION_DOMAIN, a.role, ASSET_AXIS, EQUITY) for a in moved]
    r = run_rule(RULE, with_arcs(filing, add=lifted, drop=lambda a: a in moved), data_root)
    assert codes(r) == [CODE] and "direct child" in r.findings[0].message
