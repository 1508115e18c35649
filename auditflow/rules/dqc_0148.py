"""DQC.US.0148 — Net income and other comprehensive income mixed in a calculation (docs/rules/DQC_US_0148.md).

Other comprehensive income is not part of net income, and net income items are not part of other
comprehensive income. In the filer's calculation linkbase, an OCI concept (the 2025 constant
``OCI_CONCEPTS``) below a net-income total is 9874; a net-income concept (``NI_CONCEPTS``) below an OCI
total is 10073. Each wrongly placed concept is one violation.
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, decoded_constant, gate, in_family
from auditflow.rules.properties import calc_descendants, locals_of
from auditflow.rules.registry import CONSTANTS_2025, Need, RuleSpec, register

RULE = "0148"
NI_TOTALS = ("NetIncomeLoss", "ProfitLoss", "NetIncomeLossAvailableToCommonStockholdersBasic",
             "NetIncomeLossAvailableToCommonStockholdersDiluted")
OCI_TOTALS = ("OtherComprehensiveIncomeLossNetOfTaxPortionAttributableToParent", "OtherComprehensiveIncomeLossTaxPortionAttributableToParent1",
              "OtherComprehensiveIncomeLossBeforeTaxPortionAttributableToParent", "OtherComprehensiveIncomeLossNetOfTax",
              "OtherComprehensiveIncomeLossNetOfTaxPortionAttributableToNoncontrollingInterest")
CHECKS = (  # code, totals, the constant naming what must not be below them
    ("DQC.US.0148.9874", NI_TOTALS, "OCI_CONCEPTS"),
    ("DQC.US.0148.10073", OCI_TOTALS, "NI_CONCEPTS"),
)
MESSAGES = {
    "DQC.US.0148.9874": (
        "{concept} is a calculation descendant of {total} (net income) in {network}. It is an item of other "
        "comprehensive income and is not a component of net income: remove it from the net income calculation."),
    "DQC.US.0148.10073": (
        "{concept} is a calculation descendant of {total} (other comprehensive income) in {network}. It is an item "
        "of net income and is not a component of other comprehensive income: remove it from that calculation."),
}


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    for code, totals, constant in CHECKS:
        wrong = decoded_constant(resources, constant, locals_of)
        roots = [q for q in {src for (_r, src) in env.index.calc_down} if q.local in totals and in_family(q, US_GAAP)]
        reported: set = set()
        for root in sorted(roots, key=lambda q: q.clark()):
            for role, q in calc_descendants(env, [root]):
                if q in reported:
                    continue
                if q.local in wrong and in_family(q, US_GAAP):
                    reported.add(q)
                    network = env.role_definition(role) or role
                    c.violation(code, None, concept=q, role=network, network=network, total=root.local)
                else:
                    c.consistent(None, f"below {root.local} in {env.role_definition(role) or role}", concept=q)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Net income and other comprehensive income mixed in a calculation", messages=MESSAGES,
    needs=frozenset({Need.FILER_CAL, Need.TAXONOMY}), run=run, resources=(CONSTANTS_2025,),
    not_applicable=("form not in scope", "no data root"),
    fix_hint="Move {concept} out of the calculation it does not belong to.",
))
