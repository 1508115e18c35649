"""DQC.US.0068 — Geographical axis used with pension line items (docs/rules/DQC_US_0068.md).

The line items of the US-GAAP network "Compensation Related Costs, Retirement Benefits" (730000) must not
be reported on srt:StatementGeographicalAxis: a plan broken down by where it is sponsored belongs on
RetirementPlanSponsorLocationAxis, and securities by where they were issued on members that say so. Each
such fact is one violation; the network's other facts are checked and consistent.
"""
from __future__ import annotations

from auditflow.rules.common import Collector, constant_qnames, decoded_constant, family_keys, gate, local_dims
from auditflow.rules.registry import CONSTANTS_2025, Need, RuleSpec, register
from auditflow.rules.resources import family_key

RULE = "0068"
CODE = "DQC.US.0068.7641"
AXIS = "StatementGeographicalAxis"
NETWORK = "NETWORK_730000_TARGET_NON_ABSTRACT_QNAMES"  # the 2025 constants' line items of network 730000
MESSAGE = (
    "{concept} with a value of {value} is a retirement-benefit line item (US-GAAP network 730000, Compensation "
    "Related Costs, Retirement Benefits) reported on StatementGeographicalAxis ({member}). These line items do not "
    "take the geographical axis: report a plan's location on RetirementPlanSponsorLocationAxis, and where "
    "securities were issued with members that name both the kind of security and its location."
)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    pension = decoded_constant(resources, NETWORK, lambda raw: family_keys(constant_qnames(raw)))
    for f in env.filing.facts:
        if f.is_nil or family_key(f.concept) not in pension:
            continue
        ctx = env.filing.contexts.get(f.context_id)
        if ctx is None:
            continue
        member = local_dims(ctx).get(AXIS) if ctx.dimensions else None
        if member is None:
            c.consistent(f)
        else:
            c.violation(CODE, f, member=member)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Geographical axis used with pension line items", messages={CODE: MESSAGE},
    needs=frozenset({Need.FACTS, Need.TAXONOMY}), run=run, resources=(CONSTANTS_2025,),
    not_applicable=("form not in scope", "no data root"),
))
