"""DQC.US.0047 — Calculation descendants with no balance type (docs/rules/DQC_US_0047.md).

DQC reports a US-GAAP concept without a balance type (an increase/decrease item of a roll-forward) that the
filer places as a summation-item descendant of the operating cash flow total. Whether a standard concept has
a balance type is written only in the US-GAAP element schema, which our taxonomy copy lacks (docs/rules/
README.md, "Element properties"), and no list of the 2025 constants records it; a name or unit cannot tell a
cash flow adjustment with a balance from a roll-forward movement without one. So the rule is registered,
listed and reported as not run, and never guesses.
"""
from __future__ import annotations

from auditflow.rules.common import gate, not_applicable
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0047"
CODE = "DQC.US.0047.7481"
MESSAGE = (
    "In the filer's calculations {total} includes {concept} as a summation descendant, but {concept} has no balance "
    "type. Increase (decrease) items without a balance type belong to roll-forwards: they show the change of a "
    "balance sheet item, whose effect on cash is the opposite, and should not be used in the cash flow statement."
)
CANNOT_RUN = ("needs the balance type of US-GAAP concepts, which only the US-GAAP element schema records "
              "(not in our taxonomy copy, nor in the 2025 constants)")


def run(env, resources):
    """Never called by the runner (the entry has a ``cannot_run`` reason); a direct call says why it did not run."""
    return gate(SPEC, env, resources) or not_applicable(RULE, f"not run: {CANNOT_RUN}")


SPEC = register(RuleSpec(
    id=RULE, title="Calculation descendants with no balance type", messages={CODE: MESSAGE},
    needs=frozenset({Need.FILER_CAL, Need.ELEMENT_PROPS}), run=run, cannot_run=CANNOT_RUN,
    not_applicable=("not run", "form not in scope", "no data root"),
))
