"""DQC.US.0011: its conformance case, every pair of the constants, the examples of docs/rules/DQC_US_0011.md, and
a real filing perturbed and untouched."""
from __future__ import annotations

from decimal import Decimal

import pytest

from auditflow.graphs.environment import build_environment
from auditflow.mutations import Mutation, apply_mutation
from auditflow.rules import registry
from auditflow.rules.dqc_0011 import ELEMENT_IDS, pairs
from auditflow.rules.finding import Outcome
from auditflow.rules.resources import Resources
from auditflow.xbrl.loader import load_filing
from builders import gaap
from conformance import FY, FY_END, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0011"
AXIS = gaap("StatementEquityComponentsAxis")
EQUITY = gaap("StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest")


def case():
    b = base()
    b.fact(gaap("AdditionalPaidInCapital"), 500000, FY_END)
    b.fact(EQUITY, 480000, FY_END, {AXIS: gaap("AdditionalPaidInCapitalMember")})
    return b, ["DQC.US.0011.6825"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0011_the_constants_pairs_are_the_registered_codes(data_root):
    assert tuple(p[0] for p in pairs(Resources(data_root))) == ELEMENT_IDS
    assert registry.get(RULE).codes == tuple(f"DQC.US.0011.{sid}" for sid in ELEMENT_IDS)


@pytest.mark.parametrize("sid", ELEMENT_IDS)
def test_0011_every_pair_trips_its_own_code_and_passes_when_equal(sid, data_root):
    _, line, twin, axis, member, weight = next(p for p in pairs(Resources(data_root)) if p[0] == sid)
    period = FY if line == "NetIncomeLoss" else FY_END
    for twin_value, expected in ((700 * weight, []), (-700 * weight, [f"DQC.US.0011.{sid}"])):
        b = base()
        b.fact(gaap(line), 700, period, decimals=0)
        b.fact(gaap(twin), twin_value, period, {gaap(axis[1]): gaap(member[1])}, decimals=0)
        assert codes(run(RULE, b, data_root)) == expected


def test_0011_tolerance_is_two_in_the_last_place_of_the_coarser_fact(data_root):
    def result(twin_value, decimals):
        b = base()
        b.fact(gaap("CommonStockValue"), 1000, FY_END, decimals=0)
        b.fact(EQUITY, twin_value, FY_END, {AXIS: gaap("CommonStockMember")}, decimals=decimals)
        return codes(run(RULE, b, data_root))

    assert result(1002, 0) == [] and result(1003, 0) == ["DQC.US.0011.6824"]
    assert result(2900, -3) == []  # rounded to thousands both are 1,000 and 3,000: still within 2,000


def test_0011_only_the_twin_alone_on_the_axis_and_the_same_period_and_unit_are_compared(data_root):
    b = base()
    b.fact(gaap("CommonStockValue"), 1000, FY_END)
    b.fact(EQUITY, 5000, FY_END, {AXIS: gaap("CommonStockMember"), gaap("StatementClassOfStockAxis"): gaap("CommonClassAMember")})
    b.fact(EQUITY, 5000, "2023-12-31", {AXIS: gaap("CommonStockMember")})
    b.fact(gaap("CommonStockValue"), 9000, FY_END, {gaap("StatementClassOfStockAxis"): gaap("CommonClassAMember")})
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 0


def test_0011_the_message_names_both_facts_and_the_weighted_value(data_root):
    b = base()
    b.fact(gaap("TreasuryStockValue"), 300, FY_END, decimals=0)
    b.fact(EQUITY, 300, FY_END, {AXIS: gaap("TreasuryStockMember")}, decimals=0)  # weight -1: should be -300
    f = run(RULE, b, data_root).findings[0]
    assert f.code == "DQC.US.0011.6827" and f.expected == Decimal(-300)
    assert "TreasuryStockMember" in f.message and "times -1 (that is -300" in f.message


REAL = "filings/tsla-10q-2024-06-30"


@pytest.mark.slow
def test_0011_a_real_filing_untouched_is_consistent_and_perturbed_is_reported(data_root):
    spec, res = registry.get(RULE), Resources(data_root)
    filing = load_filing(data_root / REAL)
    before = spec.run(build_environment(filing), res)
    assert before.findings == ()
    checked = [c for c in before.checks if c.outcome is Outcome.CONSISTENT]
    assert checked, "tsla's equity statement has dimensional twins to compare"
    fact = filing.fact_by_key(checked[0].fact_id)
    after = spec.run(build_environment(apply_mutation(filing, Mutation("set_value", fact.key, fact.number + 10 ** 9))), res)
    assert after.findings and {f.fact_id for f in after.findings} == {fact.key}
    assert all(f.code.startswith("DQC.US.0011.") and f.reported == fact.number + 10 ** 9 for f in after.findings)
