"""What every rule's test file shares: a tiny filing built in memory (:mod:`builders`) with the
document facts a rule needs, the roles, axes and helpers the cases use, and the two checks of a
conformance case (:func:`assert_conformance`, :func:`assert_clean_sample`).

Each ``tests/rules/test_dqc_NNNN.py`` defines ``case()`` (a violating filing and the codes it must
report), runs both checks on it and adds the examples of its ``docs/rules/DQC_US_NNNN.md``.
"""
from __future__ import annotations

from pathlib import Path

from auditflow.rules import registry
from auditflow.rules.resources import Resources
from auditflow.xbrl.qname import QName

from builders import FilingBuilder, dei, ext, gaap

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


CF_URI = "http://example.com/role/CashFlow"


IS_URI = "http://example.com/role/Operations"


PEN_URI = "http://example.com/role/PensionDetails"


PLAN_AXIS = gaap("RetirementPlanSponsorLocationAxis")


COUNTRY_US = QName("http://xbrl.sec.gov/country/2024", "US", "country")


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


ASSET_AXIS = gaap("DefinedBenefitPlanByPlanAssetCategoriesAxis")


START_AXIS = gaap("RevenueRemainingPerformanceObligationExpectedTimingOfSatisfactionStartDateAxis")


def _start(date: str):
    from auditflow.xbrl.model import TypedMember
    return TypedMember(date)


def assert_conformance(rule: str, case, data_root: Path | None) -> None:
    """The rule's conformance case reports exactly its codes, with messages from the rule's templates."""
    b, expected = case()
    result = run(rule, b, data_root)
    assert codes(result) == expected
    f = result.findings[0]
    assert f.message.startswith(tuple(registry.get(rule).template(f.code).split("{", 1)[:1]))
    assert f"{f.code}." in f.message and "Rule version" in f.message


def assert_clean_sample(rule: str, data_root: Path | None) -> None:
    """The bundled sample is clean for the rule (its planted errors are 0015's and 0126's)."""
    from auditflow.graphs.environment import build_environment
    import auditflow

    env = build_environment(Path(auditflow.__file__).parent / "samples" / "acme-10k-2024")
    assert registry.get(rule).run(env, Resources(data_root)).findings == ()
