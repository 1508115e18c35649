"""DQC.US.0107 — Acquired intangible assets text block used with the business acquisition axis
(docs/rules/DQC_US_0107.md).

ScheduleOfAcquiredFiniteLivedIntangibleAssetsByMajorClassTextBlock describes intangible assets bought on
their own. Reported on BusinessAcquisitionAxis it says the assets came with a business combination, which
has its own text block: ScheduleOfFiniteLivedIntangibleAssetsAcquiredAsPartOfBusinessCombinationTextBlock.
"""
from __future__ import annotations

import html
import re

from auditflow.rules.common import US_GAAP, Collector, facts_named, gate, local_dims
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0107"
CODE = "DQC.US.0107.9557"
TEXT_BLOCK = "ScheduleOfAcquiredFiniteLivedIntangibleAssetsByMajorClassTextBlock"
AXIS = "BusinessAcquisitionAxis"
SNIPPET = 300  # characters of the text block the message shows, as DQC's does
MESSAGE = (
    "The text block {concept} (\"{snippet}...\") is reported on BusinessAcquisitionAxis ({member}). On that axis the "
    "intangible assets were acquired in a business combination: tag the text block with "
    "ScheduleOfFiniteLivedIntangibleAssetsAcquiredAsPartOfBusinessCombinationTextBlock instead."
)
_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")


def snippet(text: str | None, size: int = SNIPPET) -> str:
    """The first ``size`` characters of a text block's visible text (tags dropped, entities and spaces folded)."""
    plain = _SPACE.sub(" ", html.unescape(_TAG.sub(" ", text or ""))).strip()
    return plain[:size]


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    for f in facts_named(env, TEXT_BLOCK, US_GAAP):
        ctx = env.filing.contexts.get(f.context_id)
        if f.is_nil or ctx is None:
            continue
        member = local_dims(ctx).get(AXIS)
        if member is None:
            c.consistent(f, "not on BusinessAcquisitionAxis")
        else:
            c.violation(CODE, f, member=member, snippet=snippet(f.value))
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Acquired intangible assets text block on the business acquisition axis", messages={CODE: MESSAGE},
    needs=frozenset({Need.FACTS}), run=run, not_applicable=("no data root",),
))
