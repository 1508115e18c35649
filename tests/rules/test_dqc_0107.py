"""DQC.US.0107: its conformance case, the examples of docs/rules/DQC_US_0107.md, and a real filing mutated."""
from __future__ import annotations

import pytest

from auditflow.rules.dqc_0107 import snippet
from auditflow.xbrl.qname import QName
from builders import ext, gaap
from conformance import FY, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import concept_is, load, run_rule, with_dimension

RULE = "0107"
BLOCK = gaap("ScheduleOfAcquiredFiniteLivedIntangibleAssetsByMajorClassTextBlock")
ACQ_AXIS = gaap("BusinessAcquisitionAxis")
AMZN = "amzn-10k-2022-12-31"  # tags the text block once, without dimensions


def case():
    b = base()
    b.fact(BLOCK, "<div><p>Intangible assets acquired in the Widget purchase</p></div>", FY,
           {ACQ_AXIS: ext("WidgetCoMember")}, unit=None, decimals=None)
    return b, ["DQC.US.0107.9557"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0107_the_message_shows_the_visible_text_and_the_member(data_root):
    b, _ = case()
    msg = run(RULE, b, data_root).findings[0].message
    assert "Intangible assets acquired in the Widget purchase" in msg and "<div>" not in msg
    assert "WidgetCoMember" in msg


def test_0107_without_the_axis_or_on_another_axis_is_fine(data_root):
    b = base()
    b.fact(BLOCK, "<p>Acquired intangibles</p>", FY, unit=None, decimals=None)
    b.fact(BLOCK, "<p>By segment</p>", FY, {gaap("StatementBusinessSegmentsAxis"): ext("RetailMember")},
           unit=None, decimals=None)
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 2


def test_0107_snippet_is_capped_at_300_characters():
    assert len(snippet("<b>" + "x" * 1000 + "</b>")) == 300
    assert snippet("a&amp;b <br/>\n c") == "a&b c"


@pytest.mark.slow
def test_0107_real_filing_untouched_is_consistent(data_root):
    r = run_rule(RULE, load(data_root, AMZN), data_root)
    assert r.findings == () and r.consistent == 1


@pytest.mark.slow
def test_0107_real_text_block_moved_onto_the_acquisition_axis(data_root):
    filing = load(data_root, AMZN)
    ns = next(f.concept.namespace for f in filing.facts if f.concept.local == BLOCK.local)
    member = QName(ns.replace("us-gaap", "amzn"), "WidgetCoMember", "amzn")
    mutated = with_dimension(filing, concept_is(BLOCK.local), QName(ns, "BusinessAcquisitionAxis", "us-gaap"), member)
    r = run_rule(RULE, mutated, data_root)
    assert codes(r) == ["DQC.US.0107.9557"] and "WidgetCoMember" in r.findings[0].message
