"""DQC.US.0047: registered with the reason it cannot run on our material (balance types of US-GAAP concepts),
never run by the runner, and never reporting a finding, even on a real filing where DQC would."""
from __future__ import annotations

import pytest

from auditflow.graphs.environment import build_environment
from auditflow.rules import registry
from auditflow.rules.finding import Outcome
from auditflow.rules.runner import run_rules
from auditflow.xbrl.model import SUMMATION_ITEM_2003
from auditflow.xbrl.qname import QName
from builders import gaap
from conformance import CF_URI, assert_clean_sample, base, codes, run
from real_edits import arc, load, with_arcs

RULE = "0047"


def case():
    """What DQC would report: a roll-forward movement without a balance type below operating cash flow."""
    b = base()
    b.role(CF_URI, "0006 - Statement - Cash Flows")
    b.calc(CF_URI, gaap("NetCashProvidedByUsedInOperatingActivities"),
           [(gaap("IncreaseDecreaseInOperatingCapital"), -1)])
    return b, ["DQC.US.0047.7481"]


def test_the_entry_says_why_it_cannot_run():
    spec = registry.get(RULE)
    assert spec.cannot_run.startswith("needs the balance type") and spec.level is registry.Level.ERROR
    assert registry.Need.ELEMENT_PROPS in spec.needs and list(spec.messages) == ["DQC.US.0047.7481"]


def test_the_clean_sample_has_no_finding(data_root):
    assert_clean_sample(RULE, data_root)


def test_0047_a_direct_run_finds_nothing_and_says_it_did_not_run(data_root):
    b, _dqc_codes = case()
    r = run(RULE, b, data_root)
    assert codes(r) == [] and [c.reason.split(":")[0] for c in r.checks] == ["not run"]


def test_0047_the_runner_reports_it_as_not_run(data_root):
    b, _ = case()
    report = run_rules(b.env(), ("0047",), data_root=data_root)
    assert report.not_run == {RULE: registry.get(RULE).cannot_run} and report.findings == []
    assert [c.outcome for c in report.results[RULE].checks] == [Outcome.NOT_APPLICABLE]


@pytest.mark.slow
def test_0047_a_real_filing_with_a_movement_below_operating_cash_is_still_not_run(data_root):
    filing = load(data_root, "filings/nflx-10k-2023-12-31")
    total = next(a for a in filing.arcs
                 if a.arcrole == SUMMATION_ITEM_2003 and a.source.local == "NetCashProvidedByUsedInOperatingActivities")
    moved = arc(total.kind, total.arcrole, total.role, total.source,
                QName(total.source.namespace, "IncreaseDecreaseInOperatingCapital", "us-gaap"), order=99, weight=-1)
    mutated = build_environment(with_arcs(filing, add=[moved]))
    report = run_rules(mutated, ("0047",), data_root=data_root)
    assert report.findings == [] and RULE in report.not_run
