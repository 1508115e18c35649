"""DQC.US.0094: its conformance case, the examples of docs/rules/DQC_US_0094.md, and real filings mutated."""
from __future__ import annotations

import pytest

from builders import gaap
from conformance import FY_END, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import concept_is, edited, load, run_rule, with_document_type

RULE = "0094"
REMAINDER = gaap("FiniteLivedIntangibleAssetsAmortizationExpenseRemainderOfFiscalYear")
YEAR_ONE = gaap("FiniteLivedIntangibleAssetsAmortizationExpenseNextTwelveMonths")
YEAR_TWO = gaap("FiniteLivedIntangibleAssetsAmortizationExpenseYearTwo")
BICX = "bicx-10q-2025-09-30"  # reports remainder, year one and year two of its amortisation schedule


def case():
    b = base()  # a 10-K ending 2024-12-31
    b.fact(REMAINDER, 500, FY_END)  # 9526: a remainder at the period end of an annual report
    b.fact(YEAR_TWO, 400, FY_END)  # ... and 9527: no year one beside it
    return b, ["DQC.US.0094.9526", "DQC.US.0094.9527"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0094_a_quarterly_schedule_with_all_three_years_is_consistent(data_root):
    q = base(doc_type="10-Q", focus="Q3")
    for concept, value in ((REMAINDER, 100), (YEAR_ONE, 400), (YEAR_TWO, 400)):
        q.fact(concept, value, FY_END)
    r = run(RULE, q, data_root)
    assert codes(r) == [] and r.consistent == 1


def test_0094_9526_only_when_the_remainder_ends_on_the_period_end(data_root):
    b = base()
    b.fact(REMAINDER, 500, "2024-06-30")  # an earlier schedule kept in the annual report
    assert codes(run(RULE, b, data_root)) == []
    b.fact(REMAINDER, 500, FY_END)
    assert codes(run(RULE, b, data_root)) == ["DQC.US.0094.9526"]


def test_0094_9527_aligns_by_dimensions_and_ignores_a_nil_year_two(data_root):
    q = base(doc_type="10-Q", focus="Q3")
    axis, member = gaap("FiniteLivedIntangibleAssetsByMajorClassAxis"), gaap("PatentsMember")
    q.fact(REMAINDER, 100, FY_END, {axis: member})
    q.fact(YEAR_TWO, 400, FY_END, {axis: member})
    q.fact(YEAR_ONE, 400, FY_END)  # year one without the member: not the same schedule line
    r = run(RULE, q, data_root)
    assert codes(r) == ["DQC.US.0094.9527"] and "PatentsMember" in r.findings[0].message
    nil_two = base(doc_type="10-Q", focus="Q3")
    nil_two.fact(REMAINDER, 100, FY_END)
    nil_two.fact(YEAR_TWO, None, FY_END, nil=True)
    assert codes(run(RULE, nil_two, data_root)) == []


@pytest.mark.slow
def test_0094_real_quarterly_report_is_clean_and_checked(data_root):
    r = run_rule(RULE, load(data_root, BICX), data_root)
    assert r.findings == () and r.consistent >= 1


@pytest.mark.slow
def test_0094_9526_a_real_quarterly_report_relabelled_annual(data_root):
    """bicx's remainder ends on its period end date: as a 10-K that remainder would be year one."""
    r = run_rule(RULE, with_document_type(load(data_root, BICX), "10-K"), data_root)
    assert set(codes(r)) == {"DQC.US.0094.9526"}
    assert all(f.concept.local == REMAINDER.local for f in r.findings)


@pytest.mark.slow
def test_0094_9527_a_real_schedule_without_its_year_one(data_root):
    filing = edited(load(data_root, BICX), drop=concept_is(YEAR_ONE.local))
    r = run_rule(RULE, filing, data_root)
    assert codes(r) and set(codes(r)) == {"DQC.US.0094.9527"}
    assert all(YEAR_ONE.local in f.message and YEAR_TWO.local in f.message for f in r.findings)
