"""DQC.US.0087 — Operating lease liability not in the financial statements (docs/rules/DQC_US_0087.md).

An annual report's operating lease liability (total 9369, current 9370, noncurrent 9371) is either a line of
the balance sheet or included in another caption. In the second case the filer says which caption: with the
concept's StatementOfFinancialPositionExtensibleList companion, or with BalanceSheetLocationAxis and two or more
members when the amount is split across captions. A liability that is in no statement's presentation, has no
extensible list value and is not split across two or more locations is reported.
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, facts_named, gate, in_family, local_dims
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0087"
AXIS = "BalanceSheetLocationAxis"
TOTAL, CURRENT, NONCURRENT = "OperatingLeaseLiability", "OperatingLeaseLiabilityCurrent", "OperatingLeaseLiabilityNoncurrent"
LIST = "StatementOfFinancialPositionExtensibleList"
ANNUAL = frozenset({"10-K", "10-K/A", "10-KT", "20-F", "20-F/A", "40-F", "40-F/A"})
# code -> (concept, the forms DQC checks it on, concepts whose presence on a statement clears it,
#          extensible lists that clear it, concepts whose location-axis facts clear it)
CHECKS = {
    "DQC.US.0087.9369": (TOTAL, ANNUAL, (TOTAL, CURRENT, NONCURRENT), (TOTAL, CURRENT, NONCURRENT), (CURRENT, NONCURRENT)),
    "DQC.US.0087.9370": (CURRENT, ANNUAL, (CURRENT, TOTAL), (CURRENT, TOTAL), ()),
    "DQC.US.0087.9371": (NONCURRENT, frozenset({"10-K", "10-KT", "20-F"}), (NONCURRENT, TOTAL), (NONCURRENT, TOTAL), ()),
}
MESSAGE = (
    "{concept} with a value of {value} {situation}. An operating lease liability belongs on the face of the "
    "balance sheet unless it is included in another caption; then either report {concept}{list_suffix} with the "
    "caption that includes it, or, where it is split across two or more captions, report it on "
    "BalanceSheetLocationAxis with one member per caption."
)
NOT_IN_STATEMENTS = "is reported but does not appear in the financial statements"


def _gaap(q, local: str) -> bool:
    return q.local == local and in_family(q, US_GAAP)


def _located(env, f) -> str | None:
    """'' for a fact without dimensions, its location member for one on BalanceSheetLocationAxis only, else None."""
    ctx = env.filing.contexts.get(f.context_id)
    if ctx is None:
        return None
    if not ctx.dimensions:
        return ""
    dims = local_dims(ctx)
    member = dims.get(AXIS)
    return str(member) if member is not None and len(dims) == 1 else None


def _aligned(env, f) -> tuple:
    ctx = env.filing.contexts[f.context_id]
    return ctx.entity_id, ctx.period, f.unit_id


def _check(c: Collector, env, code: str, statements: set) -> None:
    local, forms, on_face, lists, located_elsewhere = CHECKS[code]
    candidates = [(f, m) for f in facts_named(env, local) if not f.is_nil and f.number
                  and (m := _located(env, f)) is not None]
    if not candidates:
        return
    if (env.filing.document_type or "").strip() not in forms:
        c.skipped(None, f"{code}: form not in scope ({env.filing.document_type}): DQC checks it on {', '.join(sorted(forms))}",
                  concept=candidates[0][0].concept)
        return
    cleared = next((f"{x} is on a statement" for x in on_face if x in statements), None)
    cleared = cleared or next((f"{x}{LIST} is reported" for x in lists
                               if any(not g.is_nil for g in facts_named(env, x + LIST))), None)
    cleared = cleared or next((f"{x} is reported on {AXIS}" for x in located_elsewhere
                               if any(_located(env, g) for g in facts_named(env, x))), None)
    for f, _m in candidates:
        if cleared:
            c.consistent(f, f"{code}: {cleared}")
            continue
        same = [g for g in facts_named(env, local) if not g.is_nil and _aligned(env, g) == _aligned(env, f)]
        on_axis = [g for g in same if _located(env, g)]
        plain = [g for g in same if _located(env, g) == ""]
        if len(on_axis) > 1:
            c.consistent(f, f"{code}: split across {len(on_axis)} balance sheet locations")
        elif len(on_axis) == 1 and plain and all(p.number != on_axis[0].number for p in plain):
            c.consistent(f, f"{code}: its one location holds part of the total")
        else:
            situation = (f"is reported on {AXIS} with one member only ({_located(env, on_axis[0])}), which is one "
                         "balance sheet caption" if on_axis else NOT_IN_STATEMENTS)
            c.violation(code, f, situation=situation, list_suffix=LIST)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    statements = {q.local for r in env.index.pre_roles if "- Statement " in env.role_definition(r)
                  for q in env.index.pre_concepts.get(r, ()) if in_family(q, US_GAAP)}
    for code in CHECKS:
        _check(c, env, code, statements)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Operating lease liability not in the financial statements",
    messages={code: MESSAGE for code in CHECKS}, needs=frozenset({Need.FACTS, Need.FILER_PRE, Need.DEI}), run=run,
    fix_hint="Show {concept} on the balance sheet, or say which caption includes it (its extensible list concept, "
             "or BalanceSheetLocationAxis with two or more members).",
    not_applicable=("form not in scope", "no data root"),
))
