"""DQC.US.0143 — Derivative position takes a call or a put (docs/rules/DQC_US_0143.md).

DerivativePositionExtensibleEnumeration says whether an option is a call or a put: its value must name
CallOptionMember or PutOptionMember. A fact whose value names neither is a violation.
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, facts_named, gate
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0143"
CODE = "DQC.US.0143.9865"
CONCEPT = "DerivativePositionExtensibleEnumeration"
ALLOWED = ("CallOptionMember", "PutOptionMember")
MESSAGE = (
    "{concept} is reported with the value {value}. This concept takes only {allowed}: change the value to one of "
    "these members, or use another concept."
)


def members(value: str) -> list[str]:
    """The local names an extensible-enumeration value lists (``ns#Local`` URIs or ``prefix:Local`` names)."""
    return [token.rsplit("#", 1)[-1].rsplit(":", 1)[-1] for token in value.split()]


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    for f in facts_named(env, CONCEPT, US_GAAP):
        if f.is_nil or f.value is None:
            continue
        if set(members(f.value)) & set(ALLOWED):
            c.consistent(f, "a call or a put")
        else:
            c.violation(CODE, f, allowed=" or ".join(ALLOWED))
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Derivative position takes a call or a put", messages={CODE: MESSAGE},
    needs=frozenset({Need.FACTS}), run=run,
    fix_hint="Set {concept} to CallOptionMember or PutOptionMember.",
))
