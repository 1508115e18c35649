"""DQC.US.0049 — Single statement of cash flows root (docs/rules/DQC_US_0049.md).

The calculation of a cash flow statement should have one root, the change in cash of the period: operating,
investing and financing cash flows and the exchange-rate effect are its children. A network whose roots include
a change-in-cash concept and also a cash flow line item that DQC's constants say cannot be a root (an operating,
investing or financing item) has been split into separate trees, and is one finding.
"""
from __future__ import annotations

from auditflow.rules.common import Collector, base_concept, decoded_constant, gate
from auditflow.rules.dqc_0062 import cash_flow_networks
from auditflow.rules.registry import CONSTANTS_2025, Need, RuleSpec, register

RULE = "0049"
CODE = "DQC.US.0049.7483"
NOT_ALLOWED = "NONALLOWED_ROOT_ELEMENTS_CASHFLOW"  # local names of cash flow items that must not be calc roots
# DQC's change-in-cash names, as its 2026 source spells them: the two restricted-cash names are written with a
# lower-case "and" ("...RestrictedCashandRestricted..."), so they match no concept and only the first three count.
CHANGE_IN_CASH = frozenset({
    "CashAndCashEquivalentsPeriodIncreaseDecrease", "CashPeriodIncreaseDecrease",
    "CashAndCashEquivalentsPeriodIncreaseDecreaseExcludingExchangeRateEffect",
    "CashCashEquivalentsRestrictedCashandRestrictedCashEquivalentsPeriodIncreaseDecreaseIncludingExchangeRateEffect",
    "CashCashEquivalentsRestrictedCashandRestrictedCashEquivalentsPeriodIncreaseDecreaseExcludingExchangeRateEffect",
})
NOT_A_ROOT_EXCEPTION = "NoncashOrPartNoncashAcquisitionNetNonmonetaryAssetsAcquiredLiabilitiesAssumed1"
MESSAGE = (
    "The calculation of the cash flow statement {network} has these roots: {roots}. A cash flow statement should "
    "have one calculation root, the change in cash of the period, with every cash flow below it. If the filer has "
    "adopted ASU 2016-18, that root is CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsPeriodIncrease"
    "DecreaseIncludingExchangeRateEffect (or ...ExcludingExchangeRateEffect when the total leaves the exchange-rate "
    "effect out)."
)


def _names(raw: list) -> frozenset:
    return frozenset(str(x) for x in raw[1:])


def roots(env, role: str) -> list:
    """The standard-taxonomy roots of the filer's calculation network ``role`` (sources that are no one's target),
    without the non-cash acquisition concept DQC leaves out."""
    sources = {s for (r, s) in env.index.calc_down if r == role}
    targets = {a.target for (r, _s), arcs in env.index.calc_down.items() if r == role for a in arcs}
    return sorted((q for q in sources - targets if base_concept(q) and q.local != NOT_A_ROOT_EXCEPTION),
                  key=lambda q: q.local)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    not_allowed = decoded_constant(resources, NOT_ALLOWED, _names)
    networks = [r for r in cash_flow_networks(env) if any(role == r for role, _s in env.index.calc_down)]
    if not networks:
        c.skipped(None, "no calculation of a cash flow statement")
    for role in networks:
        top = roots(env, role)
        names = {q.local for q in top}
        network = env.role_definition(role) or role
        if names & CHANGE_IN_CASH and names & not_allowed:
            focus = next(q for q in top if q.local in CHANGE_IN_CASH)
            c.violation(CODE, None, concept=focus, role=network, network=role,
                        roots=", ".join(q.local for q in top))
        else:
            c.consistent(None, f"{network}: roots {', '.join(sorted(names)) or 'none'}",
                         concept=top[0] if top else None)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Single statement of cash flows root", messages={CODE: MESSAGE},
    needs=frozenset({Need.FILER_CAL, Need.FILER_PRE, Need.TAXONOMY}), run=run, resources=(CONSTANTS_2025,),
    fix_hint="Put every cash flow of the statement below one calculation root, the change in cash of the period.",
    not_applicable=("form not in scope", "no data root", "no calculation of a cash flow statement"),
))
