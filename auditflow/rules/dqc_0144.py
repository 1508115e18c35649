"""DQC.US.0144 — Monetary extension without a balance type on a statement (docs/rules/DQC_US_0144.md).

Every monetary line item of the face statements should say whether it is a debit or a credit. The rule reads
the filer's own schema: an extension concept that is monetary, has no balance attribute, is a presentation
child in a statement network, is not a calculation total of that network (a cash-flow subtotal may lack a
balance) and has facts, is one violation per network.
"""
from __future__ import annotations

from auditflow.rules.common import Collector, gate, period_text
from auditflow.rules.finding import dims_text
from auditflow.rules.properties import declared_type, statement_networks
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0144"
CODE = "DQC.US.0144.9866"
MESSAGE = (
    "The filing reports values for the extension concept {concept} in the statement {network}. It is a monetary "
    "concept without a balance type: every monetary item of {network} should be defined with a balance of debit "
    "or credit. First fact: period {first_period}, dimensions {first_dimensions}."
)


def _targets(env, role: str) -> set:
    return {a.target for (r, _src), arcs in env.index.pre_down.items() if r == role for a in arcs}


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    for role in statement_networks(env):
        totals = {src for (r, src) in env.index.calc_down if r == role}
        network = env.role_definition(role)
        for q in sorted(_targets(env, role), key=lambda q: q.clark()):
            declared = env.filing.concepts.get(q)
            if declared is None or declared.source != "schema" or declared_type(env, q) != "monetaryItemType":
                continue
            facts = sorted(env.index.by_concept.get(q, ()), key=lambda f: f.index)
            why = ("has a balance" if declared.balance else "is a calculation total of the network" if q in totals
                   else "has no facts" if not facts else "")
            if why:
                c.consistent(facts[0] if facts else None, f"{q.local} in {network} {why}", concept=q)
                continue
            ctx = env.filing.contexts.get(facts[0].context_id)
            c.violation(CODE, None, concept=q, role=network, network=network,
                        first_period=period_text(ctx.period) if ctx else "none",
                        first_dimensions=dims_text(ctx.dimensions) if ctx and ctx.dimensions else "none")
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Monetary extension without a balance type on a statement", messages={CODE: MESSAGE},
    needs=frozenset({Need.FILER_PRE, Need.FILER_CAL, Need.FACTS}), run=run,
    fix_hint="Give the extension concept {concept} a balance attribute (debit or credit) in the filer's schema.",
))
