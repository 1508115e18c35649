"""DQC.US.0051: its conformance case and the examples of docs/rules/DQC_US_0051.md."""
from __future__ import annotations

from builders import ext, gaap
from conformance import IS_URI, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0051"


def case():
    b = base()
    b.role(IS_URI, "0004 - Statement - Operations")
    b.calc(IS_URI, gaap("IncomeLossAttributableToParent"), [(gaap("OperatingIncomeLoss"), 1), (gaap("IncomeTaxExpenseBenefit"), -1)])
    return b, ["DQC.US.0051.7485"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0051_a_tax_added_through_two_negative_weights_is_fine(data_root):
    b = base()
    b.role(IS_URI, "0004 - Statement - Operations")
    b.calc(IS_URI, gaap("IncomeLossAttributableToParent"), [(ext("NetOfTaxEffects"), -1)])
    b.calc(IS_URI, ext("NetOfTaxEffects"), [(gaap("IncomeTaxExpenseBenefit"), -1)])
    r = run("0051", b, data_root)
    assert codes(r) == [] and r.consistent == 1
