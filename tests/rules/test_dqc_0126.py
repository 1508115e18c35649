"""DQC.US.0126 (calculation check on face statements without tables): every branch of docs section 4
and the shared definitions it uses (D1, D2, D5, D6, D7), on tiny filings built in memory."""
from __future__ import annotations

import json
from decimal import Decimal

import pytest

from auditflow.rules.dqc_0126 import CODE, rule_0126
from auditflow.rules.finding import Outcome, RuleResult
from auditflow.xbrl.model import INF
from auditflow.xbrl.qname import QName

from builders import AxisSpec, FilingBuilder, dei, gaap, make_unit, presentation_arcs, srt

FY = "2024-01-01..2024-12-31"
FY_END = "2024-12-31"
PRIOR_FY = "2023-01-01..2023-12-31"
PRIOR_END = "2023-12-31"
H1 = "2024-01-01..2024-06-30"  # Q2 10-Q year to date, leap year (182 days)
Q2_QTR = "2024-04-01..2024-06-30"
H1_END = "2024-06-30"

BS_URI = "http://example.com/role/BalanceSheet"
BS_DEF = "0000002 - Statement - Balance Sheet"
IS_URI = "http://example.com/role/StatementsOfOperations"
IS_DEF = "0000004 - Statement - Statements of Operations"

ASSETS, AC, PPE, OANC = gaap("Assets"), gaap("AssetsCurrent"), gaap("PropertyPlantAndEquipmentNet"), gaap("OtherAssetsNoncurrent")
LIAB, LC = gaap("Liabilities"), gaap("LiabilitiesCurrent")
LSTC = gaap("LiabilitiesSubjectToCompromise")
CH11_TEXT = gaap("ReorganizationUnderChapter11OfUSBankruptcyCodeDisclosureTextBlock")
REV, COR, GP = gaap("Revenues"), gaap("CostOfRevenue"), gaap("GrossProfit")
OPEX, OPINC = gaap("OperatingExpenses"), gaap("OperatingIncomeLoss")
TAX, NI = gaap("IncomeTaxExpenseBenefit"), gaap("NetIncomeLoss")
CONS = srt("ConsolidationItemsAxis")
CONS_DOM = srt("ConsolidationItemsDomain")
ELIM = srt("ConsolidationEliminationsMember")
TABLE = gaap("StatementTable")


def builder(doc_type: str | None = "10-K", r: str = FY, *, period_end: bool = True) -> FilingBuilder:
    """A filing with dei:DocumentType and dei:DocumentPeriodEndDate in the reporting-period context R."""
    b = FilingBuilder()
    if doc_type is not None:
        b.document_type(doc_type, r)
    if period_end:
        b.fact(dei("DocumentPeriodEndDate"), r.rpartition("..")[2], r, unit=None, decimals=None)
    return b


def statement(b: FilingBuilder, parent: QName, children, uri: str = BS_URI, definition: str = BS_DEF) -> None:
    """A presentation role with its roleType definition and the calculation arcs parent -> (child, weight)."""
    b.role(uri, definition)
    b.arcs += presentation_arcs(uri, parent, [c for c, _ in children])
    b.calc(uri, parent, children)


def balance_sheet(b: FilingBuilder, assets="1000000", ac="600000", ppe="390000", *, at: str = FY_END,
                  decimals=-3, uri: str = BS_URI, definition: str = BS_DEF) -> None:
    """The spec's worked example: Assets = AssetsCurrent + PropertyPlantAndEquipmentNet."""
    statement(b, ASSETS, [(AC, 1), (PPE, 1)], uri, definition)
    for concept, value in ((ASSETS, assets), (AC, ac), (PPE, ppe)):
        if value is not None:
            b.fact(concept, value, at, decimals=decimals, fid=f"{concept.local}@{at}" if at == FY_END else None)


def gross_profit(b: FilingBuilder, rev="500000", cor="300000", gp="200000", *, period: str = FY, decimals=-3,
                 arcs: bool = True) -> None:
    """GrossProfit = Revenues - CostOfRevenue on the income statement; ``arcs=False`` adds only the facts."""
    if arcs:
        statement(b, GP, [(REV, 1), (COR, -1)], IS_URI, IS_DEF)
    b.fact(REV, rev, period, decimals=decimals)
    b.fact(COR, cor, period, decimals=decimals)
    b.fact(GP, gp, period, decimals=decimals)


def run(b: FilingBuilder, **kw) -> RuleResult:
    return rule_0126(b.env(), **kw)


def codes(r: RuleResult) -> list[str]:
    return [f.code for f in r.findings]


def reasons(r: RuleResult, outcome: Outcome = Outcome.NOT_APPLICABLE) -> list[str]:
    return [c.reason for c in r.checks if c.outcome is outcome]


def counts(r: RuleResult) -> tuple[int, int, int]:
    return (r.violations, r.consistent, r.not_applicable)


# -- the worked example and the tolerance (D7, k = children with a value + 1) -----------------------------

def test_worked_example_balance_sheet():
    b = builder()
    balance_sheet(b)
    r = run(b)
    assert codes(r) == [CODE] == ["DQC.US.0126.9590"]
    f = r.findings[0]
    assert (f.concept, f.fact_id) == (ASSETS, "Assets@2024-12-31")
    assert (f.reported, f.expected, f.tolerance) == (Decimal(1000000), Decimal(990000), Decimal(3000))
    assert (f.decimals, f.unit, f.dimensions, str(f.period), f.role) == (-3, "USD", (), FY_END, BS_DEF)
    assert [(e.concept, e.fact_id, e.value, e.weight, e.decimals) for e in f.evidence] == [
        (AC, "AssetsCurrent@2024-12-31", Decimal(600000), Decimal(1), -3),
        (PPE, "PropertyPlantAndEquipmentNet@2024-12-31", Decimal(390000), Decimal(1), -3)]
    assert counts(r) == (1, 0, 0)


def test_worked_example_within_tolerance_passes():
    b = builder()
    balance_sheet(b, ppe="398000")  # difference 2,000 <= 3,000
    r = run(b)
    assert r.findings == () and counts(r) == (0, 1, 0)


@pytest.mark.parametrize("ppe, error", [
    ("397000", False),  # difference exactly k * 10^3 = 3,000: passes
    ("396000", True),  # 4,000: one more unit (of 10^3) fails
    ("403000", False),  # the other side: sum above the total by exactly 3,000
    ("404000", True),
    ("396501", False),  # raw 3,499: the sum 996,501 rounds to 997,000
    ("396500", True),  # raw 3,500: 996,500 rounds half-even to 996,000 -> 4,000
    ("397500", False),  # raw 2,500: 997,500 rounds half-even to 998,000 -> 2,000
])
def test_tolerance_edges_at_decimals_minus_3(ppe, error):
    b = builder()
    balance_sheet(b, ppe=ppe)
    r = run(b)
    assert codes(r) == ([CODE] if error else [])
    if error:
        assert r.findings[0].tolerance == Decimal(3000)


@pytest.mark.parametrize("ppe, error", [("399997", False), ("399996", True), ("400003", False), ("400004", True)])
def test_tolerance_edges_at_decimals_0(ppe, error):
    b = builder()
    balance_sheet(b, ppe=ppe, decimals=0)
    r = run(b)
    assert codes(r) == ([CODE] if error else [])
    if error:
        assert r.findings[0].tolerance == Decimal(3)


def test_missing_child_is_left_out_of_the_sum_and_of_k():
    b = builder()
    statement(b, ASSETS, [(AC, 1), (PPE, 1), (OANC, 1)])  # OtherAssetsNoncurrent has no fact
    b.fact(ASSETS, "1000000", FY_END)
    b.fact(AC, "600000", FY_END)
    b.fact(PPE, "396000", FY_END)  # difference 4,000: fails with k = 3, would pass with k = 4
    r = run(b)
    assert codes(r) == [CODE]
    f = r.findings[0]
    assert (f.expected, f.tolerance) == (Decimal(996000), Decimal(3000))
    assert [e.concept for e in f.evidence] == [AC, PPE]
    b = builder()
    statement(b, ASSETS, [(AC, 1), (PPE, 1), (OANC, 1)])
    b.fact(ASSETS, "1000000", FY_END)
    b.fact(AC, "600000", FY_END)
    b.fact(PPE, "397000", FY_END)
    assert run(b).consistent == 1


def test_negative_weights_subtract_and_the_message_names_everything():
    b = builder()
    gross_profit(b, gp="250000")
    r = run(b)
    assert codes(r) == [CODE]
    f = r.findings[0]
    assert (f.concept, f.reported, f.expected, f.tolerance) == (GP, Decimal(250000), Decimal(200000), Decimal(3000))
    assert [(e.concept, e.value, e.weight) for e in f.evidence] == [
        (REV, Decimal(500000), Decimal(1)), (COR, Decimal(300000), Decimal(-1))]  # unweighted values
    for part in (IS_DEF, "us-gaap:GrossProfit", "250,000", "200,000", "+ us-gaap:Revenues 500,000",
                 "- us-gaap:CostOfRevenue 300,000", "2024-01-01..2024-12-31", "USD", "decimals -3", "no dimensions",
                 "50,000", "3,000", CODE, "rule element id 9590", "rule version: "):
        assert part in f.message, part
    b = builder()
    gross_profit(b)
    assert counts(run(b)) == (0, 1, 0)


def test_weights_from_the_2023_summation_item_arcrole():
    from dataclasses import replace

    from auditflow.xbrl.model import SUMMATION_ITEM_11

    b = builder()
    gross_profit(b, gp="250000")
    b.arcs = [replace(a, arcrole=SUMMATION_ITEM_11) if a.kind == "calculation" else a for a in b.arcs]
    assert [f.expected for f in run(b).findings] == [Decimal(200000)]


# -- only the reporting period R (D6) ----------------------------------------------------------------------

def test_prior_year_columns_are_never_checked():
    b = builder()
    balance_sheet(b, ppe="400000")
    gross_profit(b)
    for concept, value in ((ASSETS, "1"), (AC, "600000"), (PPE, "400000")):
        b.fact(concept, value, PRIOR_END)  # prior-year instant, wrong sum
    for concept, value in ((REV, "400000"), (COR, "100000"), (GP, "7")):
        b.fact(concept, value, PRIOR_FY)  # prior-year duration, wrong sum
    r = run(b)
    assert r.findings == () and counts(r) == (0, 2, 0)


def test_q2_10q_checks_only_the_ytd_duration_and_period_end_instant():
    b = builder("10-Q", H1)
    gross_profit(b, period=H1)  # YTD: consistent
    gross_profit(b, "250000", "100000", "1", period=Q2_QTR, arcs=False)  # three-month column, wrong: ignored
    balance_sheet(b, ppe="400000", at=H1_END)
    r = run(b)
    assert r.findings == () and counts(r) == (0, 2, 0)


def test_leap_year_ytd_total_with_the_exact_context_is_checked():
    b = builder("10-Q", H1)
    gross_profit(b, gp="250000", period=H1)
    gp_context = b.facts[-1].context_id  # the GrossProfit fact, in the context of R
    # near misses of R: not the reporting period, never checked even though wrong
    for period in ("2024-01-02..2024-06-30", "2024-01-01..2024-06-29", "2023-12-31..2024-06-30"):
        b.fact(GP, "9", period)
        b.fact(REV, "500000", period)
    r = run(b)
    assert codes(r) == [CODE]
    f = r.findings[0]
    assert str(f.period) == H1 and f.period.days == 182 and f.expected == Decimal(200000)
    assert f.context_id == gp_context and b.contexts[gp_context].period == b.contexts[b.facts[1].context_id].period
    assert "2024-01-01..2024-06-30" in f.message


def test_reporting_period_is_the_first_document_period_end_date_fact():
    b = builder("10-Q", H1)
    b.fact(dei("DocumentPeriodEndDate"), "2024-12-31", FY, unit=None, decimals=None)  # a second, later one
    gross_profit(b, gp="250000", period=FY)
    gross_profit(b, gp="250000", period=H1, arcs=False)
    r = run(b)
    assert [str(f.period) for f in r.findings] == [H1]


def test_no_document_period_end_date_checks_nothing():
    b = builder(period_end=False)
    balance_sheet(b)
    r = run(b)
    assert r.findings == () and counts(r) == (0, 0, 1)
    assert reasons(r) == ["no dei:DocumentPeriodEndDate fact"]


# -- fsd and the decimals of totals and children (D7) ---------------------------------------------------------

def income_statement(b: FilingBuilder, ni="40000", ni_decimals=-6) -> None:
    """GrossProfit and OperatingIncomeLoss at decimals -3, NetIncomeLoss at ``ni_decimals``."""
    gross_profit(b)
    statement(b, OPINC, [(GP, 1), (OPEX, -1)], IS_URI, IS_DEF)
    statement(b, NI, [(OPINC, 1), (TAX, -1)], IS_URI, IS_DEF)
    b.fact(OPEX, "150000", FY)
    b.fact(OPINC, "50000", FY)
    b.fact(TAX, "10000", FY)
    b.fact(NI, ni, FY, decimals=ni_decimals, fid="ni")


def test_total_with_decimals_other_than_fsd_is_not_checked():
    b = builder()
    income_statement(b, ni="1000000", ni_decimals=-6)  # wrong, but tagged -6 while the statement uses -3
    r = run(b)
    assert r.findings == () and counts(r) == (0, 2, 1)
    assert [(c.concept, c.reason) for c in r.checks if c.outcome is Outcome.NOT_APPLICABLE] == [
        (NI, "no total for the reporting period with the statement's decimals")]
    b = builder()
    income_statement(b, ni="1000000", ni_decimals=-3)  # the same total at fsd is checked
    assert [(f.concept, f.expected) for f in run(b).findings] == [(NI, Decimal(40000))]


def test_fsd_counts_parent_facts_of_any_period_but_not_dimensional_ones():
    b = builder()
    balance_sheet(b, assets="1000000", ppe="390000", decimals=-6)  # current year at -6 ...
    b.fact(ASSETS, "900000", PRIOR_END, decimals=-3)  # ... but the parent's facts are mostly -3
    b.fact(ASSETS, "800000", "2022-12-31", decimals=-3)
    r = run(b)
    assert r.findings == () and reasons(r) == ["no total for the reporting period with the statement's decimals"]
    b = builder()
    balance_sheet(b, assets="1000000", ppe="390000", decimals=-3)
    for n in range(3):  # dimensional parent facts do not vote
        b.fact(ASSETS, str(n), FY_END, {CONS: ELIM}, decimals=-6)
    assert codes(run(b)) == [CODE]


@pytest.mark.parametrize("child_facts, picked, expected, tolerance", [
    ([(-6, "1000000"), (-3, "600000")], 1, 990000, 3000),  # == fsd wins over document order
    ([(-6, "1000000"), (-2, "600000")], 1, 990000, 3000),  # >= fsd before < fsd
    ([(-6, "1000000"), (INF, "600000")], 1, 990000, 3000),  # INF counts as >= fsd
    ([(-2, "600000")], 0, 990000, 3000),  # only >= fsd: used, t = min(-3, -2) = -3
    ([(-6, "1000000")], 0, 1390000, 3000000),  # only < fsd: used as the last resort, t = -6
])
def test_child_decimals_preference(child_facts, picked, expected, tolerance):
    b = builder()
    balance_sheet(b, ac=None, assets="1000000" if expected == 990000 else "10000000")
    ids = [b.fact(AC, value, FY_END, decimals=d, fid=f"ac{n}").key for n, (d, value) in enumerate(child_facts)]
    r = run(b)
    assert codes(r) == [CODE]
    f = r.findings[0]
    assert (f.expected, f.tolerance) == (Decimal(expected), Decimal(tolerance))
    assert f.evidence[0].concept == AC and f.evidence[0].fact_id == ids[picked]


@pytest.mark.parametrize("ppe, error", [("398000", False), ("390000", True)])
def test_inf_total_takes_t_from_the_children(ppe, error):
    b = builder()
    statement(b, ASSETS, [(AC, 1), (PPE, 1)])
    b.fact(ASSETS, "1000000", FY_END, decimals=INF)  # fsd is INF: the total is checked
    b.fact(AC, "600000", FY_END, decimals=-3)
    b.fact(PPE, ppe, FY_END, decimals=-3)
    r = run(b)
    assert codes(r) == ([CODE] if error else [])
    if error:
        assert r.findings[0].tolerance == Decimal(3000) and r.findings[0].decimals == INF


@pytest.mark.parametrize("ppe, error", [("398000", False), ("390000", True)])
def test_inf_total_with_mixed_inf_and_rounded_children(ppe, error):
    """The computed sum carries the smallest decimals of its addends, INF being +infinity: min(INF, -3) = -3."""
    b = builder()
    statement(b, ASSETS, [(AC, 1), (PPE, 1)])
    b.fact(ASSETS, "1000000", FY_END, decimals=INF)
    b.fact(AC, "600000", FY_END, decimals=INF)
    b.fact(PPE, ppe, FY_END, decimals=-3)
    r = run(b)
    assert codes(r) == ([CODE] if error else [])
    if error:
        assert r.findings[0].tolerance == Decimal(3000)


@pytest.mark.parametrize("ppe, error", [("400000", False), ("399999", True), ("400001", True)])
def test_inf_everywhere_is_an_exact_comparison(ppe, error):
    b = builder()
    balance_sheet(b, ppe=ppe, decimals=INF)
    r = run(b)
    assert codes(r) == ([CODE] if error else [])
    if error:
        assert r.findings[0].tolerance == Decimal(0) and r.findings[0].expected == Decimal(600000) + Decimal(ppe)
    else:
        assert r.consistent == 1


# -- which roles (D1) and the statement-cube skip (D2) -----------------------------------------------------------

def test_statement_with_a_table_is_skipped_whole():
    b = builder()
    balance_sheet(b)  # wrong sum
    b.cube(BS_URI, BS_DEF, TABLE, [ASSETS], [AxisSpec(CONS, CONS_DOM, [ELIM])])
    r = run(b)
    assert r.findings == () and counts(r) == (0, 0, 1)
    assert reasons(r) == [f"statement has a table (DQC 0118 applies): {BS_DEF}"]


@pytest.mark.parametrize("cube_uri, cube_def, table", [
    ("http://example.com/role/SegmentDetails", "0000040 - Disclosure - Segments (Details)", TABLE),  # other role
    (BS_URI, BS_DEF, gaap("ScheduleOfInvestmentsTable")),  # not a statement cube (D2 excluded hypercube)
])
def test_cubes_that_are_not_statement_cubes_of_the_role_do_not_skip_it(cube_uri, cube_def, table):
    b = builder()
    balance_sheet(b)
    b.cube(cube_uri, cube_def, table, [ASSETS], [AxisSpec(CONS, CONS_DOM, [ELIM])])
    assert codes(run(b)) == [CODE]


@pytest.mark.parametrize("uri, definition", [
    ("http://example.com/role/BalanceSheetDetails", "0000040 - Disclosure - Balance Sheet (Details)"),
    ("http://example.com/role/ConsolidatedStatementsOfStockholdersEquity", "0000005 - Statement - Equity"),
    ("http://example.com/role/BalanceSheetParenthetical", "0000003 - Statement - Balance Sheet (Parenthetical)"),
    ("http://example.com/role/BalanceSheetCapital", BS_DEF),
    ("http://example.com/role/FinancialHighlights", "0000009 - Statement - Highlights"),  # a 0126-only word
    ("http://example.com/role/EmployeeBenefitPlan", "0000009 - Statement - Net Assets"),
    ("http://example.com/role/RealEstate", "0000090 - Statement - Schedule III - Real Estate"),
    ("http://example.com/role/BalanceSheet", "0000002 - statement - Balance Sheet"),  # case-sensitive mark
])
def test_roles_that_are_not_0126_statements_are_not_checked_at_all(uri, definition):
    b = builder()
    balance_sheet(b, uri=uri, definition=definition)
    r = run(b)
    assert r.findings == () and r.checks == ()


def test_parents_come_from_calculation_arcs_in_the_same_role():
    b = builder()
    b.role(BS_URI, BS_DEF)
    b.arcs += presentation_arcs(BS_URI, ASSETS, [AC, PPE])
    b.calc("http://example.com/role/SomeOtherRole", ASSETS, [(AC, 1), (PPE, 1)])
    for concept, value in ((ASSETS, "1000000"), (AC, "600000"), (PPE, "390000")):
        b.fact(concept, value, FY_END)
    r = run(b)
    assert r.findings == () and r.checks == ()


# -- which facts count --------------------------------------------------------------------------------------------

def test_dimensional_total_is_never_a_total():
    b = builder()
    balance_sheet(b, assets=None)
    b.fact(ASSETS, "1000000", FY_END, {CONS: ELIM})
    r = run(b)
    assert r.findings == () and r.checked == 0
    b.fact(ASSETS, "900000", PRIOR_END)  # a plain fact in another period sets fsd: the total is still missing
    r = run(b)
    assert r.findings == () and counts(r) == (0, 0, 1)
    assert reasons(r) == ["no total for the reporting period with the statement's decimals"]


def test_dimensional_child_fact_is_not_used():
    b = builder()
    balance_sheet(b, ac=None, ppe="400000")
    b.fact(AC, "600000", FY_END, {CONS: ELIM})
    r = run(b)
    assert codes(r) == [CODE]
    f = r.findings[0]
    assert (f.expected, f.tolerance, [e.concept for e in f.evidence]) == (Decimal(400000), Decimal(2000), [PPE])


def test_nil_facts_are_ignored():
    b = builder()
    balance_sheet(b, assets=None)
    b.fact(ASSETS, None, FY_END, nil=True)
    b.fact(ASSETS, "900000", PRIOR_END)
    r = run(b)
    assert r.findings == () and counts(r) == (0, 0, 1)  # a nil total is no total
    b = builder()
    balance_sheet(b, ac=None, ppe="400000")
    b.fact(AC, None, FY_END, nil=True)
    r = run(b)
    f = r.findings[0]
    assert (f.expected, f.tolerance, [e.concept for e in f.evidence]) == (Decimal(400000), Decimal(2000), [PPE])


def test_no_child_with_a_value_is_not_applicable():
    b = builder()
    balance_sheet(b, ac=None, ppe=None)
    b.fact(AC, "600000", PRIOR_END)  # children only in another period
    r = run(b)
    assert r.findings == () and counts(r) == (0, 0, 1)
    assert r.checks[0].concept == ASSETS and r.checks[0].fact_id == "Assets@2024-12-31"
    assert reasons(r) == ["no child has a value"]


def test_children_must_share_the_totals_unit_and_each_unit_is_checked():
    b = builder()
    b.units["eur"] = make_unit("eur", "EUR")
    balance_sheet(b, ppe="400000")  # USD: consistent
    b.fact(ASSETS, "900000", FY_END, unit="eur", fid="assets-eur")
    b.fact(AC, "600000", FY_END, unit="eur")  # EUR: 900,000 vs 600,000 -> error, k = 2
    r = run(b)
    assert [(f.fact_id, f.unit, f.expected, f.tolerance) for f in r.findings] == [
        ("assets-eur", "EUR", Decimal(600000), Decimal(2000))]
    assert counts(r) == (1, 1, 0)


@pytest.mark.parametrize("with_text_block, lstc_fact, skipped", [
    (True, True, True),
    (False, True, False),
    (True, False, True),  # LiabilitiesSubjectToCompromise is a calc child even without a fact
])
def test_chapter_11_exception(with_text_block, lstc_fact, skipped):
    b = builder()
    statement(b, LIAB, [(LC, 1), (LSTC, 1)])
    b.fact(LIAB, "1000000", FY_END)
    b.fact(LC, "300000", FY_END)
    if lstc_fact:
        b.fact(LSTC, "500000", FY_END)
    if with_text_block:
        b.fact(CH11_TEXT, "<p>Chapter 11 ...</p>", FY, unit=None, decimals=None)
    r = run(b)
    if skipped:
        assert r.findings == () and counts(r) == (0, 0, 1) and reasons(r) == ["Chapter 11 exception"]
    else:
        assert codes(r) == [CODE] and r.findings[0].expected == Decimal(800000)


def test_duplicate_totals_give_one_finding():
    b = builder()
    balance_sheet(b)
    b.fact(ASSETS, "1000000", FY_END, fid="dup")
    r = run(b)
    assert codes(r) == [CODE] and counts(r) == (1, 0, 0)
    assert r.findings[0].fact_id == "Assets@2024-12-31"  # the first in document order is the focus


# -- applicability -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("doc_type, runs", [("S-1", False), ("DEF 14A", False), ("10-Q", True), ("10-K", True), (None, True)])
def test_applicability_by_form(data_root, doc_type, runs):
    b = builder(doc_type)
    balance_sheet(b)
    r = run(b, data_root=data_root)
    if runs:
        assert codes(r) == [CODE]
    else:
        assert r.findings == () and counts(r) == (0, 0, 1)
        assert reasons(r) == [
            f"out of scope: document type {doc_type!r} is not in the DQC rule-form lookup for 0126"]
        assert codes(run(b)) == [CODE]  # without a data root the form lookup is skipped


# -- three outcomes kept apart ---------------------------------------------------------------------------------------

def test_counts_on_a_mixed_filing():
    b = builder()
    balance_sheet(b)  # Assets: violation
    statement(b, LIAB, [(LC, 1), (gaap("LiabilitiesNoncurrent"), 1)])
    b.fact(LIAB, "500000", FY_END)
    b.fact(LC, "200000", FY_END)
    b.fact(gaap("LiabilitiesNoncurrent"), "300000", FY_END)  # Liabilities: consistent
    statement(b, gaap("StockholdersEquity"), [(gaap("CommonStockValue"), 1)])
    b.fact(gaap("StockholdersEquity"), "500000", FY_END)  # no child value: not applicable
    income_statement(b, ni="1000000")  # GrossProfit, OperatingIncomeLoss consistent; NetIncomeLoss -6: not applicable
    cube_uri = "http://example.com/role/CashFlows"
    statement(b, gaap("CashAndCashEquivalentsPeriodIncreaseDecrease"), [(gaap("NetCashProvidedByUsedInOperatingActivities"), 1)],
              cube_uri, "0000007 - Statement - Cash Flows")
    b.cube(cube_uri, "0000007 - Statement - Cash Flows", TABLE, [gaap("NetCashProvidedByUsedInOperatingActivities")],
           [AxisSpec(CONS, CONS_DOM, [ELIM])])  # has a table: not applicable
    statement(b, ASSETS, [(AC, 1)], "http://example.com/role/Details", "0000050 - Disclosure - Details")  # ignored
    r = run(b)
    assert codes(r) == [CODE]
    assert (r.violations, r.consistent, r.not_applicable, r.checked) == (1, 3, 3, 4)
    j = r.to_json(include_checks=True)
    assert j["counts"] == {"checked": 4, "consistent": 3, "not_applicable": 3, "violations": 1}
    assert [(c["concept"], c["outcome"]) for c in j["checks"]] == [
        ("us-gaap:Assets", "violation"),
        ("us-gaap:Liabilities", "consistent"),
        ("us-gaap:StockholdersEquity", "not_applicable"),
        (None, "not_applicable"),  # CashFlows has a table
        ("us-gaap:GrossProfit", "consistent"),
        ("us-gaap:NetIncomeLoss", "not_applicable"),
        ("us-gaap:OperatingIncomeLoss", "consistent"),
    ]


def test_result_is_deterministic():
    def make():
        b = builder()
        balance_sheet(b)
        income_statement(b, ni="1000000", ni_decimals=-3)
        return json.dumps(run(b).to_json(include_checks=True), sort_keys=True)
    assert make() == make()


# -- the official SGU example -----------------------------------------------------------------------------------------

SGU_URI = "http://www.star-gas.com/role/CondensedConsolidatedStatementsOfComprehensiveIncomeLoss"


def _gaap_from(prefixed: str) -> QName:
    prefix, local = prefixed.split(":")
    assert prefix == "us-gaap"
    return gaap(local)


def test_official_sgu_example(data_root):
    official = json.loads((data_root / "dqc" / "dqc_0126" / "expected"
                           / "rollDQC.US.0126.9590_SGU-us-2024.expected.json").read_text(encoding="utf-8"))
    (err,) = official["errors"]
    r_period = f"{err['period']['startDate']}..{err['period']['endDate']}"
    assert r_period == "2024-10-01..2024-12-31"
    b = builder("10-Q", r_period)
    total = _gaap_from(err["total_concept"])
    children = [(_gaap_from(c["concept"]), c["weight"]) for c in err["children"]]
    statement(b, total, children, SGU_URI, err["statement_role_definition"])
    b.fact(total, str(err["total_value"]), r_period, decimals=err["total_decimals"], fid=err["total_fact_id"])
    for c in err["children"]:
        b.fact(_gaap_from(c["concept"]), str(c["value"]), r_period, decimals=-3)
    b.fact(total, "1", "2023-10-01..2023-12-31", decimals=-3)  # prior-year column: not checked
    r = run(b, data_root=data_root)
    assert codes(r) == [err["code"]] == [CODE]
    assert len(r.findings) == official["expected_error_count_for_rule"] == 1
    f = r.findings[0]
    assert (f.concept, f.fact_id) == (gaap("OtherComprehensiveIncomeLossNetOfTax"), "f532")
    assert (f.reported, f.expected, f.tolerance) == (Decimal(740000), Decimal(-192000), Decimal(7000))
    assert f.expected == Decimal(err["computed_sum_of_children"])
    assert [(str(e.concept), e.weight, e.value) for e in f.evidence] == [
        (c["concept"], Decimal(c["weight"]), Decimal(c["value"])) for c in err["children"]]
    assert f.role == err["statement_role_definition"] and f.unit == "USD" and str(f.period) == r_period
    for part in ("740,000", "-192,000", "2024-10-01..2024-12-31", "7,000", err["statement_role_definition"],
                 "- us-gaap:OtherComprehensiveIncomeLossAvailableForSaleSecuritiesTax 9,000",
                 "+ us-gaap:OtherComprehensiveIncomeLossCashFlowHedgeGainLossAfterReclassificationBeforeTax -633,000"):
        assert part in f.message, part
    j = f.to_json()
    assert (j["reported"], j["expected"], j["tolerance"]) == ("740000", "-192000", "7000")
    assert j["code"] == "DQC.US.0126.9590" and j["fact_id"] == "f532" and j["decimals"] == -3
    assert [(e["value"], e["weight"]) for e in j["evidence"]] == [
        ("46000", "1"), ("9000", "-1"), ("-633000", "1"), ("-167000", "-1"), ("-432000", "-1"), ("-195000", "1")]
    assert list(j) == sorted(j)
    json.dumps(r.to_json(include_checks=True))
