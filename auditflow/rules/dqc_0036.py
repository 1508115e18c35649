"""DQC.US.0036 — Document period end date: context against value (docs/rules/DQC_US_0036.md).

Every dei:DocumentPeriodEndDate fact's value must lie within 3 days of its own context's end date.
"""
from __future__ import annotations

from auditflow.rules.common import Collector, dei_facts, gate, parse_date
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0036"
CODE = "DQC.US.0036.1"
MAX_DAYS = 3
MESSAGE = (
    "The context of dei:DocumentPeriodEndDate ends on {end}, but the value reported for it is {value_date} "
    "({days} days apart; at most {max_days} allowed). Revise either the end date of the context or the value "
    "of Document Period End Date."
)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    for f in dei_facts(env, "DocumentPeriodEndDate"):
        ctx = env.filing.contexts.get(f.context_id)
        value = parse_date(f.value)
        if ctx is None or ctx.period.end is None or value is None:
            c.skipped(f, "missing data: no context end date or the value is not a date")
            continue
        days = abs((value - ctx.period.end).days)
        if days > MAX_DAYS:
            c.violation(CODE, f, end=ctx.period.end.isoformat(), value_date=value.isoformat(), days=days,
                        max_days=MAX_DAYS)
        else:
            c.consistent(f, f"value within {MAX_DAYS} days of the context end")
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Document period end date context / fact value check", messages={CODE: MESSAGE},
    needs=frozenset({Need.DEI}), run=run,
))
