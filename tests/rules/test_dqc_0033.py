"""DQC.US.0033: its conformance case and the examples of docs/rules/DQC_US_0033.md."""
from __future__ import annotations

from builders import dei, gaap
from conformance import assert_clean_sample, assert_conformance, base, codes, run

RULE = "0033"


def case():
    b = base()
    b.fact(dei("EntityRegistrantName"), "Acme", "2024-01-01..2024-11-30", unit=None, decimals=None)
    return b, ["DQC.US.0033.2"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0033_subsequent_events_and_excepted_items_are_not_checked(data_root):
    b = base()
    b.fact(dei("EntityCommonStockSharesOutstanding"), 100, "2025-02-14", unit="shares", decimals=0)
    b.fact(dei("EntityRegistrantName"), "Acme", "2025-01-01..2025-02-14",
           {gaap("SubsequentEventTypeAxis"): gaap("SubsequentEventMember")}, unit=None, decimals=None)
    assert codes(run("0033", b, data_root)) == []
