"""DQC.US.0118: its conformance case and the examples of docs/rules/DQC_US_0118.md."""
from __future__ import annotations

from builders import ext, gaap
from conformance import FY_END, PRIOR_END, _table, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0118"


def case():
    return _table(base()), ["DQC.US.0118.9575"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0118_within_tolerance_and_members_summed_for_a_missing_child(data_root):
    r = run("0118", _table(base(), ppe="399000"), data_root)
    assert codes(r) == [] and r.consistent == 1
    b = _table(base(), ppe=None)
    axis = gaap("PropertyPlantAndEquipmentByTypeAxis")
    b.fact(gaap("PropertyPlantAndEquipmentNet"), 250000, FY_END, {axis: ext("PlantMember")})
    b.fact(gaap("PropertyPlantAndEquipmentNet"), 150000, FY_END, {axis: ext("EquipmentMember")})
    r = run("0118", b, data_root)
    assert codes(r) == [] and r.consistent == 1


def test_0118_only_the_required_context_and_the_tables_decimals(data_root):
    b = _table(base())
    b.fact(gaap("Assets"), 5, PRIOR_END)  # prior period: never a total
    b.fact(gaap("AssetsCurrent"), 1, PRIOR_END)
    r = run("0118", b, data_root)
    assert [f.period.end.isoformat() for f in r.findings] == [FY_END]
