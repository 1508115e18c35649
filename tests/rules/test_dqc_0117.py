"""DQC.US.0117 (dimensional cross-check on face-statement tables): every branch of docs section 3 and
the shared definitions of section 1 (D1, D2, D7) on tiny filings built in memory."""
from __future__ import annotations

import json
from decimal import Decimal

import pytest

from auditflow.rules.dqc_0117 import CODE_9574, CODE_10093, rule_0117
from auditflow.rules.finding import Outcome, RuleResult
from auditflow.rules.statements import (
    EXCLUDED_CUBES, EXCLUDED_URI_WORDS_0117, EXCLUDED_URI_WORDS_0126, decimals_value, is_notes_cube,
    is_parenthetical_cube, is_statement_cube, is_statement_role_0126, round_decimals, statement_cube_roles,
    statement_cubes, tolerance_check,
)
from auditflow.xbrl.model import NOT_ALL
from auditflow.xbrl.qname import QName

from builders import AxisSpec, FilingBuilder, dei, ext, gaap, srt

Q3 = "2024-01-01..2024-09-30"  # 274 days, the 10-Q YTD period
Q3_QTR = "2024-07-01..2024-09-30"
FY = "2024-01-01..2024-12-31"
Q4 = "2024-10-01..2024-12-31"
BS = "2024-09-30"

IS_URI = "http://example.com/role/StatementsOfOperations"
IS_DEF = "00000004 - Statement - CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS AND COMPREHENSIVE LOSS"
BS_URI = "http://example.com/role/BalanceSheets"
BS_DEF = "00000002 - Statement - CONDENSED CONSOLIDATED BALANCE SHEETS"
NOTE_URI = "http://example.com/role/RevenueDetails"
NOTE_DEF = "00000040 - Disclosure - Revenue (Details)"
PAREN_URI = "http://example.com/role/BalanceSheetsParenthetical"
PAREN_DEF = "00000003 - Statement - CONDENSED CONSOLIDATED BALANCE SHEETS (Parenthetical)"

REV606 = gaap("RevenueFromContractWithCustomerExcludingAssessedTax")
REVENUES = gaap("Revenues")
POS = srt("ProductOrServiceAxis")
POS_DOM = srt("ProductsAndServicesDomain")
PRODUCT = gaap("ProductMember")
SERVICE = gaap("ServiceMember")
CLASS = gaap("StatementClassOfStockAxis")
CLASS_DOM = gaap("ClassOfStockDomain")
CLASS_A, CLASS_B = gaap("CommonClassAMember"), gaap("CommonClassBMember")
COMMON = gaap("CommonStockValue")
RP = srt("RelatedPartyTransactionsByRelatedPartyAxis")
RP_DOM = srt("RelatedPartyTransactionsByRelatedPartyDomain")
SEG = gaap("StatementBusinessSegmentsAxis")
SEG_DOM = gaap("SegmentDomain")
TABLE = gaap("StatementTable")


def insg(local: str) -> QName:
    return QName("http://www.inseego.com/20240930", local, "inseego.com")


FIXED, MOBILE, SERVICES = insg("FixedWirelessAccessSolutionsMember"), insg("MobileSolutionsMember"), insg("ServicesAndOtherMember")


def builder(doc_type: str = "10-Q", period: str = Q3) -> FilingBuilder:
    b = FilingBuilder()
    b.document_type(doc_type, period)
    return b


def run(b: FilingBuilder, **kw) -> RuleResult:
    return rule_0117(b.env(), **kw)


def codes(r: RuleResult) -> list[str]:
    return [f.code for f in r.findings]


def reasons(r: RuleResult, outcome: Outcome = Outcome.NOT_APPLICABLE) -> list[str]:
    return [c.reason for c in r.checks if c.outcome is outcome]


def stock_cube(b: FilingBuilder, uri: str = BS_URI, definition: str = BS_DEF, *, table: QName = TABLE,
               line_items=(COMMON,), members=(CLASS_A, CLASS_B), default: bool = True, **kw) -> None:
    b.cube(uri, definition, table, list(line_items), [AxisSpec(CLASS, CLASS_DOM, list(members), default)], **kw)


def stock_case(b: FilingBuilder, total="1250000", a="1000000", bb="200000", *, period: str = BS, decimals=-3) -> None:
    """The spec's class-of-stock example: CommonStockValue total vs Class A + Class B."""
    b.fact(COMMON, total, period, decimals=decimals)
    b.fact(COMMON, a, period, {CLASS: CLASS_A}, decimals=decimals)
    b.fact(COMMON, bb, period, {CLASS: CLASS_B}, decimals=decimals)


def revenue_cube(b: FilingBuilder, members, *, line_items=(REV606,), uri: str = IS_URI, definition: str = IS_DEF,
                 table: QName = TABLE) -> None:
    b.cube(uri, definition, table, list(line_items), [AxisSpec(POS, POS_DOM, members)])


def insg_facts(b: FilingBuilder) -> None:
    b.fact(REV606, "143157000", Q3, fid="f153")
    for member, value in ((FIXED, "37222000"), (PRODUCT, "110653000"), (MOBILE, "73431000"), (SERVICES, "32504000")):
        b.fact(REV606, value, Q3, {POS: member})


# -- the official worked example (INSG) and the nesting example --------------------------------------

def test_official_insg_example_flat_members_double_count():
    b = builder()
    revenue_cube(b, [FIXED, PRODUCT, MOBILE, SERVICES])
    insg_facts(b)
    r = run(b)
    assert codes(r) == [CODE_9574]
    f = r.findings[0]
    assert (f.reported, f.expected, f.tolerance) == (Decimal(143157000), Decimal(253810000), Decimal(2000))
    assert f.fact_id == "f153" and f.concept == REV606 and f.role == IS_DEF and f.unit == "USD"
    assert f.dimensions == () and f.decimals == -3 and str(f.period) == Q3
    assert [(str(e.member), e.value) for e in f.evidence] == [
        ("inseego.com:FixedWirelessAccessSolutionsMember", Decimal(37222000)), ("us-gaap:ProductMember", Decimal(110653000)),
        ("inseego.com:MobileSolutionsMember", Decimal(73431000)), ("inseego.com:ServicesAndOtherMember", Decimal(32504000))]
    assert all(e.axis == POS and e.decimals == -3 and e.dimensions == ((POS, e.member),) for e in f.evidence)
    for part in (IS_DEF, "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "143,157,000", "253,810,000",
                 "srt:ProductOrServiceAxis", "us-gaap:ProductMember = 110,653,000", "2024-01-01 to 2024-09-30", "USD",
                 "9574", "use NoninterestIncome as the total"):
        assert part in f.message, part
    assert (r.violations, r.consistent, r.not_applicable) == (1, 0, 0)
    j = f.to_json()
    assert j["expected"] == "253810000" and j["tolerance"] == "2000" and list(j) == sorted(j)
    json.dumps(r.to_json(include_checks=True))


def test_nested_members_are_pruned_under_a_reported_ancestor():
    b = builder()
    revenue_cube(b, {POS_DOM: [PRODUCT, SERVICES], PRODUCT: [FIXED, MOBILE]})
    insg_facts(b)
    r = run(b)
    assert r.findings == ()
    assert r.consistent == 1 and "143,157,000" in reasons(r, Outcome.CONSISTENT)[0]


@pytest.mark.parametrize("members, expected", [
    ({POS_DOM: [PRODUCT, SERVICES], PRODUCT: [FIXED, MOBILE]}, None),  # nested: 110 + 32 = 142, pass
    ([PRODUCT, FIXED, MOBILE, SERVICES], Decimal(252)),  # flat: 110 + 37 + 73 + 32 = 252, error
])
def test_spec_example_142_nested_vs_252_flat(members, expected):
    b = builder()
    revenue_cube(b, members)
    b.fact(REV606, "142", Q3, decimals=0)
    for member, value in ((PRODUCT, "110"), (FIXED, "37"), (MOBILE, "73"), (SERVICES, "32")):
        b.fact(REV606, value, Q3, {POS: member}, decimals=0)
    r = run(b)
    assert [f.expected for f in r.findings] == ([] if expected is None else [expected])


def test_nested_child_counts_when_its_ancestor_has_no_fact():
    b = builder()
    revenue_cube(b, {POS_DOM: [PRODUCT, SERVICES], PRODUCT: [FIXED, MOBILE]})
    b.fact(REV606, "143157000", Q3)
    for member, value in ((FIXED, "37222000"), (MOBILE, "73431000"), (SERVICES, "32504000")):
        b.fact(REV606, value, Q3, {POS: member})
    r = run(b)
    assert r.findings == () and r.consistent == 1  # 37,222 + 73,431 + 32,504 = 143,157


# -- the class-of-stock example and the tolerance edges -------------------------------------------------

def test_class_of_stock_example_and_within_tolerance():
    b = builder()
    stock_cube(b)
    stock_case(b)
    r = run(b)
    assert codes(r) == [CODE_9574]
    assert (r.findings[0].expected, r.findings[0].tolerance) == (Decimal(1200000), Decimal(2000))
    b = builder()
    stock_cube(b)
    stock_case(b, bb="249000")  # difference 1,000 <= 2,000
    assert codes(run(b)) == []


@pytest.mark.parametrize("total, b_value, error", [
    ("1250000", "248000", False),  # difference exactly 2,000 at decimals -3: passes
    ("1250000", "247000", True),  # 3,000: the smallest failing difference once rounded to thousands
    ("1250499", "248498", False),  # raw difference 2,001 rounds to 2,000
    ("1250501", "248500", True),  # raw difference 2,001 rounds to 3,000 (1,248,500 -> 1,248,000 half-even)
])
def test_tolerance_edges_at_decimals_minus_3(total, b_value, error):
    b = builder()
    stock_cube(b)
    stock_case(b, total, "1000000", b_value)
    assert codes(run(b)) == ([CODE_9574] if error else [])


@pytest.mark.parametrize("b_value, error", [("249998", False), ("249997", True)])
def test_tolerance_edges_at_decimals_0(b_value, error):
    b = builder()
    stock_cube(b)
    stock_case(b, "1250000", "1000000", b_value, decimals=0)
    r = run(b)
    assert codes(r) == ([CODE_9574] if error else [])
    if error:
        assert r.findings[0].tolerance == Decimal(2)


@pytest.mark.parametrize("decimals, b_value, error", [
    ("INF", "200000.00002", False), ("INF", "200000.00003", True),  # INF -> 5: allowed 0.00002
    (6, "200000.00002", False),  # 6 is capped at 5
    (None, "200000.00003", True),  # no decimals attribute counts as INF
])
def test_inf_decimals_use_the_cap_of_5(decimals, b_value, error):
    b = builder()
    stock_cube(b)
    stock_case(b, "1200000", "1000000", b_value, decimals=decimals)
    r = run(b)
    assert codes(r) == ([CODE_9574] if error else [])
    if error:
        assert r.findings[0].tolerance == Decimal("0.00002")


def test_dmin_is_the_smallest_member_decimals_and_ignores_the_totals():
    b = builder()
    stock_cube(b)
    b.fact(COMMON, "1250000", BS, decimals="INF")  # total exact: does not enter T_0117
    b.fact(COMMON, "1000000", BS, {CLASS: CLASS_A}, decimals="INF")
    b.fact(COMMON, "248000", BS, {CLASS: CLASS_B}, decimals=-3)
    assert codes(run(b)) == []


# -- periods: P and instants ----------------------------------------------------------------------------

def test_10k_ignores_a_three_month_column_but_checks_year_and_instants():
    b = builder("10-K", FY)
    stock_cube(b, BS_URI, BS_DEF, line_items=(COMMON, REVENUES))
    for period in (Q4, FY):
        b.fact(REVENUES, "500", period, decimals=0)
        b.fact(REVENUES, "100", period, {CLASS: CLASS_A}, decimals=0)
    stock_case(b, period="2024-12-31")
    r = run(b)
    assert sorted(str(f.period) for f in r.findings) == ["2024-01-01..2024-12-31", "2024-12-31"]
    assert any(x.startswith("no total: the un-dimensioned fact lasts 92 days, reporting period is 366") for x in reasons(r))


def test_10q_prior_year_ytd_is_not_the_reporting_period_length():
    b = builder()  # P = 274 days; 2023-01-01..2023-09-30 is 273 days
    stock_cube(b, line_items=(REVENUES,))
    b.fact(REVENUES, "500", "2023-01-01..2023-09-30", decimals=0)
    b.fact(REVENUES, "100", "2023-01-01..2023-09-30", {CLASS: CLASS_A}, decimals=0)
    r = run(b)
    assert r.findings == () and reasons(r)[0].startswith("no total: the un-dimensioned fact lasts 273 days")


# -- total validity and member facts ---------------------------------------------------------------------

def test_no_total_when_the_axis_has_no_default():
    b = builder()
    stock_cube(b, default=False)
    stock_case(b)
    r = run(b)
    assert r.findings == () and all(x.startswith("no total") for x in reasons(r)) and r.not_applicable == 1


def test_no_member_facts_and_no_record_without_anything_to_consider():
    b = builder()
    stock_cube(b, line_items=(COMMON, REVENUES))
    b.fact(COMMON, "1250000", BS)
    b.fact(REVENUES, "5", Q3_QTR)  # not an in-scope total and nothing on the axis: no record
    r = run(b)
    assert r.findings == () and len(r.checks) == 1 and reasons(r)[0].startswith("no member facts")


def test_non_monetary_and_nil_facts_are_ignored():
    b = builder()
    shares = gaap("CommonStockSharesOutstanding")
    stock_cube(b, line_items=(shares, COMMON))
    b.fact(shares, "100", BS, unit="shares", decimals=0)
    b.fact(shares, "10", BS, {CLASS: CLASS_A}, unit="shares", decimals=0)
    b.fact(COMMON, None, BS, nil=True)
    b.fact(COMMON, "10", BS, {CLASS: CLASS_A})
    r = run(b)
    assert r.findings == () and [x.split(":")[0] for x in reasons(r)] == ["no total"]


def test_members_in_other_units_or_entities_are_not_aligned():
    b = builder()
    b.units["eur"] = type(b.units["usd"])("eur", (QName("http://www.xbrl.org/2003/iso4217", "EUR", "iso4217"),))
    stock_cube(b)
    b.fact(COMMON, "1250000", BS)
    b.fact(COMMON, "1250000", BS, {CLASS: CLASS_A})
    b.fact(COMMON, "999", BS, {CLASS: CLASS_B}, unit="eur")
    r = run(b)
    assert r.findings == () and r.consistent == 1


# -- guards -------------------------------------------------------------------------------------------

def segment_cube(b: FilingBuilder) -> None:
    b.cube(IS_URI, IS_DEF, TABLE, [REVENUES], [
        AxisSpec(POS, POS_DOM, [PRODUCT, SERVICE]), AxisSpec(SEG, SEG_DOM, [ext("EastMember"), ext("WestMember")])])


def test_subtotal_guard_both_ways():
    b = builder()
    segment_cube(b)
    b.fact(REVENUES, "300", Q3, decimals=0)
    b.fact(REVENUES, "100", Q3, {POS: PRODUCT, SEG: ext("EastMember")}, decimals=0)
    b.fact(REVENUES, "50", Q3, {POS: SERVICE}, decimals=0)
    r = run(b)
    assert r.findings == ()
    assert any(x.startswith("sub-total guard: member(s) us-gaap:ProductMember of srt:ProductOrServiceAxis") for x in reasons(r))
    b.fact(REVENUES, "100", Q3, {POS: PRODUCT}, decimals=0)  # now every F2 member has its own fact
    r = run(b)
    assert codes(r) == [CODE_9574] and r.findings[0].expected == 150
    assert [str(e.member) for e in r.findings[0].evidence] == ["us-gaap:ServiceMember", "us-gaap:ProductMember"]


def test_parenthetical_guard_both_ways():
    def make() -> FilingBuilder:
        b = builder()
        stock_cube(b)
        stock_case(b)
        b.cube(PAREN_URI, PAREN_DEF, gaap("ParentheticalTable"), [COMMON], [AxisSpec(CLASS, CLASS_DOM, [ext("ParMember")])])
        return b

    b = make()
    b.fact(COMMON, "7", "2023-12-31", {CLASS: ext("ParMember")})  # other period: no effect
    b.fact(gaap("PreferredStockValue"), "7", BS, {CLASS: ext("ParMember")})  # other line item: no effect
    assert codes(run(b)) == [CODE_9574]
    b = make()
    b.fact(COMMON, "7", BS, {CLASS: ext("ParMember")})
    r = run(b)
    assert r.findings == () and reasons(r)[0].startswith("parenthetical guard: f")


def test_parenthetical_guard_sees_statement_facts_valid_in_a_parenthetical_cube():
    # the statement's own member facts are also valid in a parenthetical cube with the same members
    b = builder()
    stock_cube(b)
    stock_case(b)
    stock_cube(b, PAREN_URI, PAREN_DEF, table=gaap("ParentheticalTable"))
    r = run(b)
    assert r.findings == () and reasons(r)[0].startswith("parenthetical guard")


@pytest.mark.parametrize("note_value, skipped", [("60", True), ("143157000", True), ("150000000", False)])
def test_notes_guard_both_ways(note_value, skipped):
    b = builder()
    revenue_cube(b, [FIXED, PRODUCT, MOBILE, SERVICES])
    insg_facts(b)
    b.cube(NOTE_URI, NOTE_DEF, gaap("DisaggregationOfRevenueTable"), [REV606], [AxisSpec(POS, POS_DOM, [insg("NoteOnlyMember")])])
    b.fact(REV606, note_value, Q3, {POS: insg("NoteOnlyMember")})
    r = run(b)
    if skipped:
        assert r.findings == () and reasons(r)[0].startswith("notes guard: 1 disclosure fact(s)")
    else:
        assert codes(r) == [CODE_9574]


def test_notes_guard_ignores_other_breakdowns():
    b = builder()
    revenue_cube(b, [FIXED, PRODUCT, MOBILE, SERVICES])
    insg_facts(b)
    b.cube(NOTE_URI, NOTE_DEF, gaap("DisaggregationOfRevenueTable"), [REV606],
           [AxisSpec(SEG, SEG_DOM, [ext("EastMember")])])
    b.fact(REV606, "60", Q3, {SEG: ext("EastMember")})
    assert codes(run(b)) == [CODE_9574]


# -- the 606 revenue exception ------------------------------------------------------------------------

def revenue_606_case(b: FilingBuilder, line_items, product: str, service: str, total: str = "1000") -> None:
    revenue_cube(b, [PRODUCT, SERVICE], line_items=line_items)
    b.fact(REV606, total, Q3, decimals=0)
    b.fact(REV606, product, Q3, {POS: PRODUCT}, decimals=0)
    b.fact(REV606, service, Q3, {POS: SERVICE}, decimals=0)


def test_606_noninterest_income_primary_item_errors_only_when_sum_exceeds_total():
    items = (gaap("NoninterestIncome"), REV606)
    b = builder()
    revenue_606_case(b, items, "700", "200")  # sum 900 < 1,000
    r = run(b)
    assert r.findings == () and "NoninterestIncome is a line item" in reasons(r, Outcome.CONSISTENT)[0]
    b = builder()
    revenue_606_case(b, items, "900", "200")  # sum 1,100 > 1,000
    r = run(b)
    assert codes(r) == [CODE_9574] and "NoninterestIncome is a line item" in r.findings[0].message


def test_606_revenues_with_606_and_non606_children_is_not_an_error():
    b = builder()
    revenue_606_case(b, (REVENUES, REV606, gaap("OtherIncome")), "700", "200")
    b.calc(IS_URI, REVENUES, [(REV606, 1), (gaap("OtherIncome"), 1)])
    r = run(b)
    assert r.findings == () and "606 exception: Revenues is broken into" in reasons(r, Outcome.CONSISTENT)[0]


@pytest.mark.parametrize("children, calc_role", [
    ([(REV606, 1)], IS_URI),  # one child only
    ([(gaap("OtherIncome"), 1), (gaap("InterestIncome"), 1)], IS_URI),  # no 606 child
    ([(REV606, 1), (gaap("OtherIncome"), 1)], "http://example.com/role/Other"),  # children in another role
])
def test_606_revenues_not_broken_down_is_an_error(children, calc_role):
    b = builder()
    revenue_606_case(b, (REVENUES, REV606), "700", "200")
    b.calc(calc_role, REVENUES, children)
    r = run(b)
    assert codes(r) == [CODE_9574] and "break Revenues into its 606 and non-606 items" in r.findings[0].message


@pytest.mark.parametrize("items, product", [((REVENUES, REV606), "900"), ((REV606,), "700")])
def test_606_otherwise_recommends_noninterest_income(items, product):
    # sum > total with Revenues present, or sum < total without Revenues
    b = builder()
    revenue_606_case(b, items, product, "200")
    r = run(b)
    assert codes(r) == [CODE_9574] and "use NoninterestIncome as the total" in r.findings[0].message


def test_606_within_tolerance_stays_consistent_and_other_concepts_get_no_606_text():
    b = builder()
    revenue_606_case(b, (REV606,), "800", "200")
    assert run(b).consistent == 1
    b = builder()
    b.cube(IS_URI, IS_DEF, TABLE, [REVENUES], [AxisSpec(POS, POS_DOM, [PRODUCT, SERVICE])])
    b.fact(REVENUES, "1000", Q3, decimals=0)
    b.fact(REVENUES, "700", Q3, {POS: PRODUCT}, decimals=0)
    r = run(b)
    assert codes(r) == [CODE_9574] and "606" not in r.findings[0].message


# -- element 10093 --------------------------------------------------------------------------------------

def two_axis_cube(b: FilingBuilder, second=RP, second_dom=RP_DOM, extra=()) -> None:
    b.cube(IS_URI, IS_DEF, TABLE, [REVENUES], [
        AxisSpec(CLASS, CLASS_DOM, [CLASS_A, CLASS_B]), AxisSpec(second, second_dom, [ext("XMember"), ext("YMember")]),
        *extra])


def example_10093(b: FilingBuilder, second=RP) -> None:
    b.fact(REVENUES, "500", Q3, {CLASS: CLASS_A}, decimals=0)
    b.fact(REVENUES, "300", Q3, {CLASS: CLASS_A, second: ext("XMember")}, decimals=0)
    b.fact(REVENUES, "150", Q3, {CLASS: CLASS_A, second: ext("YMember")}, decimals=0)


def test_10093_example():
    b = builder()
    two_axis_cube(b)
    example_10093(b)
    r = run(b)
    assert codes(r) == [CODE_10093]
    f = r.findings[0]
    assert (f.reported, f.expected, f.tolerance) == (Decimal(500), Decimal(450), Decimal(2))
    assert f.dimensions == ((CLASS, CLASS_A),)
    assert [(e.axis, str(e.member)) for e in f.evidence] == [(RP, "ext:XMember"), (RP, "ext:YMember")]
    for part in ("us-gaap:StatementClassOfStockAxis=us-gaap:CommonClassAMember", RP.local, "500", "450", "10093"):
        assert part in f.message
    assert r.violations == 1 and all(x.startswith("no total") for x in reasons(r))


def test_10093_within_tolerance_and_total_period():
    b = builder()
    two_axis_cube(b)
    b.fact(REVENUES, "452", Q3, {CLASS: CLASS_A}, decimals=0)
    b.fact(REVENUES, "300", Q3, {CLASS: CLASS_A, RP: ext("XMember")}, decimals=0)
    b.fact(REVENUES, "150", Q3, {CLASS: CLASS_A, RP: ext("YMember")}, decimals=0)
    b.fact(REVENUES, "999", Q3_QTR, {CLASS: CLASS_A}, decimals=0)
    b.fact(REVENUES, "1", Q3_QTR, {CLASS: CLASS_A, RP: ext("XMember")}, decimals=0)
    r = run(b)
    assert r.findings == () and r.consistent == 1
    assert any(x.startswith("no total: us-gaap:StatementClassOfStockAxis=us-gaap:CommonClassAMember: its fact lasts 92 days")
               for x in reasons(r))


def test_10093_legal_entity_axis_is_not_summed():
    b = builder()
    two_axis_cube(b, dei("LegalEntityAxis"), dei("EntityDomain"))
    example_10093(b, dei("LegalEntityAxis"))
    r = run(b)
    assert r.findings == () and any(x.startswith("legal entity axis: dei:LegalEntityAxis") for x in reasons(r))


def test_10093_subtotal_guard_one_level_down():
    region = ext("RegionAxis")
    b = builder()
    two_axis_cube(b, extra=[AxisSpec(region, ext("RegionDomain"), [ext("NorthMember")])])
    example_10093(b)
    b.fact(REVENUES, "40", Q3, {CLASS: CLASS_A, RP: ext("ZMember"), region: ext("NorthMember")}, decimals=0)
    r = run(b)
    assert codes(r) == [CODE_10093]  # ZMember is not in the RP domain: that fact is not in the cube
    b = builder()
    two_axis_cube(b, extra=[AxisSpec(region, ext("RegionDomain"), [ext("NorthMember")])])
    b.fact(REVENUES, "500", Q3, {CLASS: CLASS_A}, decimals=0)
    b.fact(REVENUES, "300", Q3, {CLASS: CLASS_A, RP: ext("XMember")}, decimals=0)
    b.fact(REVENUES, "40", Q3, {CLASS: CLASS_A, RP: ext("YMember"), region: ext("NorthMember")}, decimals=0)
    r = run(b)
    assert r.findings == ()
    assert any(x.startswith("sub-total guard: member(s) ext:YMember of srt:RelatedPartyTransactionsByRelatedPartyAxis")
               for x in reasons(r))
    b.fact(REVENUES, "150", Q3, {CLASS: CLASS_A, RP: ext("YMember")}, decimals=0)
    assert codes(run(b)) == [CODE_10093]


@pytest.mark.parametrize("note_value, skipped", [("100", True), ("600", False)])
def test_10093_notes_guard(note_value, skipped):
    b = builder()
    two_axis_cube(b)
    example_10093(b)
    b.cube(NOTE_URI, NOTE_DEF, gaap("RelatedPartyTable"), [REVENUES],
           [AxisSpec(CLASS, CLASS_DOM, [CLASS_A]), AxisSpec(RP, RP_DOM, [ext("NoteMember")])])
    b.fact(REVENUES, note_value, Q3, {CLASS: CLASS_A, RP: ext("NoteMember")}, decimals=0)
    r = run(b)
    if skipped:
        assert r.findings == () and any(x.startswith("notes guard") for x in reasons(r))
    else:
        assert codes(r) == [CODE_10093]


# -- scope: statement cubes, axes, forms ----------------------------------------------------------------

@pytest.mark.parametrize("uri, definition, table", [
    (NOTE_URI, NOTE_DEF, TABLE),  # a Disclosure cube
    ("http://example.com/role/BalanceSheetsParenthetical", PAREN_DEF, TABLE),
    ("http://example.com/role/StatementsOfStockholdersEquity", "00000005 - Statement - EQUITY", TABLE),
    (BS_URI, "00000090 - Statement - Schedule III - Real Estate", TABLE),
    (BS_URI, BS_DEF, gaap("ScheduleOfInvestmentsTable")),
])
def test_cubes_out_of_scope_are_not_checked(uri, definition, table):
    b = builder()
    stock_cube(b, uri, definition, table=table)
    stock_case(b)
    r = run(b)
    assert r.findings == () and r.checks == ()


def test_not_all_cube_and_out_of_scope_axis_are_not_checked():
    b = builder()
    stock_cube(b, arcrole=NOT_ALL)
    stock_case(b)
    assert run(b).checks == ()
    b = builder()
    axis = gaap("StatementEquityComponentsAxis")
    b.cube(BS_URI, BS_DEF, TABLE, [COMMON], [AxisSpec(axis, gaap("EquityComponentDomain"), [CLASS_A])])
    b.fact(COMMON, "100", BS)
    b.fact(COMMON, "1", BS, {axis: CLASS_A})
    assert run(b).checks == ()


def test_axes_in_scope_are_matched_by_local_name():
    b = builder()
    old_axis = gaap("ProductOrServiceAxis")  # the pre-2018 us-gaap axis
    b.cube(IS_URI, IS_DEF, TABLE, [REVENUES], [AxisSpec(old_axis, gaap("ProductsAndServicesDomain"), [PRODUCT])])
    b.fact(REVENUES, "1000", Q3)
    b.fact(REVENUES, "700000", Q3, {old_axis: PRODUCT})
    assert codes(run(b)) == [CODE_9574]


def test_applicability_by_form(data_root):
    b = builder("DEF 14A")
    stock_cube(b)
    stock_case(b)
    r = run(b, data_root=data_root)
    assert r.findings == () and reasons(r) == [
        "form not in scope: document type 'DEF 14A' is not in the DQC rule-form lookup for 0117"]
    assert codes(run(b)) == [CODE_9574]  # without a data root the lookup is skipped
    b = builder("10-Q")
    stock_cube(b)
    stock_case(b)
    assert codes(run(b, data_root=data_root)) == [CODE_9574]


def test_no_document_type_means_no_reporting_period():
    b = FilingBuilder()
    stock_cube(b)
    stock_case(b)
    r = run(b)
    assert r.findings == () and len(r.checks) == 1 and reasons(r)[0].startswith("no reporting period")


def test_duplicates_are_evaluated_once_and_inconsistent_ones_warn():
    b = builder()
    stock_cube(b)
    stock_case(b)
    b.fact(COMMON, "1000000", BS, {CLASS: CLASS_A})  # exact duplicate
    b.fact(COMMON, "1", BS, {CLASS: CLASS_B})  # inconsistent duplicate
    r = run(b)
    assert codes(r) == [CODE_9574] and r.findings[0].expected == 1200000
    assert len(r.warnings) == 1 and "inconsistent duplicates" in r.warnings[0]


def test_rounded_duplicate_is_consistent_and_the_more_precise_one_is_used():
    b = builder()
    stock_cube(b)
    b.fact(COMMON, "1250000", BS, decimals=-3)
    b.fact(COMMON, "1000000", BS, {CLASS: CLASS_A}, decimals=-6)
    b.fact(COMMON, "1200000", BS, {CLASS: CLASS_A}, decimals=-3, fid="precise")  # 1.2 million rounds to 1 million
    b.fact(COMMON, "48000", BS, {CLASS: CLASS_B}, decimals=-3)
    r = run(b)
    assert r.warnings == () and codes(r) == []  # 1,200,000 + 48,000 within 2,000 of 1,250,000


def test_result_is_deterministic():
    def make():
        b = builder()
        segment_cube(b)
        two_axis_cube(b)
        revenue_cube(b, [FIXED, PRODUCT, MOBILE, SERVICES], uri="http://example.com/role/Ops2")
        insg_facts(b)
        example_10093(b)
        return run(b).to_json(include_checks=True)
    assert json.dumps(make(), sort_keys=True) == json.dumps(make(), sort_keys=True)


# -- section 1: shared definitions ----------------------------------------------------------------------

def test_statement_role_0126_d1():
    ok = "00000004 - Statement - CONSOLIDATED STATEMENTS OF OPERATIONS"
    assert is_statement_role_0126("http://x.com/role/StatementsOfOperations", ok)
    assert not is_statement_role_0126("http://x.com/role/Ops", "00000004 - Disclosure - Ops")
    assert not is_statement_role_0126("http://x.com/role/Ops", "00000004 - statement - Ops")  # case-sensitive
    for word in EXCLUDED_URI_WORDS_0126:
        assert not is_statement_role_0126(f"http://x.com/role/Ops{word.upper()}", ok), word
    assert not is_statement_role_0126("http://x.com/role/Re", "00000090 - Statement - SCHEDULE IV - Mortgage Loans")
    assert set(EXCLUDED_URI_WORDS_0126) - set(EXCLUDED_URI_WORDS_0117) == {
        "membershipinterest", "highlights", "employee", "ebp"}


def test_statement_cube_d2_and_helpers():
    b = builder()
    stock_cube(b)
    stock_cube(b, "http://example.com/role/FinancialHighlights", "00000006 - Statement - Highlights")
    stock_cube(b, PAREN_URI, PAREN_DEF, table=gaap("ParenTable"))
    stock_cube(b, NOTE_URI, NOTE_DEF, table=gaap("NoteTable"))
    stock_cube(b, "http://example.com/role/Funds", BS_DEF, table=gaap(EXCLUDED_CUBES[0]))
    stock_cube(b, "http://example.com/role/Aaa", "00000001 - Statement - AAA", table=gaap("ZTable"))
    stock_cube(b, "http://example.com/role/Aaa", "00000001 - Statement - AAA", table=gaap("ATable"), root=ext("Other"))
    env = b.env()
    cubes = statement_cubes(env)
    assert [(c.role.rsplit("/", 1)[1], c.hypercube.local) for c in cubes] == [
        ("Aaa", "ATable"), ("Aaa", "ZTable"), ("BalanceSheets", "StatementTable"), ("FinancialHighlights", "StatementTable")]
    assert statement_cube_roles(env) == {BS_URI, "http://example.com/role/Aaa", "http://example.com/role/FinancialHighlights"}
    by_role = {c.role: c for c in env.dims.cubes}
    assert is_parenthetical_cube(by_role[PAREN_URI], PAREN_DEF) and not is_statement_cube(by_role[PAREN_URI], PAREN_DEF)
    assert is_notes_cube(by_role[NOTE_URI], NOTE_DEF) and not is_notes_cube(by_role[BS_URI], BS_DEF)
    assert not is_statement_cube(by_role[BS_URI], BS_DEF.replace("Statement", "statement"))


def test_decimals_value_and_tolerance_check_d7():
    assert [decimals_value(d) for d in ("INF", None, -3, "-3", 2)] == [None, None, -3, -3, 2]
    assert tolerance_check(Decimal(1250000), Decimal(1248000), -3, 2) == (False, Decimal(2000))
    assert tolerance_check(Decimal(1250000), Decimal(1247000), -3, 2)[0] is True
    # half-even: 2,500 -> 2,000 (within 2,000 of 0); 3,500 -> 4,000
    assert tolerance_check(Decimal(2500), Decimal(0), -3, 2)[0] is False
    assert tolerance_check(Decimal(3500), Decimal(0), -3, 2)[0] is True
    assert round_decimals(Decimal("0.125"), 2) == Decimal("0.12") and round_decimals(Decimal("0.135"), 2) == Decimal("0.14")
    assert tolerance_check(Decimal("1.5"), Decimal("1.5"), None, 2) == (False, Decimal(0))
    assert tolerance_check(Decimal("1.5"), Decimal("1.50001"), None, 2) == (True, Decimal(0))
    assert tolerance_check(Decimal(100), Decimal(97), 0, 3) == (False, Decimal(3))  # the 0126 form, k = n + 1
    assert tolerance_check(Decimal("1E+22"), Decimal("1E+22") + 1, 5, 2)[0] is True  # no precision overflow
