"""DQC.US.0006: its conformance case and the examples of docs/rules/DQC_US_0006.md."""
from __future__ import annotations

from builders import dei, gaap
from conformance import FY, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0006"


def case():
    b = base(focus="FY")
    b.fact(gaap("RevenueFromContractWithCustomerTextBlock"), "<p>x</p>", "2024-10-01..2024-12-31", unit=None, decimals=None)
    return b, ["DQC.US.0006.14"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0006_range_and_the_text_block_fallback_is_said(data_root):
    b = base(focus="Q3")
    b.fact(gaap("RevenueFromContractWithCustomerTextBlock"), "<p>x</p>", "2024-01-01..2024-09-30", unit=None, decimals=None)
    r = run("0006", b, data_root)  # 274 days fit Q3 (245-295); dei items of 366 days do not
    assert [f.concept.local for f in r.findings] == ["DocumentType", "DocumentPeriodEndDate", "DocumentFiscalPeriodFocus"]
    assert any("element properties" in w for w in r.warnings)
    b = base(focus="FY")
    b.fact(dei("DocumentTransitionReport"), "true", FY, unit=None, decimals=None)
    b.fact(gaap("RevenueFromContractWithCustomerTextBlock"), "<p>x</p>", "2024-10-01..2024-12-31", unit=None, decimals=None)
    assert codes(run("0006", b, data_root)) == []
