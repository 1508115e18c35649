"""DQC.US.0014: its conformance case, every concept of its list, and real filings perturbed, corrected and
untouched (docs/rules/DQC_US_0014.md)."""
from __future__ import annotations

import pytest

from auditflow.mutations import Mutation, apply_mutation, apply_mutations
from auditflow.rules.dqc_0014 import CONCEPTS
from auditflow.rules.finding import Outcome
from builders import ext, gaap
from conformance import FY, FY_END, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import load, run_rule

RULE = "0014"


def case():
    b = base()
    b.fact(gaap("Goodwill"), -5000, FY_END)
    return b, ["DQC.US.0014.2807"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


@pytest.mark.parametrize("sid,local", CONCEPTS)
def test_0014_every_concept_trips_its_code_when_negative_without_dimensions(sid, local, data_root):
    b = base()
    b.fact(gaap(local), -10, FY)
    b.fact(gaap(local), 10, "2023-01-01..2023-12-31")
    r = run(RULE, b, data_root)
    assert codes(r) == [f"DQC.US.0014.{sid}"] and r.consistent == 1


def test_0014_a_fact_with_dimensions_or_an_extension_or_nil_is_not_checked(data_root):
    b = base()
    b.fact(gaap("Goodwill"), -5000, FY_END, {gaap("StatementBusinessSegmentsAxis"): ext("WidgetsMember")})
    b.fact(ext("Goodwill"), -5000, FY_END)
    b.fact(gaap("Goodwill"), None, FY_END, nil=True)
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 0


def test_0014_zero_is_fine_and_a_quarterly_report_is_in_scope(data_root):
    b = base(doc_type="10-Q")
    b.fact(gaap("CostOfRevenue"), 0, FY)
    b.fact(gaap("DerivativeAssets"), -1, FY_END)
    assert codes(run(RULE, b, data_root)) == ["DQC.US.0014.2793"]


@pytest.mark.slow
def test_0014_a_real_filing_untouched_is_clean_and_a_flipped_fact_is_reported(data_root):
    aapl = load(data_root, "aapl-10k-2023-09-30")
    before = run_rule(RULE, aapl, data_root)
    assert codes(before) == [] and before.consistent > 0
    checked = next(c for c in before.checks if c.outcome is Outcome.CONSISTENT)
    r = run_rule(RULE, apply_mutation(aapl, Mutation("flip_sign", checked.fact_id)), data_root)
    # the mutation flips the fact and its duplicates (the same number shown twice in the document)
    assert checked.fact_id in [f.fact_id for f in r.findings]
    assert {(f.code, f.concept) for f in r.findings} == {(r.findings[0].code, checked.concept)}


@pytest.mark.slow
def test_0014_a_real_sign_error_is_reported_and_its_correction_is_clean(data_root):
    abqq = load(data_root, "abqq-10k-2023-08-31")
    r = run_rule(RULE, abqq, data_root)
    assert codes(r) == ["DQC.US.0014.2791"] * 3  # AmortizationOfIntangibleAssets entered negative
    fixed = apply_mutations(abqq, [Mutation("flip_sign", f.fact_id) for f in r.findings])
    assert codes(run_rule(RULE, fixed, data_root)) == []
