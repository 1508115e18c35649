"""DQC.US.0076: its conformance case and the examples of docs/rules/DQC_US_0076.md."""
from __future__ import annotations

from builders import gaap
from conformance import FY_END, START_AXIS, _start, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0076"


def case():
    b = base()
    b.fact(gaap("RevenueRemainingPerformanceObligation"), 1000000, FY_END, {START_AXIS: _start("2025-01-01")})
    return b, ["DQC.US.0076.7653"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0076_any_duration_on_the_axis_is_enough(data_root):
    b, _ = case()
    b.fact(gaap("RevenueRemainingPerformanceObligationExpectedTimingOfSatisfactionPeriod1"), "P1Y", FY_END,
           {START_AXIS: _start("2025-01-01")}, unit=None, decimals=None)
    r = run("0076", b, data_root)
    assert codes(r) == [] and r.consistent == 1
