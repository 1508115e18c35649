"""DQC.US.0109: its conformance case, every code's example of docs/rules/DQC_US_0109.md, and a real filing."""
from __future__ import annotations

import pytest

from builders import ext, gaap, make_unit, srt
from conformance import FY, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import context_where, edited, fact, load, run_rule

RULE = "0109"
PCT = gaap("ConcentrationRiskPercentage1")
BENCH, TYPE = gaap("ConcentrationRiskByBenchmarkAxis"), gaap("ConcentrationRiskByTypeAxis")
CUSTOMER = {gaap("ConcentrationRiskByBenchmarkAxis"): gaap("RevenueFromContractWithCustomerMember"),
            TYPE: gaap("CustomerConcentrationRiskMember"), srt("MajorCustomersAxis"): ext("CustomerAMember")}
AAPL = "filings/aapl-10k-2023-09-30"


def _b(*facts):
    b = base()
    b.units["pure"] = make_unit("pure", "pure")
    for value, dims in facts:
        b.fact(PCT, value, FY, dims, unit="pure", decimals=2)
    return b


def case():
    return _b(("0.4", {}), ("0.3", CUSTOMER)), ["DQC.US.0109.9565"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


OTHER = {srt("MajorCustomersAxis"): ext("CustomerAMember")}
REVENUE, CUSTOMER_RISK = gaap("RevenueFromContractWithCustomerMember"), gaap("CustomerConcentrationRiskMember")


@pytest.mark.parametrize("facts, expected", [
    ([("1", {})], []),  # the total of all exposures may stand alone
    ([("0.4", {})], ["DQC.US.0109.9565"]),
    ([("0.4", OTHER)], ["DQC.US.0109.9566"]),
    ([("1", {}), ("0.4", OTHER)], []),  # 9566 is not checked when a fact without dimensions exists
    ([("0.4", {TYPE: CUSTOMER_RISK, **OTHER})], ["DQC.US.0109.9567"]),
    ([("0.4", {BENCH: REVENUE, **OTHER})], ["DQC.US.0109.9568"]),
    ([("0.4", {BENCH: REVENUE, TYPE: CUSTOMER_RISK})], ["DQC.US.0109.9569"]),
    ([("1", {BENCH: REVENUE, TYPE: CUSTOMER_RISK})], []),
    ([("0.4", {BENCH: REVENUE, TYPE: gaap("LaborForceConcentrationRiskMember")})], ["DQC.US.0109.9570"]),
    ([("0.4", {BENCH: REVENUE, TYPE: gaap("CreditConcentrationRiskMember"), **OTHER})], ["DQC.US.0109.9570"]),
    ([("0.4", {BENCH: REVENUE, TYPE: ext("DistributorRiskMember"), **OTHER})], []),  # an extension risk
    ([("0.4", {BENCH: gaap("CustomerConcentrationRiskMember"), TYPE: CUSTOMER_RISK, **OTHER})], ["DQC.US.0109.9571"]),
    ([("0.4", {BENCH: REVENUE, TYPE: gaap("AccountsReceivableMember"), **OTHER})],
     ["DQC.US.0109.9572", "DQC.US.0109.9570"]),
    ([("0.3", CUSTOMER)], []),
])
def test_0109_each_check(data_root, facts, expected):
    r = run(RULE, _b(*facts), data_root)
    assert codes(r) == expected
    assert r.consistent == len(facts) - len({f.fact_id for f in r.findings})


def test_0109_labor_risks_may_stand_with_the_two_axes_alone(data_root):
    b = _b(("0.4", {BENCH: gaap("CostOfGoodsTotalMember"), TYPE: gaap("LaborForceConcentrationRiskMember")}))
    assert codes(run(RULE, b, data_root)) == []


# -- a real filing: Apple's 10-K reports customer and supplier concentrations with the three axes -------------

@pytest.mark.slow
def test_0109_real_aapl_10k_is_consistent(data_root):
    r = run_rule(RULE, load(data_root, AAPL), data_root)
    assert r.findings == () and r.consistent == 7


@pytest.mark.slow
def test_0109_real_aapl_10k_with_a_concentration_without_dimensions_is_reported(data_root):
    filing = load(data_root, AAPL)
    plain = context_where(filing, lambda ctx: not ctx.dimensions and ctx.period.start is not None)
    pure = next(uid for uid, u in filing.units.items() if [m.local for m in u.numerators] == ["pure"])
    r = run_rule(RULE, edited(filing, add=[fact(PCT, "0.13", plain, unit=pure, decimals=2)]), data_root)
    assert codes(r) == ["DQC.US.0109.9565"] and r.consistent == 7
