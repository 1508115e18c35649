"""DQC.US.0009 — Element A must be less than or equal to element B (docs/rules/DQC_US_0009.md).

For listed pairs (shares outstanding <= issued <= authorized, plan obligations, ...) a fact of A
greater than the fact of B in the same context and unit is an error once both are rounded to their
smaller decimals (tolerance factor 0). The authorized-shares pairs are skipped when the filing
reports more than one stock split fact.
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, alignment, facts_named, gate, min_decimals, numeric_items
from auditflow.rules.registry import Need, RuleSpec, register
from auditflow.rules.statements import round_decimals

RULE = "0009"
SPLIT_CONCEPTS = ("StockIssuedDuringPeriodSharesStockSplits", "StockIssuedDuringPeriodSharesReverseStockSplits",
                  "StockholdersEquityNoteStockSplitConversionRatio1")
PLANS = "DefinedBenefitPlanPensionPlansWithAccumulatedBenefitObligationsInExcessOfPlanAssetsAggregate"
PAIRS: tuple[tuple[str, str, str, bool], ...] = (  # code, less, greater, skipped after stock splits
    ("DQC.US.0009.15", "CommonStockSharesOutstanding", "CommonStockSharesAuthorized", True),
    ("DQC.US.0009.19", "PreferredStockSharesOutstanding", "PreferredStockSharesIssued", False),
    ("DQC.US.0009.21", "CommonStockSharesIssued", "CommonStockSharesAuthorized", True),
    ("DQC.US.0009.22", "PreferredStockSharesIssued", "PreferredStockSharesAuthorized", False),
    ("DQC.US.0009.23", "PreferredStockSharesOutstanding", "PreferredStockSharesAuthorized", False),
    ("DQC.US.0009.24", "CommonStockSharesOutstanding", "CommonStockSharesIssued", False),
    ("DQC.US.0009.40", PLANS + "AccumulatedBenefitObligation", "DefinedBenefitPlanAccumulatedBenefitObligation", False),
    ("DQC.US.0009.41", PLANS + "FairValueOfPlanAssets", "DefinedBenefitPlanFairValueOfPlanAssets", False),
    ("DQC.US.0009.42", PLANS + "ProjectedBenefitObligation", "DefinedBenefitPlanBenefitObligation", False),
    ("DQC.US.0009.45", "DefinedBenefitPlanExpectedFutureEmployerContributionsRemainderOfFiscalYear",
     "DefinedBenefitPlanExpectedFutureEmployerContributionsCurrentFiscalYear", False),
    ("DQC.US.0009.46", "DefinedBenefitPlanAccumulatedBenefitObligation", "DefinedBenefitPlanBenefitObligation", False),
    ("DQC.US.0009.47", "DeferredTaxLiabilityNotRecognizedAmountOfUnrecognizedDeferredTaxLiabilityUndistributedEarningsOfForeignSubsidiaries",
     "UndistributedEarningsOfForeignSubsidiaries", False),
)
MESSAGE = (
    "The value of {concept}, {value}, should be less than or equal to {greater}, {greater_value}, in the same "
    "context. Correct the values, or the elements used.{split_hint}"
)
SPLIT_HINT = (" If this is the result of a stock split, tag one of StockIssuedDuringPeriodSharesStockSplits, "
              "StockIssuedDuringPeriodSharesReverseStockSplits or StockholdersEquityNoteStockSplitConversionRatio1.")


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    split_facts = sum(len(facts_named(env, s, US_GAAP)) for s in SPLIT_CONCEPTS)
    by_local: dict[str, dict] = {}

    def facts(local: str) -> dict:
        if local not in by_local:
            out: dict = {}
            for f, ctx, n in numeric_items(env, facts_named(env, local, US_GAAP)):
                out.setdefault(alignment(env, f, ctx), []).append((f, n))
            by_local[local] = out
        return by_local[local]

    for code, less, greater, split_guard in PAIRS:
        if split_guard and split_facts > 1:
            c.skipped(None, f"{code} skipped: the filing reports stock splits")
            continue
        greater_facts = facts(greater)
        for key, smalls in facts(less).items():
            for big, big_n in greater_facts.get(key, ()):
                for small, small_n in smalls:
                    t = min_decimals([small, big])
                    a, b = (small_n, big_n) if t is None else (round_decimals(small_n, t), round_decimals(big_n, t))
                    if small_n > big_n and a != b:
                        c.violation(code, small, expected=big_n, evidence=[big], greater=big.concept,
                                    greater_value=big_n, split_hint=SPLIT_HINT if split_guard else "")
                    else:
                        c.consistent(small)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Element A must be less than or equal to element B",
    messages={code: MESSAGE for code, *_ in PAIRS}, needs=frozenset({Need.FACTS}), run=run,
))
