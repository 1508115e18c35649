"""DQC.US.0033 — Document period end date context (docs/rules/DQC_US_0033.md).

dei facts (other than the listed exceptions, and without a SubsequentEventTypeAxis) must end on the
same date as the context of the first dei:DocumentPeriodEndDate fact. Skipped when that fact's value
is more than 3 days from its context end (DQC.US.0036 reports that) and on an amended 8-K.
"""
from __future__ import annotations

from auditflow.rules.common import Collector, dei_facts, document_period_context, gate, is_dei, parse_date
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0033"
CODE = "DQC.US.0033.2"
MAX_DAYS = 3
EXCEPTIONS = frozenset({
    "EntityCommonStockSharesOutstanding", "EntityPublicFloat", "DocumentPeriodEndDate", "EntityNumberOfEmployees",
    "AuditorLocation", "AuditorName", "AuditorFirmId", "EntityListingDepositoryReceiptRatio",
})
SUBSEQUENT_EVENT_AXIS = "SubsequentEventTypeAxis"
MESSAGE = (
    "The ending date of {fact_end} used for {concept} must be the same as the Document Period End Date context "
    "end, {period_end}. Revise either the date of the {concept} fact or the Document Period End Date."
)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    dped, ctx = document_period_context(env)
    if ctx is None:
        c.skipped(None, "no dei:DocumentPeriodEndDate fact with a context")
        return c.result()
    end = ctx.period.end
    value = parse_date(dped.value)
    if value is None or abs((value - end).days) > MAX_DAYS:
        c.skipped(dped, "the Document Period End Date value is not within 3 days of its context (DQC.US.0036 applies)")
        return c.result()
    amended = any((f.value or "").strip().lower() == "true" for f in dei_facts(env, "AmendmentFlag"))
    if amended and any((f.value or "").strip() == "8-K" for f in dei_facts(env, "DocumentType")):
        c.skipped(None, "an amended 8-K: the rule does not run")
        return c.result()
    for f in env.filing.facts:
        if not is_dei(f.concept) or f.concept.local in EXCEPTIONS:
            continue
        fctx = env.filing.contexts.get(f.context_id)
        if fctx is None or fctx.period.end is None:
            continue
        if any(a.local == SUBSEQUENT_EVENT_AXIS for a, _ in fctx.dimensions):
            continue
        if fctx.period.end != end:
            c.violation(CODE, f, fact_end=fctx.period.end.isoformat(), period_end=end.isoformat())
        else:
            c.consistent(f)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Document period end date context", messages={CODE: MESSAGE},
    needs=frozenset({Need.DEI}), run=run,
))
