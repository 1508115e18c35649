"""DQC.US.0070 — Pension plan assets: categories do not add up to the total (docs/rules/DQC_US_0070.md).

In each of the filer's plan-asset tables (a cube with DefinedBenefitPlanFairValueOfPlanAssets and
DefinedBenefitPlanByPlanAssetCategoriesAxis, without srt:RangeAxis, and not a roll-forward), the fair values of
the categories reported at the highest level of the member hierarchy must add up to the fair value reported
without the axis, with the same period, unit and other dimensions, within DQC's decimals tolerance.
"""
from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from auditflow.rules.common import (
    NO_ELEMENT_PROPERTIES, US_GAAP, Collector, alignment, differs, facts_named, gate, local_dims, min_decimals,
    numeric_items,
)
from auditflow.rules.registry import Need, RuleSpec, register
from auditflow.rules.resources import family_key

RULE = "0070"
CODE = "DQC.US.0070.7645"
TOTAL = "DefinedBenefitPlanFairValueOfPlanAssets"
AXIS_KEY = (US_GAAP, "DefinedBenefitPlanByPlanAssetCategoriesAxis")
RANGE_KEY = ("http://fasb.org/srt", "RangeAxis")
DOMAIN = "PlanAssetCategoriesDomain"
CAP, K = 5, 2  # tolerance_for_decimals_comp: INF and decimals above 5 count as 5; twice the last digit
MESSAGE = (
    "{concept} without DefinedBenefitPlanByPlanAssetCategoriesAxis has a value of {value}, but its categories on that "
    "axis in {network} add up to {sum}: {components}. The difference {difference} exceeds the allowed {allowed}. "
    "The categories at the highest level of the member hierarchy should add up to the total. Possible causes: the "
    "categories are broken down by a further dimension (such as geography) instead of one member per class of "
    "security; the total is wrong; not every category is reported; or a category is only a part of the total (use "
    "DefinedBenefitPlanPlanAssetsInvestmentWithinPlanAssetCategoryAmount for it)."
)


def _monetary_durations(env) -> set:
    """Concepts with a fact that has a duration period and a currency unit: our stand-in for DQC's "monetary
    duration primary item", since standard concepts' period and data types are unavailable."""
    out = set()
    for f in env.filing.facts:
        ctx, unit = env.filing.contexts.get(f.context_id), env.filing.units.get(f.unit_id or "")
        if ctx is not None and unit is not None and ctx.period.start is not None and unit.is_monetary:
            out.add(f.concept)
    return out


def plan_asset_tables(env) -> dict[str, list]:
    """Role -> the cubes DQC tests in it: the total among the primary items, the categories axis, no range axis,
    no monetary duration primary item (a roll-forward)."""
    durations, out = None, defaultdict(list)
    for cube in env.dims.cubes:
        axes = {family_key(a) for a in cube.axes}
        if AXIS_KEY not in axes or RANGE_KEY in axes or not any(family_key(q) == (US_GAAP, TOTAL) for q in cube.primary_items):
            continue
        durations = durations if durations is not None else _monetary_durations(env)
        if not cube.primary_items & durations:
            out[cube.role].append(cube)
    return out


def _key(env, f, ctx) -> tuple:
    """The fact's alignment with the categories axis left out."""
    key = alignment(env, f, ctx)
    return key[:3] + (tuple((a, m) for a, m in ctx.dimensions if family_key(a) != AXIS_KEY),) + key[4:]


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    tables = plan_asset_tables(env)
    if not tables:
        c.skipped(None, "no plan asset table with DefinedBenefitPlanByPlanAssetCategoriesAxis")
        return c.result()
    c.note(NO_ELEMENT_PROPERTIES.format(what="DQC 0070 leaves out roll-forward tables by their monetary duration line "
                                             "items; we take a line item as one when it has a duration fact in a currency"))
    facts = list(numeric_items(env, facts_named(env, TOTAL, US_GAAP)))
    totals = defaultdict(list)
    for f, ctx, _n in facts:
        if not any(family_key(a) == AXIS_KEY for a, _m in ctx.dimensions):
            totals[_key(env, f, ctx)].append(f)
    for role in sorted(tables):
        _check_role(c, env, role, tables[role], facts, totals)
    return c.result()


def _check_role(c, env, role, cubes, facts, totals) -> None:
    axes = [ax for cube in cubes for a, ax in cube.axes.items() if family_key(a) == AXIS_KEY]
    ancestors = {m: set(ax.ancestors(m)) for ax in axes for m in ax.members | ax.domains | set(ax.parents)}
    groups: dict = defaultdict(lambda: defaultdict(list))  # alignment -> member -> facts valid in the role's cubes
    for f, ctx, _n in facts:
        member = next((m for a, m in ctx.dimensions if family_key(a) == AXIS_KEY), None)
        if member is not None and any(cube.is_valid(f.concept, ctx) for cube in cubes):
            groups[_key(env, f, ctx)][member].append(f)
    network = env.role_definition(role) or role
    for key, by_member in groups.items():
        top = [f for m, fs in by_member.items() if m in ancestors and m.local != DOMAIN
               and not any(a in by_member for a in ancestors[m] if a.local != DOMAIN) for f in fs]
        if not top:
            continue
        total_sum = sum((f.number for f in top), Decimal(0))
        for total in totals.get(key, ()):
            t = min_decimals([total, *top], cap=CAP)
            wrong, allowed = differs(total.number, total_sum, t, K)
            if wrong and total_sum != 0:
                components = "; ".join(f"{local_dims(env.filing.contexts[f.context_id])[AXIS_KEY[1]].local} = {f.value}"
                                       for f in top)
                c.violation(CODE, total, expected=total_sum, tolerance=allowed, evidence=top, role=network,
                            network=network, sum=total_sum, components=components,
                            difference=abs(total.number - total_sum), allowed=allowed)
            else:
                c.consistent(total, f"categories in {network} add up to {total_sum}")


SPEC = register(RuleSpec(
    id=RULE, title="Pension plan assets categories do not add up to the total", messages={CODE: MESSAGE},
    needs=frozenset({Need.FACTS, Need.FILER_DEF}), run=run,
    not_applicable=("form not in scope", "no data root"),
    fix_hint="Report one member per class of plan assets at the top of DefinedBenefitPlanByPlanAssetCategoriesAxis, "
             "so that they add up to {concept} ({reported}; categories {expected}).",
))
