"""DQC.US.0053 — Excluded members from an axis (docs/rules/DQC_US_0053.md).

NonUsMember must not be used on RetirementPlanSponsorLocationAxis: not on a fact, and not in the filer's
dimension relationships under that axis.
"""
from __future__ import annotations

from auditflow.rules.common import Collector, facts_on_axis, gate
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0053"
CODE = "DQC.US.0053.7489"
MESSAGE = (
    "The member NonUsMember is used on RetirementPlanSponsorLocationAxis{where}. NonUsMember should not be used "
    "with this axis: use ForeignPlanMember, or the countries of the foreign plans."
)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    for f, member in facts_on_axis(env, "RetirementPlanSponsorLocationAxis"):
        if getattr(member, "local", None) == "NonUsMember":
            c.violation(CODE, f, where=f" with {f.concept.local} (value {f.value})")
        else:
            c.consistent(f)
    if not c.findings:
        for cube in env.dims.cubes:
            for axis_q, axis in cube.axes.items():
                if axis_q.local == "RetirementPlanSponsorLocationAxis" and any(m.local == "NonUsMember" for m in axis.members):
                    network = env.role_definition(cube.role) or cube.role
                    c.violation(CODE, None, concept=axis_q, role=network,
                                where=f" in the definition linkbase ({network}); no fact uses it")
                    return c.result()
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Excluded members from an axis", messages={CODE: MESSAGE},
    needs=frozenset({Need.FACTS, Need.FILER_DEF}), run=run,
))
