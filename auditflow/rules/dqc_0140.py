"""DQC.US.0140 — Available-for-sale debt securities do not cross-foot (docs/rules/DQC_US_0140.md).

The schedule of available-for-sale debt securities reads across: amortized cost, less the allowance for
credit losses, plus gross unrealized gains, less gross unrealized losses, is the fair value. The rule
recomputes the fair value for every aligned set of facts (each security type, period and unit) and
reports a fair value more than four units of the last reported digit away from it (9861 for the concepts
including accrued interest, 9862 for those excluding it). When the filer's own calculation explains the
difference with further items (amortized cost = fair value + losses - gains + extension items), the rule
accepts it if that calculation holds.
"""
from __future__ import annotations

from decimal import Decimal

from auditflow.rules.common import US_GAAP, Collector, alignment, differs, gate, min_decimals, numeric_items
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0140"
GAIN = "AvailableForSaleDebtSecuritiesAccumulatedGrossUnrealizedGainBeforeTax"
LOSS = "AvailableForSaleDebtSecuritiesAccumulatedGrossUnrealizedLossBeforeTax"
TOLERANCE_FACTOR = 4
# Per code: the concepts (a total or its current + noncurrent parts) of each column of the schedule.
VARIANTS = {
    "DQC.US.0140.9861": dict(
        cost="AvailableForSaleDebtSecuritiesAmortizedCostBasis",
        cost_parts=("DebtSecuritiesAvailableForSaleAmortizedCostCurrent", "DebtSecuritiesAvailableForSaleAmortizedCostNoncurrent"),
        allowance="DebtSecuritiesAvailableForSaleAllowanceForCreditLoss",
        after="DebtSecuritiesAvailableForSaleAmortizedCostAfterAllowanceForCreditLoss",
        fair="AvailableForSaleSecuritiesDebtSecurities", what="available-for-sale debt securities"),
    "DQC.US.0140.9862": dict(
        cost="DebtSecuritiesAvailableForSaleAmortizedCostExcludingAccruedInterestBeforeAllowanceForCreditLoss",
        cost_parts=None,
        allowance="DebtSecuritiesAvailableForSaleAmortizedCostAllowanceForCreditLossExcludingAccruedInterest",
        after="DebtSecuritiesAvailableForSaleAmortizedCostExcludingAccruedInterestAfterAllowanceForCreditLoss",
        fair="DebtSecuritiesAvailableForSaleExcludingAccruedInterest", what="available-for-sale debt securities excluding accrued interest"),
}
MESSAGE = (
    "The fair value of {what} reported as {value} does not match the value computed from its components, {computed}: "
    "amortized cost {cost}, less the allowance for credit losses {allowance} (amortized cost after the allowance "
    "{after}), plus gross unrealized gains {gain}, less gross unrealized losses {loss}.{extra}"
)
# The concepts a filer's reversed calculation (amortized cost = fair value + losses - gains ...) may use
# without explaining anything more.
EXPECTED_CHILDREN = {
    "DQC.US.0140.9861": frozenset({GAIN, LOSS, "AvailableForSaleSecuritiesDebtSecurities", "AvailableForSaleSecuritiesDebtSecuritiesCurrent",
                                   "AvailableForSaleSecuritiesDebtSecuritiesNoncurrent", "DebtSecuritiesAvailableForSaleAllowanceForCreditLoss",
                                   "DebtSecuritiesAvailableForSaleAllowanceForCreditLossCurrent",
                                   "DebtSecuritiesAvailableForSaleAllowanceForCreditLossNoncurrent"}),
    "DQC.US.0140.9862": frozenset({GAIN, LOSS, "DebtSecuritiesAvailableForSaleAmortizedCostAllowanceForCreditLossExcludingAccruedInterest",
                                   "DebtSecuritiesAvailableForSaleAmortizedCostAllowanceForCreditLossExcludingAccruedInterestCurrent",
                                   "DebtSecuritiesAvailableForSaleAmortizedCostAllowanceForCreditLossExcludingAccruedInterestNoncurrent",
                                   "DebtSecuritiesAvailableForSaleExcludingAccruedInterest",
                                   "DebtSecuritiesAvailableForSaleExcludingAccruedInterestCurrent",
                                   "DebtSecuritiesAvailableForSaleExcludingAccruedInterestNoncurrent"}),
}


def _key(q) -> str:
    """A us-gaap concept by its local name (any taxonomy year), any other by its clark name."""
    return q.local if q.namespace.startswith(US_GAAP) else q.clark()


def _by_alignment(env) -> dict[tuple, dict[str, object]]:
    """Alignment (entity, period, dimensions, unit) -> concept key -> the first non-nil fact."""
    out: dict[tuple, dict[str, object]] = {}
    for q, facts in sorted(env.index.by_concept.items(), key=lambda kv: kv[0].clark()):
        for f, ctx, _n in numeric_items(env, facts):
            out.setdefault(alignment(env, f, ctx), {}).setdefault(_key(q), f)
    return out


class _Value:
    """A number with the facts it came from (DQC's first-value of a total or of current + noncurrent)."""

    def __init__(self, number: Decimal | None, facts=()):
        self.number, self.facts = number, tuple(facts)


def _pick(row: dict, total: str, parts: tuple[str, str] | None) -> _Value:
    if total in row:
        return _Value(row[total].number, (row[total],))
    if parts and all(p in row for p in parts):
        return _Value(sum((row[p].number for p in parts), Decimal(0)), tuple(row[p] for p in parts))
    return _Value(None)


def _columns(row: dict, v: dict) -> dict[str, _Value]:
    def parts(total):
        return (total + "Current", total + "Noncurrent")

    cost = _pick(row, v["cost"], v["cost_parts"] or parts(v["cost"]))
    allowance = _pick(row, v["allowance"], parts(v["allowance"]))
    after = _pick(row, v["after"], parts(v["after"]))
    return dict(cost=cost, allowance=allowance if allowance.number is not None else _Value(Decimal(0)), after=after,
                gain=_pick(row, GAIN, None), loss=_pick(row, LOSS, None), fair=_pick(row, v["fair"], parts(v["fair"])))


def _reversed_calc(env, row: dict, code: str, v: dict, cols: dict, t: int | None):
    """The filer's calculation that derives amortized cost from the fair value: None when there is none;
    else (holds, the unexpected children and their values as text)."""
    for parent_local, total in ((v["cost"], cols["cost"]), (v["after"], cols["after"])):
        networks = [arcs for (role, src), arcs in sorted(env.index.calc_down.items(), key=lambda kv: (kv[0][0], kv[0][1].clark()))
                    if src.local == parent_local and src.namespace.startswith(US_GAAP)
                    and any(a.target.local == v["fair"] for a in arcs)]
        if not networks:
            continue
        computed = sum((row[_key(a.target)].number * (a.weight if a.weight is not None else 1)
                        for arcs in networks for a in arcs if _key(a.target) in row), Decimal(0))
        unexpected = sorted({a.target for arcs in networks for a in arcs if _key(a.target) not in EXPECTED_CHILDREN[code]},
                            key=lambda q: q.clark())
        if not unexpected:
            return False, ""
        extra = "; ".join(f"{q.local} of {row[_key(q)].number if _key(q) in row else 'no value'}" for q in unexpected)
        holds = total.number is not None and not differs(total.number, computed, t, TOLERANCE_FACTOR)[0]
        return holds, f" The filer's calculation of {parent_local} also includes: {extra}."
    return None


def _check(env, c: Collector, code: str, v: dict, row: dict) -> None:
    cols = _columns(row, v)
    fair, loss = cols["fair"], cols["loss"]
    after = cols["after"].number
    if after is None and cols["cost"].number is not None:
        after = cols["cost"].number - cols["allowance"].number
    if fair.number is None or after is None or loss.number is None:
        return
    computed = after + (cols["gain"].number or Decimal(0)) - loss.number
    inputs = [f for k in ("cost", "allowance", "after", "gain", "loss") for f in cols[k].facts]
    t = min_decimals([*inputs, *fair.facts], cap=5)  # DQC: the smallest decimals, INF and above 5 read as 5
    far, allowed = differs(fair.number, computed, t, TOLERANCE_FACTOR)
    focus = fair.facts[0]
    if not far:
        c.consistent(focus, f"{v['fair']} = {computed} from its components")
        return
    extra = ""
    calc = _reversed_calc(env, row, code, v, cols, t)
    if calc is not None:
        holds, extra = calc
        if holds:
            c.consistent(focus, f"{v['fair']} differs from its components, but the filer's calculation explains it")
            return
    if code == "DQC.US.0140.9862" and cols["cost"].number == after and cols["allowance"].number > 0:
        extra += (f" The amortized cost before and after the allowance are both {after}, while an allowance of "
                  f"{cols['allowance'].number} is reported: check that the after-allowance concept is not used by mistake.")

    def show(k):
        return "none" if cols[k].number is None else cols[k].number

    c.violation(code, focus, expected=computed, tolerance=allowed, evidence=inputs, computed=computed, what=v["what"], cost=show("cost"),
                allowance=cols["allowance"].number, after=after, gain=show("gain"), loss=loss.number, extra=extra)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    for row in _by_alignment(env).values():
        for code, v in VARIANTS.items():
            _check(env, c, code, v, row)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Available-for-sale debt securities do not cross-foot", messages={code: MESSAGE for code in VARIANTS},
    needs=frozenset({Need.FACTS, Need.FILER_CAL}), run=run,
    fix_hint="Check the fair value {concept} ({reported}) against amortized cost, allowance, gains and losses ({expected}).",
))
