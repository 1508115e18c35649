"""DQC.US.0014 — Negative values without dimensions (docs/rules/DQC_US_0014.md).

The concepts below measure amounts that cannot be below zero when they are reported for the whole entity:
derivative assets and liabilities, goodwill, the allowance for loan losses, revenue, cost of sales, level 3
balances and transfers, ... A fact of one of them without dimensions and with a negative value is a sign
error, one code per concept. (DQC.US.0015 covers the general list of non-negative concepts, with
dimensions; these are the ones DQC checks only without dimensions.)
"""
from __future__ import annotations

from auditflow.rules.common import Collector, facts_named, gate, numeric_items
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0014"
CONCEPTS = (  # rule element id, concept (the 2026 constant NON_DIMENSIONAL_NON_NEGS; 3008's concept was deprecated)
    ("2786", "DerivativeFairValueOfDerivativeLiability"), ("2787", "DerivativeLiabilities"),
    ("2788", "FairValueMeasurementWithUnobservableInputsReconciliationRecurringBasisAssetValue"),
    ("2789", "FairValueMeasurementWithUnobservableInputsReconciliationsRecurringBasisLiabilityValue"),
    ("2790", "LiabilitiesFairValueDisclosure"), ("2791", "AmortizationOfIntangibleAssets"),
    ("2792", "DerivativeFairValueOfDerivativeLiabilityAmountNotOffsetAgainstCollateral"), ("2793", "DerivativeAssets"),
    ("2794", "FairValueMeasurementWithUnobservableInputsReconciliationRecurringBasisAssetTransfersOutOfLevel3"),
    ("2795", "DerivativeFairValueOfDerivativeAssetAmountOffsetAgainstCollateral"),
    ("2796", "DerivativeFairValueOfDerivativeLiabilityAmountOffsetAgainstCollateral"),
    ("2797", "DerivativeFairValueOfDerivativeAssetAmountNotOffsetAgainstCollateral"),
    ("2798", "DerivativeLiabilityFairValueGrossAsset"), ("2799", "FinancialInstrumentsOwnedAtFairValue"),
    ("2800", "DerivativeAssetFairValueGrossLiability"), ("2801", "CashDividendsPaidToParentCompany"),
    ("2802", "DerivativeFairValueOfDerivativeAsset"), ("2803", "DerivativeLiabilitiesCurrent"),
    ("2804", "InvestmentsFairValueDisclosure"), ("2805", "CashDividendsPaidToParentCompanyByConsolidatedSubsidiaries"),
    ("2806", "DerivativeCollateralObligationToReturnCash"), ("2807", "Goodwill"),
    ("2808", "LoansAndLeasesReceivableAllowance"),
    ("2809", "FairValueMeasurementWithUnobservableInputsReconciliationRecurringBasisAssetTransfersIntoLevel3"),
    ("3003", "PriceRiskDerivativeLiabilitiesAtFairValue"), ("3004", "DerivativeAssetsNoncurrent"),
    ("3005", "ConversionOfStockSharesConverted1"), ("3006", "ConversionOfStockAmountConverted1"),
    ("3007", "OtherLiabilitiesNoncurrent"), ("3009", "ConversionOfStockSharesIssued1"),
    ("3096", "FairValueMeasurementWithUnobservableInputsReconciliationLiabilityTransfersOutOfLevel3"),
    ("7651", "RevenueFromContractWithCustomerIncludingAssessedTax"),
    ("7652", "RevenueFromContractWithCustomerExcludingAssessedTax"), ("2695", "CostOfGoodsAndServicesSold"),
    ("2697", "CostOfRevenue"), ("9093", "CostOfGoodsAndServiceExcludingDepreciationDepletionAndAmortization"),
)
MESSAGE = (
    "{concept} has a value of {value}, below zero, without dimensions. This concept is not expected to be "
    "negative. Check the input: if the sign is wrong, enter the absolute value and give the line a negated label "
    "if it is to be shown in brackets."
)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    for sid, local in CONCEPTS:
        for f, ctx, n in numeric_items(env, facts_named(env, local)):
            if ctx.dimensions:
                continue
            if n < 0:
                c.violation(f"DQC.US.0014.{sid}", f, expected=-n)
            else:
                c.consistent(f)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Negative values without dimensions",
    messages={f"DQC.US.0014.{sid}": MESSAGE for sid, _ in CONCEPTS}, needs=frozenset({Need.FACTS}), run=run,
    fix_hint="Enter {concept} as the positive amount {expected}; a negated label shows it in brackets.",
    not_applicable=("form not in scope", "no data root"),
))
