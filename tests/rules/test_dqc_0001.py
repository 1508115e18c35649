"""DQC.US.0001: its conformance case, one tripping case per sub-rule, the examples of docs/rules/DQC_US_0001.md,
and real filings (untouched, and with a member re-tagged so the rule must fire)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from auditflow.graphs.environment import build_environment
from auditflow.rules import registry
from auditflow.rules.dqc_0001 import DEI, GAAP, SRT, SUBS
from auditflow.rules.resources import Resources
from auditflow.xbrl.loader import load_filing
from auditflow.xbrl.model import Context
from auditflow.xbrl.qname import QName
from builders import DEI_NS, GAAP_NS, SRT_NS, AxisSpec, ext, gaap, srt
from conformance import FY, FY_END, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0001"
NS = {GAAP: (GAAP_NS, "us-gaap"), SRT: (SRT_NS, "srt"), DEI: (DEI_NS, "dei")}
ROLE = "http://example.com/role/Details"
RANGE = srt("RangeAxis")


def axis_q(key: tuple[str, str]) -> QName:
    ns, prefix = NS[key[0]]
    return QName(ns, key[1], prefix)


def cube(b, axis: QName, members, *, domain: QName, line_items=(gaap("Revenues"),)):
    b.cube(ROLE, "0300 - Disclosure - Details", gaap("DetailsTable"), list(line_items), [AxisSpec(axis, domain, members)])
    return b


def case():
    b = cube(base(), RANGE, [srt("MinimumMember"), ext("TargetMember")], domain=srt("RangeMember"))
    b.fact(gaap("Revenues"), 100, FY, {RANGE: srt("MinimumMember")})
    b.fact(gaap("Revenues"), 120, FY, {RANGE: ext("TargetMember")})
    return b, ["DQC.US.0001.61"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def _bad_member(sub) -> QName:
    if sub.scope == "forbidden":
        return gaap("PensionPlansDefinedBenefitMember")  # a plan type: not an asset category
    if sub.scope == "all":
        return ext("MadeUpMember")  # no extension is allowed on these axes but a few named ones
    return gaap("HedgingDesignationDomain")  # a US-GAAP member no list of these axes allows


@pytest.mark.parametrize("sub", SUBS, ids=[s.eid for s in SUBS])
def test_0001_every_sub_rule_trips_on_its_axis_with_a_member_it_does_not_allow(sub, data_root):
    axis, bad = axis_q(sub.axis), _bad_member(sub)
    b = cube(base(), axis, [], domain=bad)  # the bad member alone below the axis
    b.fact(gaap("Revenues"), 5, FY, {axis: bad})
    r = run(RULE, b, data_root)
    assert codes(r) == [sub.code]
    assert r.findings[0].fact_id is not None and bad.local in r.findings[0].message


def test_0001_a_member_without_facts_is_one_finding_naming_its_network(data_root):
    b = cube(base(), RANGE, [ext("TargetMember")], domain=srt("RangeMember"))
    r = run(RULE, b, data_root)
    assert codes(r) == ["DQC.US.0001.61"]
    assert r.findings[0].fact_id is None and "0300 - Disclosure - Details" in r.findings[0].message
    assert "no fact is reported" in r.findings[0].message


def test_0001_each_fact_with_the_member_is_one_finding_and_nils_do_not_count(data_root):
    b, _ = case()
    b.fact(gaap("Revenues"), 130, "2023-01-01..2023-12-31", {RANGE: ext("TargetMember")})
    b.fact(gaap("Revenues"), None, FY_END, {RANGE: ext("TargetMember")}, nil=True)
    assert codes(run(RULE, b, data_root)) == ["DQC.US.0001.61"] * 2


def test_0001_what_each_kind_of_axis_allows(data_root):
    owner = gaap("OtherOwnershipInterestsByNameAxis")  # base scope: the filer's own members are fine
    b = cube(base(), owner, [ext("AcmeJointVentureMember")],
             domain=gaap("OtherOwnershipInterestsNameDomain"))
    b.fact(gaap("Revenues"), 5, FY, {owner: ext("AcmeJointVentureMember")})
    assert codes(run(RULE, b, data_root)) == []
    pos = gaap("PositionAxis")  # all scope: taxonomy members and the named extensions only
    b = cube(base(), pos, [gaap("LongMember"), ext("NetLongPositionMember")], domain=gaap("PositionDomain"))
    assert codes(run(RULE, b, data_root)) == []
    b = cube(base(), pos, [gaap("LongMember"), ext("GrossLongMember")], domain=gaap("PositionDomain"))
    assert codes(run(RULE, b, data_root)) == ["DQC.US.0001.63"]
    plan_assets = gaap("DefinedBenefitPlanByPlanAssetCategoriesAxis")  # forbidden scope: only plan kinds trip
    b = cube(base(), plan_assets, [gaap("EquitySecuritiesMember"), ext("HedgeFundsMember")],
             domain=ext("PlanAssetCategoriesDomain"))
    assert codes(run(RULE, b, data_root)) == []


def test_0001_consolidation_items_allow_the_filers_members_below_the_reconciling_items(data_root):
    axis = srt("ConsolidationItemsAxis")
    b = cube(base(), axis, {gaap("MaterialReconcilingItemsMember"): [ext("StockCompensationReconcilingMember")]},
             domain=srt("ConsolidationItemsDomain"))
    assert codes(run(RULE, b, data_root)) == []
    b = cube(base(), axis, [ext("StockCompensationReconcilingMember")], domain=srt("ConsolidationItemsDomain"))
    assert codes(run(RULE, b, data_root)) == ["DQC.US.0001.70"]


def test_0001_the_extra_sentences_of_65_and_75(data_root):
    equity = gaap("StatementEquityComponentsAxis")
    b = cube(base(), equity, [gaap("SeriesBPreferredStockMember")], domain=gaap("EquityComponentDomain"))
    r = run(RULE, b, data_root)
    assert codes(r) == ["DQC.US.0001.75"] and "StatementClassOfStockAxis" in r.findings[0].message
    basis = gaap("FairValueByMeasurementBasisAxis")
    b = cube(base(), basis, [ext("CarryingValueOfLoansMember")], domain=gaap("FairValueDisclosureItemAmountsDomain"))
    b.arcs = [replace(a, target=ext("CarryingValueOfLoansMember")) if a.arcrole.endswith("dimension-default") else a
              for a in b.arcs]
    r = run(RULE, b, data_root)
    assert codes(r) == ["DQC.US.0001.65"] and "default" in r.findings[0].message


def test_0001_a_member_deprecated_since_the_filings_year_is_not_judged(data_root):
    equity = gaap("StatementEquityComponentsAxis")  # TreasuryStockMember: deprecated in 2024, allowed before
    old = QName("http://fasb.org/us-gaap/2023", "TreasuryStockMember", "us-gaap")
    b = cube(base(), equity, [old], domain=gaap("EquityComponentDomain"))
    b.fact(gaap("StockholdersEquity"), 5, FY_END, {equity: old})
    r = run(RULE, b, data_root)
    assert codes(r) == [] and any("deprecated" in w for w in r.warnings)


def test_0001_a_form_outside_its_lookup_is_not_checked(data_root):
    b, _ = case()
    b.facts[0] = replace(b.facts[0], value="8-K")
    assert codes(run(RULE, b, data_root)) == []


# -- real filings ---------------------------------------------------------------------------------------

def _real(data_root, name):
    return build_environment(load_filing(data_root / name))


def _retag(filing, old: QName, new: QName):
    """The filing with member ``old`` replaced by ``new`` everywhere: definition arcs and contexts."""
    arcs = [replace(a, source=new if a.source == old else a.source, target=new if a.target == old else a.target)
            for a in filing.arcs]
    contexts = {cid: Context(c.id, c.entity_scheme, c.entity_id, c.period,
                             tuple(sorted(((ax, new if m == old else m) for ax, m in c.dimensions),
                                          key=lambda am: am[0].clark())))
                for cid, c in filing.contexts.items()}
    return replace(filing, arcs=arcs, contexts=contexts)


@pytest.mark.slow
def test_0001_real_10k_untouched_is_clean_and_a_retagged_member_trips_75(data_root):
    env = _real(data_root, "filings/aapl-10k-2023-09-30")
    spec, res = registry.get(RULE), Resources(data_root)
    assert spec.run(env, res).findings == ()
    old = next(m for c in env.filing.contexts.values() for a, m in c.dimensions
               if a.local == "StatementEquityComponentsAxis" and getattr(m, "local", "") == "RetainedEarningsMember")
    new = QName(old.namespace, "SeriesBPreferredStockMember", old.prefix)  # a class of stock, not an equity component
    before = sum(1 for f in env.filing.facts
                 if not f.is_nil and old in dict(env.filing.contexts[f.context_id].dimensions).values())
    result = spec.run(build_environment(_retag(env.filing, old, new)), res)
    assert codes(result) == ["DQC.US.0001.75"] * before and before > 0


@pytest.mark.slow
def test_0001_real_filing_with_an_extension_on_the_range_axis(data_root):
    """bxp's 10-Q reports an award's shares authorised on RangeAxis with its own TargetMember (a real finding)."""
    result = registry.get(RULE).run(_real(data_root, "filings-rolled/bxp-10q-2025-06-30"), Resources(data_root))
    assert codes(result) == ["DQC.US.0001.61"] and "TargetMember" in result.findings[0].message
