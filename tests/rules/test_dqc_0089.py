"""DQC.US.0089: its conformance case and the examples of docs/rules/DQC_US_0089.md."""
from __future__ import annotations

from builders import gaap, srt
from conformance import FY_END, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0089"


def case():
    b = base()
    b.fact(gaap("OperatingLeaseWeightedAverageRemainingLeaseTerm1"), "P5Y", FY_END, {srt("RangeAxis"): srt("MaximumMember")},
           unit=None, decimals=None)
    return b, ["DQC.US.0089.9373"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0089_without_the_range_axis_is_fine(data_root):
    b = base()
    b.fact(gaap("OperatingLeaseWeightedAverageRemainingLeaseTerm1"), "P5Y", FY_END, unit=None, decimals=None)
    r = run("0089", b, data_root)
    assert codes(r) == [] and r.consistent == 1
