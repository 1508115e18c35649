"""DQC.US.0060 — Element dependence for cash flow subtotals (docs/rules/DQC_US_0060.md).

A filing that reports the continuing-operations financing (7495) or investing (7496) cash flow without
dimensions must also report either the overall total or the discontinued-operations part. (7497, the
operating variant with its 5 % materiality test, is not implemented.)
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, facts_named, gate
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0060"
CHECKS = (
    ("DQC.US.0060.7495", "NetCashProvidedByUsedInFinancingActivities",
     "NetCashProvidedByUsedInFinancingActivitiesContinuingOperations", "CashProvidedByUsedInFinancingActivitiesDiscontinuedOperations"),
    ("DQC.US.0060.7496", "NetCashProvidedByUsedInInvestingActivities",
     "NetCashProvidedByUsedInInvestingActivitiesContinuingOperations", "CashProvidedByUsedInInvestingActivitiesDiscontinuedOperations"),
)
MESSAGE = (
    "{concept} is reported with a value of {value}, but neither {total} nor {discontinued} has a value. If the "
    "continuing operations are reported, the total or the discontinued operations are expected too; if {value} is "
    "the total, use {total} instead."
)


def _plain(env, local: str):
    return [f for f in facts_named(env, local, US_GAAP)
            if not f.is_nil and f.context_id in env.filing.contexts and not env.filing.contexts[f.context_id].dimensions]


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    for code, total, continuing, discontinued in CHECKS:
        cont = _plain(env, continuing)
        if not cont:
            continue
        if _plain(env, total) or _plain(env, discontinued):
            c.consistent(cont[0], f"{total} or {discontinued} reported")
        else:
            c.violation(code, cont[0], total=total, discontinued=discontinued)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Element dependence for specific elements", messages={code: MESSAGE for code, *_ in CHECKS},
    needs=frozenset({Need.FACTS}), run=run,
))
