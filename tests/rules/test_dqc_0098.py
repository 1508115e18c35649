"""DQC.US.0098: its conformance case and the examples of docs/rules/DQC_US_0098.md."""
from __future__ import annotations

from builders import gaap
from conformance import FY, PRIOR_END, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0098"


def case():
    b = base()
    b.fact(gaap("ContractWithCustomerLiabilityRevenueRecognized"), 500000, FY)
    b.fact(gaap("ContractWithCustomerLiability"), 300000, PRIOR_END)
    return b, ["DQC.US.0098.9531"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0098_within_the_opening_balance_and_the_parts(data_root):
    b = base()
    b.fact(gaap("ContractWithCustomerLiabilityRevenueRecognized"), 250000, FY)
    b.fact(gaap("ContractWithCustomerLiability"), 300000, PRIOR_END)
    r = run("0098", b, data_root)
    assert codes(r) == [] and r.consistent == 1
    b = base()
    b.fact(gaap("ContractWithCustomerLiabilityRevenueRecognized"), 500000, FY)
    b.fact(gaap("ContractWithCustomerLiabilityCurrent"), 200000, PRIOR_END)
    assert codes(run("0098", b, data_root)) == []  # the noncurrent part is missing: not compared
    b.fact(gaap("ContractWithCustomerLiabilityNoncurrent"), 50000, PRIOR_END)
    assert codes(run("0098", b, data_root)) == ["DQC.US.0098.9532"]
