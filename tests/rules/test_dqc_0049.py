"""DQC.US.0049: its conformance case, the examples of docs/rules/DQC_US_0049.md, and a real cash flow
calculation split into two trees."""
from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from auditflow.graphs.environment import build_environment
from auditflow.rules.dqc_0049 import roots
from auditflow.xbrl.qname import QName
from builders import FilingBuilder, ext, gaap, presentation_arcs
from conformance import CF_URI, assert_clean_sample, assert_conformance, base, codes, run
from real_edits import load, run_rule

RULE = "0049"
CHANGE = "CashAndCashEquivalentsPeriodIncreaseDecrease"
RESTRICTED = "CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsPeriodIncreaseDecreaseIncludingExchangeRateEffect"
OPERATING = gaap("NetCashProvidedByUsedInOperatingActivities")


def cash_flow(total: str = CHANGE, split: bool = True, definition: str = "0006 - Statement - Cash Flows") -> FilingBuilder:
    b = base()
    b.role(CF_URI, definition)
    b.arcs += presentation_arcs(CF_URI, gaap("StatementOfCashFlowsAbstract"), [gaap(total), OPERATING])
    children = [(gaap("NetCashProvidedByUsedInInvestingActivities"), 1)] + ([] if split else [(OPERATING, 1)])
    b.calc(CF_URI, gaap(total), children)
    b.calc(CF_URI, OPERATING, [(gaap("ProfitLoss"), 1), (gaap("IncreaseDecreaseInAccountsPayable"), 1)])
    return b


def case():
    return cash_flow(), ["DQC.US.0049.7483"]


def test_conformance_case_reports_exactly_its_codes(data_root):
    assert_conformance(RULE, case, data_root)


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0049_one_tree_is_consistent_and_the_message_lists_the_roots(data_root):
    r = run(RULE, cash_flow(split=False), data_root)
    assert codes(r) == [] and r.consistent == 1
    f = run(RULE, cash_flow(), data_root).findings[0]
    assert f"roots: {CHANGE}, NetCashProvidedByUsedInOperatingActivities." in f.message
    assert f.concept.local == CHANGE


def test_0049_a_second_root_that_may_be_a_root_or_an_extension_root_is_not_reported(data_root):
    b = cash_flow(split=False)
    b.calc(CF_URI, gaap("InterestPaidNet"), [(gaap("InterestPaidCapitalized"), 1)])  # not in DQC's list
    b.calc(CF_URI, ext("OperatingCashSubtotal"), [(gaap("IncreaseDecreaseInInventories"), 1)])  # an extension
    assert codes(run(RULE, b, data_root)) == []


def test_0049_only_statement_networks_with_the_cash_flow_abstract_are_read(data_root):
    assert codes(run(RULE, cash_flow(definition="0006 - Disclosure - Cash Flows"), data_root)) == []
    r = run(RULE, base(), data_root)
    assert codes(r) == [] and any(c.reason == "no calculation of a cash flow statement" for c in r.checks)


def test_0049_as_dqc_spells_them_the_restricted_cash_totals_never_count(data_root):
    """DQC's source writes the two restricted-cash totals with a lower-case "and": they match no concept."""
    assert codes(run(RULE, cash_flow(total=RESTRICTED), data_root)) == []


def _split(filing, role: str, root, child):
    """A copy of ``filing`` whose calculation ``role`` has ``root`` renamed to the pre-2018 change in cash and the
    arc to ``child`` removed, so ``child`` becomes a second root."""
    out = copy.copy(filing)
    older = QName(root.namespace, CHANGE, root.prefix)
    arcs = []
    for a in filing.arcs:
        if a.role == role and a.kind == "calculation":
            if a.source == root and a.target == child:
                continue
            a = replace(a, source=older) if a.source == root else a
        arcs.append(a)
    out.arcs = arcs
    return out


@pytest.mark.slow
def test_0049_a_real_cash_flow_split_into_two_trees_is_reported(data_root):
    aapl = load(data_root, "aapl-10k-2023-09-30")
    assert codes(run_rule(RULE, aapl, data_root)) == []
    env = build_environment(aapl)
    role = next(a.role for a in aapl.arcs if a.kind == "calculation" and a.target.local == OPERATING.local)
    (root,) = roots(env, role)
    assert root.local == RESTRICTED
    operating = next(a.target for a in aapl.arcs if a.role == role and a.target.local == OPERATING.local)
    renamed = _split(aapl, role, root, None)  # the older total, one tree: consistent
    assert codes(run_rule(RULE, renamed, data_root)) == []
    split = _split(aapl, role, root, operating)
    r = run_rule(RULE, split, data_root)
    assert codes(r) == ["DQC.US.0049.7483"] and "NetCashProvidedByUsedInOperatingActivities" in r.findings[0].message
