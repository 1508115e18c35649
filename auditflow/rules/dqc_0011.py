"""DQC.US.0011 — Dimensional equivalents (docs/rules/DQC_US_0011.md).

Some line items have a dimensional twin: AccumulatedOtherComprehensiveIncomeLossNetOfTax is the
equity total StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest on
StatementEquityComponentsAxis = AccumulatedOtherComprehensiveIncomeMember, NetIncomeLoss is ProfitLoss
on the same axis with ParentMember, and so on. When a filing reports both for the same period and unit,
the line item must equal the twin times its weight (-1 where the equity statement shows the twin with
the opposite sign), within DQC's tolerance of 2 in the last reported place. The pairs are the 2025
constants' ``DIM_EQUIVALENTS``, one code per pair.
"""
from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from auditflow.rules.common import (
    Collector, constant_qnames, decoded_constant, differs, facts_named, gate, min_decimals, numeric_items,
)
from auditflow.rules.registry import CONSTANTS_2025, Drawing, Need, RuleSpec, register
from auditflow.rules.resources import family_key
from auditflow.xbrl.qname import QName

RULE = "0011"
TABLE = "DIM_EQUIVALENTS"
K = 2  # DQC's tolerance factor: two units in the last place both facts report
# The rule element ids of the constants' 14 pairs (the 2026 CSV adds 6823, a copy of 6820's pair).
ELEMENT_IDS = ("6820", "6821", "6822", "6824", "6825", "6826", "6827", "6828", "6829", "6830", "6831", "6832", "9292",
               "9293")
MESSAGE = (
    "{concept} with a value of {value} (presentation: {line_networks}) is expected to equal {dim_concept} on "
    "{axis} = {member}, reported as {dim_value}, times {weight} (that is {product}; presentation: {dim_networks}). "
    "The two facts report one amount, once without dimensions and once on the equity components axis; they "
    "differ by more than the rounding of their decimals ({decimals} and {dim_decimals}) allows."
)


def _decode(raw: list) -> tuple:
    """``["list", ["list", id, [qname], [qname], [qname], [qname], weight], ...]`` as plain tuples:
    (element id, line item local, twin local, axis family key, member family key, weight)."""
    out = []
    for row in raw[1:]:
        sid, *names, weight = row[1:]
        line, twin, axis, member = (constant_qnames(["list qname", n[1]])[0] for n in names)
        out.append((str(sid), line.local, twin.local, family_key(axis), family_key(member), int(weight)))
    return tuple(out)


def pairs(resources) -> tuple:
    """The 2025 constants' dimensional equivalents (see :func:`_decode`)."""
    return decoded_constant(resources, TABLE, _decode)


def _networks(env, *concepts) -> str:
    """Presentation roles whose concepts include all ``concepts`` (by family key), as DQC names them."""
    keys = {family_key(q) if not isinstance(q, tuple) else q for q in concepts}
    roles = [r for r in env.index.pre_roles if keys <= {family_key(q) for q in env.index.pre_concepts.get(r, ())}]
    return ", ".join(roles) or "none"


def _aspects(env, f, ctx) -> tuple:
    unit = env.filing.units.get(f.unit_id or "")
    return (ctx.entity_scheme, ctx.entity_id, ctx.period, (unit.numerators, unit.denominators) if unit else f.unit_id)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    for sid, line, twin, axis, member, weight in pairs(resources):
        code = f"DQC.US.0011.{sid}"
        if code not in SPEC.messages:  # a pair the constants add later: said, not guessed at
            c.note(f"DQC.US.0011: the constants list pair {sid} ({line}), which this version does not know")
            continue
        twins = defaultdict(list)
        for g, ctx, n in numeric_items(env, facts_named(env, twin)):
            if len(ctx.dimensions) == 1 and _is(ctx.dimensions[0][0], axis) and _is(ctx.dimensions[0][1], member):
                _add_once(twins[_aspects(env, g, ctx)], g, n)
        if not twins:
            continue
        lines = defaultdict(list)
        for f, ctx, n in numeric_items(env, facts_named(env, line)):
            if not ctx.dimensions:
                _add_once(lines[_aspects(env, f, ctx)], f, n)
        for key, f, n in ((k, f, n) for k, group in lines.items() for f, n in group):
            for g, m in twins.get(key, ()):
                expected = m * Decimal(weight)
                bad, allowed = differs(n, expected, min_decimals([f, g]), K)
                if not bad:
                    c.consistent(f, f"{code}: equals {twin} on {axis[1]} = {member[1]} times {weight}")
                    continue
                c.violation(code, f, expected=expected, tolerance=allowed, evidence=(g,), dim_concept=g.concept,
                            axis=axis[1], member=member[1], dim_value=m, weight=weight, product=expected,
                            line_networks=_networks(env, f.concept),
                            dim_networks=_networks(env, g.concept, axis, member), dim_decimals=g.decimals)
    return c.result()


def _add_once(group: list, fact, number) -> None:
    """Keep one fact per value: a balance shown twice in a document (the same instant closing one quarter
    and one year to date) is one amount, compared once."""
    if all(number != n for _f, n in group):
        group.append((fact, number))


def _is(q, key) -> bool:
    """``q`` (an axis, or a member that may be typed) is the standard concept ``key``."""
    return isinstance(q, QName) and family_key(q) == key


SPEC = register(RuleSpec(
    id=RULE, title="Dimensional equivalents",
    messages={f"DQC.US.0011.{sid}": MESSAGE for sid in ELEMENT_IDS},
    needs=frozenset({Need.FACTS, Need.FILER_PRE, Need.TAXONOMY}), run=run, resources=(CONSTANTS_2025,),
    drawing=Drawing.EVIDENCE,
    fix_hint="Make {concept} ({reported}) and its twin on the equity components axis report one amount: {expected}.",
    not_applicable=("form not in scope", "no data root"),
))
