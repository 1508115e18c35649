"""DQC.US.0089 — Invalid elements used on the range axis (docs/rules/DQC_US_0089.md).

The weighted-average remaining lease terms must not be reported with srt:RangeAxis (a weighted average
has no minimum or maximum).
"""
from __future__ import annotations

from auditflow.rules.common import Collector, gate, local_dims
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0089"
CODE = "DQC.US.0089.9373"
CONCEPTS = frozenset({"OperatingLeaseWeightedAverageRemainingLeaseTerm1", "FinanceLeaseWeightedAverageRemainingLeaseTerm1"})
MESSAGE = (
    "{concept} with a value of {value} is reported with RangeAxis. A weighted average cannot be used with the "
    "range axis: report the range of remaining lease terms with LesseeOperatingLeaseRemainingLeaseTerm (operating "
    "leases) or LesseeFinanceLeaseRemainingLeaseTerm (finance leases)."
)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    for f in env.filing.facts:
        if f.concept.local not in CONCEPTS:
            continue
        ctx = env.filing.contexts.get(f.context_id)
        if ctx is not None and "RangeAxis" in local_dims(ctx):
            c.violation(CODE, f)
        else:
            c.consistent(f)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Invalid elements used on range axis", messages={CODE: MESSAGE}, needs=frozenset({Need.FACTS}),
    run=run,
))
