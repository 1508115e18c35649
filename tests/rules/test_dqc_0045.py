"""DQC.US.0045: its conformance case, one tripping case per sub-rule, the examples of docs/rules/DQC_US_0045.md,
and real filings (untouched, and with an operating item moved under the investing total)."""
from __future__ import annotations

import pytest

from auditflow.rules.dqc_0045 import FINANCING, INVESTING
from auditflow.xbrl.model import SUMMATION_ITEM_2003
from auditflow.xbrl.qname import QName
from builders import ext, gaap
from conformance import CF_URI, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import arc, load, run_rule, with_arcs

RULE = "0045"


def cash_flow(total: str, children):
    b = base()
    b.role(CF_URI, "0006 - Statement - Cash Flows")
    b.calc(CF_URI, gaap(total), [(gaap(c) if isinstance(c, str) else c, -1) for c in children])
    return b


def case():
    return cash_flow(INVESTING, ["PaymentsToAcquirePropertyPlantAndEquipment", "IncomeTaxesPaid"]), ["DQC.US.0045.6835"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


@pytest.mark.parametrize("code, total, item", [
    ("DQC.US.0045.6835", INVESTING, "IncomeTaxesPaid"),  # an operating item under investing
    ("DQC.US.0045.6836", INVESTING, "ProceedsFromIssuanceOfCommonStock"),  # a financing item under investing
    ("DQC.US.0045.6837", FINANCING, "PaymentsToAcquirePropertyPlantAndEquipment"),  # investing under financing
    ("DQC.US.0045.6838", FINANCING, "InterestPaidNet"),  # operating under financing
])
def test_0045_every_sub_rule_trips_on_an_item_of_another_section(code, total, item, data_root):
    r = run(RULE, cash_flow(total, [item]), data_root)
    assert codes(r) == [code]
    assert item in r.findings[0].message and "0006 - Statement - Cash Flows" in r.findings[0].message


def test_0045_items_of_the_section_itself_and_extensions_are_fine(data_root):
    b = cash_flow(INVESTING, ["PaymentsToAcquirePropertyPlantAndEquipment", ext("PaymentsForWidgets")])
    r = run(RULE, b, data_root)
    assert codes(r) == [] and r.consistent == 4  # two items, each checked by 6835 and 6836


def test_0045_a_deeper_descendant_counts(data_root):
    b = cash_flow(INVESTING, [ext("OtherInvestingSubtotal")])
    b.calc(CF_URI, ext("OtherInvestingSubtotal"), [(gaap("IncomeTaxesPaid"), 1)])
    assert codes(run(RULE, b, data_root)) == ["DQC.US.0045.6835"]


def test_0045_dqcs_exceptions_are_not_reported(data_root):
    # FHLB advances are under investing in the taxonomy, but banks report them in financing too.
    b = cash_flow(FINANCING, ["ProceedsFromFederalHomeLoanBankAdvances", "PaymentsForFederalHomeLoanBankAdvances"])
    assert codes(run(RULE, b, data_root)) == []


def test_0045_only_the_continuing_operations_totals_are_read(data_root):
    """As in DQC's source: a filer whose section total is NetCashProvidedByUsedInInvestingActivities is not tested."""
    r = run(RULE, cash_flow("NetCashProvidedByUsedInInvestingActivities", ["IncomeTaxesPaid"]), data_root)
    assert codes(r) == [] and r.consistent == 0


# -- real filings ---------------------------------------------------------------------------------------

@pytest.mark.slow
def test_0045_real_10k_untouched_is_clean_and_an_operating_item_moved_to_investing_trips_6835(data_root):
    filing = load(data_root, "filings-rolled/hi-10k-2020-09-30")
    before = run_rule(RULE, filing, data_root)
    assert before.findings == () and before.consistent > 0
    total = next(a for a in filing.arcs if a.arcrole == SUMMATION_ITEM_2003 and a.source.local == INVESTING)
    moved = arc(total.kind, total.arcrole, total.role, total.source,
                QName(total.source.namespace, "IncomeTaxesPaid", "us-gaap"), order=99, weight=-1)
    after = run_rule(RULE, with_arcs(filing, add=[moved]), data_root)
    assert codes(after) == ["DQC.US.0045.6835"] and after.findings[0].concept.local == "IncomeTaxesPaid"


@pytest.mark.slow
def test_0045_real_filing_with_convertible_debt_proceeds_in_investing(data_root):
    """upxi's 10-Q puts ProceedsFromConvertibleDebt below the investing total (a real finding)."""
    result = run_rule(RULE, load(data_root, "filings-rolled/upxi-10q-2023-09-30"), data_root)
    assert codes(result) == ["DQC.US.0045.6836"] and result.findings[0].concept.local == "ProceedsFromConvertibleDebt"
