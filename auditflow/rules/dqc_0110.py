"""DQC.US.0110 — Business combination consideration reported for a short period without an acquisition
(docs/rules/DQC_US_0110.md).

BusinessCombinationConsiderationTransferred1 without dimensions is the consideration paid for all the
period's acquisitions, so it spans the reporting period. A value without dimensions whose duration is
clearly shorter than the period of dei:DocumentPeriodEndDate (more than 20 days shorter) is the price of
one acquisition, which belongs on BusinessAcquisitionAxis with a member for that acquisition.
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, document_period_context, facts_named, gate
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0110"
CODE = "DQC.US.0110.9559"
CONCEPT = "BusinessCombinationConsiderationTransferred1"
SLACK_DAYS = 20  # DQC's allowance: a period up to 20 days shorter than the reporting period still counts as it
MESSAGE = (
    "{concept} with a value of {value} is reported without dimensions, as the consideration for all the period's "
    "acquisitions, but its period lasts {days} day(s), more than {slack} days shorter than the reporting period of "
    "{document_days} day(s) (the period of dei:DocumentPeriodEndDate). If the amount is the price of one acquisition, "
    "report it on BusinessAcquisitionAxis with a member for that acquisition."
)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    paid = [f for f in facts_named(env, CONCEPT, US_GAAP) if not f.is_nil]
    if not paid:
        return c.result()
    _dped, dped_ctx = document_period_context(env)
    if dped_ctx is None:
        for f in paid:
            c.skipped(f, "no dei:DocumentPeriodEndDate with a period to compare with")
        return c.result()
    base_days = dped_ctx.period.days
    for f in paid:
        ctx = env.filing.contexts.get(f.context_id)
        if ctx is None or ctx.dimensions:
            continue  # DQC reads the fact without dimensions only
        days = ctx.period.days
        if days < base_days - SLACK_DAYS:
            c.violation(CODE, f, days=days, document_days=base_days, slack=SLACK_DAYS)
        else:
            c.consistent(f, f"{days} day(s) against a reporting period of {base_days}")
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Business combination consideration for a short period without an acquisition",
    messages={CODE: MESSAGE}, needs=frozenset({Need.DEI, Need.FACTS}), run=run,
    not_applicable=("form not in scope", "no data root"),
))
