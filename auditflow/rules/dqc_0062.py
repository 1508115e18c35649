"""DQC.US.0062 — No fact value for the change in cash (docs/rules/DQC_US_0062.md).

A filing whose presentation has a cash flow statement must report the period's change in cash, without
dimensions, with one of five concepts.
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, facts_named, gate
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0062"
CODE = "DQC.US.0062.7501"
CHANGE_IN_CASH = (
    "CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsPeriodIncreaseDecreaseIncludingExchangeRateEffect",
    "CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsPeriodIncreaseDecreaseExcludingExchangeRateEffect",
    "CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsPeriodIncreaseDecreaseIncludingExchangeRateEffectContinuingOperations",
    "CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsPeriodIncreaseDecreaseIncludingExchangeRateEffectDisposalGroupIncludingDiscontinuedOperations",
    "NetCashProvidedByUsedInContinuingOperations",
)
MESSAGE = (
    "The filing includes a cash flow statement ({network}), but reports no value without dimensions for the change "
    "in cash with any of: {concepts}. Tag the change in cash (a value of zero if it is nil), without an inappropriate "
    "dimension and without an extension element."
)


def cash_flow_networks(env) -> list[str]:
    """Presentation roles with StatementOfCashFlowsAbstract, 'cashflow' in the URI, '- Statement ' in the
    definition and not parenthetical (DQC's test)."""
    out = []
    for role in env.index.pre_roles:
        uri = role.lower()
        if ("cashflow" in uri and "parenthetical" not in uri and "- Statement " in env.role_definition(role)
                and any(q.local == "StatementOfCashFlowsAbstract" for q in env.index.pre_concepts.get(role, ()))):
            out.append(role)
    return sorted(out)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    networks = cash_flow_networks(env)
    if not networks:
        c.skipped(None, "no cash flow statement in the presentation")
        return c.result()
    for local in CHANGE_IN_CASH:
        plain = [f for f in facts_named(env, local, US_GAAP)
                 if f.context_id in env.filing.contexts and not env.filing.contexts[f.context_id].dimensions]
        if plain:
            c.consistent(plain[0], f"change in cash reported with {local}")
            return c.result()
    names = ", ".join(env.role_definition(r) or r for r in networks)
    abstract = next(q for q in env.index.pre_concepts[networks[0]] if q.local == "StatementOfCashFlowsAbstract")
    c.violation(CODE, None, concept=abstract, role=names, network=names, concepts=", ".join(CHANGE_IN_CASH))
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="No fact value for change in cash", messages={CODE: MESSAGE},
    needs=frozenset({Need.FILER_PRE, Need.FACTS}), run=run,
))
