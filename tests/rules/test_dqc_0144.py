"""DQC.US.0144: its conformance case, the examples of docs/rules/DQC_US_0144.md, and a real filing."""
from __future__ import annotations

from dataclasses import replace

import pytest

from auditflow.xbrl.model import Concept
from builders import calc_arcs, ext, gaap, presentation_arcs
from conformance import FY, IS_URI, assert_clean_sample, codes
from conformance import base as doc_base
from real_edits import load, replaced, run_rule

RULE = "0144"
MONETARY = "{http://www.xbrl.org/2003/instance}monetaryItemType"
OTHER = ext("OtherOperatingCharges")


def statement(balance=None, data_type=MONETARY, definition="0004 - Statement - Operations", value=12):
    b = doc_base()
    b.role(IS_URI, definition)
    b.arcs += presentation_arcs(IS_URI, gaap("IncomeStatementAbstract"), [gaap("Revenues"), OTHER, gaap("OperatingIncomeLoss")])
    b.fact(gaap("Revenues"), 100, FY)
    if value is not None:
        b.fact(OTHER, value, FY)
    filing = b.filing()
    filing.concepts[OTHER] = Concept(OTHER, balance=balance, period_type="duration", data_type=data_type)
    return filing


def run_on(filing, data_root):
    return run_rule(RULE, filing, data_root)


def test_conformance_case_reports_exactly_its_codes(data_root):
    r = run_on(statement(), data_root)
    assert codes(r) == ["DQC.US.0144.9866"]
    f = r.findings[0]
    assert f.concept == OTHER and "0004 - Statement - Operations" in f.message and "Rule version" in f.message


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


@pytest.mark.parametrize("kwargs", [dict(balance="debit"), dict(data_type="{http://www.xbrl.org/2003/instance}stringItemType"),
                                    dict(definition="0010 - Disclosure - Other Charges"), dict(value=None)])
def test_0144_a_balance_a_non_monetary_type_a_disclosure_or_no_fact_is_fine(data_root, kwargs):
    assert codes(run_on(statement(**kwargs), data_root)) == []


def test_0144_a_calculation_total_of_the_statement_may_lack_a_balance(data_root):
    filing = statement()
    filing.arcs += calc_arcs(IS_URI, OTHER, [(ext("ChargeA"), 1), (ext("ChargeB"), 1)])
    r = run_on(filing, data_root)
    assert codes(r) == [] and "calculation total" in r.checks[0].reason


@pytest.mark.slow
def test_0144_real_filing_with_a_balance_removed(data_root):
    """aapl 2023 declares balances for its three monetary extensions on the statements; with the balance of
    one leaf removed from its schema, that concept is reported."""
    filing = load(data_root, "aapl-10k-2023-09-30")
    untouched = run_rule(RULE, filing, data_root)
    assert untouched.findings == () and untouched.consistent == 3
    q = next(q for q in filing.concepts if q.local == "OtherComprehensiveIncomeLossDerivativeInstrumentGainLossReclassificationAfterTax")
    concepts = {**filing.concepts, q: replace(filing.concepts[q], balance=None)}
    r = run_rule(RULE, replaced(filing, concepts=concepts), data_root)
    assert codes(r) == ["DQC.US.0144.9866"] and r.findings[0].concept == q
