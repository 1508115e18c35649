"""DQC.US.0112 — Business acquisition facts without the business acquisition axis
(docs/rules/DQC_US_0112.md).

The listed concepts describe one business combination (its name, the share of votes acquired, the
acquisition date, the contingent consideration, ...), so each fact of them must say which one: it must be
reported on BusinessAcquisitionAxis. A fact without that axis is a violation.
"""
from __future__ import annotations

from auditflow.rules.common import Collector, gate, in_family, local_dims, US_GAAP
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0112"
CODE = "DQC.US.0112.9561"
AXIS = "BusinessAcquisitionAxis"
CONCEPTS = frozenset({
    "BusinessAcquisitionNameOfAcquiredEntity", "BusinessAcquisitionPercentageOfVotingInterestsAcquired",
    "BusinessAcquisitionDescriptionOfAcquiredEntity", "BusinessAcquisitionSharePrice",
    "BusinessCombinationReasonForBusinessCombination",
    "BusinessAcquisitionRevenueReportedByAcquiredEntityForLastAnnualPeriod",
    "BusinessAcquisitionDateOfAcquisitionAgreement1", "BusinessAcquisitionEffectiveDateOfAcquisition1",
    "BusinessAcquisitionPeriodResultsIncludedInCombinedEntity1", "BusinessCombinationIndemnificationAssetsDescription",
    "BusinessCombinationIndemnificationAssetsBasisForAmount",
    "BusinessCombinationIndemnificationAssetsRangeOfOutcomesValueHigh",
    "BusinessCombinationIndemnificationAssetsRangeOfOutcomesValueLow",
    "BusinessCombinationIndemnificationAssetsRangeOfOutcomesInestimable",
    "BusinessCombinationIndemnificationAssetsRangeOfOutcomesMaximumUnlimited",
    "BusinessCombinationIndemnificationAssetsAmountAsOfAcquisitionDate",
    "BusinessCombinationBargainPurchaseGainRecognizedDescription",
    "BusinessCombinationStepAcquisitionEquityInterestInAcquireeDescription",
    "BusinessCombinationStepAcquisitionEquityInterestInAcquireeFairValue1",
    "BusinessCombinationStepAcquisitionEquityInterestInAcquireeIncludingSubsequentAcquisitionPercentage",
    "BusinessCombinationStepAcquisitionEquityInterestInAcquireePercentage",
    "BusinessAcquisitionEquityInterestIssuedOrIssuableDescription",
    "BusinessAcquisitionEquityInterestIssuedOrIssuableBasisForDeterminingValue",
    "BusinessAcquisitionEquityInterestsIssuedOrIssuableNumberOfSharesIssued",
    "BusinessAcquisitionEquityInterestIssuedOrIssuableValueAssigned",
    "BusinessCombinationContingentConsiderationArrangementsDescription",
    "BusinessCombinationContingentConsiderationArrangementsBasisForAmount",
    "BusinessCombinationContingentConsiderationArrangementsRangeOfOutcomesValueHigh",
    "BusinessCombinationContingentConsiderationArrangementsRangeOfOutcomesValueLow",
    "BusinessCombinationContingentConsiderationArrangementsRangeOfOutcomesInestimable",
    "BusinessCombinationContingentConsiderationArrangementsRangeOfOutcomesMaximumUnlimited",
})
MESSAGE = (
    "{concept} with a value of {shown} is reported without BusinessAcquisitionAxis. This concept describes one "
    "business combination, so each of its facts must say which one: report it on BusinessAcquisitionAxis with a "
    "member for the acquisition it belongs to."
)
SHOWN = 200  # characters of a text value the message quotes


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
        if AXIS in local_dims(ctx):
            c.consistent(f, "on BusinessAcquisitionAxis")
        else:
            c.violation(CODE, f, shown=_shown(f))
    return c.result()


def _shown(f) -> str:
    text = " ".join((f.value or "").split())
    return text if len(text) <= SHOWN else text[:SHOWN] + "..."


SPEC = register(RuleSpec(
    id=RULE, title="Business acquisition facts without the business acquisition axis", messages={CODE: MESSAGE},
    needs=frozenset({Need.FACTS}), run=run, not_applicable=("form not in scope", "no data root"),
))
