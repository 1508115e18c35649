"""DQC.US.0157 — Banking ratio below one percent with an inline scale (docs/rules/DQC_US_0157.md).

DQC flags a banking ratio (the 2025 constant ``BANKING_MEASURES_BETWEEN_ZERO_AND_ONE``, "basis" measures
excluded) below 0.01 that was tagged in inline XBRL with a ``scale`` attribute: a ratio such as 8.5% scaled
twice. Our loader applies an inline fact's scale to its value and does not keep the attribute, so the rule
cannot tell a scaled fact from another one; it is registered and reported as not run.
"""
from __future__ import annotations

from auditflow.rules.common import gate, not_applicable
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0157"
CODE = "DQC.US.0157.10077"
REASON = ("needs the inline scale attribute of each fact, which the loader applies to the value and does not keep "
          "(auditflow/xbrl/inline.py)")
MESSAGE = (
    "{concept} has a value of {value}, tagged with an inline scale of {scale}, which is less than 1%. A banking "
    "ratio is not expected below 1%: check the scale."
)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    return not_applicable(RULE, f"cannot run: {REASON}", f"DQC {RULE} not run: it {REASON}")


SPEC = register(RuleSpec(
    id=RULE, title="Banking ratio below one percent with an inline scale", messages={CODE: MESSAGE},
    needs=frozenset({Need.FACTS, Need.TAXONOMY}), run=run, cannot_run=REASON,
    not_applicable=("cannot run", "form not in scope", "no data root"),
))
