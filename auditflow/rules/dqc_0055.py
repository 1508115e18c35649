"""DQC.US.0055 — Required member on an axis (docs/rules/DQC_US_0055.md).

In the filer's presentation linkbase, RetirementPlanSponsorLocationAxis must show DomesticPlanMember or
ForeignPlanMember (7493 per network, 9842 per path of members), DomesticPlanMember must have the
domestic countries below it (9843), and ForeignPlanMember must have countries below it unless values
are reported for ForeignPlanMember itself (9844).
"""
from __future__ import annotations

from auditflow.rules.common import Collector, gate, local_dims
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0055"
AXIS = "RetirementPlanSponsorLocationAxis"
GROUPS = {"DomesticPlanMember", "ForeignPlanMember"}
MESSAGES = {
    "DQC.US.0055.7493": (
        "Neither DomesticPlanMember nor ForeignPlanMember is used on RetirementPlanSponsorLocationAxis in the "
        "presentation of {network}; the members below the axis are {members}. The FASB requires one or both of them "
        "on this axis: add them, with the countries below."),
    "DQC.US.0055.9842": (
        "The path {path} below RetirementPlanSponsorLocationAxis in the presentation of {network} has neither "
        "DomesticPlanMember nor ForeignPlanMember. Put the plan locations below one of them."),
    "DQC.US.0055.9843": (
        "DomesticPlanMember has no members below it on RetirementPlanSponsorLocationAxis in the presentation of "
        "{network} (path {path}). The FASB requires the domestic geography (for example country:US) below it."),
    "DQC.US.0055.9844": (
        "ForeignPlanMember has no members below it on RetirementPlanSponsorLocationAxis in the presentation of "
        "{network} (path {path}) and no value is reported for ForeignPlanMember itself. Add the foreign countries "
        "below it."),
}


def _paths(env, role, root):
    """Root-to-leaf paths (as lists of members, the axis excluded) below ``root`` in ``role``."""
    out, stack = [], [(root, ())]
    while stack:
        node, path = stack.pop()
        kids = [a.target for a in sorted(env.index.pre_down.get((role, node), ()), key=lambda a: a.order)
                if a.target not in path and a.target != root]
        if not kids and path:
            out.append(path)
        for k in reversed(kids):
            stack.append((k, path + (k,)))
    return out


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    foreign_values = any(getattr(local_dims(ctx).get(AXIS), "local", None) == "ForeignPlanMember"
                         for ctx in env.filing.contexts.values() if ctx.dimensions)
    roots = sorted({(role, src) for (role, src) in env.index.pre_down if src.local == AXIS},
                   key=lambda rs: (rs[0], rs[1].clark()))
    for role, axis in roots:
        network = env.role_definition(role) or role
        paths = _paths(env, role, axis)
        members = sorted({m.local for p in paths for m in p})
        if not GROUPS & set(members) and len(members) > 1:
            c.violation("DQC.US.0055.7493", None, concept=axis, role=network, network=network, members=", ".join(members))
        for path in paths:
            names = [m.local for m in path]
            text = " > ".join(names)
            if not GROUPS & set(names) and len(names) > 1:
                c.violation("DQC.US.0055.9842", None, concept=axis, role=network, network=network, path=text)
            elif names[-1] == "DomesticPlanMember":
                c.violation("DQC.US.0055.9843", None, concept=path[-1], role=network, network=network, path=text)
            elif names[-1] == "ForeignPlanMember" and not foreign_values:
                c.violation("DQC.US.0055.9844", None, concept=path[-1], role=network, network=network, path=text)
            else:
                c.consistent(None, f"path {text}", concept=path[-1])
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Required member on an axis", messages=MESSAGES, needs=frozenset({Need.FILER_PRE, Need.FACTS}),
    run=run,
))
