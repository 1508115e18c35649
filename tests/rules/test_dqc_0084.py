"""DQC.US.0084: its conformance case, the examples of docs/rules/DQC_US_0084.md, and real filings."""
from __future__ import annotations

from decimal import Decimal

import pytest

from auditflow.mutations import Mutation, apply_mutation
from auditflow.rules.finding import Outcome
from builders import ext, gaap
from conformance import assert_clean_sample, assert_conformance, base, codes, run
from real_edits import load, run_rule

RULE = "0084"
CODE = "DQC.US.0084.9298"
Q1, Q2, H1 = "2024-01-01..2024-03-31", "2024-04-01..2024-06-30", "2024-01-01..2024-06-30"
Q3, Q4, FY = "2024-07-01..2024-09-30", "2024-10-01..2024-12-31", "2024-01-01..2024-12-31"


def _quarters(b, concept, q1, q2, h1, **kw):
    b.fact(concept, q1, Q1, **kw)
    b.fact(concept, q2, Q2, **kw)
    b.fact(concept, h1, H1, **kw)
    return b


def case():
    b = _quarters(base(doc_type="10-Q"), gaap("Revenues"), 100000, 150000, 300000)  # 250,000 reported as 300,000
    return b, [CODE]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


@pytest.mark.parametrize("h1, decimals, flagged", [
    (250000, -3, False),  # exact
    (253000, -3, False),  # 3,000 off: (2 - 1) x 3 x 10^3 allowed
    (2500, 0, True),      # 1% rule: decimals 0, under 1%, flagged immaterial
])
def test_0084_sums_within_the_tolerance_are_consistent(data_root, h1, decimals, flagged):
    q1, q2 = (100000, 150000) if decimals else (1000, 1490)
    b = _quarters(base(doc_type="10-Q"), gaap("Revenues"), q1, q2, h1, decimals=decimals)
    if flagged:
        b.fact(ext("ImmaterialDifferenceFlag"), "true", FY, unit=None, decimals=None)
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 1


@pytest.mark.parametrize("h1, decimals", [(253001, -3), (2510, 0)])
def test_0084_sums_beyond_the_tolerance_are_reported(data_root, h1, decimals):
    q1, q2 = (100000, 150000) if decimals else (1000, 1500)
    r = run(RULE, _quarters(base(doc_type="10-Q"), gaap("Revenues"), q1, q2, h1, decimals=decimals), data_root)
    assert codes(r) == [CODE]
    f = r.findings[0]
    assert f.reported == Decimal(h1) and f.expected == Decimal(q1 + q2) and len(f.evidence) == 2
    assert ("ImmaterialDifferenceFlag" in f.message) == (decimals == 0)  # 10 off 2,510 is under 1%


def test_0084_four_quarters_and_nine_months_plus_a_quarter_make_the_year(data_root):
    b = base()
    for period, value in ((Q1, 10), (Q2, 20), (Q3, 30), (Q4, 40), ("2024-01-01..2024-09-30", 60), (FY, 100)):
        b.fact(gaap("CostOfRevenue"), value * 1000, period)
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 3  # 9M = Q1+Q2+Q3; FY = Q1..Q4 and 9M + Q4
    b.fact(gaap("CostOfRevenue"), 90000, "2023-01-01..2023-12-31")  # another year: not a sub-period
    assert codes(run(RULE, b, data_root)) == []
    b2 = base()
    for period, value in ((Q1, 10), (Q2, 20), (Q3, 30), (Q4, 45), (FY, 100)):  # 5,000 off: 3 x 3 x 10^3 allowed
        b2.fact(gaap("CostOfRevenue"), value * 1000, period)
    assert codes(run(RULE, b2, data_root)) == []
    b3 = base()
    for period, value in ((Q1, 10), (Q2, 20), (Q3, 30), (Q4, 50), (FY, 100)):  # 10,000 off
        b3.fact(gaap("CostOfRevenue"), value * 1000, period)
    r3 = run(RULE, b3, data_root)
    assert codes(r3) == [CODE] and len(r3.findings[0].evidence) == 4


def test_0084_what_it_does_not_sum(data_root):
    b = base(doc_type="10-Q")
    _quarters(b, ext("WidgetRevenue"), 1000, 2000, 9000)  # an extension concept
    _quarters(b, gaap("WeightedAverageNumberOfSharesOutstandingBasic"), 1000, 2000, 9000, unit="shares")
    _quarters(b, gaap("AverageRevenuePerUser"), 1000, 2000, 9000)  # "average" in the name
    b.fact(gaap("Revenues"), 1000, Q1)
    b.fact(gaap("Revenues"), 9000, H1)  # only two periods: nothing to sum
    assert codes(run(RULE, b, data_root)) == []


def test_0084_dimensions_and_units_are_kept_apart(data_root):
    b = base(doc_type="10-Q")
    seg = {gaap("StatementBusinessSegmentsAxis"): ext("WidgetsMember")}
    b.fact(gaap("Revenues"), 1000, Q1, seg)
    b.fact(gaap("Revenues"), 2000, Q2)
    b.fact(gaap("Revenues"), 3000, H1, seg)
    assert codes(run(RULE, b, data_root)) == []


# -- real filings -----------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_0084_real_cdif_10k_adds_up(data_root):
    r = run_rule(RULE, load(data_root, "filings-rolled/cdif-10k-2023-12-31"), data_root)
    assert r.findings == () and r.consistent > 10


@pytest.mark.slow
def test_0084_real_cch_10q_with_its_half_year_total_changed_is_reported(data_root):
    filing = load(data_root, "filings-rolled/cch-10q-2025-06-30")
    before = run_rule(RULE, filing, data_root)
    assert before.findings == ()
    total = next(c.fact_id for c in before.checks if c.outcome is Outcome.CONSISTENT and c.fact_id)
    fact = filing.fact_by_key(total)
    changed = apply_mutation(filing, Mutation("set_value", total, fact.number + Decimal(10) ** 9))
    after = run_rule(RULE, changed, data_root)
    assert [(f.code, f.fact_id) for f in after.findings] == [(CODE, total)]


@pytest.mark.slow
def test_0084_real_bicx_reports_its_profit_loss_that_does_not_add_up(data_root):
    r = run_rule(RULE, load(data_root, "filings-rolled/bicx-10q-2025-09-30"), data_root)
    assert [(f.code, f.concept.local, f.reported) for f in r.findings] == [(CODE, "ProfitLoss", Decimal("-3037545"))]
