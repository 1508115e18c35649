"""DQC.US.0074: its conformance case, the examples of docs/rules/DQC_US_0074.md, and a real filing (as a
registration statement, the forms the rule runs on) with one typed member emptied."""
from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from auditflow.rules.dqc_0074 import nil_member
from auditflow.xbrl.model import TypedMember
from auditflow.xbrl.qname import QName
from builders import gaap
from conformance import FY, START_AXIS, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import load, run_rule, with_document_type

RULE = "0074"
RPO = gaap("RevenueRemainingPerformanceObligation")
INVESTMENT_AXIS = gaap("InvestmentIdentifierAxis")


def case():
    b = base(doc_type="S-1")
    b.fact(RPO, 1000, "2024-12-31", {START_AXIS: TypedMember("date=")})
    return b, ["DQC.US.0074.7649"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


@pytest.mark.parametrize("value,nil", [("date=", True), ("", True), ("date=2025-01-01", False), ("2025-01-01", False),
                                       ("id=ABC Corp, term loan", False)])
def test_0074_a_typed_member_is_nil_when_its_element_is_empty(value, nil):
    assert nil_member(TypedMember(value)) is nil
    assert nil_member(gaap("SomeMember")) is False


def test_0074_filled_typed_members_and_other_axes_are_fine(data_root):
    b = base(doc_type="S-1")
    b.fact(RPO, 1000, "2024-12-31", {START_AXIS: TypedMember("date=2025-01-01")})
    b.fact(gaap("InvestmentOwnedAtFairValue"), 5, "2024-12-31", {INVESTMENT_AXIS: TypedMember("id=Loan A")})
    b.fact(gaap("Revenues"), 7, FY, {gaap("StatementBusinessSegmentsAxis"): gaap("CorporateMember")})
    b.fact(gaap("Revenues"), 7, FY, {QName("http://example.com/x", "OwnTypedAxis", "x"): TypedMember("id=")})
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 2


def test_0074_every_listed_axis_counts_and_annual_reports_are_out_of_scope(data_root):
    b = base(doc_type="11-K")
    b.fact(gaap("InvestmentOwnedAtFairValue"), 5, "2024-12-31", {INVESTMENT_AXIS: TypedMember("id=")})
    dei_axis = QName("http://xbrl.sec.gov/dei/2024", "NameChangeEventDateAxis", "dei")
    b.fact(QName("http://xbrl.sec.gov/dei/2024", "EntityRegistrantName", "dei"), "Old name", FY, {dei_axis: TypedMember("")},
           unit=None, decimals=None)
    r = run(RULE, b, data_root)
    assert codes(r) == ["DQC.US.0074.7649"] * 2 and "NameChangeEventDateAxis" in r.findings[1].message
    k, _ = case()
    k.facts[0] = replace(k.facts[0], value="10-K")  # dei:DocumentType
    assert codes(run(RULE, k, data_root)) == []


@pytest.mark.slow
def test_0074_a_real_filing_as_a_registration_statement_reports_an_emptied_typed_member(data_root):
    aapl = load(data_root, "aapl-10k-2023-09-30")
    assert codes(run_rule(RULE, aapl, data_root)) == []  # a 10-K is not among the rule's forms
    s1 = with_document_type(aapl, "S-1")
    r = run_rule(RULE, s1, data_root)
    assert codes(r) == [] and r.consistent > 0  # its remaining-performance-obligation dates are filled in
    cid, ctx = next((cid, c) for cid, c in s1.contexts.items()
                    if any(a.local == START_AXIS.local for a, _m in c.dimensions))
    emptied = copy.copy(s1)
    emptied.contexts = {**s1.contexts, cid: replace(ctx, dimensions=tuple(
        (a, TypedMember(m.value.split("=", 1)[0] + "=") if a.local == START_AXIS.local else m) for a, m in ctx.dimensions))}
    r = run_rule(RULE, emptied, data_root)
    on_ctx = [f for f in s1.facts if f.context_id == cid]
    assert codes(r) == ["DQC.US.0074.7649"] * len(on_ctx) and {f.context_id for f in r.findings} == {cid}
