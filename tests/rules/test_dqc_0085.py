"""DQC.US.0085: its conformance case, a case for each code, and real filings perturbed, corrected and untouched
(docs/rules/DQC_US_0085.md)."""
from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from auditflow.rules.finding import Outcome
from auditflow.xbrl.qname import QName
from builders import gaap, presentation_arcs
from conformance import BS_URI, FY_END, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import load, run_rule

RULE = "0085"
NOTE_URI = "http://example.com/role/IncomeTaxDetails"


def checked_facts(result) -> int:
    """Consistent checks of facts (9361's checks are of the presentation, not of a fact)."""
    return sum(1 for c in result.checks if c.outcome is Outcome.CONSISTENT and c.fact_id)


def sheet(b, children, total="Assets", definition="0002 - Statement - Balance Sheet"):
    b.role(BS_URI, definition)
    b.arcs += presentation_arcs(BS_URI, gaap("StatementOfFinancialPositionAbstract"), [gaap(total)] + [gaap(c) for c in children])
    return b


def case():
    b = sheet(base(), ["DeferredTaxAssetsNet"])
    b.calc(BS_URI, gaap("Assets"), [(gaap("AssetsCurrent"), 1), (gaap("DeferredTaxAssetsNet"), 1)])
    b.fact(gaap("DeferredTaxAssetsNet"), 700, FY_END)
    return b, ["DQC.US.0085.9361", "DQC.US.0085.9364"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0085_9361_each_footnote_concept_on_a_statement_is_one_finding(data_root):
    b = sheet(base(), ["DeferredTaxAssetsLiabilitiesNet", "DeferredTaxLiabilities", "DeferredIncomeTaxAssetsNet"])
    r = run(RULE, b, data_root)
    assert codes(r) == ["DQC.US.0085.9361"] * 2
    assert {f.concept.local for f in r.findings} == {"DeferredTaxAssetsLiabilitiesNet", "DeferredTaxLiabilities"}
    footnote = sheet(base(), ["DeferredTaxLiabilities"], definition="0009 - Disclosure - Income Taxes (Details)")
    assert codes(run(RULE, footnote, data_root)) == []
    eight_k = sheet(base(doc_type="8-K"), ["DeferredTaxLiabilities"])
    assert codes(run(RULE, eight_k, data_root)) == []


@pytest.mark.parametrize("local,code", [("DeferredIncomeTaxAssetsNet", "DQC.US.0085.9362"),
                                        ("DeferredIncomeTaxLiabilitiesNet", "DQC.US.0085.9363")])
def test_0085_9362_9363_a_balance_sheet_concept_in_no_calculation(local, code, data_root):
    b = base()
    b.fact(gaap(local), 300, FY_END)
    b.fact(gaap(local), 100, FY_END, {gaap("IncomeTaxAuthorityAxis"): gaap("DomesticCountryMember")})  # not checked
    assert codes(run(RULE, b, data_root)) == [code]
    b.calc(NOTE_URI, gaap("DeferredTaxAssetsLiabilitiesNet"), [(gaap(local), 1)])  # in a calculation: fine
    r = run(RULE, b, data_root)
    assert codes(r) == [] and checked_facts(r) == 1


@pytest.mark.parametrize("local,total,code", [
    ("DeferredTaxAssetsNet", "Assets", "DQC.US.0085.9364"),
    ("DeferredTaxAssetsLiabilitiesNet", "Assets", "DQC.US.0085.9365"),
    ("DeferredTaxLiabilities", "Liabilities", "DQC.US.0085.9367"),
    ("DeferredTaxLiabilities", "LiabilitiesAndStockholdersEquity", "DQC.US.0085.9367"),
])
def test_0085_9364_9365_9367_a_footnote_concept_below_a_balance_sheet_total(local, total, code, data_root):
    b = base()
    b.fact(gaap(local), 500, FY_END)
    b.calc(NOTE_URI, gaap("DeferredIncomeTaxAssetsNet"), [(gaap(local), 1)])  # the footnote's own calculation: fine
    r = run(RULE, b, data_root)
    assert codes(r) == [] and checked_facts(r) == 1
    b.calc(BS_URI, gaap(total), [(gaap("NoncurrentSubtotal"), 1)])
    b.calc(BS_URI, gaap("NoncurrentSubtotal"), [(gaap(local), 1)])  # a grandchild of the total
    f = run(RULE, b, data_root).findings
    assert [x.code for x in f] == [code] and f"descendant of {total} in" in f[0].message


@pytest.mark.slow
def test_0085_a_real_filing_loses_its_deferred_tax_calculation(data_root):
    tsla = load(data_root, "tsla-10q-2024-06-30")
    r = run_rule(RULE, tsla, data_root)
    assert codes(r) == [] and r.consistent > 0
    out = copy.copy(tsla)
    out.arcs = [a for a in tsla.arcs if not (a.kind == "calculation" and a.target.local == "DeferredIncomeTaxAssetsNet")]
    r = run_rule(RULE, out, data_root)
    plain = [f for f in tsla.facts if f.concept.local == "DeferredIncomeTaxAssetsNet"
             and not tsla.contexts[f.context_id].dimensions]
    assert plain and codes(r) == ["DQC.US.0085.9362"] * len(plain)


@pytest.mark.slow
def test_0085_a_real_footnote_concept_on_the_balance_sheet_and_its_correction(data_root):
    mdnc = load(data_root, "mdnc-10k-2025-02-28")
    r = run_rule(RULE, mdnc, data_root)
    assert codes(r) == ["DQC.US.0085.9361", "DQC.US.0085.9367"]  # DeferredTaxLiabilities below Liabilities

    def netted(q):
        return QName(q.namespace, "DeferredIncomeTaxLiabilitiesNet", q.prefix) if q.local == "DeferredTaxLiabilities" else q

    fixed = copy.copy(mdnc)
    fixed.arcs = [replace(a, source=netted(a.source), target=netted(a.target)) for a in mdnc.arcs]
    fixed.facts = [replace(f, concept=netted(f.concept)) for f in mdnc.facts]
    r = run_rule(RULE, fixed, data_root)
    assert codes(r) == [] and r.consistent > 0
