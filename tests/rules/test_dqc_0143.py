"""DQC.US.0143: its conformance case, the examples of docs/rules/DQC_US_0143.md, and a real filing."""
from __future__ import annotations

from dataclasses import replace

import pytest

from builders import gaap
from conformance import FY, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import edited, first, load, run_rule

RULE = "0143"
POSITION = gaap("DerivativePositionExtensibleEnumeration")
NS = "http://fasb.org/us-gaap/2024#"


def with_position(value: str, b=None):
    b = b or base()
    b.fact(POSITION, value, FY, unit=None, decimals=None)
    return b


def case():
    return with_position(NS + "SwapMember"), ["DQC.US.0143.9865"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


@pytest.mark.parametrize("value", [NS + "CallOptionMember", NS + "PutOptionMember",
                                   f"{NS}CallOptionMember {NS}PutOptionMember", "us-gaap:PutOptionMember"])
def test_0143_a_call_or_a_put_is_fine(data_root, value):
    r = run(RULE, with_position(value), data_root)
    assert codes(r) == [] and r.consistent == 1


def test_0143_the_message_names_the_allowed_members(data_root):
    f = run(RULE, with_position(NS + "ForwardContractsMember"), data_root).findings[0]
    assert "CallOptionMember or PutOptionMember" in f.message and "ForwardContractsMember" in f.message


def test_0143_runs_on_every_form(data_root):
    """0143 has no row in the 2026 rule-form lookup: DQC runs it on every form."""
    assert codes(run(RULE, with_position(NS + "SwapMember", base(doc_type="8-K")), data_root)) == ["DQC.US.0143.9865"]


@pytest.mark.slow
def test_0143_real_filing_with_an_enumeration_retagged_as_the_derivative_position(data_root):
    """aapl 2023 reports no derivative position; its hedged-asset location enumeration (balance sheet line items)
    retagged as DerivativePositionExtensibleEnumeration names neither a call nor a put."""
    filing = load(data_root, "aapl-10k-2023-09-30")
    assert run_rule(RULE, filing, data_root).checks == ()
    enum = first(filing, lambda f: f.concept.local == "HedgedAssetStatementOfFinancialPositionExtensibleEnumeration")
    r = run_rule(RULE, edited(filing, change=lambda f: replace(f, concept=POSITION) if f is enum else f), data_root)
    assert codes(r) == ["DQC.US.0143.9865"] and r.findings[0].fact_id == enum.key
