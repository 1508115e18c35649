"""DQC.US.0045 — Movement of concepts between calculation trees (docs/rules/DQC_US_0045.md).

A cash flow item the US GAAP taxonomy places under one section of the cash flow statement (operating,
investing, financing; continuing operations) should not appear as a calculation descendant of another
section's total in the filer's calculation linkbase. The taxonomy's side is the 2025 ruleset's
``CALC_RELATIONSHIPS`` constant (all US-GAAP calculation relationships, matched by local name); the filer's
side is every summation-item path below the section total, network by network.
"""
from __future__ import annotations

from collections import defaultdict

from auditflow.rules.common import US_GAAP, Collector, calc_paths, decoded_constant, gate, in_family
from auditflow.rules.registry import CONSTANTS_2025, Need, RuleSpec, register

RULE = "0045"
OPERATING = "NetCashProvidedByUsedInOperatingActivitiesContinuingOperations"
INVESTING = "NetCashProvidedByUsedInInvestingActivitiesContinuingOperations"
FINANCING = "NetCashProvidedByUsedInFinancingActivitiesContinuingOperations"
# code -> (the section the taxonomy puts the item in, the filer's total it was found under)
CHECKS = {
    "DQC.US.0045.6835": (OPERATING, INVESTING),
    "DQC.US.0045.6836": (FINANCING, INVESTING),
    "DQC.US.0045.6837": (INVESTING, FINANCING),
    "DQC.US.0045.6838": (OPERATING, FINANCING),
}
SECTION = {OPERATING: "operating", INVESTING: "investing", FINANCING: "financing"}
# DQC's $CASH_FLOW_EXCEPTIONS: items that legitimately sit in more than one section.
EXCEPTIONS = frozenset({
    "ProceedsFromDepositsWithOtherInstitutions", "InterestPaidCapitalized", "ProceedsFromFederalHomeLoanBankAdvances",
    "PaymentsForFederalHomeLoanBankAdvances", "ProceedsFromPaymentsForTradingSecurities",
    "PaymentsForDepositsWithOtherInstitutions", "ProceedsFromPaymentsForInSecuritiesSoldUnderAgreementsToRepurchase",
    "IncreaseDecreaseInFederalFundsPurchasedAndSecuritiesSoldUnderAgreementsToRepurchaseNet",
    "IncreaseDecreaseOfRestrictedInvestments", "PaymentsForProceedsFromOtherDeposits", "ProceedsFromOtherDeposits",
    "PaymentsForOtherDeposits",
})


def _message(home: str, found: str) -> str:
    return ("{concept} is a calculation descendant of " + found + " ({network}), so it sits in the " + SECTION[found]
            + " cash flows of the filer's cash flow statement. In the US GAAP taxonomy it is a " + SECTION[home]
            + " item, expected only below " + home + ". Review the cash flow calculations and check that the right "
            "element is used for this item.")


MESSAGES = {code: _message(home, found) for code, (home, found) in CHECKS.items()}


def _us_gaap_children(raw: list) -> dict[str, tuple[str, ...]]:
    """Parent local name -> child local names, for the US-GAAP relationships of ``CALC_RELATIONSHIPS`` (entries
    ``["set", "parentNs:Parent:childNs:Child", weight]``, in either order)."""
    out: dict[str, set[str]] = defaultdict(set)
    for entry in raw[1:]:
        text = next((e for e in entry[1:] if isinstance(e, str)), None) if isinstance(entry, list) else None
        cut = text.find(":http", 1) if text else -1
        if cut < 0:
            continue
        parent_ns, parent = text[:cut].rsplit(":", 1)
        child_ns, child = text[cut + 1:].rsplit(":", 1)
        if parent_ns.startswith(US_GAAP) and child_ns.startswith(US_GAAP):
            out[parent].add(child)
    return {p: tuple(sorted(c)) for p, c in out.items()}


def taxonomy_descendants(children: dict[str, tuple[str, ...]], root: str) -> frozenset[str]:
    out, stack = set(), [root]
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in out and child != root:
                out.add(child)
                stack.append(child)
    return frozenset(out)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    children = decoded_constant(resources, "CALC_RELATIONSHIPS", _us_gaap_children)
    for code, (home, found) in CHECKS.items():
        below = defaultdict(list)  # concept -> roles where it is below the filer's ``found`` total
        for role, path, _w in calc_paths(env, found):
            if role not in below[path[-1]]:
                below[path[-1]].append(role)
        if not below:
            c.skipped(None, f"{code}: no calculation below {found} in the filer's linkbase")
            continue
        expected = taxonomy_descendants(children, home)
        for concept in sorted(below, key=lambda q: q.clark()):
            if in_family(concept, US_GAAP) and concept.local in expected and concept.local not in EXCEPTIONS:
                network = "; ".join(env.role_definition(r) or r for r in sorted(below[concept]))
                c.violation(code, None, concept=concept, role=network, network=network)
            else:
                c.consistent(None, f"{code}: {concept.local} below {found}", concept=concept)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Movement of concepts between calculation trees", messages=MESSAGES,
    needs=frozenset({Need.FILER_CAL, Need.TAXONOMY}), run=run, resources=(CONSTANTS_2025,),
    not_applicable=("form not in scope", "no data root"),
    fix_hint="Move {concept} to the section of the cash flow statement it belongs to, or use the element that "
             "describes the item where it is.",
))
