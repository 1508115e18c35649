"""DQC.US.0067 — Revenue recognition elements of the old and the new standard mixed (docs/rules/DQC_US_0067.md).

A filing that uses the concepts of ASC 606 (US-GAAP disclosure network 606000, Revenue from Contracts with
Customers) has adopted that standard, and should not also use the revenue concepts of the superseded one
(network 440000, Revenue Recognition). Each non-nil fact of a 440000 concept in such a filing is a finding.
Facts on srt:StatementScenarioAxis (a pro-forma or a before-adoption column) count on neither side.
"""
from __future__ import annotations

import html
import re

from auditflow.rules.common import Collector, constant_keys, decoded_constant, gate, local_dims
from auditflow.rules.registry import CONSTANTS_2025, Need, RuleSpec, register
from auditflow.rules.resources import family_key

RULE = "0067"
CODE = "DQC.US.0067.7644"
SCENARIO = "StatementScenarioAxis"
SHOWN = 300  # characters of the old-standard fact's value the message quotes, as DQC does
TAG = re.compile(r"<[^>]*>")  # a text block's markup, dropped from the quote
MESSAGE = (
    "The filing reports \"{shown}\" for {concept}, a revenue recognition concept of the superseded standard "
    "(US-GAAP network 440000) that is not part of ASC 606 (network 606000). The filing also reports these concepts "
    "of ASC 606, which show that the standard has been adopted: {adopted}. Use either the new revenue recognition "
    "concepts or the old ones, not both in one filing."
)


def _on_scenario(env, f) -> bool:
    ctx = env.filing.contexts.get(f.context_id)
    return ctx is None or (bool(ctx.dimensions) and SCENARIO in local_dims(ctx))


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    old = decoded_constant(resources, "NETWORK440000", constant_keys)
    new = decoded_constant(resources, "NETWORK606000", constant_keys)
    adopted = sorted({f.concept.local for f in env.filing.facts
                      if family_key(f.concept) in new and not _on_scenario(env, f)})
    for f in env.filing.facts:
        if f.is_nil or family_key(f.concept) not in old or _on_scenario(env, f):
            continue
        if not adopted:
            c.consistent(f, "no ASC 606 concept is reported: the old standard's concepts are the filing's only ones")
            continue
        shown = " ".join(html.unescape(TAG.sub(" ", f.value or "")).split())
        c.violation(CODE, f, shown=shown[:SHOWN] + ("..." if len(shown) > SHOWN else ""), adopted=", ".join(adopted))
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Revenue recognition elements of two standards", messages={CODE: MESSAGE},
    needs=frozenset({Need.FACTS, Need.TAXONOMY}), run=run, resources=(CONSTANTS_2025,),
    fix_hint="Replace {concept}, a concept of the superseded revenue standard, with its ASC 606 counterpart.",
    not_applicable=("form not in scope", "no data root"),
))
