"""DQC.US.0005 — Context dates after the period end date (docs/rules/DQC_US_0005.md).

The latest of the dei:DocumentPeriodEndDate values and context end dates is the filing's period end
M. 17: dei:EntityCommonStockSharesOutstanding must not be dated before M. 48: facts on
SubsequentEventTypeAxis must be dated after M (skipped when DocumentPeriodEndDate has several
values). 49: facts on StatementScenarioAxis = ScenarioForecastMember must be dated after M.
Registration statements ($REPORT_TYPE_EXCLUSIONS) are skipped.
"""
from __future__ import annotations

from auditflow.rules.common import REPORT_TYPE_EXCLUSIONS, Collector, dei_facts, gate, parse_date
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0005"
CODE_SHARES = "DQC.US.0005.17"
CODE_SUBSEQUENT = "DQC.US.0005.48"
CODE_FORECAST = "DQC.US.0005.49"
MESSAGES = {
    CODE_SHARES: (
        "dei:EntityCommonStockSharesOutstanding, {value}, is the number of shares outstanding stated on the cover "
        "page, but it is dated {fact_end}, before the end of the reporting period {period_end}. Date the fact on or "
        "after {period_end} (the cover-page date of the share count)."),
    CODE_SUBSEQUENT: (
        "{concept} is reported with SubsequentEventTypeAxis ({value}) for a date, {fact_end}, on or before the "
        "reporting period end {period_end}. A subsequent event happens after the period end: correct the date "
        "or do not use the subsequent event axis."),
    CODE_FORECAST: (
        "{concept} is reported with StatementScenarioAxis = ScenarioForecastMember ({value}) for a date, "
        "{fact_end}, on or before the reporting period end {period_end}. A forecast is about a later period: "
        "correct the date or the member."),
}


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    if any((f.value or "").strip() in REPORT_TYPE_EXCLUSIONS for f in dei_facts(env, "DocumentType")):
        c.skipped(None, "out of scope: registration statements are excluded ($REPORT_TYPE_EXCLUSIONS)")
        return c.result()
    dped = dei_facts(env, "DocumentPeriodEndDate")
    values = {d for d in (parse_date(f.value) for f in dped) if d is not None}
    ends = {env.filing.contexts[f.context_id].period.end for f in dped if f.context_id in env.filing.contexts}
    dates = {d for d in values | ends if d is not None}
    if not dates:
        c.skipped(None, "no dei:DocumentPeriodEndDate: the period end is unknown")
        return c.result()
    latest = max(dates)
    for f in dei_facts(env, "EntityCommonStockSharesOutstanding"):
        _judge(c, env, f, CODE_SHARES, latest, lambda d: d < latest)
    several = len(values) > 1
    if several:
        c.note("DQC.US.0005.48 skipped: dei:DocumentPeriodEndDate has more than one value")
    for f in env.filing.facts:
        ctx = env.filing.contexts.get(f.context_id)
        if ctx is None or not ctx.dimensions:
            continue
        explicit = ctx.dims_dict()
        if not several and any(a.local == "SubsequentEventTypeAxis" for a in explicit):
            _judge(c, env, f, CODE_SUBSEQUENT, latest, lambda d: d <= latest)
        if any(a.local == "StatementScenarioAxis" and getattr(m, "local", None) == "ScenarioForecastMember"
               for a, m in explicit.items()):
            _judge(c, env, f, CODE_FORECAST, latest, lambda d: d <= latest)
    return c.result()


def _judge(c: Collector, env, f, code: str, latest, wrong) -> None:
    ctx = env.filing.contexts.get(f.context_id)
    if ctx is None or ctx.period.end is None:
        c.skipped(f, "missing data: no context end date")
    elif wrong(ctx.period.end):
        c.violation(code, f, fact_end=ctx.period.end.isoformat(), period_end=latest.isoformat())
    else:
        c.consistent(f)


SPEC = register(RuleSpec(
    id=RULE, title="Context dates after period end date", messages=MESSAGES,
    needs=frozenset({Need.DEI, Need.FACTS}), run=run,
))
