"""DQC.US.0071: its conformance case, the examples of docs/rules/DQC_US_0071.md, and real 10-Ks (NCM's real
finding and its correction; Apple's statement of operations cut down to one product member)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from auditflow.graphs.environment import build_environment
from auditflow.rules import registry
from auditflow.rules.dqc_0071 import CODE
from auditflow.rules.resources import Resources
from auditflow.xbrl.loader import load_filing
from builders import AxisSpec, ext, gaap, srt
from conformance import FY, IS_URI, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0071"
PRODUCT_AXIS, DOMAIN = srt("ProductOrServiceAxis"), srt("ProductsAndServicesDomain")
WIDGETS, SERVICES = ext("WidgetsMember"), ext("ServicesMember")
REVENUE = gaap("RevenueFromContractWithCustomerExcludingAssessedTax")
PRIOR = "2023-01-01..2023-12-31"


def statement(members=(WIDGETS,), definition="0004 - Statement - Statements of Operations", line_items=(REVENUE,)):
    b = base()
    b.cube(IS_URI, definition, gaap("StatementTable"), [*line_items, gaap("CostOfGoodsAndServicesSold")],
           [AxisSpec(PRODUCT_AXIS, DOMAIN, list(members))])
    return b


def case():
    b = statement()
    b.fact(REVENUE, 5000, FY, {PRODUCT_AXIS: WIDGETS})
    return b, [CODE]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0071_each_period_and_line_item_is_its_own_finding(data_root):
    b, _ = case()
    b.fact(REVENUE, 4000, PRIOR, {PRODUCT_AXIS: WIDGETS})
    b.fact(gaap("CostOfGoodsAndServicesSold"), 3000, FY, {PRODUCT_AXIS: WIDGETS})
    r = run(RULE, b, data_root)
    assert codes(r) == [CODE] * 3 and "WidgetsMember" in r.findings[0].message


def test_0071_a_total_without_the_axis_clears_it(data_root):
    b, _ = case()
    b.fact(REVENUE, 5000, FY)
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 1
    b, _ = case()
    b.fact(REVENUE, 4000, PRIOR)  # a total of another period does not
    assert codes(run(RULE, b, data_root)) == [CODE]


def test_0071_two_members_a_disclosure_or_another_line_item_are_not_tested(data_root):
    b = statement(members=(WIDGETS, SERVICES))
    b.fact(REVENUE, 5000, FY, {PRODUCT_AXIS: WIDGETS})  # only one used, but the table has two
    assert codes(run(RULE, b, data_root)) == []
    b = statement(definition="0400 - Disclosure - Revenue (Details)")
    b.fact(REVENUE, 5000, FY, {PRODUCT_AXIS: WIDGETS})
    assert codes(run(RULE, b, data_root)) == []
    b = statement(line_items=(gaap("Revenues"),))
    b.arcs = [a for a in b.arcs if a.target.local != "CostOfGoodsAndServicesSold"]
    b.fact(gaap("Revenues"), 5000, FY, {PRODUCT_AXIS: WIDGETS})
    assert codes(run(RULE, b, data_root)) == []


def test_0071_a_quarterly_report_is_not_in_its_forms(data_root):
    b, _ = case()
    b.facts[0] = replace(b.facts[0], value="10-Q")
    assert codes(run(RULE, b, data_root)) == []


@pytest.mark.slow
def test_0071_real_10k_cost_of_sales_on_one_member_and_its_correction(data_root):
    """NCM's statement of operations reports CostOfGoodsAndServicesSold only on its AdvertisingOperatingCostsMember
    (30.7 and 27.2 million), with no total: a real finding; the totals added, it is clean."""
    filing = load_filing(data_root / "filings-rolled/ncmi-10k-2023-12-28")
    spec, res = registry.get(RULE), Resources(data_root)
    found = spec.run(build_environment(filing), res)
    assert codes(found) == [CODE, CODE] and sorted(str(f.reported) for f in found.findings) == ["27200000", "30700000"]
    totals, contexts = [], dict(filing.contexts)
    for f in found.findings:
        fact = filing.fact_by_key(f.fact_id)
        ctx = filing.contexts[fact.context_id]
        contexts[f"total-{fact.context_id}"] = replace(ctx, id=f"total-{fact.context_id}", dimensions=tuple(
            (a, m) for a, m in ctx.dimensions if a.local != PRODUCT_AXIS.local))
        totals.append(replace(fact, context_id=f"total-{fact.context_id}", id=f"total-{fact.key}"))
    fixed = replace(filing, facts=[*filing.facts, *totals], contexts=contexts)
    assert spec.run(build_environment(fixed), res).findings == ()


@pytest.mark.slow
def test_0071_real_10k_with_its_statement_cut_to_one_product_member(data_root):
    """Apple's statement of operations has ProductMember and ServiceMember and reports the totals: clean. Without
    ServiceMember in the table and without the totals, every product revenue and cost is a finding."""
    filing = load_filing(data_root / "filings/aapl-10k-2023-09-30")
    spec, res = registry.get(RULE), Resources(data_root)
    assert spec.run(build_environment(filing), res).findings == ()
    lines = {"RevenueFromContractWithCustomerExcludingAssessedTax", "CostOfGoodsAndServicesSold"}
    cut = replace(filing, arcs=[a for a in filing.arcs if a.target.local != "ServiceMember"],
                  facts=[f for f in filing.facts if not (f.concept.local in lines
                                                         and not filing.contexts[f.context_id].dimensions)])
    result = spec.run(build_environment(cut), res)
    products = [f for f in cut.facts if f.concept.local in lines and not f.is_nil
                and any(getattr(m, "local", "") == "ProductMember" for _a, m in cut.contexts[f.context_id].dimensions)
                and len(cut.contexts[f.context_id].dimensions) == 1]
    assert codes(result) == [CODE] * len(products) and len(products) == 6
