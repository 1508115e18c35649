"""DQC.US.0087: its conformance case, each code and what clears it, and real filings perturbed, corrected and
untouched (docs/rules/DQC_US_0087.md)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from auditflow.rules.dqc_0087 import LIST
from auditflow.xbrl.qname import QName
from builders import ext, gaap, presentation_arcs
from conformance import BS_URI, FY_END, PRIOR_END, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import edited, load, run_rule

RULE = "0087"
TOTAL, CURRENT, NONCURRENT = (gaap("OperatingLeaseLiability"), gaap("OperatingLeaseLiabilityCurrent"),
                              gaap("OperatingLeaseLiabilityNoncurrent"))
LOCATION = gaap("BalanceSheetLocationAxis")


def case():
    b = base()
    b.fact(TOTAL, 1000, FY_END)
    return b, ["DQC.US.0087.9369"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


@pytest.mark.parametrize("concept,code", [(TOTAL, "DQC.US.0087.9369"), (CURRENT, "DQC.US.0087.9370"),
                                          (NONCURRENT, "DQC.US.0087.9371")])
def test_0087_each_liability_outside_the_statements_and_what_clears_it(concept, code, data_root):
    b = base()
    b.fact(concept, 1000, FY_END)
    b.fact(concept, 0, PRIOR_END)  # a zero liability is not checked
    assert codes(run(RULE, b, data_root)) == [code]
    b.fact(gaap(concept.local + LIST), "us-gaap:OtherLiabilitiesNoncurrent", FY_END, unit=None, decimals=None)
    assert codes(run(RULE, b, data_root)) == []  # the extensible list names the caption
    b = base()
    b.fact(concept, 1000, FY_END)
    b.role(BS_URI, "0002 - Statement - Balance Sheet")
    b.arcs += presentation_arcs(BS_URI, gaap("StatementOfFinancialPositionAbstract"), [concept])
    assert codes(run(RULE, b, data_root)) == []  # on the balance sheet


def test_0087_the_location_axis_clears_it_with_two_captions_not_with_one(data_root):
    b = base()
    b.fact(TOTAL, 1000, FY_END)
    b.fact(TOTAL, 1000, FY_END, {LOCATION: ext("AccruedLiabilitiesMember")})  # one caption holds it all
    r = run(RULE, b, data_root)
    assert codes(r) == ["DQC.US.0087.9369"] * 2 and "one member only (ext:AccruedLiabilitiesMember)" in r.findings[0].message
    b.fact(TOTAL, 400, FY_END, {LOCATION: ext("OtherLiabilitiesMember")})  # split across two captions
    assert codes(run(RULE, b, data_root)) == []
    b = base()
    b.fact(TOTAL, 1000, FY_END)
    b.fact(TOTAL, 300, FY_END, {LOCATION: ext("AccruedLiabilitiesMember")})  # one location holding part of it
    assert codes(run(RULE, b, data_root)) == []


def test_0087_the_total_is_cleared_by_its_parts_and_the_forms_differ_per_code(data_root):
    b = base()
    b.fact(TOTAL, 1000, FY_END)
    b.fact(CURRENT, 200, FY_END, {LOCATION: ext("AccruedLiabilitiesMember")})
    assert codes(run(RULE, b, data_root)) == ["DQC.US.0087.9370"]  # the current part on the axis clears the total
    q = base(doc_type="10-Q")
    q.fact(TOTAL, 1000, FY_END)
    assert codes(run(RULE, q, data_root)) == []
    amended = base(doc_type="10-K/A")
    amended.fact(CURRENT, 1000, FY_END)
    amended.fact(NONCURRENT, 1000, FY_END)
    assert codes(run(RULE, amended, data_root)) == ["DQC.US.0087.9370"]  # DQC checks 9371 on 10-K, 10-KT, 20-F only


@pytest.mark.slow
def test_0087_a_real_filing_without_its_extensible_lists_is_reported(data_root):
    aapl = load(data_root, "aapl-10k-2023-09-30")
    r = run_rule(RULE, aapl, data_root)
    assert codes(r) == [] and r.consistent == 5
    stripped = edited(aapl, drop=lambda f: f.concept.local.endswith(LIST) and "OperatingLease" in f.concept.local)
    r = run_rule(RULE, stripped, data_root)
    assert sorted(set(codes(r))) == ["DQC.US.0087.9369", "DQC.US.0087.9370", "DQC.US.0087.9371"]


@pytest.mark.slow
def test_0087_a_real_liability_outside_the_statements_and_its_correction(data_root):
    abqq = load(data_root, "abqq-10k-2023-08-31")
    r = run_rule(RULE, abqq, data_root)
    assert codes(r) == ["DQC.US.0087.9369"] and r.findings[0].concept.local == "OperatingLeaseLiability"
    model = next(f for f in abqq.facts if f.key == r.findings[0].fact_id)
    named = replace(model, concept=QName(model.concept.namespace, "OperatingLeaseLiability" + LIST, "us-gaap"),
                    value="us-gaap:OtherLiabilitiesNoncurrent", unit_id=None, decimals=None, id="added-list")
    assert codes(run_rule(RULE, edited(abqq, add=[named]), data_root)) == []
