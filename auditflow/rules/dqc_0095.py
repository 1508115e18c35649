"""DQC.US.0095 — Scale of common stock outstanding (docs/rules/DQC_US_0095.md).

dei:EntityCommonStockSharesOutstanding and us-gaap:CommonStockSharesOutstanding (same dimensions, the
balance-sheet date less than 90 days before the cover date) must not differ by a factor of 100 or more
(ratio above 99 or below 0.099): one of them was probably entered in the wrong scale. Not evaluated
after stock splits or when shares are reported as subsequent events.
"""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

from auditflow.rules.common import US_GAAP, Collector, dei_facts, facts_named, gate, local_dims, numeric_items
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0095"
CODE = "DQC.US.0095.9528"
SPLITS = ("StockIssuedDuringPeriodSharesStockSplits", "StockIssuedDuringPeriodSharesReverseStockSplits",
          "StockholdersEquityNoteStockSplitConversionRatio1")
HIGH, LOW = Decimal(99), Decimal("0.099")
MESSAGE = (
    "dei:EntityCommonStockSharesOutstanding with a value of {value} differs from CommonStockSharesOutstanding "
    "({other}, at {other_date}) by a factor of {factor}. One of the two is probably reported in the wrong scale "
    "(thousands or millions instead of shares): check the scale of both facts."
)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    subsequent_shares = 0
    for f in env.filing.facts:
        ctx = env.filing.contexts.get(f.context_id)
        unit = env.filing.units.get(f.unit_id or "")
        if (ctx is not None and unit is not None and str(unit) == "shares"
                and getattr(local_dims(ctx).get("SubsequentEventTypeAxis"), "local", None) == "SubsequentEventMember"):
            subsequent_shares += 1
    splits = sum(len(facts_named(env, s, US_GAAP)) for s in SPLITS)
    if subsequent_shares > 1 or splits > 1:
        c.skipped(None, "stock splits or subsequent-event share facts reported: the scale cannot be compared")
        if subsequent_shares > 1:
            c.note("DQC 0095: shares facts recognised by their unit 'shares' (no data types for standard concepts)")
        return c.result()
    balance = list(numeric_items(env, facts_named(env, "CommonStockSharesOutstanding", US_GAAP)))
    for f, ctx, n in numeric_items(env, dei_facts(env, "EntityCommonStockSharesOutstanding")):
        if n <= 0 or ctx.period.end is None:
            continue
        for g, gctx, m in balance:
            if m <= 0 or gctx.dimensions != ctx.dimensions or gctx.period.end is None:
                continue
            if gctx.period.end + dt.timedelta(days=90) <= ctx.period.end:
                continue
            factor = n / m
            if factor > HIGH or factor < LOW:
                c.violation(CODE, f, expected=m, evidence=[g], other=m, other_date=gctx.period.end.isoformat(),
                            factor=f"{factor:.4g}")
            else:
                c.consistent(f)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Scale of common stock outstanding", messages={CODE: MESSAGE}, needs=frozenset({Need.DEI, Need.FACTS}),
    run=run,
))
