"""DQC.US.0054: its conformance case and the examples of docs/rules/DQC_US_0054.md."""
from __future__ import annotations

from auditflow.xbrl.model import HYPERCUBE_DIMENSION, Arc

from builders import gaap, srt
from conformance import PEN_URI, PLAN_AXIS, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0054"


def case():
    b = base()
    b.role(PEN_URI, "0100 - Disclosure - Retirement Plans (Details)")
    b.arcs.append(Arc("definition", HYPERCUBE_DIMENSION, PEN_URI, gaap("DefinedContributionPlanTable"), srt("StatementGeographicalAxis")))
    return b, ["DQC.US.0054.7491"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0054_other_axes_are_fine(data_root):
    b = base()
    b.arcs.append(Arc("definition", HYPERCUBE_DIMENSION, PEN_URI, gaap("DefinedContributionPlanTable"), PLAN_AXIS))
    r = run("0054", b, data_root)
    assert codes(r) == [] and r.consistent == 1
