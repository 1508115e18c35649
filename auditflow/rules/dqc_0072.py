"""DQC.US.0072 — Plan asset categories percentage (docs/rules/DQC_US_0072.md).

DefinedBenefitPlanPlanAssetsInvestmentWithinPlanAssetCategoryPercentage is the share of one plan asset
category that a narrower category makes up, so a fact of it means nothing without
DefinedBenefitPlanByPlanAssetCategoriesAxis; and its member, being a sub-category, must not hang
straight off that axis in the filer's definition linkbase (it belongs below the member that carries
the category's DefinedBenefitPlanFairValueOfPlanAssets). Both cases are the one DQC code 7647.
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, facts_named, gate, in_family, local_dims
from auditflow.rules.registry import Need, RuleSpec, register
from auditflow.xbrl.model import DEFINITION, DIMENSION_DOMAIN, DOMAIN_MEMBER

RULE = "0072"
CODE = "DQC.US.0072.7647"
CONCEPT = "DefinedBenefitPlanPlanAssetsInvestmentWithinPlanAssetCategoryPercentage"
AXIS = "DefinedBenefitPlanByPlanAssetCategoriesAxis"
MESSAGE = (
    "{concept} with a value of {value} {problem}. This percentage is the part of a plan asset category made up by a "
    "narrower category: report it on DefinedBenefitPlanByPlanAssetCategoriesAxis with a member placed, in the "
    "definition linkbase, below the member that carries the category's DefinedBenefitPlanFairValueOfPlanAssets."
)
NO_AXIS = "is reported without DefinedBenefitPlanByPlanAssetCategoriesAxis"
TOP_MEMBER = "uses the member {member}, which is a direct child of DefinedBenefitPlanByPlanAssetCategoriesAxis"


def _top_members(env) -> set:
    """Members the filer's definition linkbase hangs straight off the axis (any role): DQC's
    "the source of the relationship that reaches the member is the axis itself"."""
    return {a.target for a in env.filing.arcs
            if a.kind == DEFINITION and a.arcrole in (DIMENSION_DOMAIN, DOMAIN_MEMBER)
            and a.source.local == AXIS and in_family(a.source, US_GAAP)}


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    facts = [f for f in facts_named(env, CONCEPT, US_GAAP) if not f.is_nil]
    if not facts:
        c.skipped(None, f"no fact: the filing reports no {CONCEPT}")
        return c.result()
    top = _top_members(env)
    for f in facts:
        ctx = env.filing.contexts.get(f.context_id)
        if ctx is None:
            continue
        member = local_dims(ctx).get(AXIS) if ctx.dimensions else None
        if member is None:
            c.violation(CODE, f, problem=NO_AXIS, member="none")
        elif member in top:
            c.violation(CODE, f, problem=TOP_MEMBER.format(member=member), member=member)
        else:
            c.consistent(f, f"on {AXIS} = {member}, not a direct child of the axis")
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Plan asset categories percentage", messages={CODE: MESSAGE},
    needs=frozenset({Need.FACTS, Need.FILER_DEF}), run=run,
    fix_hint="Report {concept} on DefinedBenefitPlanByPlanAssetCategoriesAxis, with a member below the category's "
             "own member in the definition linkbase.",
    not_applicable=("no data root", "no fact"),
))
