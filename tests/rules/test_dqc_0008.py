"""DQC.US.0008: its conformance case and the examples of docs/rules/DQC_US_0008.md."""
from __future__ import annotations

from builders import gaap
from conformance import BS_URI, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0008"


def case():
    b = base()
    b.role(BS_URI, "0002 - Statement - Balance Sheet")
    b.calc(BS_URI, gaap("AssetsCurrent"), [(gaap("Assets"), 1)])  # reversed: Assets is the total in US GAAP
    return b, ["DQC.US.0008.6819"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0008_the_us_gaap_direction_is_fine(data_root):
    b = base()
    b.role(BS_URI, "0002 - Statement - Balance Sheet")
    b.calc(BS_URI, gaap("Assets"), [(gaap("AssetsCurrent"), 1)])
    r = run("0008", b, data_root)
    assert codes(r) == [] and r.consistent == 1
