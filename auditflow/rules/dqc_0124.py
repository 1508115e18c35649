"""DQC.US.0124 — Lease amounts not on the face financial statements (docs/rules/DQC_US_0124.md).

An annual report that tags a finance lease liability (total, current, noncurrent) or a finance or operating
lease right-of-use asset, but has no such line on its face statements, must say where the amount is
included: with the matching StatementOfFinancialPosition extensible list, or by spreading it over two or
more balance-sheet captions on StatementOfFinancialPositionLocationBalanceAxis. One sub-rule per amount.
"""
from __future__ import annotations

import calendar
import datetime as dt
from decimal import Decimal

from auditflow.rules.common import US_GAAP, Collector, dei_facts, facts_named, gate, in_family, local_dims, parse_date
from auditflow.rules.ext_lists import concepts_in, statement_networks
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0124"
AXIS = "StatementOfFinancialPositionLocationBalanceAxis"
ANNUAL_FORMS = frozenset({"10-K", "10-K/A", "10-KT", "20-F", "20-F/A", "40-F", "40-F/A"})
LOOKBACK_MONTHS = 15  # DQC's P1Y3M: the balance sheet's two dates, not older periods of the notes
FLL, FLLC, FLLN = "FinanceLeaseLiability", "FinanceLeaseLiabilityCurrent", "FinanceLeaseLiabilityNoncurrent"
FROU, OROU = "FinanceLeaseRightOfUseAsset", "OperatingLeaseRightOfUseAsset"
PPE_AND_FROU = "PropertyPlantAndEquipmentAndFinanceLeaseRightOfUseAssetAfterAccumulatedDepreciationAndAmortization"


def _list(local: str) -> str:
    return f"{local}StatementOfFinancialPositionExtensibleList"


# code -> (the amount, concepts whose presence on the face statements settles it, extensible lists that say
# where it is, concepts whose facts on the location axis say where it is)
SUBRULES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "DQC.US.0124.9584": (FLL, (FLL, FLLC, FLLN), (_list(FLL), _list(FLLC), _list(FLLN)), (FLLC, FLLN)),
    "DQC.US.0124.9585": (FLLC, (FLLC, FLL), (_list(FLLC), _list(FLL)), ()),
    "DQC.US.0124.9586": (FLLN, (FLLN, FLL), (_list(FLLN), _list(FLL)), ()),
    "DQC.US.0124.9587": (FROU, (FROU, PPE_AND_FROU), (_list(FROU),), (FROU,)),
    "DQC.US.0124.9588": (OROU, (OROU,), (_list(OROU),), (OROU,)),
}
MESSAGE = (
    "{concept} with a value of {value} is reported, but {concept} is not in the face financial statements{located}. "
    "An amount that is included in another caption must say which: tag {list_item} with the balance-sheet line item "
    "that includes it, or, when the amount is spread over two or more captions, report it on "
    "StatementOfFinancialPositionLocationBalanceAxis with one member per caption."
)
MESSAGES = {code: MESSAGE for code in SUBRULES}


def months_before(day: dt.date, months: int) -> dt.date:
    """``day`` moved back by whole months (the day clamped to the month's length)."""
    y, m = divmod(day.year * 12 + day.month - 1 - months, 12)
    return dt.date(y, m + 1, min(day.day, calendar.monthrange(y, m + 1)[1]))


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    if (env.filing.document_type or "") not in ANNUAL_FORMS:
        return c.result()
    dped = dei_facts(env, "DocumentPeriodEndDate")
    end = parse_date(dped[0].value) if dped else None
    if end is None:
        return c.result()
    cutoff = months_before(end, LOOKBACK_MONTHS)
    on_face = {q.local for q in concepts_in(env, statement_networks(env)) if in_family(q, US_GAAP)}
    for code, (amount, face, lists, located_alt) in SUBRULES.items():
        _check(c, env, code, amount, cutoff, on_face, face, lists, located_alt)
    return c.result()


def _located(env, local: str) -> list:
    """Facts of ``local`` on the location axis (any member, other dimensions allowed)."""
    out = []
    for f in facts_named(env, local, US_GAAP):
        ctx = env.filing.contexts.get(f.context_id)
        if not f.is_nil and ctx is not None and AXIS in local_dims(ctx):
            out.append((f, ctx))
    return out


def _check(c: Collector, env, code, amount, cutoff, on_face, face, lists, located_alt) -> None:
    candidates = []
    for f in facts_named(env, amount, US_GAAP):
        ctx = env.filing.contexts.get(f.context_id)
        if f.is_nil or ctx is None or f.number in (None, Decimal(0)) or ctx.period.end is None:
            continue
        if set(local_dims(ctx)) <= {AXIS} and ctx.period.end >= cutoff:
            candidates.append((f, ctx))
    if not candidates:
        return
    face_hit = next((local for local in face if local in on_face), None)
    settled = (f"{face_hit} is in the face statements" if face_hit
               else next((f"{local} is reported" for local in lists if any(not f.is_nil for f in facts_named(env, local, US_GAAP))),
                         None)
               or next((f"{local} is reported on the location axis" for local in located_alt if _located(env, local)), None))
    if settled:
        for f, _ctx in candidates:
            c.consistent(f, settled)
        return
    located = _located(env, amount)
    by_date: dict = {}
    for f, ctx in candidates:
        by_date.setdefault(ctx.period.end, []).append((f, ctx))
    for day, group in sorted(by_date.items()):
        here = [f for f, ctx in located if ctx.period.end == day]
        total = next((f for f, ctx in group if not ctx.dimensions), None)
        focus = total or group[0][0]
        if len(here) > 1:
            c.consistent(focus, "spread over two or more captions on the location axis")
        elif len(here) == 1 and total is not None and here[0].number != total.number:
            c.consistent(focus, "one caption on the location axis holds part of the amount")
        else:
            where = (f" (it is reported on StatementOfFinancialPositionLocationBalanceAxis with the single member "
                     f"{local_dims(env.filing.contexts[here[0].context_id])[AXIS]}, which holds the whole amount)"
                     if here else "")
            c.violation(code, focus, evidence=here, located=where, list_item=_list(amount))


SPEC = register(RuleSpec(
    id=RULE, title="Lease amounts not on the face financial statements", messages=MESSAGES,
    needs=frozenset({Need.DEI, Need.FACTS, Need.FILER_PRE}), run=run,
    not_applicable=("form not in scope", "no data root"),
))
