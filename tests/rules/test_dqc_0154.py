"""DQC.US.0154: its conformance case, every sub-rule of docs/rules/DQC_US_0154.md, and a real filing."""
from __future__ import annotations

from dataclasses import replace

import pytest

from auditflow.xbrl.model import Label, PRESENTATION
from builders import ext, gaap, presentation_arcs
from conformance import FY, assert_clean_sample, codes
from conformance import base
from real_edits import load, replaced, run_rule

RULE = "0154"
TAX_URI = "http://example.com/role/IncomeTaxesDetails"
TERSE = "http://www.xbrl.org/2003/role/terseLabel"


def tax_note(item, label, *, definition="0040 - Disclosure - Income Taxes (Details)", numeric=True):
    b = base()
    b.role(TAX_URI, definition)
    b.arcs += presentation_arcs(TAX_URI, gaap("IncomeTaxDisclosureAbstract"), [gaap("IncomeTaxExpenseBenefit"), item])
    b.arcs = [replace(a, preferred_label=TERSE) if a.target == item else a for a in b.arcs]
    b.fact(gaap("IncomeTaxExpenseBenefit"), 100, FY)
    b.fact(item, 7, FY) if numeric else b.fact(item, "text", FY, unit=None, decimals=None)
    filing = b.filing()
    filing.labels = [Label(item, TERSE, "en-US", label)]
    return filing


def run_on(filing, data_root):
    return run_rule(RULE, filing, data_root)


def test_conformance_case_reports_exactly_its_codes(data_root):
    r = run_on(tax_note(ext("FdiiDeduction"), "Foreign-derived intangible income deduction"), data_root)
    assert codes(r) == ["DQC.US.0154.10068"]
    assert "EffectiveIncomeTaxRateReconciliationFdiiAmount" in r.findings[0].message and "Rule version" in r.findings[0].message


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


@pytest.mark.parametrize("label, code", [
    ("GILTI inclusion", "DQC.US.0154.10069"),
    ("Net CFC tested income", "DQC.US.0154.10069"),
    ("BEAT liability", "DQC.US.0154.10070"),
    ("Foreign rate differential", "DQC.US.0154.10071"),
])
def test_0154_each_item_trips_its_code(data_root, label, code):
    assert codes(run_on(tax_note(ext("TaxItem"), label), data_root)) == [code]


@pytest.mark.parametrize("kwargs", [
    dict(item=gaap("EffectiveIncomeTaxRateReconciliationFdiiAmount"), label="FDII deduction"),  # the dedicated concept
    dict(item=ext("TaxItem"), label="FDII and GILTI, net"),  # a mix of items: left alone
    dict(item=ext("TaxItem"), label="Other foreign items"),
    dict(item=ext("TaxItem"), label="FDII deduction", definition="0004 - Statement - Operations"),  # not a disclosure
    dict(item=ext("TaxItem"), label="FDII deduction", numeric=False),
])
def test_0154_dedicated_mixed_non_disclosure_and_text_items_are_fine(data_root, kwargs):
    assert codes(run_on(tax_note(**kwargs), data_root)) == []


@pytest.mark.slow
def test_0154_real_filing_with_a_tax_line_relabelled_as_gilti(data_root):
    """aapl 2023 tags its FDII deduction with the dedicated concept (consistent). Relabelling the terse label of
    another line of its rate reconciliation as "GILTI inclusion" makes that line a 10069."""
    filing = load(data_root, "aapl-10k-2023-09-30")
    untouched = run_rule(RULE, filing, data_root)
    assert untouched.findings == () and untouched.consistent == 1
    arc = next(a for a in filing.arcs if a.kind == PRESENTATION and a.target.local == "IncomeTaxReconciliationTaxCreditsResearch")
    labels = [replace(lab, text="GILTI inclusion") if (lab.concept, lab.role) == (arc.target, arc.preferred_label) else lab
              for lab in filing.labels]
    r = run_rule(RULE, replaced(filing, labels=labels), data_root)
    assert codes(r) == ["DQC.US.0154.10069"] and r.findings[0].concept == arc.target
