"""DQC.US.0052 — Member values (docs/rules/DQC_US_0052.md).

No fact may be reported with RetirementPlanSponsorLocationAxis = DomesticPlanMember: that member only
groups the domestic plans; the country (from the SEC's country taxonomy) is the member to report.
"""
from __future__ import annotations

from auditflow.rules.common import Collector, facts_on_axis, gate
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0052"
CODE = "DQC.US.0052.7487"
MESSAGE = (
    "{concept} with a value of {value} is reported with RetirementPlanSponsorLocationAxis = DomesticPlanMember. "
    "DomesticPlanMember is not meant to carry values in the instance: use the specific country from the SEC's "
    "country taxonomy (for example country:US) as the member."
)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    for f, member in facts_on_axis(env, "RetirementPlanSponsorLocationAxis"):
        if getattr(member, "local", None) == "DomesticPlanMember":
            c.violation(CODE, f)
        else:
            c.consistent(f)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Member values", messages={CODE: MESSAGE}, needs=frozenset({Need.FACTS}), run=run,
))
