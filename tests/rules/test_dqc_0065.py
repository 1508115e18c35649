"""DQC.US.0065: its conformance case, a tripping case per sub-rule, the examples of docs/rules/DQC_US_0065.md,
and real filings (ncmi's real finding and its correction; Apple's 10-K with InterestPaidNet re-tagged)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from auditflow.graphs.environment import build_environment
from auditflow.rules import registry
from auditflow.rules.resources import Resources
from auditflow.xbrl.loader import load_filing
from auditflow.xbrl.qname import QName
from builders import gaap, presentation_arcs
from conformance import CF_URI, FY, assert_clean_sample, assert_conformance, base, codes, run

RULE = "0065"
US_GAAP_NS = "http://fasb.org/us-gaap/"
BOTH = ["DQC.US.0065.7502", "DQC.US.0065.9593"]


def supplemental(abstract: str = "SupplementalCashFlowInformationAbstract", items=("InterestPaid",), value=2500):
    b = base()
    b.role(CF_URI, "0006 - Statement - Cash Flows")
    b.arcs += presentation_arcs(CF_URI, gaap("StatementOfCashFlowsAbstract"), [gaap(abstract)])
    b.arcs += presentation_arcs(CF_URI, gaap(abstract), [gaap(i) for i in items])
    b.fact(gaap("InterestPaid"), value, FY)
    return b


def case():
    return supplemental(), BOTH


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


@pytest.mark.parametrize("abstract, expected", [
    ("SupplementalCashFlowInformationAbstract", BOTH),  # 9593's list includes 7502's abstract
    ("SupplementalCashFlowElementsAbstract", ["DQC.US.0065.9593"]),
    ("NoncashInvestingAndFinancingItemsAbstract", ["DQC.US.0065.9593"]),
    ("AdditionalCashFlowElementsAndSupplementalCashFlowInformationAbstract", ["DQC.US.0065.9593"]),
    ("CashFlowNoncashInvestingAndFinancingActivitiesDisclosureAbstract", ["DQC.US.0065.9593"]),
    ("StatementOfCashFlowsAbstract", []),  # not a supplemental section
])
def test_0065_each_sub_rule_reads_its_sections(abstract, expected, data_root):
    assert codes(run(RULE, supplemental(abstract), data_root)) == expected


def test_0065_interest_paid_net_or_capitalised_in_the_section_clears_it(data_root):
    for other in ("InterestPaidNet", "InterestPaidCapitalized"):
        assert codes(run(RULE, supplemental(items=("InterestPaid", other)), data_root)) == []


def test_0065_zero_dimensional_and_nil_values_are_not_reported(data_root):
    assert codes(run(RULE, supplemental(value=0), data_root)) == []
    b = supplemental()
    b.fact(gaap("InterestPaid"), 700, FY, {gaap("StatementBusinessSegmentsAxis"): gaap("CorporateMember")})
    b.fact(gaap("InterestPaid"), None, "2023-01-01..2023-12-31", nil=True)
    assert codes(run(RULE, b, data_root)) == BOTH  # the value without dimensions only


def _rename(filing, old: str, new: str):
    """The filing with us-gaap concept ``old`` re-tagged as ``new`` in its facts and presentation."""
    def q(x):
        return QName(x.namespace, new, x.prefix) if x.local == old and x.namespace.startswith(US_GAAP_NS) else x
    return replace(filing, facts=[replace(f, concept=q(f.concept)) for f in filing.facts],
                   arcs=[replace(a, source=q(a.source), target=q(a.target)) for a in filing.arcs])


@pytest.mark.slow
def test_0065_real_10k_with_interest_paid_net_retagged_as_interest_paid(data_root):
    env = build_environment(load_filing(data_root / "filings/aapl-10k-2023-09-30"))
    spec, res = registry.get(RULE), Resources(data_root)
    assert spec.run(env, res).findings == ()
    result = spec.run(build_environment(_rename(env.filing, "InterestPaidNet", "InterestPaid")), res)
    assert sorted(set(codes(result))) == BOTH and len(result.findings) == 6  # 3 years, both codes


@pytest.mark.slow
def test_0065_real_10k_reporting_interest_paid_and_its_correction(data_root):
    """NCM's 10-K shows InterestPaid (12.5 and 66.5 million) in its supplemental section without InterestPaidNet."""
    env = build_environment(load_filing(data_root / "filings-rolled/ncmi-10k-2023-12-28"))
    spec, res = registry.get(RULE), Resources(data_root)
    found = spec.run(env, res)
    assert sorted(codes(found)) == sorted(BOTH * 2)
    assert sorted(str(f.reported) for f in found.findings if f.code == BOTH[0]) == ["12500000", "66500000"]
    assert spec.run(build_environment(_rename(env.filing, "InterestPaid", "InterestPaidNet")), res).findings == ()
