"""Why a case was not A: the first cause that holds, read from the audit result, and a table of them."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

from auditflow.agents.reports import Arbitration, SeniorReview
from auditflow.cases.labels import Judgement
from auditflow.cases.model import FactSelector
from auditflow.cli.main import main
from auditflow.eval import causes
from auditflow.eval.causes import cause_of
from auditflow.eval.metrics import cause_counts

MEANT = FactSelector("us-gaap:Assets", "2024-12-31", (("us-gaap:StatementBusinessSegmentsAxis", "x:EastMember"),))
EXPECT = SimpleNamespace(fact=MEANT)
E, A = Judgement("E", False), Judgement("A", True)


def _result(fact=None, reviews=(), structural=False, arbitration=None):
    return SimpleNamespace(fact=fact, reviews=list(reviews), structural_failure=structural, arbitration=arbitration)


def _fact(**change):
    fact = {"concept": MEANT.concept, "period": MEANT.period, "dimensions": dict(MEANT.dimensions)}
    return {**fact, **change}


def test_each_cause_in_its_order():
    assert cause_of(EXPECT, _result(_fact()), A) is None
    assert cause_of(EXPECT, None, Judgement("S", False)) == causes.NOT_RUN
    assert cause_of(EXPECT, _result(structural=True), Judgement("S", False)) == causes.NO_REPORT
    unsettled = SeniorReview(round=2, accepted=False, conflict_source="wrong_period", different_facts=True)
    # a conflict the Senior still named decides it, even when fusion then picked the meant fact
    assert cause_of(EXPECT, _result(_fact(), [unsettled]), E) == causes.DISAGREED
    # "likely a different period", guessed from two reports' values, is no dispute over two facts: the
    # case is judged by the fact audited (here none, as when one auditor's checkers examined nothing)
    guessed = SeniorReview(round=2, accepted=False, conflict_source="wrong_period")
    assert cause_of(EXPECT, _result(None, [guessed]), E) == causes.NO_FACT
    assert cause_of(EXPECT, _result(_fact(), [guessed]), Judgement("C", False)) == causes.WRONG_CONCLUSION
    settled = SeniorReview(round=1, accepted=True)
    assert cause_of(EXPECT, _result(None, [settled]), E) == causes.NO_FACT
    assert cause_of(EXPECT, _result(_fact(concept="us-gaap:Liabilities", period="2023-12-31")), E) == causes.OTHER_CONCEPT
    assert cause_of(EXPECT, _result(_fact(period="2023-12-31", dimensions={})), E) == causes.OTHER_PERIOD
    assert cause_of(EXPECT, _result(_fact(dimensions={})), E) == causes.OTHER_MEMBERS
    assert cause_of(EXPECT, _result(_fact()), Judgement("C", False)) == causes.WRONG_CONCLUSION
    # a calculation conflict is not a disagreement on the fact
    other = SeniorReview(round=2, accepted=False, conflict_source="incomplete_calculation_neighbourhood")
    assert cause_of(EXPECT, _result(_fact(), [other]), Judgement("C", False)) == causes.WRONG_CONCLUSION
    # a case handed its fact (no expect.fact) is judged on its conclusion alone
    assert cause_of(SimpleNamespace(fact=None), _result(None), E) == causes.WRONG_CONCLUSION


def test_a_dispute_the_senior_settled_is_judged_by_the_fact_it_chose():
    unsettled = SeniorReview(round=2, accepted=False, conflict_source="wrong_period", different_facts=True)
    prior = _fact(period="2023-12-31")
    chose_prior = Arbitration(offered=("East, as of December 31, 2023", "East, as of December 31, 2024"),
                              facts=(prior, _fact()), chosen=0)
    assert cause_of(EXPECT, _result(prior, [unsettled], arbitration=chose_prior), E) == causes.SENIOR_PICK
    chose_meant = replace(chose_prior, chosen=1)
    assert cause_of(EXPECT, _result(_fact(), [unsettled], arbitration=chose_meant), A) is None
    # the right fact chosen, a wrong conclusion on it
    assert cause_of(EXPECT, _result(_fact(), [unsettled], arbitration=chose_meant), Judgement("C", False)) == causes.WRONG_CONCLUSION
    # neither fact offered was the meant one: a wrong pick in the search, as without the Senior's choice
    both_wrong = Arbitration(offered=("a", "b"), facts=(prior, _fact(period="2022-12-31")), chosen=0)
    assert cause_of(EXPECT, _result(prior, [unsettled], arbitration=both_wrong), E) == causes.OTHER_PERIOD
    # an answer that named neither fact leaves the dispute standing
    invalid = replace(chose_prior, chosen=None, answer="garbage")
    assert cause_of(EXPECT, _result(prior, [unsettled], arbitration=invalid), E) == causes.DISAGREED


def test_counts_follow_the_order_of_causes_and_skip_a():
    counts = cause_counts([None, causes.OTHER_PERIOD, causes.DISAGREED, causes.OTHER_PERIOD])
    assert list(counts.items()) == [(causes.DISAGREED, 1), (causes.OTHER_PERIOD, 2)]


def test_results_md_shows_why_cases_were_not_a(case_dir: Path, tmp_path: Path) -> None:
    """no-checks cannot see a violation: its misses are wrong conclusions on the fact it was handed."""
    assert main(["eval", str(case_dir), "--configs", "policy,no-checks", "--out", str(tmp_path), "--bootstrap", "200"]) == 0
    md = (tmp_path / "results.md").read_text(encoding="utf-8")
    section = md.split("## Why cases were not A", 1)[1].split("\n## ", 1)[0]
    rows = {line.split(" | ")[0].strip("| "): line for line in section.splitlines() if line.startswith("| ")}
    assert rows["policy"].startswith("| policy | 3 |")
    import json
    doc = json.loads((tmp_path / "results.json").read_text())
    no_checks = doc["metrics"]["no-checks"]
    assert sum(no_checks["causes"].values()) == no_checks["n"] - no_checks["labels"]["A"] > 0
    assert all(r["cause"] is None for r in doc["records"]["policy"])
