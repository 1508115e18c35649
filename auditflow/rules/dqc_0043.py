"""DQC.US.0043 — Incorrect calculation weights in operating cash flows (docs/rules/DQC_US_0043.md).

Below the operating cash flow total (6833: the continuing-operations total when the filing has no overall
one; 7488: NetCashProvidedByUsedInOperatingActivities), down to but not through the net income items, a
credit-balance concept must have a negative effective weight and a debit-balance concept a positive one
(a concept reached with both signs is an error too). Only concepts whose balance the data declares can be
judged: our US-GAAP copy has no element properties, so this runs on the filer's extension concepts (and on
standard ones when the taxonomy graph provides a balance); the result says how many were left out.
"""
from __future__ import annotations

from decimal import Decimal

from auditflow.rules.common import NO_ELEMENT_PROPERTIES, Collector, base_concept, facts_named, gate
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0043"
CODE_CONTINUING = "DQC.US.0043.6833"
CODE_OPERATING = "DQC.US.0043.7488"
INCOME_ITEMS = frozenset({
    "ComprehensiveIncomeNetOfTax", "ComprehensiveIncomeNetOfTaxIncludingPortionAttributableToNoncontrollingInterest",
    "DiscontinuedOperationIncomeLossFromDiscontinuedOperationBeforeIncomeTax", "IncomeLossAttributableToNoncontrollingInterest",
    "IncomeLossAttributableToParent", "IncomeLossFromContinuingOperations",
    "IncomeLossFromContinuingOperationsAttributableToNoncontrollingEntity", "IncomeLossFromContinuingOperationsBeforeIncomeTaxesDomestic",
    "IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
    "IncomeLossFromContinuingOperationsBeforeIncomeTaxesMinorityInterestAndIncomeLossFromEquityMethodInvestments",
    "IncomeLossFromContinuingOperationsBeforeInterestExpenseInterestIncomeIncomeTaxesExtraordinaryItemsNoncontrollingInterestsNet",
    "IncomeLossFromContinuingOperationsIncludingPortionAttributableToNoncontrollingInterest",
    "IncomeLossFromDiscontinuedOperationsNetOfTax", "IncomeLossFromDiscontinuedOperationsNetOfTaxAttributableToNoncontrollingInterest",
    "IncomeLossFromDiscontinuedOperationsNetOfTaxAttributableToReportingEntity", "IncomeLossFromSubsidiariesNetOfTax",
    "IncomeLossIncludingPortionAttributableToNoncontrollingInterest", "NetIncomeLoss", "NetIncomeLossAllocatedToGeneralPartners",
    "NetIncomeLossAllocatedToLimitedPartners", "NetIncomeLossAttributableToNoncontrollingInterest",
    "NetIncomeLossAttributableToParentNetOfFederalHomeLoanBankAssessments", "NetIncomeLossAvailableToCommonStockholdersBasic",
    "NetIncomeLossIncludingPortionAttributableToNonredeemableNoncontrollingInterest", "ProfitLoss",
    "DiscontinuedOperationGainLossOnDisposalOfDiscontinuedOperationNetOfTax",
})
_MSG = (
    "{concept} is included in the calculation of {total} in {network} with an effective weight of {weight}, but it "
    "is a {balance}-balance concept: {advice} Correct the calculation weight and enter the value as a positive amount "
    "when it has the concept's natural sign."
)
MESSAGES = {CODE_CONTINUING: _MSG, CODE_OPERATING: _MSG}
ADVICE = {
    "credit": "a credit concept is a deduction from net income in reconciling it to operating cash flow and needs weight -1.",
    "debit": "a debit concept is an addition to net income in reconciling it to operating cash flow and needs weight +1.",
}


def _stop(env, q) -> bool:
    """Net income items end the walk: DQC's INCOME_ITEMS and the filer's credit monetary '...NetIncome...' concepts."""
    if q.local in INCOME_ITEMS:
        return True
    if base_concept(q):
        return False
    concept = env.concept(q)
    return (concept is not None and concept.balance == "credit" and "netincome" in q.local.lower()
            and (concept.data_type or "").endswith("monetaryItemType"))


def _descendants(env, top: str) -> dict:
    """(role, concept) -> set of effective weights along the paths from ``top``, stopping at net income items."""
    out: dict = {}
    for (role, source), _ in sorted(env.index.calc_down.items(), key=lambda kv: (kv[0][0], kv[0][1].clark())):
        if source.local != top or not base_concept(source):
            continue
        stack = [(source, Decimal(1), (source,))]
        while stack:
            node, weight, path = stack.pop()
            for a in env.index.calc_down.get((role, node), ()):
                if a.target in path or _stop(env, a.target):
                    continue
                w = weight * (a.weight if a.weight is not None else Decimal(1))
                out.setdefault((role, a.target), set()).add(w.copy_sign(1) if w > 0 else w.copy_sign(-1) if w < 0 else w)
                stack.append((a.target, w, path + (a.target,)))
    return out


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    has_total = bool(facts_named(env, "NetCashProvidedByUsedInOperatingActivities"))
    has_continuing = bool(facts_named(env, "NetCashProvidedByUsedInOperatingActivitiesContinuingOperations"))
    tops = [(CODE_OPERATING, "NetCashProvidedByUsedInOperatingActivities")] if has_total else []
    if has_continuing and not has_total:
        tops.append((CODE_CONTINUING, "NetCashProvidedByUsedInOperatingActivitiesContinuingOperations"))
    unknown = set()
    for code, top in tops:
        for (role, q), signs in sorted(_descendants(env, top).items(), key=lambda kv: (kv[0][0], kv[0][1].clark())):
            concept = env.concept(q)
            balance = concept.balance if concept is not None else None
            if balance not in ("credit", "debit"):
                unknown.add(q)
                continue
            wrong = 1 if balance == "credit" else -1
            if wrong in signs or len(signs) > 1:
                network = env.role_definition(role) or role
                shown = "both +1 and -1" if len(signs) > 1 else f"{'+' if wrong > 0 else '-'}1"
                c.violation(code, None, concept=q, role=network, total=top, network=network, weight=shown,
                            balance=balance, advice=ADVICE[balance])
            else:
                c.consistent(None, f"{balance} concept with the right weight", concept=q)
    if unknown:
        standard = sum(1 for q in unknown if base_concept(q))
        for q in sorted(unknown, key=lambda q: q.clark()):
            c.skipped(None, "no balance property in our data: not judged", concept=q)
        c.note(NO_ELEMENT_PROPERTIES.format(
            what=f"DQC 0043 judged only concepts with a declared balance; {len(unknown)} descendants of the operating "
                 f"cash flow total ({standard} of them standard concepts) have none and were not checked"))
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Incorrect calculation weights in operating cash flows", messages=MESSAGES,
    needs=frozenset({Need.FILER_CAL, Need.ELEMENT_PROPS}), run=run,
))
