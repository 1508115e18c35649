"""DQC.US.0112: its conformance case, the examples of docs/rules/DQC_US_0112.md, and a real filing mutated."""
from __future__ import annotations

import pytest

from builders import ext, gaap
from conformance import FY, FY_END, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import concept_is, load, run_rule, without_dimensions

RULE = "0112"
ACQ_AXIS = gaap("BusinessAcquisitionAxis")
VOTES = gaap("BusinessAcquisitionPercentageOfVotingInterestsAcquired")
HI = "hi-10k-2020-09-30"  # Hillenbrand: the Milacron acquisition, on BusinessAcquisitionAxis


def case():
    b = base()
    b.fact(VOTES, "1.00", "2024-03-01", unit="pure", decimals=2)
    return b, ["DQC.US.0112.9561"]


def _with_pure(b):
    from builders import make_unit
    b.units["pure"] = make_unit("pure", "pure")
    return b


def test_conformance_case_reports_exactly_its_codes(data_root):
    def with_unit():
        b, expected = case()
        return _with_pure(b), expected
    assert_conformance(RULE, with_unit, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0112_on_the_axis_is_consistent_and_another_axis_is_not_enough(data_root):
    b = _with_pure(base())
    b.fact(VOTES, "1.00", "2024-03-01", {ACQ_AXIS: ext("WidgetCoMember")}, unit="pure", decimals=2)
    b.fact(gaap("BusinessAcquisitionNameOfAcquiredEntity"), "Widget Co", FY,
           {gaap("StatementBusinessSegmentsAxis"): ext("RetailMember")}, unit=None, decimals=None)
    b.fact(gaap("BusinessAcquisitionCostOfAcquiredEntityTransactionCosts"), 5000, FY)  # not listed
    r = run(RULE, b, data_root)
    assert codes(r) == ["DQC.US.0112.9561"] and r.consistent == 1
    assert "Widget Co" in r.findings[0].message and "RetailMember" in r.findings[0].message


def test_0112_a_long_text_value_is_shortened_in_the_message(data_root):
    b = base()
    b.fact(gaap("BusinessCombinationReasonForBusinessCombination"), "growth " * 100, FY_END, unit=None, decimals=None)
    msg = run(RULE, b, data_root).findings[0].message
    assert "growth growth" in msg and "..." in msg and msg.count("growth") < 40


@pytest.mark.slow
def test_0112_real_filing_untouched_is_consistent(data_root):
    r = run_rule(RULE, load(data_root, HI), data_root)
    assert r.findings == () and r.consistent >= 1


@pytest.mark.slow
def test_0112_real_voting_interest_taken_off_the_acquisition_axis(data_root):
    filing = without_dimensions(load(data_root, HI), concept_is(VOTES.local))
    r = run_rule(RULE, filing, data_root)
    assert codes(r) and set(codes(r)) == {"DQC.US.0112.9561"}
    assert all(f.concept.local == VOTES.local for f in r.findings)
