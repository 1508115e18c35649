"""DQC.US.0073 — Plan asset categories: allowed line items (docs/rules/DQC_US_0073.md).

Only the listed pension plan-asset concepts may be reported on DefinedBenefitPlanByPlanAssetCategoriesAxis;
a fact of any other base-taxonomy concept with that axis is an error (extension concepts are not checked).
"""
from __future__ import annotations

from auditflow.rules.common import Collector, base_concept, facts_on_axis, gate
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0073"
CODE = "DQC.US.0073.7648"
AXIS = "DefinedBenefitPlanByPlanAssetCategoriesAxis"
ALLOWED = frozenset({
    "DefinedBenefitPlanActualReturnOnPlanAssetsSoldDuringPeriod",
    "DefinedBenefitPlanActualReturnOnPlanAssetsStillHeld",
    "DefinedBenefitPlanAmountOfEmployerAndRelatedPartySecuritiesIncludedInPlanAssets",
    "/**DefinedBenefitPlanAssetsExpectedToBeReturnedToEmployerAmountDEPRECATED**/",
    "DefinedBenefitPlanChangeInFairValueOfPlanAssetsLevel3ReconciliationPeriodIncreaseDecrease",
    "DefinedBenefitPlanFairValueOfPlanAssets",
    "DefinedBenefitPlanInvestmentPoliciesAndStrategiesNarrativeDescription",
    "DefinedBenefitPlanNarrativeDescriptionOfBasisUsedToDetermineOverallExpectedLongTermRateOfReturnOnAssetsAssumption",
    "DefinedBenefitPlanNumberOfSharesOfEquitySecuritiesIssuedByEmployerAndRelatedPartiesIncludedInPlanAssets",
    "DefinedBenefitPlanPlanAssetsAtFairValueValuationTechniquesAndInputsChanges",
    "DefinedBenefitPlanPlanAssetsEmployerRelatedPartyTransactionTypeExtensibleList",
    "DefinedBenefitPlanPlanAssetsEmployerRelatedPartyTypeExtensibleList",
    "DefinedBenefitPlanPlanAssetsFairValueByHierarchyAndNavExtensibleList",
    "DefinedBenefitPlanPlanAssetsInvestmentWithinPlanAssetCategoryAmount",
    "DefinedBenefitPlanPlanAssetsInvestmentWithinPlanAssetCategoryPercentage",
    "DefinedBenefitPlanPlanAssetsLevel3ReconciliationDecreaseForSale",
    "DefinedBenefitPlanPlanAssetsLevel3ReconciliationDecreaseForSettlement",
    "DefinedBenefitPlanPlanAssetsLevel3ReconciliationIncreaseForPurchase",
    "DefinedBenefitPlanPlanAssetsMeasurementInputExtensibleList",
    "DefinedBenefitPlanPlanAssetsTargetAllocationPercentage",
    "DefinedBenefitPlanPlanAssetsValuationTechniqueExtensibleList",
    "DefinedBenefitPlanAssumptionsUsedCalculatingNetPeriodicBenefitCostExpectedLongTermReturnOnAssets",
    "DefinedBenefitPlanPurchasesSalesAndSettlements",
    "DefinedBenefitPlanTransfersBetweenMeasurementLevels",
    "DefinedBenefitPlanPlanAssetsForeignCurrencyTranslationGainLoss",
    "DefinedBenefitPlanWeightedAverageAssetAllocations",
    "FairValueInvestmentsEntitiesThatCalculateNetAssetValuePerShareUnfundedCommittments",
    "FairValueInvestmentsEntitiesThatCalculateNetAssetValuePerShareInvestmentRedemptionNoticePeriod1",
    "FairValueInvestmentsEntitiesThatCalculateNetAssetValuePerShareInvestmentRedemptionFrequency",
    "FairValueInvestmentsEntitiesThatCalculateNetAssetValuePerShareInvestmentRedemptionDescription",
    "FairValueInvestmentsEntitiesThatCalculateNetAssetValuePerShareRedemptionRestrictionPeriodInEffect1",
})
MESSAGE = (
    "{concept} with a value of {value} is reported with DefinedBenefitPlanByPlanAssetCategoriesAxis. This element "
    "cannot be used with this axis: only the plan-asset elements (fair value of plan assets, target and actual "
    "allocations, level 3 reconciliation items, ...) may be. Remove the axis from the fact or use the plan-asset "
    "element that fits."
)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    for f, _member in facts_on_axis(env, AXIS):
        if not base_concept(f.concept):
            continue
        if f.concept.local in ALLOWED:
            c.consistent(f)
        else:
            c.violation(CODE, f)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Plan asset categories allowed line items", messages={CODE: MESSAGE}, needs=frozenset({Need.FACTS}),
    run=run,
))
