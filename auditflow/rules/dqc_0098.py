"""DQC.US.0098 — Liability revenue recognized (docs/rules/DQC_US_0098.md).

Revenue recognized in a period out of the contract liability (ContractWithCustomerLiabilityRevenueRecognized)
cannot exceed the contract liability at the start of that period: 9531 against ContractWithCustomerLiability,
9532 (when that total is not reported) against its current and noncurrent parts together.
"""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

from auditflow.rules.common import US_GAAP, Collector, alignment, differs, facts_named, gate, min_decimals, numeric_items
from auditflow.rules.registry import Need, RuleSpec, register
from auditflow.xbrl.model import Period

RULE = "0098"
CODE_TOTAL = "DQC.US.0098.9531"
CODE_PARTS = "DQC.US.0098.9532"
_MSG = (
    "ContractWithCustomerLiabilityRevenueRecognized with a value of {value} for {period} is greater than the "
    "contract liability at the start of the period, {opening} on {opening_date} ({basis}). Revenue recognized out "
    "of the opening balance cannot exceed it: to report revenue recognized including amounts added during the "
    "period, use an extension element (e.g. ContractWithCustomerLiabilityRevenueRecognizedIncludingOpeningBalance)."
)
MESSAGES = {CODE_TOTAL: _MSG, CODE_PARTS: _MSG}


def _opening(env, local: str) -> dict:
    """Alignment with the instant replaced by its date -> fact, for one concept's facts."""
    out = {}
    for f, ctx, n in numeric_items(env, facts_named(env, local, US_GAAP)):
        if ctx.period.is_instant:
            out.setdefault(alignment(env, f, ctx), (f, n))
    return out


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    total = _opening(env, "ContractWithCustomerLiability")
    current, noncurrent = _opening(env, "ContractWithCustomerLiabilityCurrent"), _opening(env, "ContractWithCustomerLiabilityNoncurrent")
    for f, ctx, n in numeric_items(env, facts_named(env, "ContractWithCustomerLiabilityRevenueRecognized", US_GAAP)):
        if ctx.period.is_instant or ctx.period.start is None:
            continue
        opening_date = ctx.period.start - dt.timedelta(days=1)  # the instant that opens the period
        key = alignment(env, f, ctx)
        key = key[:2] + (Period(None, opening_date),) + key[3:]
        if key in total:
            g, m = total[key]
            _judge(c, CODE_TOTAL, f, n, [g], m, opening_date, "ContractWithCustomerLiability", factor=2)
        elif key in current and key in noncurrent:
            (g1, m1), (g2, m2) = current[key], noncurrent[key]
            _judge(c, CODE_PARTS, f, n, [g1, g2], m1 + m2, opening_date, "current plus noncurrent", factor=0)
        else:
            c.skipped(f, "no contract liability reported at the start of the period")
    return c.result()


def _judge(c: Collector, code: str, f, n: Decimal, opening_facts: list, m: Decimal, opening_date, basis: str, *, factor: int):
    t = min_decimals([f, *opening_facts])
    is_error, allowed = differs(n, m, t, factor)
    if n > m and is_error:
        c.violation(code, f, expected=m, tolerance=allowed, evidence=opening_facts, opening=m,
                    opening_date=opening_date.isoformat(), basis=basis)
    else:
        c.consistent(f)


SPEC = register(RuleSpec(
    id=RULE, title="Liability revenue recognized", messages=MESSAGES, needs=frozenset({Need.FACTS}),
    run=run,
))
