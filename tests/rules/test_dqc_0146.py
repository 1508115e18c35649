"""DQC.US.0146: its conformance case, the examples of docs/rules/DQC_US_0146.md, and a real filing."""
from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest

from auditflow.xbrl.model import Concept, Period
from builders import dei, ext, gaap, presentation_arcs
from conformance import FY, IS_URI, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import first, load, replaced, run_rule

RULE = "0146"
Q4 = "2024-10-01..2024-12-31"


def income_statement(periods, doc_type="10-K"):
    b = base(doc_type=doc_type)
    b.role(IS_URI, "0004 - Statement - Operations")
    b.arcs += presentation_arcs(IS_URI, gaap("IncomeStatementAbstract"), [gaap("Revenues"), gaap("NetIncomeLoss")])
    for n, period in enumerate(periods):
        b.fact(gaap("Revenues") if n % 2 == 0 else gaap("NetIncomeLoss"), 100 + n, period)
    return b


def case():
    return income_statement([Q4, Q4, FY]), ["DQC.US.0146.9870"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0146_the_message_counts_both_kinds(data_root):
    f = run(RULE, income_statement([Q4, Q4, FY]), data_root).findings[0]
    assert "1 facts cover it and 2 facts end on 2024-12-31" in f.message


@pytest.mark.parametrize("periods", [[FY, FY], [FY, Q4], [FY] + ["2023-10-01..2023-12-31"] * 3])
def test_0146_a_year_statement_or_a_tie_is_fine(data_root, periods):
    """Quarters of the prior year do not end on the period end and are not counted; a tie is not a majority."""
    r = run(RULE, income_statement(periods), data_root)
    assert codes(r) == [] and r.consistent == 1


def test_0146_quarterly_reports_are_not_in_scope(data_root):
    assert codes(run(RULE, income_statement([Q4, Q4], doc_type="10-Q"), data_root)) == []


def test_0146_transition_reports_and_years_of_inception_are_left_out(data_root):
    b = income_statement([Q4, Q4])
    b.fact(dei("DocumentTransitionReport"), "true", FY, unit=None, decimals=None)
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.checks[0].reason.startswith("not examined")
    b = income_statement([Q4, Q4])
    b.fact(ext("YearOfInception"), None, FY, unit=None, decimals=None, nil=True)
    filing = b.filing()
    filing.concepts[ext("YearOfInception")] = Concept(ext("YearOfInception"))
    assert codes(run_rule(RULE, filing, data_root)) == []


@pytest.mark.slow
def test_0146_real_filing_with_its_income_statement_moved_to_the_last_quarter(data_root):
    """aapl 2023's income statement reports the fiscal year (consistent); its year facts moved to contexts of
    the last quarter (same end, a later start) are reported."""
    filing = load(data_root, "aapl-10k-2023-09-30")
    untouched = run_rule(RULE, filing, data_root)
    assert untouched.findings == () and untouched.consistent == 1
    doc = first(filing, lambda f: f.concept.local == "DocumentPeriodEndDate")
    year = filing.contexts[doc.context_id].period
    quarter = Period(year.end - dt.timedelta(days=90), year.end)
    statement = {q for a in filing.arcs if a.kind == "presentation" and a.role.upper().endswith("CONSOLIDATEDSTATEMENTSOFOPERATIONS")
                 for q in (a.source, a.target)}
    assert statement
    contexts, facts = dict(filing.contexts), []
    for f in filing.facts:
        ctx = filing.contexts[f.context_id]
        if f.concept in statement and f.unit_id and ctx.period == year:
            cid = f"{ctx.id}-q4"
            contexts.setdefault(cid, replace(ctx, id=cid, period=quarter))
            f = replace(f, context_id=cid)
        facts.append(f)
    r = run_rule(RULE, replaced(filing, facts=facts, contexts=contexts), data_root)
    assert codes(r) == ["DQC.US.0146.9870"]

