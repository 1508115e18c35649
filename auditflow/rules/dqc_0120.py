"""DQC.US.0120 — Extensible list items of leases not on the balance sheet (docs/rules/DQC_US_0120.md).

The six lease extensible lists (where on the balance sheet the finance and operating lease liabilities and
right-of-use assets are included) must name line items of the balance sheet: each concept a value names
must be a monetary presentation descendant of the balance sheet's root abstracts in the filer's first
balance-sheet statement network.
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, facts_named, family_keys, gate
from auditflow.rules.ext_lists import MONETARY_APPROXIMATED, descendants_from, list_values, maybe_monetary
from auditflow.rules.registry import Need, RuleSpec, register
from auditflow.rules.resources import family_key

RULE = "0120"
CODE = "DQC.US.0120.9578"
LISTS = (
    "FinanceLeaseLiabilityCurrentStatementOfFinancialPositionExtensibleList",
    "FinanceLeaseLiabilityNoncurrentStatementOfFinancialPositionExtensibleList",
    "FinanceLeaseRightOfUseAssetStatementOfFinancialPositionExtensibleList",
    "OperatingLeaseLiabilityNoncurrentStatementOfFinancialPositionExtensibleList",
    "OperatingLeaseLiabilityCurrentStatementOfFinancialPositionExtensibleList",
    "OperatingLeaseRightOfUseAssetStatementOfFinancialPositionExtensibleList",
)
ROOTS = ("StatementOfFinancialPositionAbstract", "AssetsAbstract", "LiabilitiesAbstract",
         "LiabilitiesAndStockholdersEquityAbstract")
MESSAGE = (
    "The extensible list item {list_item} has a value of {listed}: the balance-sheet line item that includes it. "
    "But {listed} is not a line item of the balance sheet's presentation ({network}). Either correct the value of "
    "{list_item} to the balance-sheet element that includes the amount, or add {listed} to the balance sheet's "
    "presentation. A value is written namespace-uri#element-name, e.g. "
    "http://fasb.org/us-gaap/2024#OtherLiabilitiesNoncurrent."
)


def balance_sheet_network(env) -> str | None:
    """DQC's balance sheet: the first (by definition, then URI) statement network that has
    StatementOfFinancialPositionAbstract or 'balancesheet'/'financialposition' in its URI, not parenthetical."""
    found = []
    for role in env.index.pre_roles:
        uri, definition = role.lower(), env.role_definition(role)
        if "- Statement " not in definition or "parenthetical" in uri:
            continue
        if ("balancesheet" in uri or "financialposition" in uri
                or any(q.local == "StatementOfFinancialPositionAbstract" for q in env.index.pre_concepts.get(role, ()))):
            found.append((definition, role))
    return min(found)[1] if found else None


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    listed_facts = [(local, f) for local in LISTS for f in facts_named(env, local, US_GAAP) if not f.is_nil]
    if not listed_facts:
        return c.result()
    role = balance_sheet_network(env)
    if role is None:
        for _local, f in listed_facts:
            c.skipped(f, "no balance-sheet statement network in the presentation")
        return c.result()
    network = env.role_definition(role) or role
    items = family_keys(q for q in descendants_from(env, role, ROOTS) if maybe_monetary(env, q))
    c.note(f"DQC {SPEC.name}: {MONETARY_APPROXIMATED}")
    for local, f in listed_facts:
        for q in list_values(env, f):
            if family_key(q) in items:
                c.consistent(f, f"{q.local} is on the balance sheet")
            else:
                c.violation(CODE, f, role=network, list_item=local, listed=q.local, network=network)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Lease extensible list items not on the balance sheet", messages={CODE: MESSAGE},
    needs=frozenset({Need.FACTS, Need.FILER_PRE, Need.ELEMENT_PROPS}), run=run,
    not_applicable=("form not in scope", "no data root"),
))
