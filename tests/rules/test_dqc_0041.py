"""DQC.US.0041: its conformance case and the examples of docs/rules/DQC_US_0041.md."""
from __future__ import annotations

from auditflow.xbrl.model import DIMENSION_DEFAULT, Arc

from builders import ext, srt
from conformance import BS_URI, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0041"


def case():
    b = base()
    axis, member = srt("ProductOrServiceAxis"), ext("WidgetsMember")
    b.arcs.append(Arc("definition", DIMENSION_DEFAULT, BS_URI, axis, member))
    return b, ["DQC.US.0041.73"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0041_the_base_default_and_extension_axes_are_fine(data_root):
    b = base()
    b.arcs.append(Arc("definition", DIMENSION_DEFAULT, BS_URI, srt("ProductOrServiceAxis"), srt("ProductsAndServicesDomain")))
    b.arcs.append(Arc("definition", DIMENSION_DEFAULT, BS_URI, ext("WidgetAxis"), ext("WidgetMember")))
    r = run("0041", b, data_root)
    assert codes(r) == [] and r.consistent == 1
