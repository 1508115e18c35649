"""DQC.US.0157: registered but not run (docs/rules/DQC_US_0157.md): our facts do not keep the inline scale."""
from __future__ import annotations

import pytest

from auditflow.rules import registry
from auditflow.rules.finding import Outcome
from builders import gaap
from conformance import FY_END, assert_clean_sample, base, codes, run
from real_edits import load, run_rule

RULE = "0157"


def test_the_rule_says_why_it_cannot_run():
    spec = registry.get(RULE)
    assert "inline scale" in spec.cannot_run and spec.codes == ("DQC.US.0157.10077",)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0157_a_ratio_below_one_percent_is_not_judged(data_root):
    """The value 0.00085 could be 0.085% as written or 8.5% scaled twice: without the scale the rule cannot say."""
    b = base()
    b.fact(gaap("TierOneRiskBasedCapitalToRiskWeightedAssets"), "0.00085", FY_END, decimals=5)
    r = run(RULE, b, data_root)
    assert codes(r) == [] and [c.outcome for c in r.checks] == [Outcome.NOT_APPLICABLE]
    assert r.checks[0].reason.startswith("cannot run") and r.warnings


@pytest.mark.slow
def test_0157_a_real_inline_filing_is_reported_as_not_run(data_root):
    r = run_rule(RULE, load(data_root, "aapl-10k-2023-09-30"), data_root)
    assert r.findings == () and r.checks[0].reason.startswith("cannot run")
