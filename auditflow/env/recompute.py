"""The evidence of a *consistent* check, rebuilt for display.

A rule reports a finding with its evidence (children, members, sums) but records a consistent check
only as "checked, fine": enough to count, not enough to show. An auditor (and a model copying the
observation) still needs the children or members that were summed and the expected value, so this
module recomputes them with the same selection the rules use (0126: children in the total's
alignment, preferring the statement's decimals; 0117: member facts with one more axis than the
total). It never decides a verdict: that stays the rule's.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from auditflow.env.scope import statement_roles_0126
from auditflow.env.tool_base import ToolContext
from auditflow.errors import AuditflowError
from auditflow.rules.dqc_0117 import AXES_IN_SCOPE, DECIMALS_CAP, K, LEGAL_ENTITY_AXIS
from auditflow.rules.finding import EvidenceItem
from auditflow.rules.registry import agent_rules
from auditflow.rules.statements import decimals_value, statement_cubes, tolerance_check
from auditflow.xbrl.model import Fact
from auditflow.xbrl.qname import QName


@dataclass(frozen=True)
class Recomputed:
    evidence: tuple[EvidenceItem, ...]
    expected: Decimal | None
    tolerance: Decimal | None


def recompute(ctx: ToolContext, rule: str, total: Fact) -> Recomputed | None:
    if total.number is None:
        return None
    if rule == "0015":
        item = EvidenceItem(total.concept, total.key, total.number, context_id=total.context_id, note="the checked fact")
        return Recomputed((item,), total.number, Decimal(0))
    if rule == "0126":
        return _recompute_0126(ctx, total)
    if rule == "0117":
        return _recompute_0117(ctx, total)
    raise AuditflowError(f"no recomputation for rule {rule}: only the agent rules ({', '.join(agent_rules())}) have one")


# -- 0126 ----------------------------------------------------------------------------------------
def _alignment(ctx: ToolContext, f: Fact) -> tuple:
    c, u = ctx.env.filing.contexts[f.context_id], ctx.env.filing.units[f.unit_id]
    return (c.entity_id, c.period, u.numerators, u.denominators)


def _plain(ctx: ToolContext, concept: QName, key: tuple) -> list[Fact]:
    ctxs = ctx.env.filing.contexts
    return [f for f in ctx.env.index.by_concept.get(concept, ())
            if not f.is_nil and f.is_numeric and not ctxs[f.context_id].dimensions and _alignment(ctx, f) == key]


def _child_fact(ctx: ToolContext, child: QName, key: tuple, fsd) -> Fact | None:
    """As DQC 0126 picks a child: decimals equal to the statement's, then finer, then any."""
    cands = _plain(ctx, child, key)
    fv = decimals_value(fsd)
    for pick in (lambda d: d == fsd, lambda d: decimals_value(d) is None or (fv is not None and decimals_value(d) >= fv),
                 lambda d: True):
        for f in cands:
            if pick(f.decimals):
                return f
    return None


def _recompute_0126(ctx: ToolContext, total: Fact) -> Recomputed | None:
    idx, key = ctx.env.index, _alignment(ctx, total)
    for role, table in statement_roles_0126(ctx):
        arcs = sorted(idx.calc_down.get((role, total.concept), ()), key=lambda a: (a.order, a.target.clark()))
        if table or not arcs:
            continue
        used = [(a, f) for a in arcs if (f := _child_fact(ctx, a.target, key, total.decimals)) is not None]
        if not used:
            continue
        expected = sum(((a.weight if a.weight is not None else Decimal(1)) * f.number for a, f in used), Decimal(0))
        finite = [d for d in (decimals_value(f.decimals) for _, f in used) if d is not None]
        t = _min_dec(decimals_value(total.decimals), min(finite) if finite else None)
        _, allowed = tolerance_check(total.number, expected, t, len(used) + 1)
        evidence = tuple(EvidenceItem(a.target, f.key, f.number, a.weight if a.weight is not None else Decimal(1),
                                      context_id=f.context_id, decimals=f.decimals, role=role) for a, f in used)
        return Recomputed(evidence, expected, allowed)
    return None


def _min_dec(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


# -- 0117 ----------------------------------------------------------------------------------------
def _recompute_0117(ctx: ToolContext, total: Fact) -> Recomputed | None:
    """Members: facts of the total's line item, period, unit and entity with one more axis."""
    env = ctx.env
    tctx = env.filing.contexts[total.context_id]
    base = tctx.dims_dict()
    if base and not any(a.local in AXES_IN_SCOPE for a in base):
        return None
    aligned = [f for f in env.index.by_concept.get(total.concept, ())
               if f.number is not None and not f.is_nil and f.unit_id is not None and _alignment(ctx, f) == _alignment(ctx, total)]
    for cube in statement_cubes(env):
        if not cube.is_valid(total.concept, tctx):
            continue
        for axis_q in sorted(cube.axes, key=QName.clark):
            if axis_q in base or (not base and axis_q.local not in AXES_IN_SCOPE) or (base and axis_q.local == LEGAL_ENTITY_AXIS):
                continue
            members = _members(ctx, cube, axis_q, base, aligned)
            if members:
                return _summed(total, axis_q, members, cube.role)
    return None


def _members(ctx: ToolContext, cube, axis_q: QName, base: dict, aligned: list[Fact]) -> list[tuple[QName, Fact]]:
    axis, contexts = cube.axes[axis_q], ctx.env.filing.contexts
    singles: dict[QName, Fact] = {}
    for f in sorted(aligned, key=lambda f: f.index):
        c = contexts[f.context_id]
        dims = c.dims_dict()
        m = dims.get(axis_q)
        if set(dims) != set(base) | {axis_q} or any(dims.get(a) != v for a, v in base.items()):
            continue
        if isinstance(m, QName) and m in axis.members and m not in axis.domains and cube.is_valid(f.concept, c):
            singles.setdefault(m, f)
    return [(m, f) for m, f in singles.items()
            if not any(a in singles for a in axis.ancestors(m) if a not in axis.domains)]


def _summed(total: Fact, axis_q: QName, members: list[tuple[QName, Fact]], role: str) -> Recomputed:
    expected = sum((f.number for _, f in members), Decimal(0))
    finite = [d for d in (decimals_value(f.decimals) for _, f in members) if d is not None]
    t = min(min(finite), DECIMALS_CAP) if finite else DECIMALS_CAP
    _, allowed = tolerance_check(expected, total.number, t, K)
    evidence = tuple(EvidenceItem(f.concept, f.key, f.number, axis=axis_q, member=m, context_id=f.context_id,
                                  decimals=f.decimals, role=role, note="member fact summed") for m, f in members)
    return Recomputed(evidence, expected, allowed)
