"""DQC.US.0134 — Available-for-sale debt securities on the wrong axis (docs/rules/DQC_US_0134.md).

The FASB's implementation guide for debt securities breaks available-for-sale debt securities (amortized
cost and fair value, current and noncurrent) down on FinancialInstrumentAxis. A fact of them on
InvestmentTypeAxis (other than its FixedMaturitiesMember or ShortTermInvestmentsMember), on
CashAndCashEquivalentsAxis or on RestrictedCashAndCashEquivalentsCashAndCashEquivalentsAxis is a violation.
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, gate, in_family, local_dims
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0134"
CODE = "DQC.US.0134.9834"
_AFS = "DebtSecuritiesAvailableForSale"
CONCEPTS = frozenset({
    "AvailableForSaleDebtSecuritiesAmortizedCostBasis", f"{_AFS}AmortizedCostCurrent", f"{_AFS}AmortizedCostNoncurrent",
    f"{_AFS}AmortizedCostExcludingAccruedInterestBeforeAllowanceForCreditLoss",
    f"{_AFS}AmortizedCostExcludingAccruedInterestBeforeAllowanceForCreditLossCurrent",
    f"{_AFS}AmortizedCostExcludingAccruedInterestBeforeAllowanceForCreditLossNoncurrent",
    f"{_AFS}AmortizedCostExcludingAccruedInterestAfterAllowanceForCreditLoss",
    f"{_AFS}AmortizedCostExcludingAccruedInterestAfterAllowanceForCreditLossCurrent",
    f"{_AFS}AmortizedCostExcludingAccruedInterestAfterAllowanceForCreditLossNoncurrent",
    f"{_AFS}AmortizedCostAfterAllowanceForCreditLoss", f"{_AFS}AmortizedCostAfterAllowanceForCreditLossCurrent",
    f"{_AFS}AmortizedCostAfterAllowanceForCreditLossNoncurrent",
    "AvailableForSaleSecuritiesDebtSecurities", "AvailableForSaleSecuritiesDebtSecuritiesCurrent",
    "AvailableForSaleSecuritiesDebtSecuritiesNoncurrent", f"{_AFS}ExcludingAccruedInterest",
    f"{_AFS}ExcludingAccruedInterestCurrent", f"{_AFS}ExcludingAccruedInterestNoncurrent",
})
INVESTMENT_TYPE = "InvestmentTypeAxis"
ALLOWED_INVESTMENT_TYPES = frozenset({"FixedMaturitiesMember", "ShortTermInvestmentsMember"})
INVALID_AXES = (INVESTMENT_TYPE, "CashAndCashEquivalentsAxis", "RestrictedCashAndCashEquivalentsCashAndCashEquivalentsAxis")
FINANCIAL_INSTRUMENT = "FinancialInstrumentAxis"
MESSAGE = (
    "{concept} with a value of {value} is reported on {axes}. These axes are not used for available-for-sale debt "
    "securities: report the breakdown on FinancialInstrumentAxis instead.{also} See the FASB implementation guide "
    "on financial instruments, debt securities (https://www.fasb.org/debtsecurities_2019)."
)
ALSO = (" The fact already has FinancialInstrumentAxis and needs no other axis; a subtotal is shown by arranging the "
        "members of FinancialInstrumentAxis in a hierarchy.")


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    for f in env.filing.facts:
        if f.is_nil or f.concept.local not in CONCEPTS or not in_family(f.concept, US_GAAP):
            continue
        ctx = env.filing.contexts.get(f.context_id)
        if ctx is None:
            continue
        dims = local_dims(ctx)
        if getattr(dims.get(INVESTMENT_TYPE), "local", None) in ALLOWED_INVESTMENT_TYPES:
            continue  # DQC selects the facts whose investment type is not an allowed member
        invalid = [a for a in INVALID_AXES if a in dims]
        if invalid:
            c.violation(CODE, f, axes=", ".join(invalid), also=ALSO if FINANCIAL_INSTRUMENT in dims else "")
        else:
            c.consistent(f)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Available-for-sale debt securities on the wrong axis", messages={CODE: MESSAGE},
    needs=frozenset({Need.FACTS}), run=run, not_applicable=("form not in scope", "no data root"),
))
