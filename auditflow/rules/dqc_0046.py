"""DQC.US.0046 — Inappropriate calculation descendant (docs/rules/DQC_US_0046.md).

A listed concept must not be a calculation descendant (in any network of the filer) of a listed total:
exchange-rate effects under continuing operations or the cash change excluding the exchange-rate
effect, and NetIncomeLoss under an other-comprehensive-income total.
"""
from __future__ import annotations

from auditflow.rules.common import Collector, calc_paths, gate
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0046"
OCI_TOTALS = ("OtherComprehensiveIncomeLossNetOfTax", "OtherComprehensiveIncomeLossBeforeTax",
              "OtherComprehensiveIncomeLossNetOfTaxPortionAttributableToParent",
              "OtherComprehensiveIncomeLossBeforeTaxPortionAttributableToParent")
CASH = "Consider using CashAndCashEquivalentsPeriodIncreaseDecrease (or the restricted-cash total) instead."
PAIRS: tuple[tuple[str, str, tuple[str, ...], str], ...] = (  # code, descendant, totals, advice
    ("DQC.US.0046.6839", "EffectOfExchangeRateOnCashAndCashEquivalents", ("NetCashProvidedByUsedInContinuingOperations",), CASH),
    ("DQC.US.0046.6840", "EffectOfExchangeRateOnCashAndCashEquivalentsContinuingOperations",
     ("NetCashProvidedByUsedInContinuingOperations",), CASH),
    ("DQC.US.0046.6841", "EffectOfExchangeRateOnCashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents",
     ("NetCashProvidedByUsedInContinuingOperations",),
     "Consider using CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsPeriodIncreaseDecreaseIncludingExchangeRateEffect instead."),
    ("DQC.US.0046.6842", "EffectOfExchangeRateOnCashAndCashEquivalents",
     ("CashAndCashEquivalentsPeriodIncreaseDecreaseExcludingExchangeRateEffect",), CASH),
    ("DQC.US.0046.7480", "EffectOfExchangeRateOnCashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsDisposalGroupIncludingDiscontinuedOperations",
     ("NetCashProvidedByUsedInDiscontinuedOperations",),
     "Consider using CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsPeriodIncreaseDecreaseIncludingExchangeRateEffect instead."),
    ("DQC.US.0046.9279", "NetIncomeLoss", OCI_TOTALS,
     "Other comprehensive income is added to net income to give comprehensive income; it does not contain it."),
)
MESSAGE = (
    "{total} includes {descendant} as a calculation descendant in {network}, but in the US GAAP taxonomy "
    "{total} does not include {descendant}. {advice}"
)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    for code, descendant, totals, advice in PAIRS:
        hit = next(((total, role, path) for total in totals for role, path, _w in calc_paths(env, total)
                    if path[-1].local == descendant), None)
        if hit is None:
            c.consistent(None, f"{code}: {descendant} is not below {' / '.join(totals)}")
            continue
        total, role, path = hit
        c.violation(code, None, concept=path[-1], role=env.role_definition(role) or role, total=total,
                    descendant=descendant, network=env.role_definition(role) or role, advice=advice)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Inappropriate calculation descendant", messages={code: MESSAGE for code, *_ in PAIRS},
    needs=frozenset({Need.FILER_CAL}), run=run,
))
