"""DQC.US.0084 — Durational aggregation (docs/rules/DQC_US_0084.md).

A monetary duration fact of a base-taxonomy concept must equal the sum of the same concept's facts (same
entity, dimensions and unit) for two to four contiguous sub-periods that start on its start date and end on
its end date: Q1 + Q2 = the first half, 9 months + Q4 = the year. The tolerance is
(sub-periods - 1) x 3 x 10^-d, d the lowest decimals of the total and its sub-periods.
"""
from __future__ import annotations

import datetime as dt
from collections import defaultdict
from decimal import Decimal

from auditflow.rules.common import (
    NO_ELEMENT_PROPERTIES, Collector, base_concept, decimals_int, facts_named, gate, is_dei, period_text,
)
from auditflow.rules.registry import Need, RuleSpec, register
from auditflow.xbrl.model import Fact, Period
from auditflow.xbrl.numbers import power_of_ten
from auditflow.xbrl.qname import QName

RULE = "0084"
CODE = "DQC.US.0084.9298"
FACTOR = 3  # the 2026 source's $decimal_tolerance_factor (the older doc says 2)
MAX_PARTS = 4
FUND_REPORTS = frozenset({"N-CSR", "N-CSRS", "N-CSR/A", "N-CSRS/A"})
MESSAGE = (
    "The sub-periods of {concept} add up to {sum}, but the fact for the whole period reports {value}, a difference "
    "of {difference}. The sub-period values are: {parts}. The tolerance allows for rounding: {allowed}, from the "
    "lowest decimals of these facts ({decimals}) times 3 for each sub-period after the first; a difference beyond it "
    "often means a value with the wrong sign, a period tagged with another concept, or decimals that claim more "
    "accuracy than the values have.{immaterial} Concepts that cannot be added across periods (averages, maxima, "
    "minima) are not checked."
)
IMMATERIAL = (
    " The difference is under 1% of the total and the decimals are 0: a filer who judges it immaterial may say so "
    "with an extension element named ImmaterialDifferenceFlag, which this rule then accepts."
)


def _series(env) -> dict[tuple, dict[Period, Fact]]:
    """(concept, entity, dimensions, unit) -> duration period -> its first non-nil fact, for the facts DQC
    sums: a currency unit (our stand-in for a monetary type), a duration, no typed dimension."""
    out: dict[tuple, dict[Period, Fact]] = defaultdict(dict)
    for f in env.filing.facts:
        if f.is_nil or f.unit_id is None or f.number is None:
            continue
        ctx, unit = env.filing.contexts.get(f.context_id), env.filing.units.get(f.unit_id)
        if ctx is None or unit is None or not unit.is_monetary or ctx.period.start is None or ctx.period.end is None:
            continue
        if any(not isinstance(m, QName) for _a, m in ctx.dimensions):
            continue
        key = (f.concept, ctx.entity_scheme, ctx.entity_id, ctx.dimensions, unit.numerators)
        out[key].setdefault(ctx.period, f)
    return out


def _chains(by_start: dict[dt.date, list[Period]], total: Period) -> list[tuple[Period, ...]]:
    """Every list of 2-4 contiguous periods that starts with a shorter period on the total's start date and
    whose last one ends on the total's end date (DQC binds each candidate in turn)."""
    out: list[tuple[Period, ...]] = []
    stack = [(p,) for p in by_start.get(total.start, ()) if p.end < total.end]
    while stack:
        chain = stack.pop()
        for nxt in by_start.get(chain[-1].end + dt.timedelta(days=1), ()):
            if nxt.end == total.end:
                out.append(chain + (nxt,))
            elif len(chain) + 1 < MAX_PARTS:
                stack.append(chain + (nxt,))
    return sorted(out, key=lambda ch: [(p.start, p.end) for p in ch])


def _eligible(f: Fact) -> bool:
    return (base_concept(f.concept) and not is_dei(f.concept)
            and "average" not in f.concept.local.lower())


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    if (env.filing.document_type or "").strip() in FUND_REPORTS:
        c.skipped(None, "out of scope: a fund's shareholder report (N-CSR)")
        return c.result()
    c.note(NO_ELEMENT_PROPERTIES.format(what="a fact is taken as monetary when its unit is one currency, and as a "
                                              "duration item when its period is a duration (DQC.US.0084)"))
    flagged = bool(facts_named(env, "ImmaterialDifferenceFlag", None))
    for series in _series(env).values():
        if len(series) < 3:
            continue
        by_start: dict[dt.date, list[Period]] = defaultdict(list)
        for p in sorted(series, key=lambda p: (p.start, p.end)):
            by_start[p.start].append(p)
        for total, f in sorted(series.items(), key=lambda pf: pf[1].index):
            inside = sum(1 for p in series if p.start >= total.start and p.end <= total.end)
            if inside < 3 or not _eligible(f):
                continue
            for chain in _chains(by_start, total):
                _judge(c, f, [series[p] for p in chain], flagged)
    return c.result()


def _judge(c: Collector, f: Fact, parts: list[Fact], flagged: bool) -> None:
    total, summed = f.number, sum((p.number for p in parts), Decimal(0))
    finite = [d for d in (decimals_int(x.decimals) for x in (f, *parts)) if d is not None]
    low = min(finite) if finite else None
    tolerance = Decimal(0) if low is None else power_of_ten((len(parts) - 1) * FACTOR, low)
    diff = abs(total - summed)
    small = diff < abs(total) * Decimal("0.01") and low == 0
    if diff <= tolerance or (small and flagged):
        c.consistent(f, f"equals the sum of {len(parts)} sub-periods within {tolerance}")
        return
    text = "; ".join(f"{period_text(c.env.filing.contexts[p.context_id].period)}: {p.value} (decimals {p.decimals})"
                     for p in parts)
    c.violation(CODE, f, expected=summed, tolerance=tolerance, evidence=parts, sum=summed, difference=diff,
                parts=text, allowed=tolerance, decimals="INF" if low is None else low,
                immaterial=IMMATERIAL if small else "")


SPEC = register(RuleSpec(
    id=RULE, title="Durational aggregation", messages={CODE: MESSAGE}, needs=frozenset({Need.FACTS}), run=run,
    fix_hint="Check the sign, concept and decimals of {concept} for each sub-period: they add up to {expected}, "
             "the whole period reports {reported}.",
    not_applicable=("out of scope", "no data root"),
))
