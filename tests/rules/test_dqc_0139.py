"""DQC.US.0139: its conformance case, every sub-rule of docs/rules/DQC_US_0139.md, and a real filing."""
from __future__ import annotations

import pytest

from auditflow.xbrl.model import Unit
from auditflow.xbrl.qname import QName
from builders import XBRLI, gaap, srt
from conformance import FY_END, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import edited, fact_like, first, load, run_rule

RULE = "0139"
PURE = Unit("pure", (QName(XBRLI, "pure", "xbrli"),))


def banking(**facts):
    b = base()
    b.units["pure"] = PURE
    for local, value in facts.items():
        ratio = local.endswith("RiskWeightedAssets") and local != "RiskWeightedAssets"
        b.fact(gaap(local), value, FY_END, unit="pure" if ratio else "usd", decimals=3 if ratio else -3)
    return b


def case():
    return banking(TierOneRiskBasedCapitalToRiskWeightedAssets="12.5"), ["DQC.US.0139.9855"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0139_a_sound_bank_has_no_finding(data_root):
    b = banking(TierOneRiskBasedCapitalToRiskWeightedAssets="0.125", TierOneRiskBasedCapital=900,
                TierOneRiskBasedCapitalRequiredForCapitalAdequacy=480, TierOneRiskBasedCapitalRequiredToBeWellCapitalized=640,
                TierOneRiskBasedCapitalRequiredForCapitalAdequacyToRiskWeightedAssets="0.06",
                TierOneRiskBasedCapitalRequiredToBeWellCapitalizedToRiskWeightedAssets="0.08",
                Assets=12000, RiskWeightedAssets=8000)
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 3 + 5  # three ratios in range, five comparisons


@pytest.mark.parametrize("facts, code", [
    (dict(TierOneRiskBasedCapital=900, TierOneRiskBasedCapitalRequiredForCapitalAdequacy=480000), "DQC.US.0139.9856"),
    (dict(Assets=12000, RiskWeightedAssets=8000000), "DQC.US.0139.9857"),
    (dict(TierOneRiskBasedCapitalRequiredForCapitalAdequacyToRiskWeightedAssets="0.1",
          TierOneRiskBasedCapitalRequiredToBeWellCapitalizedToRiskWeightedAssets="0.08"), "DQC.US.0139.9858"),
    (dict(TierOneRiskBasedCapitalRequiredForCapitalAdequacy=700, TierOneRiskBasedCapitalRequiredToBeWellCapitalized=640),
     "DQC.US.0139.9859"),
    (dict(TierOneRiskBasedCapitalToRiskWeightedAssets="0.05",
          TierOneRiskBasedCapitalRequiredForCapitalAdequacyToRiskWeightedAssets="0.06"), "DQC.US.0139.9860"),
])
def test_0139_each_comparison_trips_its_code(data_root, facts, code):
    assert codes(run(RULE, banking(**facts), data_root)) == [code]


def test_0139_a_minimum_that_includes_the_buffer_is_named(data_root):
    ratio = run(RULE, banking(TierOneRiskBasedCapitalRequiredForCapitalAdequacyToRiskWeightedAssets="0.085",
                              TierOneRiskBasedCapitalRequiredToBeWellCapitalizedToRiskWeightedAssets="0.08"), data_root)
    assert "WithBufferToRiskWeightedAssets" in ratio.findings[0].message
    amount = run(RULE, banking(TierOneRiskBasedCapitalRequiredForCapitalAdequacy=850,
                               TierOneRiskBasedCapitalRequiredToBeWellCapitalized=800), data_root)
    assert "buffer of 250" in amount.findings[0].message


def test_0139_ratios_of_consolidated_entities_and_unaligned_facts_are_not_compared(data_root):
    b = base()
    b.units["pure"] = PURE
    b.fact(gaap("TierOneRiskBasedCapitalToRiskWeightedAssets"), "12", FY_END, {srt("ConsolidatedEntitiesAxis"): srt("SubsidiariesMember")},
           unit="pure", decimals=2)
    b.fact(gaap("Assets"), 100, FY_END)
    b.fact(gaap("RiskWeightedAssets"), 800, "2023-12-31")  # another period: not compared
    assert codes(run(RULE, b, data_root)) == []


@pytest.mark.slow
def test_0139_real_filing_with_risk_weighted_assets_above_its_assets(data_root):
    """aapl 2023 has no banking facts; a RiskWeightedAssets fact next to its year-end Assets trips 9857 when it is
    larger (a scale slip), and is consistent when it is smaller."""
    filing = load(data_root, "aapl-10k-2023-09-30")
    assert run_rule(RULE, filing, data_root).findings == ()
    assets = first(filing, lambda f: f.concept.local == "Assets" and not filing.contexts[f.context_id].dimensions)
    rwa = gaap("RiskWeightedAssets")
    over = run_rule(RULE, edited(filing, add=[fact_like(assets, rwa, assets.number * 1000)]), data_root)
    assert codes(over) == ["DQC.US.0139.9857"] and over.findings[0].expected == assets.number
    under = run_rule(RULE, edited(filing, add=[fact_like(assets, rwa, assets.number / 2)]), data_root)
    assert codes(under) == [] and under.consistent == 1
