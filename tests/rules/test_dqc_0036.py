"""DQC.US.0036: its conformance case and the examples of docs/rules/DQC_US_0036.md."""
from __future__ import annotations

from conformance import assert_clean_sample, assert_conformance, base, codes, run

RULE = "0036"


def case():
    b = base(period_end="2024-11-30")
    return b, ["DQC.US.0036.1"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0036_three_days_apart_is_fine(data_root):
    assert codes(run("0036", base(period_end="2025-01-03"), data_root)) == []
    assert codes(run("0036", base(period_end="2025-01-04"), data_root)) == ["DQC.US.0036.1"]
