"""DQC.US.0139 — Banking regulatory capital values (docs/rules/DQC_US_0139.md).

Six plausibility tests of a bank's regulatory capital disclosures: ratios that must lie between zero and
one (9855), Tier 1 capital against the amount required for capital adequacy (9856), assets against
risk-weighted assets (9857), the adequacy minimum against the well-capitalized minimum as a ratio (9858)
and as an amount (9859), and the Tier 1 ratio against the adequacy minimum ratio (9860). A failed test
usually means a value tagged with the wrong scale.
"""
from __future__ import annotations

from decimal import Decimal

from auditflow.rules.common import (
    US_GAAP, Collector, alignment, decoded_constant, differs, facts_named, gate, local_dims, min_decimals,
    numeric_items,
)
from auditflow.rules.properties import locals_of
from auditflow.rules.registry import CONSTANTS_2025, Need, RuleSpec, register

RULE = "0139"
RATIOS = "BANKING_MEASURES_BETWEEN_ZERO_AND_ONE"
SCALE = "Check that the values are tagged with the right scale."
MESSAGES = {
    "DQC.US.0139.9855": (
        "{concept} has a value of {value}, more than 100 percent. This banking measure is a ratio between zero and one "
        "(in XBRL 1 means 100%): check the scale of the value."),
    "DQC.US.0139.9856": (
        "Tier 1 capital (TierOneRiskBasedCapital) of {other} is less than the minimum Tier 1 capital for capital "
        "adequacy ({concept}) of {value}. Tier 1 capital is normally above the amount required to be adequately "
        "capitalized. " + SCALE),
    "DQC.US.0139.9857": (
        "The bank's Assets of {other} are less than its risk-weighted assets ({concept}) of {value}. Risk-weighted "
        "assets should not exceed the bank's assets. " + SCALE),
    "DQC.US.0139.9858": (
        "The Tier 1 capital ratio required for capital adequacy ({concept}) of {value} is greater than the ratio "
        "required to be well capitalized ({other}). {advice}"),
    "DQC.US.0139.9859": (
        "The Tier 1 capital required for capital adequacy ({concept}) of {value} is greater than the Tier 1 capital "
        "required to be well capitalized ({other}). {advice}"),
    "DQC.US.0139.9860": (
        "The Tier 1 capital ratio (TierOneRiskBasedCapitalToRiskWeightedAssets) of {other} is less than the ratio "
        "required for capital adequacy ({concept}) of {value}. Tier 1 capital is normally above that minimum. " + SCALE),
}
# code, the focus concept, the other concept: the focus must not exceed the aligned other fact
PAIRS = (
    ("DQC.US.0139.9856", "TierOneRiskBasedCapitalRequiredForCapitalAdequacy", "TierOneRiskBasedCapital"),
    ("DQC.US.0139.9857", "RiskWeightedAssets", "Assets"),
    ("DQC.US.0139.9858", "TierOneRiskBasedCapitalRequiredForCapitalAdequacyToRiskWeightedAssets",
     "TierOneRiskBasedCapitalRequiredToBeWellCapitalizedToRiskWeightedAssets"),
    ("DQC.US.0139.9859", "TierOneRiskBasedCapitalRequiredForCapitalAdequacy", "TierOneRiskBasedCapitalRequiredToBeWellCapitalized"),
    ("DQC.US.0139.9860", "TierOneRiskBasedCapitalRequiredForCapitalAdequacyToRiskWeightedAssets",
     "TierOneRiskBasedCapitalToRiskWeightedAssets"),
)
BUFFER_RATIO = Decimal("0.085")


def _advice(code: str, focus, other) -> str:
    """DQC's second sentence of 9858/9859: a minimum of 8.5% (or 8.5/8 of the well-capitalized amount) looks
    like the 2.5% conservation buffer included, which has its own extension concept."""
    value, well = focus.number, other.number
    if code == "DQC.US.0139.9858":
        if value != BUFFER_RATIO:
            return SCALE
        return ("The minimum looks like it includes the 2.5% capital conservation buffer: a minimum with the buffer is "
                "tagged with an extension (TierOneRiskBasedCapitalRequiredForCapitalAdequacyWithBufferToRiskWeightedAssets), "
                "not with this concept.")
    with_buffer = BUFFER_RATIO * well / Decimal("0.08")
    far, _ = differs(value, with_buffer, min_decimals([focus]))
    if far:
        return SCALE
    buffer = Decimal("0.025") * well / Decimal("0.08")
    return (f"The amount looks like it includes a capital conservation buffer of {buffer.normalize():f}: a minimum with the "
            "buffer is tagged with an extension (TierOneRiskBasedCapitalRequiredForCapitalAdequacyWithBuffer), not with "
            "this concept.")


def _ratios(env, c: Collector, names: frozenset[str]) -> None:
    for f, ctx, n in numeric_items(env, (f for q, fs in sorted(env.index.by_concept.items(), key=lambda kv: kv[0].clark())
                                         if q.local in names and q.namespace.startswith(US_GAAP) for f in fs)):
        if "ConsolidatedEntitiesAxis" in local_dims(ctx):
            continue
        if n > 1:
            c.violation("DQC.US.0139.9855", f)
        else:
            c.consistent(f, "a ratio between zero and one")


def _pairs(env, c: Collector) -> None:
    for code, focus_local, other_local in PAIRS:
        others = {}
        for f, ctx, _n in numeric_items(env, facts_named(env, other_local, US_GAAP)):
            others.setdefault(alignment(env, f, ctx), f)
        for f, ctx, n in numeric_items(env, facts_named(env, focus_local, US_GAAP)):
            other = others.get(alignment(env, f, ctx))
            if other is None:
                continue
            if n <= other.number:
                c.consistent(f, f"{focus_local} does not exceed {other_local}")
                continue
            advice = _advice(code, f, other) if code in ("DQC.US.0139.9858", "DQC.US.0139.9859") else ""
            c.violation(code, f, other=other.number, advice=advice, evidence=(other,), expected=other.number)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    _ratios(env, c, decoded_constant(resources, RATIOS, locals_of))
    _pairs(env, c)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Banking regulatory capital values", messages=MESSAGES,
    needs=frozenset({Need.FACTS, Need.TAXONOMY}), run=run, resources=(CONSTANTS_2025,),
    not_applicable=("form not in scope", "no data root"),
    fix_hint="Check the scale of {concept} ({reported}) against {expected}.",
))
