"""DQC.US.0069 — Plan asset categories component members (docs/rules/DQC_US_0069.md).

DefinedBenefitPlanPlanAssetsInvestmentWithinPlanAssetCategoryAmount (7642) and
DefinedBenefitPlanAmountOfEmployerAndRelatedPartySecuritiesIncludedInPlanAssets (7643) report a part of a
plan asset category. So each of their facts must have a member on DefinedBenefitPlanByPlanAssetCategoriesAxis;
that member must not sit directly under the axis (it should be a child of the category whose fair value is
reported); and the value must be less than the fair value of plan assets reported, with the same other
aspects, for the member's parent category.
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, alignment, facts_named, gate, local_dims, numeric_items
from auditflow.rules.registry import Need, RuleSpec, register
from auditflow.rules.resources import family_key

RULE = "0069"
AXIS = "DefinedBenefitPlanByPlanAssetCategoriesAxis"
TOTAL = "DefinedBenefitPlanFairValueOfPlanAssets"
PARTS = {
    "DQC.US.0069.7642": "DefinedBenefitPlanPlanAssetsInvestmentWithinPlanAssetCategoryAmount",
    "DQC.US.0069.7643": "DefinedBenefitPlanAmountOfEmployerAndRelatedPartySecuritiesIncludedInPlanAssets",
}
MESSAGE = "{concept} with a value of {value} {problem}"
NO_AXIS = ("is reported without DefinedBenefitPlanByPlanAssetCategoriesAxis. It is a part of a plan asset category "
           "and must be reported with that axis.")
ON_AXIS = ("uses {member}, which the filer's definition linkbase puts directly under "
           "DefinedBenefitPlanByPlanAssetCategoriesAxis. It is a part of a category: its member should be a child of "
           "the member with which DefinedBenefitPlanFairValueOfPlanAssets reports that category.")
NOT_LESS = ("is not less than DefinedBenefitPlanFairValueOfPlanAssets of its parent category {parent} ({total}). "
            "It is a part of that category, reported with a more specific member, so it should be smaller.")
AXIS_KEY = (US_GAAP, AXIS)


def parents_of(env, member) -> set:
    """The member's parents below the axis in the filer's cubes; the axis itself when it is a domain of it."""
    out = set()
    for cube in env.dims.cubes:
        for axis_q, axis in cube.axes.items():
            if family_key(axis_q) != AXIS_KEY:
                continue
            if member in axis.domains:
                out.add(axis_q)
            elif member in axis.parents:
                out.add(axis.parents[member])
    return out


def _totals(env) -> dict:
    """(alignment without the axis, category member) -> the fair value facts of plan assets; a fact without the
    axis is filed under the axis's default member (None when the filer declares no default)."""
    default = next((m for a, m in env.dims.defaults.items() if family_key(a) == AXIS_KEY), None)
    out: dict = {}
    for f, ctx, _n in numeric_items(env, facts_named(env, TOTAL, US_GAAP)):
        member = local_dims(ctx).get(AXIS, default)
        out.setdefault((_without_axis(env, f, ctx), member), []).append(f)
    return out


def _without_axis(env, f, ctx) -> tuple:
    key = alignment(env, f, ctx)
    dims = tuple((a, m) for a, m in ctx.dimensions if family_key(a) != AXIS_KEY)
    return key[:3] + (dims,) + key[4:]


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    totals = None
    for code, local in PARTS.items():
        parts = list(numeric_items(env, facts_named(env, local, US_GAAP)))
        if not parts:
            c.skipped(None, f"{code}: no value of {local}")
        for f, ctx, n in parts:
            member = local_dims(ctx).get(AXIS)
            if member is None:
                c.violation(code, f, problem=NO_AXIS)
                continue
            parents = parents_of(env, member)
            if any(family_key(p) == AXIS_KEY for p in parents):
                c.violation(code, f, problem=ON_AXIS.format(member=member))
                continue
            totals = totals if totals is not None else _totals(env)
            key = _without_axis(env, f, ctx)
            matched = [(p, t) for p in sorted(parents, key=lambda q: q.clark()) for t in totals.get((key, p), ())]
            if not matched:
                c.skipped(f, f"{code}: no fair value of plan assets for the parent category of {member}")
            for parent, t in matched:
                if n >= t.number:
                    c.violation(code, f, expected=t.number, evidence=(t,),
                                problem=NOT_LESS.format(parent=parent, total=t.value))
                else:
                    c.consistent(f, f"{code}: less than the fair value of its category")
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Plan asset categories component members", messages={code: MESSAGE for code in PARTS},
    needs=frozenset({Need.FACTS, Need.FILER_DEF}), run=run,
    not_applicable=("form not in scope", "no data root"),
    fix_hint="Report {concept} on DefinedBenefitPlanByPlanAssetCategoriesAxis with a member below the category whose "
             "fair value it is part of.",
))
