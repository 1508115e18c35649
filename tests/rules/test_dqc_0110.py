"""DQC.US.0110: its conformance case, the examples of docs/rules/DQC_US_0110.md, and a real filing mutated."""
from __future__ import annotations

import pytest

from builders import ext, gaap
from conformance import assert_clean_sample, assert_conformance, base, codes, run
from real_edits import load, run_rule, without_dimensions

RULE = "0110"
PAID = gaap("BusinessCombinationConsiderationTransferred1")
ACQ_AXIS = gaap("BusinessAcquisitionAxis")
AMZN = "amzn-10k-2022-12-31"  # reports the price of each 2022 acquisition on BusinessAcquisitionAxis


def case():
    b = base()  # a 10-K for 2024: 366 days
    b.fact(PAID, 3900000, "2024-07-01..2024-07-31")  # one month, without an acquisition member
    return b, ["DQC.US.0110.9559"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


@pytest.mark.parametrize("period, fires", [
    ("2024-01-01..2024-12-31", False),  # the whole year
    ("2024-01-21..2024-12-31", False),  # 346 days: exactly 20 short, still the reporting period
    ("2024-01-22..2024-12-31", True),  # 345 days: more than 20 short
    ("2024-11-21..2024-11-21", True),  # the day of the acquisition
])
def test_0110_the_20_day_allowance(period, fires, data_root):
    b = base()
    b.fact(PAID, 1000, period)
    assert codes(run(RULE, b, data_root)) == (["DQC.US.0110.9559"] if fires else [])


def test_0110_a_fact_on_the_acquisition_axis_is_not_read(data_root):
    b = base()
    b.fact(PAID, 3900000, "2024-07-01..2024-07-31", {ACQ_AXIS: ext("WidgetCoMember")})
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 0


def test_0110_the_message_gives_both_lengths(data_root):
    b, _ = case()
    msg = run(RULE, b, data_root).findings[0].message
    assert "31 day(s)" in msg and "366 day(s)" in msg


@pytest.mark.slow
def test_0110_real_filing_untouched_has_no_finding(data_root):
    assert run_rule(RULE, load(data_root, AMZN), data_root).findings == ()


@pytest.mark.slow
def test_0110_real_acquisition_price_stripped_of_its_member(data_root):
    """amzn's one-month price of One Medical (A1LifeHealthcareMember), moved off the axis, is flagged."""
    filing = load(data_root, AMZN)
    one_month = {f.key for f in filing.facts if f.concept.local == PAID.local
                 and filing.contexts[f.context_id].period.days < 40}
    r = run_rule(RULE, without_dimensions(filing, lambda f: f.key in one_month), data_root)
    assert codes(r) == ["DQC.US.0110.9559"] * len(one_month) and len(one_month) == 2
