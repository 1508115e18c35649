"""DQC.US.0005: its conformance case and the examples of docs/rules/DQC_US_0005.md."""
from __future__ import annotations

from builders import dei, gaap, srt
from conformance import assert_clean_sample, assert_conformance, base, codes, run

RULE = "0005"


def case():
    b = base()
    b.fact(dei("EntityCommonStockSharesOutstanding"), 100, "2024-06-30", unit="shares", decimals=0)
    return b, ["DQC.US.0005.17"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0005_shares_on_or_after_the_period_end_are_fine_and_registration_forms_are_skipped(data_root):
    b = base()
    b.fact(dei("EntityCommonStockSharesOutstanding"), 100, "2025-02-14", unit="shares", decimals=0)
    assert codes(run("0005", b, data_root)) == []
    b, _ = case()
    b.facts[0] = b.facts[0].__class__(b.facts[0].concept, b.facts[0].context_id, "S-1", None, None, id="f0")
    assert codes(run("0005", b, data_root)) == []


def test_0005_subsequent_events_and_forecasts_must_be_later(data_root):
    b = base()
    b.fact(gaap("StockIssuedDuringPeriodSharesNewIssues"), 5, "2024-12-01..2024-12-31",
           {gaap("SubsequentEventTypeAxis"): gaap("SubsequentEventMember")}, unit="shares", decimals=0)
    b.fact(gaap("Revenues"), 5, "2025-01-01..2025-12-31", {srt("StatementScenarioAxis"): srt("ScenarioForecastMember")})
    b.fact(gaap("Revenues"), 7, "2024-01-01..2024-12-31", {srt("StatementScenarioAxis"): srt("ScenarioForecastMember")})
    assert codes(run("0005", b, data_root)) == ["DQC.US.0005.48", "DQC.US.0005.49"]
