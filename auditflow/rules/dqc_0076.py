"""DQC.US.0076 — Performance obligations with no durations (docs/rules/DQC_US_0076.md).

A remaining performance obligation (amount or percentage) reported on
RevenueRemainingPerformanceObligationExpectedTimingOfSatisfactionStartDateAxis needs the expected timing: the filing
must report RevenueRemainingPerformanceObligationExpectedTimingOfSatisfactionPeriod1 (non-nil) on that axis. As in the
DQC source, any such fact will do (dimensions and periods are not matched), so a nil "thereafter" bucket is fine.
"""
from __future__ import annotations

from auditflow.rules.common import Collector, facts_on_axis, gate
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0076"
CODE = "DQC.US.0076.7653"
AXIS = "RevenueRemainingPerformanceObligationExpectedTimingOfSatisfactionStartDateAxis"
OBLIGATIONS = frozenset({"RevenueRemainingPerformanceObligation", "RevenueRemainingPerformanceObligationPercentage"})
TIMING = "RevenueRemainingPerformanceObligationExpectedTimingOfSatisfactionPeriod1"
MESSAGE = (
    "{concept} with a value of {value} is reported for the start date {member} of "
    "RevenueRemainingPerformanceObligationExpectedTimingOfSatisfactionStartDateAxis, but the filing reports no "
    "RevenueRemainingPerformanceObligationExpectedTimingOfSatisfactionPeriod1 on that axis to say over what period "
    "the obligations are expected to be satisfied. Report the duration for each start date."
)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    on_axis = list(facts_on_axis(env, AXIS))
    timed = any(f.concept.local == TIMING and not f.is_nil for f, _m in on_axis)
    for f, member in on_axis:
        if f.concept.local not in OBLIGATIONS or f.is_nil:
            continue
        if timed:
            c.consistent(f)
        else:
            c.violation(CODE, f, member=member)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Performance obligations with no durations", messages={CODE: MESSAGE}, needs=frozenset({Need.FACTS}),
    run=run,
))
