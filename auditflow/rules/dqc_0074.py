"""DQC.US.0074 — Typed dimension with a nil member (docs/rules/DQC_US_0074.md).

A typed axis (an investment's identifier, a contract's identifier, the start date of a remaining performance
obligation, ...) carries its member as a value. A fact reported on such an axis with an empty (nil) value says
nothing about which investment or date it belongs to, and should be reported without the axis. Each such fact
is a finding.
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, gate
from auditflow.rules.registry import Need, RuleSpec, register
from auditflow.rules.resources import family_key
from auditflow.xbrl.model import TypedMember

RULE = "0074"
CODE = "DQC.US.0074.7649"
DEI = "http://xbrl.sec.gov/dei"
TYPED_AXES = frozenset({  # the 2026 constant TYPED_DIMENSIONS
    (US_GAAP, "RevenueRemainingPerformanceObligationExpectedTimingOfSatisfactionStartDateAxis"),
    (US_GAAP, "OpenFuturesContractIdentifierAxis"), (US_GAAP, "OpenForwardForeignCurrencyContractIdentifierAxis"),
    (US_GAAP, "OpenOptionContractIdentifierAxis"), (US_GAAP, "OpenSwapContractIdentifierAxis"),
    (US_GAAP, "SecuritySoldShortIdentifierAxis"), (US_GAAP, "InvestmentIdentifierAxis"),
    (US_GAAP, "ReinsuranceContractAxis"), (US_GAAP, "DisaggregationOfIncomeStatementExpenseCaptionIdentifierAxis"),
    (DEI, "NameChangeEventDateAxis"),
})
MESSAGE = (
    "{concept} with a value of {value} is reported on the typed axis {axis} with a nil (empty) member. A fact "
    "that belongs to no particular member of this axis should be reported without the axis."
)


def nil_member(member) -> bool:
    """A typed member without a value: its element is empty or nil (kept as ``element=`` or as nothing)."""
    return isinstance(member, TypedMember) and member.value.partition("=")[2 if "=" in member.value else 0] == ""


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    for f in env.filing.facts:
        ctx = env.filing.contexts.get(f.context_id)
        if ctx is None or not ctx.dimensions:
            continue
        for axis, member in ctx.dimensions:
            if family_key(axis) not in TYPED_AXES:
                continue
            if nil_member(member):
                c.violation(CODE, f, axis=axis)
            else:
                c.consistent(f, f"{axis.local} = {member}")
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Typed dimension with a nil member", messages={CODE: MESSAGE}, needs=frozenset({Need.FACTS}),
    run=run, fix_hint="Report {concept} without the typed axis, or give the axis its member's value.",
    not_applicable=("form not in scope", "no data root"),
))
