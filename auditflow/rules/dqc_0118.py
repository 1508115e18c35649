"""DQC.US.0118 — Financial statement tables: calculation check of the required context
(docs/rules/DQC_US_0118.md).

The dimensional sibling of DQC.US.0126: on each face-statement table (a statement cube, as 0117 defines
it), every calculation total of the table's role that is a line item of the table must equal the
weighted sum of its calculation children, for each combination of dimensions the total is reported
with, in the reporting period only (the context of the first dei:DocumentPeriodEndDate), and only for
totals tagged with the table's most frequent decimals.
"""
from __future__ import annotations

from collections import Counter
from decimal import Decimal

from auditflow.rules.common import Collector, decimals_int, differs, document_period_context, gate
from auditflow.rules.finding import dec_display
from auditflow.rules.registry import Need, RuleSpec, register
from auditflow.rules.statements import statement_cubes
from auditflow.xbrl.model import Fact
from auditflow.xbrl.numbers import integral

RULE = "0118"
CODE = "DQC.US.0118.9575"
K = 2
CAP = 5
AXES_NOT_CHECKED = frozenset({"PledgedStatusAxis", "StatementBusinessSegmentsAxis"})
NOT_ADDED_AXES = frozenset({"LegalEntityAxis", "StatementScenarioAxis"})
REVENUE_606 = frozenset({"RevenueFromContractWithCustomerExcludingAssessedTax", "RevenueFromContractWithCustomerIncludingAssessedTax"})
MESSAGE = (
    "The statement {statement} includes an inconsistent calculation. The value of {concept} of {value} {where} is "
    "not equal to the sum of its calculation children, {computed}: {addends}. The difference {difference} exceeds "
    "the allowed {allowed} (decimals used for the comparison: {t}). Correct the values, or amend the calculation "
    "of the statement if addends are missing."
)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    _dped, ctx = document_period_context(env)
    if ctx is None:
        c.skipped(None, "no dei:DocumentPeriodEndDate fact with a context: the required context is unknown")
        return c.result()
    required = ctx.period
    for cube in statement_cubes(env):
        _check_cube(c, env, cube, required)
    return c.result()


def _in_required(period, required) -> bool:
    if period.forever:
        return False
    if period.is_instant:
        return period.end == required.end
    return period.start == required.start and period.end == required.end


def _check_cube(c: Collector, env, cube, required) -> None:
    role = cube.role
    parents = {src for (r, src) in env.index.calc_down if r == role}
    if not parents:
        return
    contexts = env.filing.contexts
    valid: dict = {}  # concept -> facts valid in the cube (non-nil numbers)
    for concept in cube.primary_items:
        facts = [f for f in env.index.by_concept.get(concept, ())
                 if not f.is_nil and f.number is not None and f.context_id in contexts
                 and cube.is_valid(f.concept, contexts[f.context_id])]
        if facts:
            valid[concept] = facts
    decimals = Counter(f.decimals for facts in valid.values() for f in facts if f.decimals is not None)
    if not decimals:
        return
    fsd = decimals.most_common(1)[0][0]
    statement = env.role_definition(role) or role
    for concept in sorted(parents & set(valid), key=lambda q: q.clark()):
        arcs = sorted(env.index.calc_down.get((role, concept), ()), key=lambda a: (a.order, a.target.clark()))
        seen = set()
        for total in valid[concept]:
            tctx = contexts[total.context_id]
            if total.decimals != fsd or not _in_required(tctx.period, required):
                continue
            if any(a.local in AXES_NOT_CHECKED for a, _ in tctx.dimensions):
                c.skipped(total, "total on an axis 0118 does not check (PledgedStatusAxis, StatementBusinessSegmentsAxis)")
                continue
            key = _align(env, total)
            if key in seen:
                continue
            seen.add(key)
            _check_total(c, env, statement, concept, total, arcs, valid, fsd, key, cube)


def _align(env, f: Fact) -> tuple:
    ctx, unit = env.filing.contexts[f.context_id], env.filing.units.get(f.unit_id or "")
    return (ctx.entity_id, ctx.period, ctx.dimensions, (unit.numerators, unit.denominators) if unit else f.unit_id)


def _child(env, facts: list[Fact], key: tuple, fsd) -> Fact | None:
    """The child's fact with the total's entity, period, dimensions and unit: decimals = fsd, else finer."""
    cands = [f for f in facts if _align(env, f) == key]
    for f in cands:
        if f.decimals == fsd:
            return f
    fv = decimals_int(fsd)
    for f in cands:
        d = decimals_int(f.decimals)
        if d is None or (fv is not None and d >= fv):
            return f
    return None


def _member_sum(env, cube, facts: list[Fact], key: tuple) -> tuple[Decimal, list[Fact]] | None:
    """DQC's getDimensionSums, first level, for a child without a fact in the (default) context of the total:
    per axis of the cube, the sum of the child's facts with that axis alone (same entity, period, unit),
    leaving out members whose ancestor below the domain has a fact; the largest of these sums."""
    entity, period, _dims, unit = key
    best = None
    for axis_q, axis in sorted(cube.axes.items(), key=lambda kv: kv[0].clark()):
        if axis_q.local in NOT_ADDED_AXES:
            continue
        on_axis = {}
        for f in facts:
            k = _align(env, f)
            dims = env.filing.contexts[f.context_id].dimensions
            if (k[0], k[1], k[3]) == (entity, period, unit) and len(dims) == 1 and dims[0][0] == axis_q:
                on_axis.setdefault(dims[0][1], f)
        members = [m for m in on_axis if m not in axis.domains]
        kept = [on_axis[m] for m in members if not any(a in on_axis and a not in axis.domains for a in axis.ancestors(m))]
        if kept:
            total = sum((f.number for f in kept), Decimal(0))
            if best is None or total > best[0]:
                best = (total, kept)
    return best


def _check_total(c: Collector, env, statement, concept, total: Fact, arcs, valid, fsd, key, cube) -> None:
    used, missing = [], []
    for a in arcs:
        w = a.weight if a.weight is not None else Decimal(1)
        f = _child(env, valid.get(a.target, ()), key, fsd)
        if f is not None:
            used.append((w, f))
        elif not key[2] and (summed := _member_sum(env, cube, valid.get(a.target, []), key)) is not None:
            used += [(w, m) for m in summed[1]]
        elif valid.get(a.target):
            missing.append(a.target)
    if used and missing:
        # The child is reported in the table, but neither in the total's context nor as members we can add up:
        # DQC's second-level fill is not ported (docs/rules/DQC_US_0118.md), so we do not guess.
        c.skipped(total, "children reported in the table but not in the total's context: "
                         + ", ".join(sorted(q.local for q in missing)))
        return
    if not used:
        c.skipped(total, "no calculation child has a value in the total's context")
        return
    computed = sum((w * f.number for w, f in used), Decimal(0))
    if computed == computed.to_integral_value():
        computed = integral(computed)  # quantize raised on sums past 28 digits
    addend_decs = [d for d in (decimals_int(f.decimals) for _, f in used) if d is not None]
    total_dec = decimals_int(total.decimals)
    finite = [d for d in (total_dec, min(addend_decs) if addend_decs else None) if d is not None]
    t = min(min(finite), CAP) if finite else CAP  # tolerance_for_decimals_comp: INF and > 5 count as 5
    is_error, allowed = differs(total.number, computed, t, K)
    if is_error and concept.local == "NoninterestIncome" and REVENUE_606 & {a.target.local for a in arcs}:
        is_error = total.number > computed  # 606 revenue below non-interest income: only a total too large is wrong
    if not is_error:
        c.consistent(total)
        return
    dims = env.filing.contexts[total.context_id].dimensions
    c.violation(CODE, total, expected=computed, tolerance=allowed, evidence=[f for _, f in used], role=statement,
                statement=statement, computed=computed, difference=abs(total.number - computed), allowed=allowed, t=t,
                where=("for " + ", ".join(str(m) for _, m in dims)) if dims else "in the default context",
                addends=", ".join(f"{'-' if w < 0 else '+'} {f.concept.local} {dec_display(f.number)}" for w, f in used))


SPEC = register(RuleSpec(
    id=RULE, title="Financial statement tables calculation check of required context", messages={CODE: MESSAGE},
    needs=frozenset({Need.DEI, Need.FACTS, Need.FILER_CAL, Need.FILER_DEF}), run=run,
))
