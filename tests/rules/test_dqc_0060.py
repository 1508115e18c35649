"""DQC.US.0060: its conformance case and the examples of docs/rules/DQC_US_0060.md."""
from __future__ import annotations

from builders import gaap
from conformance import FY, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0060"


def case():
    b = base()
    b.fact(gaap("NetCashProvidedByUsedInFinancingActivitiesContinuingOperations"), -52100000, FY)
    return b, ["DQC.US.0060.7495"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0060_the_total_or_the_discontinued_part_is_enough(data_root):
    for other in ("NetCashProvidedByUsedInFinancingActivities", "CashProvidedByUsedInFinancingActivitiesDiscontinuedOperations"):
        b, _ = case()
        b.fact(gaap(other), 0, FY)
        r = run("0060", b, data_root)
        assert codes(r) == [] and r.consistent == 1
