"""DQC.US.0004 — Element values are equal (docs/rules/DQC_US_0004.md).

Accounting identities between facts of the same context (entity, period, dimensions) and unit:
Assets = LiabilitiesAndStockholdersEquity (16) and eleven "total = sum of parts" identities
(9280-9291). The comparison is
DQC's rounded one (every part must be reported, except where 9283 says otherwise), ``|round(total, t) - round(sum, t)| > 2 * 10^-t`` with t the smallest decimals
of the facts involved (capped at 5 for the "comp" identities, see the doc). 9283 adds what DQC's 2026 source
adds: temporary equity only as the single "including NCI" concept, and t from the facts its source lists.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from auditflow.rules.common import (
    US_GAAP, Collector, alignment, differs, facts_named, gate, min_decimals, numeric_items,
)
from auditflow.rules.finding import dec_display
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0004"
K = 2
CAP = 5


@dataclass(frozen=True)
class Identity:
    """One of DQC 0004's identities: a total that must equal the sum of its parts."""

    code: str
    total: str
    parts: tuple[str, ...]
    capped: bool = True  # DQC's tolerance_for_decimals_comp (INF and > 5 count as 5) vs tolerance_for_decimals
    without_axis: str | None = None  # only facts without this axis


IDENTITIES: tuple[Identity, ...] = (
    Identity("DQC.US.0004.16", "Assets", ("LiabilitiesAndStockholdersEquity",), capped=False),
    Identity("DQC.US.0004.9280", "Assets", ("AssetsCurrent", "AssetsNoncurrent")),
    Identity("DQC.US.0004.9281", "Liabilities", ("LiabilitiesCurrent", "LiabilitiesNoncurrent")),
    Identity("DQC.US.0004.9282", "StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest",
             ("StockholdersEquity", "MinorityInterest"), without_axis="ConsolidationItemsAxis"),
    Identity("DQC.US.0004.9284", "ComprehensiveIncomeNetOfTaxIncludingPortionAttributableToNoncontrollingInterest",
             ("ProfitLoss", "OtherComprehensiveIncomeLossNetOfTax")),
    Identity("DQC.US.0004.9285", "ComprehensiveIncomeNetOfTaxIncludingPortionAttributableToNoncontrollingInterest",
             ("ComprehensiveIncomeNetOfTaxAttributableToNoncontrollingInterest", "ComprehensiveIncomeNetOfTax")),
    Identity("DQC.US.0004.9286", "CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsPeriodIncreaseDecreaseExcludingExchangeRateEffect",
             ("NetCashProvidedByUsedInOperatingActivities", "NetCashProvidedByUsedInInvestingActivities",
              "NetCashProvidedByUsedInFinancingActivities")),
    Identity("DQC.US.0004.9287", "NetCashProvidedByUsedInFinancingActivities",
             ("NetCashProvidedByUsedInFinancingActivitiesContinuingOperations",
              "CashProvidedByUsedInFinancingActivitiesDiscontinuedOperations"), capped=False),
    Identity("DQC.US.0004.9288", "NetCashProvidedByUsedInInvestingActivities",
             ("NetCashProvidedByUsedInInvestingActivitiesContinuingOperations",
              "CashProvidedByUsedInInvestingActivitiesDiscontinuedOperations"), capped=False),
    Identity("DQC.US.0004.9289", "NetCashProvidedByUsedInOperatingActivities",
             ("NetCashProvidedByUsedInOperatingActivitiesContinuingOperations",
              "CashProvidedByUsedInOperatingActivitiesDiscontinuedOperations"), capped=False),
    Identity("DQC.US.0004.9290", "NetCashProvidedByUsedInDiscontinuedOperations",
             ("CashProvidedByUsedInOperatingActivitiesDiscontinuedOperations",
              "CashProvidedByUsedInInvestingActivitiesDiscontinuedOperations",
              "CashProvidedByUsedInFinancingActivitiesDiscontinuedOperations"), capped=False),
    Identity("DQC.US.0004.9291", "NetCashProvidedByUsedInContinuingOperations",
             ("NetCashProvidedByUsedInOperatingActivitiesContinuingOperations",
              "NetCashProvidedByUsedInInvestingActivitiesContinuingOperations",
              "NetCashProvidedByUsedInFinancingActivitiesContinuingOperations"), capped=False),
)
CODE_LSE = "DQC.US.0004.9283"
CODE_CI_CALC = "DQC.US.0004.9285"
TEMP_EQUITY = "TemporaryEquityCarryingAmountIncludingPortionAttributableToNoncontrollingInterests"
# The facts whose smallest decimals set 9283's tolerance, as DQC's source lists them: the total and every
# equity and liabilities concept it may use (reported or not in the sum), never the temporary equity.
LSE_DECIMALS = ("LiabilitiesAndStockholdersEquity", "StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest",
                "StockholdersEquity", "MinorityInterest", "Liabilities", "LiabilitiesCurrent", "LiabilitiesNoncurrent")

_SUM = (
    "{concept} with a value of {value} is not equal to the combined total of {parts} ({addends}) with a value of "
    "{computed}; the difference {difference} exceeds the allowed {allowed}. These values should be equal: correct "
    "the values or the elements used."
)
MESSAGES = {
    "DQC.US.0004.16": (
        "Assets with a value of {value} is not equal to the total of LiabilitiesAndStockholdersEquity with a value of "
        "{computed}; the difference {difference} exceeds the allowed {allowed}. These values should be equal: the "
        "balance sheet does not balance, or one of the two facts is tagged for the wrong context."),
    **{i.code: _SUM for i in IDENTITIES if i.code != "DQC.US.0004.16"},
    CODE_LSE: _SUM,
}


class _Facts:
    """Usable facts of a local name by alignment (first in document order wins)."""

    def __init__(self, env) -> None:
        self.env = env
        self._memo: dict[str, dict] = {}

    def of(self, local: str) -> dict:
        if local not in self._memo:
            out: dict = {}
            for f, ctx, n in numeric_items(self.env, facts_named(self.env, local, US_GAAP)):
                out.setdefault(alignment(self.env, f, ctx), (f, n, ctx))
            self._memo[local] = out
        return self._memo[local]


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    facts = _Facts(env)
    ci_calc = _ci_calc_children(env)
    for ident in IDENTITIES:
        if ident.code == CODE_CI_CALC and ci_calc:
            _check(c, facts, Identity(CODE_CI_CALC, "ComprehensiveIncomeNetOfTax", tuple(l for l, _ in ci_calc)),
                   weights=dict(ci_calc))
            continue
        _check(c, facts, ident)
    _check_lse(c, facts)
    return c.result()


def _ci_calc_children(env) -> list[tuple[str, Decimal]]:
    """9285's first form: a calculation of ComprehensiveIncomeNetOfTax with more than two children, among them
    both NCI comprehensive income concepts; its (child, weight) pairs, else []."""
    for (role, parent), arcs in sorted(env.index.calc_down.items(), key=lambda kv: (kv[0][0], kv[0][1].clark())):
        if parent.local != "ComprehensiveIncomeNetOfTax":
            continue
        names = {a.target.local for a in arcs}
        if len(arcs) > 2 and {"ComprehensiveIncomeNetOfTaxAttributableToNoncontrollingInterest",
                               "ComprehensiveIncomeNetOfTaxIncludingPortionAttributableToNoncontrollingInterest"} <= names:
            return [(a.target.local, a.weight if a.weight is not None else Decimal(1))
                    for a in sorted(arcs, key=lambda a: a.order)]
    return []


def _check(c: Collector, facts: _Facts, ident: Identity, weights: dict | None = None) -> None:
    for key, (total, value, ctx) in facts.of(ident.total).items():
        if ident.without_axis and any(a.local == ident.without_axis for a, _ in ctx.dimensions):
            continue
        used = [(p, facts.of(p).get(key)) for p in ident.parts]
        if any(hit is None for _, hit in used):
            continue  # every part is a required fact (the DQC doc's "required facts" column)
        w = weights or {}
        computed = sum((w.get(p, Decimal(1)) * hit[1] for p, hit in used), Decimal(0))
        _judge(c, ident.code, total, value, computed, [hit[0] for _, hit in used], ident.capped,
               parts=" and ".join(ident.parts),
               addends=" + ".join(f"{p} {dec_display(hit[1])}" for p, hit in used))


def _judge(c: Collector, code: str, total, value: Decimal, computed: Decimal, used: list, capped: bool,
           decimals_of: list | None = None, **args) -> None:
    """Record ``total`` against ``computed``; t is the smallest decimals of ``decimals_of`` (the total and
    ``used`` when not given)."""
    of = [total, *used] if decimals_of is None else decimals_of
    t = min_decimals(of, cap=CAP) if capped else min_decimals(of)
    is_error, allowed = differs(value, computed, t, K)
    if not is_error:
        c.consistent(total)
        return
    c.violation(code, total, expected=computed, tolerance=allowed, evidence=used, computed=computed,
                difference=abs(value - computed), allowed=allowed, **args)


def _check_lse(c: Collector, facts: _Facts) -> None:
    """9283: LiabilitiesAndStockholdersEquity = equity (incl. NCI, else parent + NCI) + liabilities (total, else
    current + noncurrent) + temporary equity (incl. NCI, when reported), skipped without equity or liabilities.
    The tolerance's decimals come from LSE_DECIMALS, as in DQC's source (docs/rules/DQC_US_0004.md)."""
    for key, (total, value, _ctx) in facts.of("LiabilitiesAndStockholdersEquity").items():
        parts: list[tuple[str, tuple]] = []
        equity = facts.of("StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest").get(key)
        if equity is not None:
            parts.append(("StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest", equity))
        elif (se := facts.of("StockholdersEquity").get(key)) is not None:
            parts.append(("StockholdersEquity", se))
            if (mi := facts.of("MinorityInterest").get(key)) is not None:
                parts.append(("MinorityInterest", mi))
        else:
            continue
        liabilities = facts.of("Liabilities").get(key)
        if liabilities is not None:
            parts.append(("Liabilities", liabilities))
        else:
            split = [(p, facts.of(p).get(key)) for p in ("LiabilitiesCurrent", "LiabilitiesNoncurrent")]
            if any(h is None for _, h in split):
                continue  # both must be present
            parts += split
        if (temp := facts.of(TEMP_EQUITY).get(key)) is not None:
            parts.append((TEMP_EQUITY, temp))
        computed = sum((h[1] for _, h in parts), Decimal(0))
        listed = [hit[0] for name in LSE_DECIMALS if (hit := facts.of(name).get(key)) is not None]
        _judge(c, CODE_LSE, total, value, computed, [h[0] for _, h in parts], True, decimals_of=listed,
               parts="stockholders' equity, liabilities and temporary equity",
               addends=" + ".join(f"{p} {dec_display(h[1])}" for p, h in parts))


SPEC = register(RuleSpec(
    id=RULE, title="Element values are equal", messages=MESSAGES,
    needs=frozenset({Need.FACTS, Need.FILER_CAL}), run=run,
))
