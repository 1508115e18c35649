"""DQC.US.0123 — Missing components of equity axis (docs/rules/DQC_US_0123.md).

StockholdersEquity or StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest reported with
StatementClassOfStockAxis as its only dimension is an error (in the statement of equity the class of stock
needs the equity component too), unless the filer reports NetAssetValuePerShare by class of stock (a
business development company) for the same period.
"""
from __future__ import annotations

from auditflow.rules.common import Collector, gate, in_family, US_GAAP
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0123"
CODE = "DQC.US.0123.9583"
EQUITY = frozenset({"StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest", "StockholdersEquity"})
CLASS_AXIS = "StatementClassOfStockAxis"
MESSAGE = (
    "{concept} is reported with StatementClassOfStockAxis ({dimensions}) and a value of {value}, the monetary value "
    "of the class of stock in equity; in the statement of shareholders' equity that needs the equity component too. "
    "Add StatementEquityComponentsAxis with the stock's member to the fact, or use another element if the value is "
    "not part of stockholders' equity."
)


def _class_only(ctx) -> bool:
    return len(ctx.dimensions) == 1 and ctx.dimensions[0][0].local == CLASS_AXIS


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    bdc_periods = {env.filing.contexts[f.context_id].period for f in env.filing.facts
                   if f.concept.local == "NetAssetValuePerShare" and not f.is_nil
                   and f.context_id in env.filing.contexts and _class_only(env.filing.contexts[f.context_id])}
    for f in env.filing.facts:
        if f.concept.local not in EQUITY or not in_family(f.concept, US_GAAP) or f.is_nil:
            continue
        ctx = env.filing.contexts.get(f.context_id)
        if ctx is None or not _class_only(ctx):
            continue
        if ctx.period in bdc_periods:
            c.skipped(f, "the filer reports NetAssetValuePerShare by class of stock (a BDC)")
        else:
            c.violation(CODE, f)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Missing components of equity axis", messages={CODE: MESSAGE}, needs=frozenset({Need.FACTS}),
    run=run,
))
