"""The registered DQC rules beyond 0015/0117/0126, each from its doc's examples (docs/rules/DQC_US_NNNN.md):
a clean and a violating variant of a tiny filing built in memory (or of the bundled sample).

``CONFORMANCE`` names each rule's conformance case (a violating filing and the codes it must report);
tests/rules/test_registry.py requires one for every registered rule.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from auditflow.rules import registry
from auditflow.rules.finding import Outcome
from auditflow.rules.resources import Resources
from auditflow.xbrl.model import DIMENSION_DEFAULT, HYPERCUBE_DIMENSION, Arc
from auditflow.xbrl.qname import QName

from builders import FilingBuilder, dei, ext, gaap, presentation_arcs, srt

FY = "2024-01-01..2024-12-31"
FY_END = "2024-12-31"
PRIOR_END = "2023-12-31"
BS_URI = "http://example.com/role/BalanceSheet"


def run(rule: str, b: FilingBuilder, data_root: Path | None):
    env = _credit_extension(b, "GainOnSaleOfWidgets") if rule == "0043" else b.env()
    return registry.get(rule).run(env, Resources(data_root))


def codes(result) -> list[str]:
    return [f.code for f in result.findings]


def base(doc_type: str = "10-K", period_end: str = FY_END, focus: str | None = "FY") -> FilingBuilder:
    b = FilingBuilder()
    b.fact(dei("DocumentType"), doc_type, FY, unit=None, decimals=None)
    b.fact(dei("DocumentPeriodEndDate"), period_end, FY, unit=None, decimals=None)
    if focus:
        b.fact(dei("DocumentFiscalPeriodFocus"), focus, FY, unit=None, decimals=None)
    return b


# -- builders of the conformance cases: each returns (violating builder, the codes it must report) ---

def case_0004():
    b = base()
    b.fact(gaap("Assets"), 1000000, FY_END)
    b.fact(gaap("LiabilitiesAndStockholdersEquity"), 990000, FY_END, decimals=0)
    return b, ["DQC.US.0004.16"]


def case_0005():
    b = base()
    b.fact(dei("EntityCommonStockSharesOutstanding"), 100, "2024-06-30", unit="shares", decimals=0)
    return b, ["DQC.US.0005.17"]


def case_0006():
    b = base(focus="FY")
    b.fact(gaap("RevenueFromContractWithCustomerTextBlock"), "<p>x</p>", "2024-10-01..2024-12-31", unit=None, decimals=None)
    return b, ["DQC.US.0006.14"]


def case_0008():
    b = base()
    b.role(BS_URI, "0002 - Statement - Balance Sheet")
    b.calc(BS_URI, gaap("AssetsCurrent"), [(gaap("Assets"), 1)])  # reversed: Assets is the total in US GAAP
    return b, ["DQC.US.0008.6819"]


def case_0009():
    b = base()
    b.fact(gaap("CommonStockSharesOutstanding"), 2000, FY_END, unit="shares", decimals=0)
    b.fact(gaap("CommonStockSharesIssued"), 1500, FY_END, unit="shares", decimals=0)
    return b, ["DQC.US.0009.24"]


def case_0033():
    b = base()
    b.fact(dei("EntityRegistrantName"), "Acme", "2024-01-01..2024-11-30", unit=None, decimals=None)
    return b, ["DQC.US.0033.2"]


def case_0036():
    b = base(period_end="2024-11-30")
    return b, ["DQC.US.0036.1"]


def case_0041():
    b = base()
    axis, member = srt("ProductOrServiceAxis"), ext("WidgetsMember")
    b.arcs.append(Arc("definition", DIMENSION_DEFAULT, BS_URI, axis, member))
    return b, ["DQC.US.0041.73"]


CF_URI = "http://example.com/role/CashFlow"
IS_URI = "http://example.com/role/Operations"
PEN_URI = "http://example.com/role/PensionDetails"
PLAN_AXIS = gaap("RetirementPlanSponsorLocationAxis")
COUNTRY_US = QName("http://xbrl.sec.gov/country/2024", "US", "country")


def case_0046():
    b = base()
    b.role(CF_URI, "0006 - Statement - Cash Flows")
    b.calc(CF_URI, gaap("NetCashProvidedByUsedInContinuingOperations"),
           [(gaap("NetCashProvidedByUsedInOperatingActivitiesContinuingOperations"), 1),
            (gaap("EffectOfExchangeRateOnCashAndCashEquivalentsContinuingOperations"), 1)])
    return b, ["DQC.US.0046.6840"]


def case_0051():
    b = base()
    b.role(IS_URI, "0004 - Statement - Operations")
    b.calc(IS_URI, gaap("IncomeLossAttributableToParent"), [(gaap("OperatingIncomeLoss"), 1), (gaap("IncomeTaxExpenseBenefit"), -1)])
    return b, ["DQC.US.0051.7485"]


def case_0052():
    b = base()
    b.fact(gaap("DefinedBenefitPlanServiceCost"), 1000, FY, {PLAN_AXIS: gaap("DomesticPlanMember")})
    return b, ["DQC.US.0052.7487"]


def case_0053():
    b = base()
    b.fact(gaap("DefinedBenefitPlanServiceCost"), 1000, FY, {PLAN_AXIS: gaap("NonUsMember")})
    return b, ["DQC.US.0053.7489"]


def case_0054():
    b = base()
    b.role(PEN_URI, "0100 - Disclosure - Retirement Plans (Details)")
    b.arcs.append(Arc("definition", HYPERCUBE_DIMENSION, PEN_URI, gaap("DefinedContributionPlanTable"), srt("StatementGeographicalAxis")))
    return b, ["DQC.US.0054.7491"]


def case_0055():
    b = base()
    b.role(PEN_URI, "0100 - Disclosure - Retirement Plans (Details)")
    b.arcs += presentation_arcs(PEN_URI, PLAN_AXIS, [gaap("RetirementPlanSponsorLocationDomain")])
    b.arcs += presentation_arcs(PEN_URI, gaap("RetirementPlanSponsorLocationDomain"), [gaap("DomesticPlanMember")])
    return b, ["DQC.US.0055.9843"]


def case_0089():
    b = base()
    b.fact(gaap("OperatingLeaseWeightedAverageRemainingLeaseTerm1"), "P5Y", FY_END, {srt("RangeAxis"): srt("MaximumMember")},
           unit=None, decimals=None)
    return b, ["DQC.US.0089.9373"]


def case_0123():
    b = base()
    b.fact(gaap("StockholdersEquity"), 500000, FY_END, {gaap("StatementClassOfStockAxis"): gaap("CommonClassAMember")})
    return b, ["DQC.US.0123.9583"]


def _table(b: FilingBuilder, ppe="390000"):
    from builders import AxisSpec
    b.cube(BS_URI, "0002 - Statement - Balance Sheet", gaap("StatementTable"),
           [gaap("Assets"), gaap("AssetsCurrent"), gaap("PropertyPlantAndEquipmentNet")],
           [AxisSpec(gaap("PropertyPlantAndEquipmentByTypeAxis"), gaap("PropertyPlantAndEquipmentTypeDomain"),
                     (ext("PlantMember"), ext("EquipmentMember")))])
    b.calc(BS_URI, gaap("Assets"), [(gaap("AssetsCurrent"), 1), (gaap("PropertyPlantAndEquipmentNet"), 1)])
    b.fact(gaap("Assets"), 1000000, FY_END)
    b.fact(gaap("AssetsCurrent"), 600000, FY_END)
    if ppe is not None:
        b.fact(gaap("PropertyPlantAndEquipmentNet"), ppe, FY_END)
    return b


def case_0118():
    return _table(base()), ["DQC.US.0118.9575"]


def _cash_flow(b: FilingBuilder, total: str, child, weight: int):
    b.role(CF_URI, "0006 - Statement - Cash Flows")
    b.calc(CF_URI, gaap(total), [(child, weight)])
    return b


def _credit_extension(b: FilingBuilder, local: str):
    from auditflow.xbrl.model import Concept
    filing = b.filing()
    q = ext(local)
    filing.concepts[q] = Concept(q, balance="credit", data_type="{http://www.xbrl.org/2003/instance}monetaryItemType")
    from auditflow.graphs.environment import build_environment
    return build_environment(filing)


def case_0043():
    b = base()
    b.fact(gaap("NetCashProvidedByUsedInOperatingActivities"), 1000, FY)
    return _cash_flow(b, "NetCashProvidedByUsedInOperatingActivities", ext("GainOnSaleOfWidgets"), 1), ["DQC.US.0043.7488"]


def case_0044():
    b = base()
    b.fact(gaap("InterestExpense"), 5000, FY)
    return _cash_flow(b, "NetCashProvidedByUsedInFinancingActivities", gaap("InterestExpense"), -1), ["DQC.US.0044.6834"]


def case_0062():
    b = base()
    b.role(CF_URI, "0006 - Statement - Cash Flows")
    b.arcs += presentation_arcs(CF_URI, gaap("StatementOfCashFlowsAbstract"), [gaap("NetCashProvidedByUsedInOperatingActivities")])
    return b, ["DQC.US.0062.7501"]


def case_0095():
    b = base()
    b.fact(dei("EntityCommonStockSharesOutstanding"), 12150000, "2025-02-14", unit="shares", decimals=0)
    b.fact(gaap("CommonStockSharesOutstanding"), 12150, FY_END, unit="shares", decimals=0)
    return b, ["DQC.US.0095.9528"]


def case_0098():
    b = base()
    b.fact(gaap("ContractWithCustomerLiabilityRevenueRecognized"), 500000, FY)
    b.fact(gaap("ContractWithCustomerLiability"), 300000, PRIOR_END)
    return b, ["DQC.US.0098.9531"]


def case_0060():
    b = base()
    b.fact(gaap("NetCashProvidedByUsedInFinancingActivitiesContinuingOperations"), -52100000, FY)
    return b, ["DQC.US.0060.7495"]


ASSET_AXIS = gaap("DefinedBenefitPlanByPlanAssetCategoriesAxis")


def case_0073():
    b = base()
    b.fact(gaap("DefinedBenefitPlanBenefitObligation"), 1000000, FY_END, {ASSET_AXIS: gaap("EquitySecuritiesMember")})
    return b, ["DQC.US.0073.7648"]


START_AXIS = gaap("RevenueRemainingPerformanceObligationExpectedTimingOfSatisfactionStartDateAxis")


def _start(date: str):
    from auditflow.xbrl.model import TypedMember
    return TypedMember(date)


def case_0076():
    b = base()
    b.fact(gaap("RevenueRemainingPerformanceObligation"), 1000000, FY_END, {START_AXIS: _start("2025-01-01")})
    return b, ["DQC.US.0076.7653"]


CONFORMANCE = {
    "0004": case_0004, "0005": case_0005, "0006": case_0006, "0008": case_0008, "0009": case_0009,
    "0033": case_0033, "0036": case_0036, "0041": case_0041, "0046": case_0046, "0051": case_0051,
    "0052": case_0052, "0053": case_0053, "0054": case_0054, "0055": case_0055, "0089": case_0089, "0123": case_0123,
    "0118": case_0118, "0043": case_0043, "0044": case_0044,
    "0062": case_0062, "0095": case_0095, "0098": case_0098,
    "0060": case_0060, "0073": case_0073, "0076": case_0076,
    # the first three rules have their own, longer suites
    "0015": "tests/rules/test_dqc_0015.py", "0117": "tests/rules/test_dqc_0117.py", "0126": "tests/rules/test_dqc_0126.py",
}


@pytest.mark.parametrize("rule", sorted(r for r, c in CONFORMANCE.items() if callable(c)))
def test_conformance_case_reports_exactly_its_codes(rule, data_root):
    b, expected = CONFORMANCE[rule]()
    result = run(rule, b, data_root)
    assert codes(result) == expected
    f = result.findings[0]
    assert f.message.startswith(tuple(registry.get(rule).template(f.code).split("{", 1)[:1]))
    assert f"{f.code}." in f.message and "Rule version" in f.message


@pytest.mark.parametrize("rule", sorted(r for r, c in CONFORMANCE.items() if callable(c)))
def test_the_clean_sample_has_no_finding(rule, data_root):
    """The bundled sample is clean for every new rule (its planted errors are 0015's and 0126's)."""
    from auditflow.graphs.environment import build_environment
    import auditflow

    env = build_environment(Path(auditflow.__file__).parent / "samples" / "acme-10k-2024")
    assert registry.get(rule).run(env, Resources(data_root)).findings == ()


# -- the clean variants and the edges the docs name ----------------------------------------------------

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


def test_0005_shares_on_or_after_the_period_end_are_fine_and_registration_forms_are_skipped(data_root):
    b = base()
    b.fact(dei("EntityCommonStockSharesOutstanding"), 100, "2025-02-14", unit="shares", decimals=0)
    assert codes(run("0005", b, data_root)) == []
    b, _ = case_0005()
    b.facts[0] = b.facts[0].__class__(b.facts[0].concept, b.facts[0].context_id, "S-1", None, None, id="f0")
    assert codes(run("0005", b, data_root)) == []


def test_0005_subsequent_events_and_forecasts_must_be_later(data_root):
    b = base()
    b.fact(gaap("StockIssuedDuringPeriodSharesNewIssues"), 5, "2024-12-01..2024-12-31",
           {gaap("SubsequentEventTypeAxis"): gaap("SubsequentEventMember")}, unit="shares", decimals=0)
    b.fact(gaap("Revenues"), 5, "2025-01-01..2025-12-31", {srt("StatementScenarioAxis"): srt("ScenarioForecastMember")})
    b.fact(gaap("Revenues"), 7, "2024-01-01..2024-12-31", {srt("StatementScenarioAxis"): srt("ScenarioForecastMember")})
    assert codes(run("0005", b, data_root)) == ["DQC.US.0005.48", "DQC.US.0005.49"]


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


def test_0008_the_us_gaap_direction_is_fine(data_root):
    b = base()
    b.role(BS_URI, "0002 - Statement - Balance Sheet")
    b.calc(BS_URI, gaap("Assets"), [(gaap("AssetsCurrent"), 1)])
    r = run("0008", b, data_root)
    assert codes(r) == [] and r.consistent == 1


def test_0009_equal_after_rounding_is_fine_and_splits_skip_the_authorized_pairs(data_root):
    b = base()
    b.fact(gaap("CommonStockSharesOutstanding"), 1499, FY_END, unit="shares", decimals=-3)
    b.fact(gaap("CommonStockSharesIssued"), 1200, FY_END, unit="shares", decimals=-3)  # both round to 1,000
    assert codes(run("0009", b, data_root)) == []
    b = base()
    b.fact(gaap("CommonStockSharesOutstanding"), 2000, FY_END, unit="shares", decimals=0)
    b.fact(gaap("CommonStockSharesAuthorized"), 1500, FY_END, unit="shares", decimals=0)
    assert codes(run("0009", b, data_root)) == ["DQC.US.0009.15"]
    b.fact(gaap("StockIssuedDuringPeriodSharesStockSplits"), 10, FY, unit="shares", decimals=0)
    b.fact(gaap("StockIssuedDuringPeriodSharesStockSplits"), 10, "2023-01-01..2023-12-31", unit="shares", decimals=0)
    assert codes(run("0009", b, data_root)) == []


def test_0033_subsequent_events_and_excepted_items_are_not_checked(data_root):
    b = base()
    b.fact(dei("EntityCommonStockSharesOutstanding"), 100, "2025-02-14", unit="shares", decimals=0)
    b.fact(dei("EntityRegistrantName"), "Acme", "2025-01-01..2025-02-14",
           {gaap("SubsequentEventTypeAxis"): gaap("SubsequentEventMember")}, unit=None, decimals=None)
    assert codes(run("0033", b, data_root)) == []


def test_0036_three_days_apart_is_fine(data_root):
    assert codes(run("0036", base(period_end="2025-01-03"), data_root)) == []
    assert codes(run("0036", base(period_end="2025-01-04"), data_root)) == ["DQC.US.0036.1"]


def test_0041_the_base_default_and_extension_axes_are_fine(data_root):
    b = base()
    b.arcs.append(Arc("definition", DIMENSION_DEFAULT, BS_URI, srt("ProductOrServiceAxis"), srt("ProductsAndServicesDomain")))
    b.arcs.append(Arc("definition", DIMENSION_DEFAULT, BS_URI, ext("WidgetAxis"), ext("WidgetMember")))
    r = run("0041", b, data_root)
    assert codes(r) == [] and r.consistent == 1


def test_rules_that_need_the_data_root_say_so_without_one():
    r = run("0008", base(), None)
    assert r.findings == () and r.checks[0].outcome is Outcome.NOT_APPLICABLE and "data root" in r.warnings[0]


def test_a_form_outside_the_lookup_is_not_checked(data_root):
    b, _ = case_0036()
    b.facts[0] = b.facts[0].__class__(b.facts[0].concept, b.facts[0].context_id, "N-CSR", None, None, id="f0")
    r = run("0036", b, data_root)
    assert r.findings == () and "out of scope" in r.checks[0].reason


def test_0046_the_right_total_and_depth_two(data_root):
    b = base()
    b.role(CF_URI, "0006 - Statement - Cash Flows")
    total = gaap("CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsPeriodIncreaseDecreaseIncludingExchangeRateEffect")
    b.calc(CF_URI, total, [(gaap("EffectOfExchangeRateOnCashAndCashEquivalentsContinuingOperations"), 1)])
    assert codes(run("0046", b, data_root)) == []
    b.role(IS_URI, "0005 - Statement - Comprehensive Income")
    b.calc(IS_URI, gaap("OtherComprehensiveIncomeLossNetOfTax"), [(ext("OciSubtotal"), 1)])
    b.calc(IS_URI, ext("OciSubtotal"), [(gaap("NetIncomeLoss"), 1)])
    assert codes(run("0046", b, data_root)) == ["DQC.US.0046.9279"]


def test_0051_a_tax_added_through_two_negative_weights_is_fine(data_root):
    b = base()
    b.role(IS_URI, "0004 - Statement - Operations")
    b.calc(IS_URI, gaap("IncomeLossAttributableToParent"), [(ext("NetOfTaxEffects"), -1)])
    b.calc(IS_URI, ext("NetOfTaxEffects"), [(gaap("IncomeTaxExpenseBenefit"), -1)])
    r = run("0051", b, data_root)
    assert codes(r) == [] and r.consistent == 1


def test_0052_0053_other_members_are_fine(data_root):
    b = base()
    b.fact(gaap("DefinedBenefitPlanServiceCost"), 1000, FY, {PLAN_AXIS: COUNTRY_US})
    b.fact(gaap("DefinedBenefitPlanServiceCost"), 500, FY, {PLAN_AXIS: gaap("ForeignPlanMember")})
    for rule in ("0052", "0053"):
        r = run(rule, b, data_root)
        assert codes(r) == [] and r.consistent == 2


def test_0054_other_axes_are_fine(data_root):
    b = base()
    b.arcs.append(Arc("definition", HYPERCUBE_DIMENSION, PEN_URI, gaap("DefinedContributionPlanTable"), PLAN_AXIS))
    r = run("0054", b, data_root)
    assert codes(r) == [] and r.consistent == 1


def test_0055_countries_below_the_groups_and_paths_without_them(data_root):
    b, _ = case_0055()
    b.arcs += presentation_arcs(PEN_URI, gaap("DomesticPlanMember"), [COUNTRY_US])
    assert codes(run("0055", b, data_root)) == []
    b = base()
    dom = gaap("RetirementPlanSponsorLocationDomain")
    b.arcs += presentation_arcs(PEN_URI, PLAN_AXIS, [dom])
    b.arcs += presentation_arcs(PEN_URI, dom, [ext("UnitedKingdomPlanMember")])
    assert codes(run("0055", b, data_root)) == ["DQC.US.0055.7493", "DQC.US.0055.9842"]
    b = base()
    b.arcs += presentation_arcs(PEN_URI, PLAN_AXIS, [dom])
    b.arcs += presentation_arcs(PEN_URI, dom, [gaap("ForeignPlanMember")])
    assert codes(run("0055", b, data_root)) == ["DQC.US.0055.9844"]
    b.fact(gaap("DefinedBenefitPlanServiceCost"), 500, FY, {PLAN_AXIS: gaap("ForeignPlanMember")})
    assert codes(run("0055", b, data_root)) == []  # values reported for ForeignPlanMember itself


def test_0089_without_the_range_axis_is_fine(data_root):
    b = base()
    b.fact(gaap("OperatingLeaseWeightedAverageRemainingLeaseTerm1"), "P5Y", FY_END, unit=None, decimals=None)
    r = run("0089", b, data_root)
    assert codes(r) == [] and r.consistent == 1


def test_0123_with_the_equity_component_or_as_a_bdc_is_fine(data_root):
    b = base()
    b.fact(gaap("StockholdersEquity"), 500000, FY_END, {gaap("StatementClassOfStockAxis"): gaap("CommonClassAMember"),
                                                      gaap("StatementEquityComponentsAxis"): gaap("CommonStockMember")})
    assert codes(run("0123", b, data_root)) == []
    b, _ = case_0123()
    b.fact(gaap("NetAssetValuePerShare"), 10, FY_END, {gaap("StatementClassOfStockAxis"): gaap("CommonClassAMember")})
    assert codes(run("0123", b, data_root)) == []


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


def test_0043_the_right_weight_and_concepts_without_a_balance_are_said(data_root):
    b = base()
    b.fact(gaap("NetCashProvidedByUsedInOperatingActivities"), 1000, FY)
    _cash_flow(b, "NetCashProvidedByUsedInOperatingActivities", ext("GainOnSaleOfWidgets"), -1)
    b.calc(CF_URI, gaap("NetCashProvidedByUsedInOperatingActivities"), [(gaap("DepreciationDepletionAndAmortization"), 1)])
    r = run("0043", b, data_root)
    assert codes(r) == [] and r.consistent == 1 and r.not_applicable == 1
    assert any("1 descendants" in w and "1 of them standard" in w for w in r.warnings)


def test_0043_stops_at_net_income_items(data_root):
    b = base()
    b.fact(gaap("NetCashProvidedByUsedInOperatingActivities"), 1000, FY)
    _cash_flow(b, "NetCashProvidedByUsedInOperatingActivities", gaap("ProfitLoss"), 1)
    b.calc(CF_URI, gaap("ProfitLoss"), [(ext("GainOnSaleOfWidgets"), 1)])
    assert codes(run("0043", b, data_root)) == []


def test_0044_cash_items_and_zero_values_are_fine(data_root):
    b = base()
    b.fact(gaap("RepaymentsOfLongTermDebt"), 5000, FY)
    b.fact(gaap("InterestExpense"), 0, FY)
    _cash_flow(b, "NetCashProvidedByUsedInFinancingActivities", gaap("RepaymentsOfLongTermDebt"), -1)
    b.calc(CF_URI, gaap("NetCashProvidedByUsedInFinancingActivities"), [(gaap("InterestExpense"), -1)])
    r = run("0044", b, data_root)
    assert codes(r) == [] and r.consistent == 1


def test_decoded_constants_are_cached_on_disk_and_a_damaged_cache_is_rewritten(data_root, tmp_path, monkeypatch):
    import pickle

    from auditflow.rules import common

    monkeypatch.setenv("AUDITFLOW_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(common, "_DECODED", {})
    first = run("0008", case_0008()[0], data_root)
    files = list((tmp_path / "dqc-constants").glob("*.pickle"))
    assert len(files) == 1
    for f in files:  # a tampered entry (a pickle that names a callable) is not trusted
        f.write_bytes(pickle.dumps(print))
    monkeypatch.setattr(common, "_DECODED", {})
    again = run("0008", case_0008()[0], data_root)
    assert codes(again) == codes(first) == ["DQC.US.0008.6819"]
    assert pickle.loads(files[0].read_bytes()) != print  # rewritten with the decoded data


def test_0062_a_change_in_cash_without_dimensions_is_enough(data_root):
    change = gaap("CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsPeriodIncreaseDecreaseIncludingExchangeRateEffect")
    b, _ = case_0062()
    b.fact(change, 0, FY, {srt("ConsolidatedEntitiesAxis"): srt("ParentCompanyMember")})
    assert codes(run("0062", b, data_root)) == ["DQC.US.0062.7501"]
    b.fact(change, 0, FY)
    assert codes(run("0062", b, data_root)) == []


def test_0095_same_scale_and_old_balance_sheet_dates_are_fine(data_root):
    b = base()
    b.fact(dei("EntityCommonStockSharesOutstanding"), 12150000, "2025-02-14", unit="shares", decimals=0)
    b.fact(gaap("CommonStockSharesOutstanding"), 12000000, FY_END, unit="shares", decimals=0)
    b.fact(gaap("CommonStockSharesOutstanding"), 12000, "2024-10-01", unit="shares", decimals=0)  # 136 days before
    r = run("0095", b, data_root)
    assert codes(r) == [] and r.consistent == 1


def test_0098_within_the_opening_balance_and_the_parts(data_root):
    b = base()
    b.fact(gaap("ContractWithCustomerLiabilityRevenueRecognized"), 250000, FY)
    b.fact(gaap("ContractWithCustomerLiability"), 300000, PRIOR_END)
    r = run("0098", b, data_root)
    assert codes(r) == [] and r.consistent == 1
    b = base()
    b.fact(gaap("ContractWithCustomerLiabilityRevenueRecognized"), 500000, FY)
    b.fact(gaap("ContractWithCustomerLiabilityCurrent"), 200000, PRIOR_END)
    assert codes(run("0098", b, data_root)) == []  # the noncurrent part is missing: not compared
    b.fact(gaap("ContractWithCustomerLiabilityNoncurrent"), 50000, PRIOR_END)
    assert codes(run("0098", b, data_root)) == ["DQC.US.0098.9532"]


def test_0060_the_total_or_the_discontinued_part_is_enough(data_root):
    for other in ("NetCashProvidedByUsedInFinancingActivities", "CashProvidedByUsedInFinancingActivitiesDiscontinuedOperations"):
        b, _ = case_0060()
        b.fact(gaap(other), 0, FY)
        r = run("0060", b, data_root)
        assert codes(r) == [] and r.consistent == 1


def test_0073_plan_asset_items_and_extensions_are_fine(data_root):
    b = base()
    b.fact(gaap("DefinedBenefitPlanFairValueOfPlanAssets"), 1000000, FY_END, {ASSET_AXIS: gaap("EquitySecuritiesMember")})
    b.fact(ext("PlanAssetsHeldAbroad"), 5, FY_END, {ASSET_AXIS: gaap("EquitySecuritiesMember")})
    r = run("0073", b, data_root)
    assert codes(r) == [] and r.consistent == 1


def test_0076_any_duration_on_the_axis_is_enough(data_root):
    b, _ = case_0076()
    b.fact(gaap("RevenueRemainingPerformanceObligationExpectedTimingOfSatisfactionPeriod1"), "P1Y", FY_END,
           {START_AXIS: _start("2025-01-01")}, unit=None, decimals=None)
    r = run("0076", b, data_root)
    assert codes(r) == [] and r.consistent == 1
