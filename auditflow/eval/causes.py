"""Why a case was not A: one cause per case, read from its audit result, not from a transcript by eye.

A label says how wrong an answer was (docs/metrics.md); the cause says where the audit went wrong, which
is what a prompt or model change moves. Causes are checked in this order and the first that holds is
the case's:

1. ``did not run``: a cache miss, an input error or a crash (no audit result);
2. ``no valid report``: the auditors never filed an acceptable final report (structural failure);
3. ``auditors disagreed on the fact``: the Senior's last review found the auditors' checkers on two
   different facts (another concept, period or members: ``SeniorReview.different_facts``; not a conflict
   it only guessed from two reports' values), and the Senior did not choose between the two facts (no
   arbitration in the profile, or its answer named neither), so fusion decided between two audits of
   two facts; ``the Senior chose the other fact``: it did choose, and the fact the question means was
   the one it passed over;
4. ``no fact examined``: the case names a fact, and no auditor's checker examined any (without checkers:
   the chosen report's author was not handed a fact and never named one, ``AuditSession.worked_fact``);
5. ``another concept`` / ``another period`` / ``other members``: the audited fact is not the one the
   question means (the first attribute that differs, in that order): a wrong pick in the search;
6. ``wrong conclusion on the meant fact``: the right fact, but the decision, rules or values are wrong.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from auditflow.cases.labels import same_fact

if TYPE_CHECKING:
    from auditflow.agents.reports import AuditResult
    from auditflow.cases.labels import Judgement
    from auditflow.cases.model import Expectation

NOT_RUN = "did not run"
NO_REPORT = "no valid report"
DISAGREED = "auditors disagreed on the fact"
SENIOR_PICK = "the Senior chose the other fact"
NO_FACT = "no fact examined"
OTHER_CONCEPT, OTHER_PERIOD, OTHER_MEMBERS = "another concept", "another period", "other members"
WRONG_CONCLUSION = "wrong conclusion on the meant fact"
CAUSES: tuple[str, ...] = (NOT_RUN, NO_REPORT, DISAGREED, SENIOR_PICK, NO_FACT, OTHER_CONCEPT, OTHER_PERIOD, OTHER_MEMBERS,
                           WRONG_CONCLUSION)



def cause_of(expect: Expectation, result: AuditResult | None, judgement: Judgement) -> str | None:
    """The cause of a case that is not A (None for A); see the module docstring for the order."""
    if judgement.label == "A":
        return None
    if result is None:
        return NOT_RUN
    if result.structural_failure:
        return NO_REPORT
    if result.reviews and result.reviews[-1].names_different_facts:
        if result.arbitration is None or result.arbitration.chosen is None:
            return DISAGREED
        if expect.fact is not None and _passed_over(expect.fact, result):
            return SENIOR_PICK
    if expect.fact is not None and not same_fact(expect.fact, result.fact):
        return _which_fact(expect.fact, result.fact)
    return WRONG_CONCLUSION


def _passed_over(want, result: AuditResult) -> bool:
    """Whether the fact the case means is one the Senior was offered and did not choose."""
    arb = result.arbitration
    return any(same_fact(want, fact) for i, fact in enumerate(arb.facts) if i != arb.chosen)


def _which_fact(want, got: dict | None) -> str:
    if not got:
        return NO_FACT
    if want.concept != got.get("concept"):
        return OTHER_CONCEPT
    if want.period != got.get("period"):
        return OTHER_PERIOD
    return OTHER_MEMBERS
