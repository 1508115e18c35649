"""DQC.US.0004: its conformance case and the examples of docs/rules/DQC_US_0004.md."""
from __future__ import annotations

from builders import gaap
from conformance import FY_END, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0004"


def case():
    b = base()
    b.fact(gaap("Assets"), 1000000, FY_END)
    b.fact(gaap("LiabilitiesAndStockholdersEquity"), 990000, FY_END, decimals=0)
    return b, ["DQC.US.0004.16"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0004_within_the_rounded_tolerance_is_consistent(data_root):
    b = base()
    b.fact(gaap("Assets"), 1000000, FY_END, decimals=-3)
    b.fact(gaap("LiabilitiesAndStockholdersEquity"), 1001400, FY_END, decimals=-3)  # rounds to 1,001,000: 1,000 <= 2,000
    r = run("0004", b, data_root)
    assert codes(r) == [] and r.consistent == 1


def test_0004_needs_every_part_and_sums_them(data_root):
    b = base()
    b.fact(gaap("Assets"), 1000000, FY_END)
    b.fact(gaap("AssetsCurrent"), 600000, FY_END)
    assert codes(run("0004", b, data_root)) == []  # AssetsNoncurrent missing: not evaluated
    b.fact(gaap("AssetsNoncurrent"), 300000, FY_END)
    r = run("0004", b, data_root)
    assert codes(r) == ["DQC.US.0004.9280"] and r.findings[0].expected == 900000


def test_0004_lse_derives_equity_and_liabilities(data_root):
    b = base()
    b.fact(gaap("LiabilitiesAndStockholdersEquity"), 1000000, FY_END)
    b.fact(gaap("StockholdersEquity"), 400000, FY_END)
    b.fact(gaap("MinorityInterest"), 100000, FY_END)
    b.fact(gaap("LiabilitiesCurrent"), 300000, FY_END)
    b.fact(gaap("LiabilitiesNoncurrent"), 200000, FY_END)
    assert codes(run("0004", b, data_root)) == []
    b2 = base()
    b2.fact(gaap("LiabilitiesAndStockholdersEquity"), 1000000, FY_END)
    b2.fact(gaap("StockholdersEquity"), 500000, FY_END)  # already includes the NCI of 100,000: counted twice
    b2.fact(gaap("MinorityInterest"), 100000, FY_END)
    b2.fact(gaap("Liabilities"), 500000, FY_END)
    assert codes(run("0004", b2, data_root)) == ["DQC.US.0004.9283"]


def _lse(lse: int, equity: int, liabilities: int, decimals: int = 0):
    b = base()
    b.fact(gaap("LiabilitiesAndStockholdersEquity"), lse, FY_END, decimals=decimals)
    b.fact(gaap("StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest"), equity, FY_END, decimals=decimals)
    b.fact(gaap("Liabilities"), liabilities, FY_END, decimals=decimals)
    return b


def test_0004_lse_adds_the_temporary_equity_total_including_nci(data_root):
    b = _lse(1000000, 600000, 300000)
    b.fact(gaap("TemporaryEquityCarryingAmountIncludingPortionAttributableToNoncontrollingInterests"), 100000, FY_END)
    r = run("0004", b, data_root)
    assert codes(r) == [] and r.consistent == 1


def test_0004_lse_temporary_equity_is_that_one_concept_as_in_dqcs_source(data_root):
    # DQC's 2026 source keeps its chain (parent's part + redeemable NCI) in a comment: only the total
    # including NCI is added. The parts below are reported as bxp reports them, and are not added.
    b = _lse(1000000, 600000, 300000)
    b.fact(gaap("TemporaryEquityCarryingAmountAttributableToParent"), 60000, FY_END)
    b.fact(gaap("RedeemableNoncontrollingInterestEquityCarryingAmount"), 40000, FY_END)
    r = run("0004", b, data_root)
    assert codes(r) == ["DQC.US.0004.9283"]
    assert r.findings[0].expected == 900000  # equity + liabilities, without the 100,000 of parts


def test_0004_lse_tolerance_reads_the_decimals_dqcs_source_lists(data_root):
    # 9283's t is the smallest decimals of the total and the equity and liabilities concepts DQC lists,
    # whether or not the sum used them (here StockholdersEquity, beside the total including NCI) ...
    b = _lse(1000000000, 600000000, 398000000, decimals=-3)  # 2,000,000 apart: > 2,000 at t = -3
    assert codes(run("0004", b, data_root)) == ["DQC.US.0004.9283"]
    b.fact(gaap("StockholdersEquity"), 550000000, FY_END, decimals=-6)  # t = -6: 2,000,000 <= 2,000,000
    r = run("0004", b, data_root)
    assert codes(r) == [] and r.consistent == 1
    # ... and never the temporary equity's.
    b = _lse(1000000000, 600000000, 395000000, decimals=-3)
    b.fact(gaap("TemporaryEquityCarryingAmountIncludingPortionAttributableToNoncontrollingInterests"), 3000000, FY_END,
           decimals=-6)
    r = run("0004", b, data_root)
    assert codes(r) == ["DQC.US.0004.9283"] and r.findings[0].expected == 998000000
