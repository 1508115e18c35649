"""Detect and classify duplicate facts (XBRL 2.1 4.10; Inline XBRL duplicate classes).

Duplicates matter to an auditor: an *inconsistent* pair means the filing says two different things
about the same number, and rules that pick "the" fact must keep only one.
"""
from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from auditflow.xbrl.filing import Filing
from auditflow.xbrl.model import INF, DuplicateSet, Fact
from auditflow.xbrl.numbers import round_half_even


def fact_alignment_key(filing: Filing, f: Fact) -> tuple:
    """Concept + context content + unit content: ids differ between equal contexts in real filings."""
    ctx = filing.contexts[f.context_id]
    unit = filing.units.get(f.unit_id) if f.unit_id else None
    unit_key = (unit.numerators, unit.denominators) if unit else None
    return (f.concept, ctx.entity_scheme, ctx.entity_id, ctx.period, ctx.dimensions, unit_key)


def _rounded(value: Decimal, decimals) -> Decimal:
    if decimals is None or decimals == INF:
        return value
    return round_half_even(value, decimals)  # quantize raised past 28 digits and on decimals="-1000000"


def classify(facts: list[Fact]) -> str:
    values = {(f.value, f.decimals) for f in facts}
    if len(values) == 1:
        return "identical"
    if any(f.is_nil for f in facts) or any(not f.is_numeric for f in facts):
        return "inconsistent"
    finite = [f.decimals for f in facts if f.decimals not in (None, INF)]
    low = min(finite) if finite else None
    rounded = {_rounded(f.number, low) for f in facts if f.number is not None}
    return "consistent" if len(rounded) == 1 else "inconsistent"


def find_duplicates(filing: Filing) -> list[DuplicateSet]:
    """Groups of facts with the same :func:`fact_alignment_key`. Contexts and units are keyed by
    content once each (equal contents share a number), so a fact costs one small tuple, not a hash
    of its whole period and dimensions."""
    contents: dict[tuple, int] = {}
    by_context: dict[str, int] = {}
    by_unit: dict[str | None, int] = {None: -1}
    groups: dict[tuple, list[Fact]] = defaultdict(list)
    for f in filing.facts:
        c = by_context.get(f.context_id)
        if c is None:
            ctx = filing.contexts[f.context_id]
            c = by_context[f.context_id] = contents.setdefault(
                ("context", ctx.entity_scheme, ctx.entity_id, ctx.period, ctx.dimensions), len(contents))
        u = by_unit.get(f.unit_id)
        if u is None:
            unit = filing.units.get(f.unit_id)
            u = by_unit[f.unit_id] = -1 if unit is None else contents.setdefault(
                ("unit", unit.numerators, unit.denominators), len(contents))
        groups[(f.concept, c, u)].append(f)
    out = []
    for key, facts in groups.items():
        if len(facts) > 1:
            out.append(DuplicateSet(classify(facts), tuple(f.key for f in facts), key[0]))
    return out
