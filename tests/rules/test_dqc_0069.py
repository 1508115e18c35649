"""DQC.US.0069: its conformance case, each of its three tests for both codes, the examples of
docs/rules/DQC_US_0069.md, and a real 10-K with a component of a plan asset category added."""
from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from auditflow.graphs.environment import build_environment
from auditflow.rules import registry
from auditflow.rules.dqc_0069 import AXIS, PARTS, TOTAL
from auditflow.rules.resources import Resources
from auditflow.xbrl.loader import load_filing
from auditflow.xbrl.model import DOMAIN_MEMBER, Arc, Context
from auditflow.xbrl.qname import QName
from builders import AxisSpec, ext, gaap, make_fact
from conformance import FY_END, PRIOR_END, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0069"
CATEGORIES = gaap(AXIS)
DOMAIN = gaap("PlanAssetCategoriesDomain")
EQUITY = gaap("EquitySecuritiesMember")
LARGE_CAP = ext("LargeCapEquityMember")
INV, REL = list(PARTS)
ROLE = "http://example.com/role/PlanAssets"


def plan_assets(equity=500, total=800):
    b = base()
    b.cube(ROLE, "0400 - Disclosure - Plan Assets (Details)", gaap("DefinedBenefitPlanFairValueOfPlanAssetsTable"),
           [gaap(TOTAL), *(gaap(p) for p in PARTS.values())], [AxisSpec(CATEGORIES, DOMAIN, {EQUITY: [LARGE_CAP]})])
    b.fact(gaap(TOTAL), total, FY_END)
    b.fact(gaap(TOTAL), equity, FY_END, {CATEGORIES: EQUITY})
    return b


def case():
    b = plan_assets()
    b.fact(gaap(PARTS[INV]), 600, FY_END, {CATEGORIES: LARGE_CAP})  # more than the equity category holds
    return b, [INV]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


@pytest.mark.parametrize("code", [INV, REL])
def test_0069_each_code_reports_a_part_without_the_axis_on_the_axis_or_not_smaller(code, data_root):
    part = gaap(PARTS[code])
    b = plan_assets()
    b.fact(part, 100, FY_END)
    r = run(RULE, b, data_root)
    assert codes(r) == [code] and "without DefinedBenefitPlanByPlanAssetCategoriesAxis" in r.findings[0].message
    b = plan_assets()
    b.fact(part, 100, FY_END, {CATEGORIES: DOMAIN})  # the domain: directly under the axis
    r = run(RULE, b, data_root)
    assert codes(r) == [code] and "directly under" in r.findings[0].message
    b = plan_assets()
    b.fact(part, 500, FY_END, {CATEGORIES: LARGE_CAP})  # equal to its category: not less
    r = run(RULE, b, data_root)
    assert codes(r) == [code] and r.findings[0].expected == Decimal(500) and "EquitySecuritiesMember" in r.findings[0].message


def test_0069_a_smaller_part_is_consistent_and_a_part_of_another_period_is_not_compared(data_root):
    b = plan_assets()
    b.fact(gaap(PARTS[INV]), 499, FY_END, {CATEGORIES: LARGE_CAP})
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 1
    b = plan_assets()
    b.fact(gaap(PARTS[INV]), 900, PRIOR_END, {CATEGORIES: LARGE_CAP})
    assert codes(run(RULE, b, data_root)) == []


def test_0069_a_category_under_the_default_domain_is_compared_with_the_total(data_root):
    b = plan_assets(total=800)
    b.fact(gaap(PARTS[REL]), 900, FY_END, {CATEGORIES: EQUITY})  # parent: the domain, i.e. no axis
    assert codes(run(RULE, b, data_root)) == [REL]
    b = plan_assets(total=800)
    b.fact(gaap(PARTS[REL]), 90, FY_END, {CATEGORIES: EQUITY})
    assert codes(run(RULE, b, data_root)) == []


def test_0069_a_quarterly_report_is_not_in_its_forms(data_root):
    b, _ = case()
    b.facts[0] = replace(b.facts[0], value="10-Q")
    assert codes(run(RULE, b, data_root)) == []


@pytest.mark.slow
def test_0069_real_10k_with_a_component_of_its_equity_category(data_root):
    """Hillenbrand's 10-K reports plan assets by category but no component: untouched it is clean; a component
    member added below EquitySecuritiesMember, with a value above the category's, is a 7642; half of it is fine."""
    env = build_environment(load_filing(data_root / "filings-rolled/hi-10k-2020-09-30"))
    spec, res = registry.get(RULE), Resources(data_root)
    assert spec.run(env, res).findings == ()
    filing = env.filing
    total = next(f for f in filing.facts if f.concept.local == TOTAL and not f.is_nil
                 and any(m == EQUITY.local for m in (getattr(m, "local", "") for _a, m in filing.contexts[f.context_id].dimensions)))
    ctx = filing.contexts[total.context_id]
    axis, equity = next((a, m) for a, m in ctx.dimensions if a.local == AXIS)
    member = QName("http://example.com/hi", "LargeCapEquityMember", "hi")
    role = next(a.role for a in filing.arcs if a.arcrole == DOMAIN_MEMBER and a.target == equity
                and a.source.local == DOMAIN.local)
    part_ctx = Context("part", ctx.entity_scheme, ctx.entity_id, ctx.period,
                       tuple(sorted(((a, member if a == axis else m) for a, m in ctx.dimensions), key=lambda am: am[0].clark())))
    part = QName(total.concept.namespace, PARTS[INV], "us-gaap")

    def with_part(value):
        fact = make_fact(part, value, "part", unit=total.unit_id, decimals=total.decimals, index=len(filing.facts))
        arc = Arc("definition", DOMAIN_MEMBER, role, equity, member, order=Decimal(99))
        return build_environment(replace(filing, facts=[*filing.facts, fact], arcs=[*filing.arcs, arc],
                                         contexts={**filing.contexts, "part": part_ctx}))

    over = spec.run(with_part(total.number + 1), res)
    assert codes(over) == [INV] and over.findings[0].expected == total.number
    assert spec.run(with_part(total.number / 2), res).findings == ()
