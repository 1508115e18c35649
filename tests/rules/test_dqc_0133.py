"""DQC.US.0133: its conformance case, the examples of docs/rules/DQC_US_0133.md, and real filings mutated."""
from __future__ import annotations

import pytest

from auditflow.xbrl.qname import QName
from builders import ext, gaap, make_unit, srt
from conformance import FY, FY_END, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import concept_is, load, run_rule, with_dimension, without_dimensions

RULE = "0133"
NAME_AXIS = srt("ScheduleOfEquityMethodInvestmentEquityMethodInvesteeNameAxis")
INVESTEE_AXIS = gaap("EquityMethodInvestmentNonconsolidatedInvesteeAxis")
OWNERSHIP = gaap("EquityMethodInvestmentOwnershipPercentage")
NGL = "ngl-10k-2024-03-31"  # its equity-method ownership percentages are on the investee-name axis
TOL = "tol-10k-2023-10-31"


def _pct(b):
    b.units["pure"] = make_unit("pure", "pure")
    return b


def case():
    b = _pct(base())
    b.fact(OWNERSHIP, "0.5", FY_END, unit="pure", decimals=2)  # 9831: no investee-name axis
    b.fact(gaap("Revenues"), 900, FY, {NAME_AXIS: ext("JointVentureAMember")})  # 9832: financial data on the name axis
    b.fact(gaap("EquityMethodInvestmentDividendsOrDistributions"), 40, FY, {INVESTEE_AXIS: ext("JointVentureAMember")})  # 9833
    return b, ["DQC.US.0133.9831", "DQC.US.0133.9832", "DQC.US.0133.9833"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0133_the_right_axes_are_consistent(data_root):
    b = _pct(base())
    b.fact(OWNERSHIP, "0.5", FY_END, {NAME_AXIS: ext("JointVentureAMember")}, unit="pure", decimals=2)
    b.fact(gaap("Revenues"), 900, FY, {INVESTEE_AXIS: ext("JointVentureAMember")})
    b.fact(gaap("EquityMethodInvestmentDividendsOrDistributions"), 40, FY, {NAME_AXIS: ext("JointVentureAMember")})
    b.fact(gaap("Revenues"), 5000, FY)  # the filer's own revenues: not an equity-method fact
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 3


def test_0133_a_fact_can_fail_two_sub_rules(data_root):
    b = _pct(base())
    b.fact(OWNERSHIP, "0.25", FY_END, {INVESTEE_AXIS: ext("JointVentureAMember")}, unit="pure", decimals=2)
    assert codes(run(RULE, b, data_root)) == ["DQC.US.0133.9831", "DQC.US.0133.9833"]


@pytest.mark.slow
def test_0133_real_filing_untouched_is_consistent(data_root):
    r = run_rule(RULE, load(data_root, NGL), data_root)
    assert r.findings == () and r.consistent > 0


@pytest.mark.slow
def test_0133_9831_real_ownership_percentages_off_the_name_axis(data_root):
    r = run_rule(RULE, without_dimensions(load(data_root, NGL), concept_is(OWNERSHIP.local)), data_root)
    assert codes(r) and set(codes(r)) == {"DQC.US.0133.9831"}


@pytest.mark.slow
def test_0133_9832_real_investee_revenue_put_on_the_name_axis(data_root):
    filing = load(data_root, NGL)
    srt_ns = next(a.namespace for c in filing.contexts.values() for a, _m in c.dimensions if a.local == NAME_AXIS.local)
    ns = next(f.concept.namespace for f in filing.facts if f.concept.local == "Revenues")
    first = next(f.key for f in filing.facts if f.concept.local == "Revenues")
    mutated = with_dimension(filing, lambda f: f.key == first, QName(srt_ns, NAME_AXIS.local, "srt"),
                             QName(ns.replace("us-gaap", "ngl"), "JointVentureAMember", "ngl"))
    assert codes(run_rule(RULE, mutated, data_root)) == ["DQC.US.0133.9832"]


@pytest.mark.slow
def test_0133_real_filing_with_ownership_on_the_investee_axis(data_root):
    """tol reports ownership ranges on EquityMethodInvestmentNonconsolidatedInvesteeAxis (filer errors)."""
    found = codes(run_rule(RULE, load(data_root, TOL), data_root))
    assert "DQC.US.0133.9831" in found and "DQC.US.0133.9833" in found
