"""DQC.US.0088: its conformance case, each code, and real filings whose operating lease cost is re-tagged as
operating lease expense (docs/rules/DQC_US_0088.md)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from auditflow.xbrl.qname import QName
from builders import ext, gaap
from conformance import FY, IS_URI, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import edited, load, replaced, run_rule

RULE = "0088"
EXPENSE, VARIABLE, COST = gaap("OperatingLeaseExpense"), gaap("VariableLeaseCost"), gaap("OperatingLeaseCost")


def case():
    b = base()
    b.fact(EXPENSE, 900, FY)
    b.fact(VARIABLE, 100, FY)
    b.calc(IS_URI, gaap("LeaseCost"), [(EXPENSE, 1), (VARIABLE, 1)])
    return b, ["DQC.US.0088.9372", "DQC.US.0088.10094"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0088_9372_needs_variable_lease_cost_and_no_operating_lease_cost_in_the_period(data_root):
    b = base()
    b.fact(EXPENSE, 900, FY)
    assert codes(run(RULE, b, data_root)) == []  # rent expense alone: no sign of ASC 842
    b.fact(VARIABLE, 100, "2023-01-01..2023-12-31")
    assert codes(run(RULE, b, data_root)) == []  # variable lease cost of another period
    b.fact(VARIABLE, 100, FY, {gaap("StatementBusinessSegmentsAxis"): ext("WidgetsMember")})
    assert codes(run(RULE, b, data_root)) == ["DQC.US.0088.9372"]  # any dimensions count
    b.fact(COST, 800, FY)
    r = run(RULE, b, data_root)
    assert codes(r) == [] and "OperatingLeaseCost is reported" in r.checks[0].reason


def test_0088_10094_only_below_lease_cost_at_any_depth(data_root):
    b = base()
    b.calc(IS_URI, gaap("NetCashProvidedByUsedInOperatingActivities"), [(EXPENSE, 1)])
    assert codes(run(RULE, b, data_root)) == []
    b.calc(IS_URI, gaap("LeaseCost"), [(ext("OperatingLeaseCostTotal"), 1)])
    b.calc(IS_URI, ext("OperatingLeaseCostTotal"), [(EXPENSE, 1)])
    f = run(RULE, b, data_root).findings
    assert [x.code for x in f] == ["DQC.US.0088.10094"] and f[0].concept == EXPENSE


def _renamed(filing, old: str, new: str, *, facts: bool, arcs: bool):
    def q(c):
        return QName(c.namespace, new, c.prefix) if c.local == old else c

    out = edited(filing, change=lambda f: replace(f, concept=q(f.concept))) if facts else filing
    return replaced(out, arcs=[replace(a, source=q(a.source), target=q(a.target)) for a in out.arcs]) if arcs else out


@pytest.mark.slow
def test_0088_a_real_operating_lease_cost_tagged_as_expense_is_reported(data_root):
    aapl = load(data_root, "aapl-10k-2023-09-30")
    assert codes(run_rule(RULE, aapl, data_root)) == []
    retagged = _renamed(aapl, "OperatingLeaseCost", "OperatingLeaseExpense", facts=True, arcs=False)
    n = sum(1 for f in aapl.facts if f.concept.local == "OperatingLeaseCost" and not f.is_nil)
    assert n and codes(run_rule(RULE, retagged, data_root)) == ["DQC.US.0088.9372"] * n


@pytest.mark.slow
def test_0088_a_real_lease_cost_calculation_with_the_expense_concept_is_reported(data_root):
    ngl = load(data_root, "ngl-10k-2024-03-31")
    assert codes(run_rule(RULE, ngl, data_root)) == []
    retagged = _renamed(ngl, "OperatingLeaseCost", "OperatingLeaseExpense", facts=False, arcs=True)
    assert codes(run_rule(RULE, retagged, data_root)) == ["DQC.US.0088.10094"]
