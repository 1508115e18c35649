"""DQC.US.0090 — Lease liability payments due (docs/rules/DQC_US_0090.md).

In an annual report the undiscounted lease payments due (LesseeOperatingLeaseLiabilityPaymentsDue,
FinanceLeaseLiabilityPaymentsDue) must equal the lease liability plus the undiscounted excess (the
imputed interest), plus any purchase obligation for leases not yet commenced. A difference is excused
when the filer's calculation puts an extension reconciling item below the payments due, when the
payments due leave out exactly the not-yet-commenced leases, or when the filer opts out with an
extension element named ...UndiscountedExcessAmountNotDisclosed.
"""
from __future__ import annotations

from decimal import Decimal
from typing import NamedTuple

from auditflow.rules.common import (
    US_GAAP, Collector, alignment, base_concept, calc_paths, differs, facts_named, gate, local_dims, min_decimals,
    numeric_items,
)
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0090"
ANNUAL = frozenset({"10-K", "10-K/A", "10-KT", "20-F", "20-F/A", "40-F", "40-F/A"})
UNRECORDED = "UnrecordedUnconditionalPurchaseObligationBalanceSheetAmount"
UNRECORDED_AXIS = "UnrecordedUnconditionalPurchaseObligationByCategoryOfItemPurchasedAxis"
MAX_DECIMALS = 5  # DQC's cap on the decimals a tolerance is computed from


class Lease(NamedTuple):
    code: str
    total: str
    liability: str
    excess: str
    not_commenced: str
    kind: str


LEASES = (
    Lease("DQC.US.0090.9374", "LesseeOperatingLeaseLiabilityPaymentsDue", "OperatingLeaseLiability",
          "LesseeOperatingLeaseLiabilityUndiscountedExcessAmount", "OperatingLeaseLeaseNotYetCommencedMember",
          "an operating lease"),
    Lease("DQC.US.0090.9375", "FinanceLeaseLiabilityPaymentsDue", "FinanceLeaseLiability",
          "FinanceLeaseLiabilityUndiscountedExcessAmount", "FinancingLeaseLeaseNotYetCommencedMember",
          "a finance lease"),
)
MESSAGE = (
    "{concept} with a value of {value} should equal {liability} plus {excess} (and any "
    "UnrecordedUnconditionalPurchaseObligationBalanceSheetAmount for {kind} not yet commenced); these add to "
    "{addends}, a difference of {difference}. An annual report must reconcile the undiscounted payments due to the "
    "liability, with every element reported for the current period. If an extension item explains the difference, "
    "add it as a calculation child of {total}, in a calculation network apart from the maturity breakdown "
    "(...PaymentsDueNextTwelveMonths, ...PaymentsDueYearTwo, ...): then no error is reported."
)


def _plain(env, local: str) -> dict:
    """Alignment -> first non-nil fact, for the concept's facts without dimensions."""
    out: dict = {}
    for f, ctx, _n in numeric_items(env, facts_named(env, local, US_GAAP)):
        if not ctx.dimensions:
            out.setdefault(alignment(env, f, ctx), f)
    return out


def _not_commenced(env, member: str) -> dict:
    """Alignment (the category axis left out) -> the purchase obligation for leases not yet commenced."""
    out: dict = {}
    for f, ctx, _n in numeric_items(env, facts_named(env, UNRECORDED, US_GAAP)):
        dims = local_dims(ctx)
        if len(dims) == 1 and getattr(dims.get(UNRECORDED_AXIS), "local", None) == member:
            key = alignment(env, f, ctx)
            out.setdefault(key[:3] + ((),) + key[4:], f)
    return out


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    doc_type = (env.filing.document_type or "").strip()
    if doc_type not in ANNUAL:
        c.skipped(None, f"out of scope: the reconciliation is required in annual reports, not in {doc_type!r}")
        return c.result()
    for lease in LEASES:
        _check(c, env, lease)
    return c.result()


def _check(c: Collector, env, lease: Lease) -> None:
    if any(not base_concept(q) and q.local == lease.excess + "NotDisclosed" for q in env.index.by_concept):
        c.skipped(None, f"opted out: {lease.code}, the filer reports {lease.excess}NotDisclosed")
        return
    liability, excess = _plain(env, lease.liability), _plain(env, lease.excess)
    pending = _not_commenced(env, lease.not_commenced)
    extension_child = next((path[-1] for _role, path, _w in calc_paths(env, lease.total)
                            if not base_concept(path[-1])), None)
    for key, total in sorted(_plain(env, lease.total).items(), key=lambda kv: kv[1].index):
        if key not in excess:
            c.skipped(total, f"no excess: {lease.code}, no {lease.excess} for the period")
            continue
        parts = [f for f in (liability.get(key), excess[key], pending.get(key)) if f is not None]
        addends = sum((f.number for f in parts), Decimal(0))
        off, allowed = differs(total.number, addends, min_decimals([total, *parts], cap=MAX_DECIMALS), 2)
        if not off:
            c.consistent(total, f"{lease.code}: equals the liability plus the excess")
        elif extension_child is not None:
            c.consistent(total, f"{lease.code}: the calculation reconciles with the extension {extension_child}")
        elif key in pending and addends - total.number == pending[key].number:
            c.consistent(total, f"{lease.code}: the payments due leave out the leases not yet commenced")
        else:
            c.violation(lease.code, total, expected=addends, tolerance=allowed, evidence=parts, liability=lease.liability,
                        excess=lease.excess, kind=lease.kind, addends=addends, difference=total.number - addends,
                        total=lease.total)


SPEC = register(RuleSpec(
    id=RULE, title="Lease liability payments due", messages={lease.code: MESSAGE for lease in LEASES},
    needs=frozenset({Need.FACTS, Need.FILER_CAL}), run=run,
    fix_hint="{concept} reports {reported}; the liability plus the undiscounted excess add to {expected}. Correct the "
             "values, or put the extension reconciling item below {concept} in a calculation.",
    not_applicable=("out of scope", "no data root", "opted out", "no excess"),
))
