"""One generated audit case: built from a mutation target or an untouched fact, and checked.

Every case the generator writes goes through the same three steps, so that no expectation is
typed by hand and none is taken on trust from the finder that proposed it:

1. the query names the focus fact and the ``inject:`` entry names the mutated fact the way a case
   author would (concept, period, dimensions; the fact id only when that is ambiguous);
2. the case's environment is built exactly as the pytest plugin builds it
   (:func:`auditflow.cases.inject.injected_environment`);
3. the three checkers are asked about the query (:func:`auditflow.cases.oracle.checker_answer`);
   the case is kept only when their answer is what the candidate was chosen for (the finder's
   code, reported and expected values; "consistent"; a reviewed finding's code), points at the
   intended fact and is unambiguous. The answer becomes the ``expect:``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from auditflow.cases.filing_profile import FilingProfile
from auditflow.cases.inject import injected_environment, resolve_selector
from auditflow.cases.model import AuditCase, CaseQuery, Expectation, FactSelector, InjectSpec
from auditflow.cases.oracle import CheckerAnswer, checker_answer
from auditflow.cases.reviews import ReviewedFinding
from auditflow.env.facts import fact_view
from auditflow.env.tool_base import ToolContext
from auditflow.graphs.environment import AuditEnvironment
from auditflow.mutations import MutationTarget, RemovalTarget, exact_duplicates
from auditflow.rules.finding import dec_display
from auditflow.rules.registry import agent_rules
from auditflow.xbrl.model import Fact

CHECKED = frozenset({"decision", "triggered_rules", "reported_value", "expected_value"})
KIND_RULES = {
    "sign_flip": "0015", "member_perturbed": "0117", "dim_total_perturbed": "0117", "dim_total_removed": "0117",
    "calc_total_perturbed": "0126", "calc_child_perturbed": "0126",
}
UNTOUCHED_KINDS = ("consistent", "real_violation")
_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass(frozen=True)
class FilingSource:
    """A loaded filing the generator draws from. ``ref`` is what a case's ``filing:`` names: the
    data-root folder name, or the filing's absolute path (written relative to the case file)."""

    name: str
    ref: str
    env: AuditEnvironment
    profile: FilingProfile
    data_root: Path


@dataclass(frozen=True)
class GeneratedCase:
    """A case ready to be written: what to audit, what to inject, what the checkers answer."""

    id: str
    filing: FilingSource
    kind: str
    rule: str
    description: str
    query: CaseQuery
    expect: Expectation
    inject: tuple[InjectSpec, ...] = ()
    tags: tuple[str, ...] = ()

    @property
    def key(self) -> tuple:
        """What makes two cases the same case (ids aside): filing, query and injection."""
        return (self.filing.name, self.query, tuple((s.kind, s.target, s.value) for s in self.inject))


# -- the builders ----------------------------------------------------------------------------------

def injected_case(src: FilingSource, kind: str, target: MutationTarget) -> GeneratedCase | None:
    """The case for a finder's target: the query names the finding's focus fact (the total for 0117
    members and 0126 children), the checkers must report the target's code and values."""
    env = src.env
    focus, mutated = _fact(env, target.focus), _fact(env, target.mutation.fact)
    rule = KIND_RULES[kind]
    query = _query(src, focus, rule)
    spec = _inject_spec(src, target.mutation.kind, mutated, target.mutation.value)
    answer = _answer(src, query, (spec,))
    if not _points_at(env, answer, focus) or not _clean_violation(answer):
        return None
    if target.code not in answer.triggered_rules or (answer.reported_value, answer.expected_value) != (
            target.reported, target.expected):
        return None
    text = _describe_injected(src, kind, focus, mutated, target)
    # the id names what was changed when it is not the audited fact: a member, or a calculation child
    extra = _member(src, mutated) or (_local(mutated.concept) if mutated.key != focus.key else "")
    return _case(src, kind, rule, query, answer, text, (spec,), extra)


def removal_case(src: FilingSource, target: RemovalTarget) -> GeneratedCase | None:
    """A removed 0117 total, audited on the member 0117 now reports as "no total": honestly
    ``unable_to_verify`` when no checker can verify the member (any other answer is left out)."""
    env = src.env
    member, total = _fact(env, target.focus), _fact(env, target.mutation.fact)
    query = _query(src, member, "0117")
    spec = _inject_spec(src, "remove", total, None)
    answer = _answer(src, query, (spec,))
    if not _points_at(env, answer, member) or answer.decision != "unable_to_verify" or answer.involved \
            or answer.outcome(agent_rules()["0117"]) != "not_applicable":
        return None
    view = _view(src, member)
    text = (f"DQC 0117, missing total: the un-dimensioned {view['concept']} ({view['period']}, "
            f"{dec_display(total.number)}) is removed, so its member {_dims_text(view)} "
            f"({dec_display(member.number)}) has no total to be checked against (0117: no total) and no other "
            "checker applies: the audit cannot verify it.")
    return _case(src, "dim_total_removed", "0117", query, answer, text, (spec,), _member(src, member))


def consistent_case(src: FilingSource, rule: str, fact_key: str) -> GeneratedCase | None:
    """An untouched fact that ``rule``'s checker found consistent and no checker reports."""
    fact = _fact(src.env, fact_key)
    query = _query(src, fact, rule)
    answer = _answer(src, query, ())
    if not _points_at(src.env, answer, fact) or answer.decision != "consistent" or answer.involved \
            or answer.outcome(agent_rules()[rule]) != "consistent":
        return None
    view = _view(src, fact)
    text = (f"Untouched {view['concept']} ({view['period']}{', ' + _dims_text(view) if view['dimensions'] else ''}), "
            f"{dec_display(fact.number)} as filed: DQC {rule} checked it and found it consistent, and no checker "
            "reports it.")
    return _case(src, "consistent", rule, query, answer, text, (), _member(src, fact))


def real_case(src: FilingSource, rule: str, fact_key: str, review: ReviewedFinding) -> GeneratedCase | None:
    """A finding of the untouched filing that the hand review classed as a real filer error."""
    fact = _fact(src.env, fact_key)
    query = _query(src, fact, rule)
    answer = _answer(src, query, ())
    if not _points_at(src.env, answer, fact) or not _clean_violation(answer) \
            or review.code not in answer.triggered_rules:
        return None
    view = _view(src, fact)
    text = (f"Real filer error, not injected: {review.code} on {view['concept']} ({view['period']}"
            f"{', ' + _dims_text(view) if view['dimensions'] else ''}), reported {dec_display(answer.reported_value)}, "
            f"expected {dec_display(answer.expected_value)}. Reviewed by hand as a real filer error in "
            f"{review.ref}.")
    return _case(src, "real_violation", rule, query, answer, text, (), _member(src, fact))


# -- parts -----------------------------------------------------------------------------------------

def _case(src: FilingSource, kind: str, rule: str, query: CaseQuery, answer: CheckerAnswer, text: str,
          inject: tuple[InjectSpec, ...], extra: str) -> GeneratedCase:
    expect = Expectation(answer.decision, answer.triggered_rules, answer.reported_value, answer.expected_value,
                         checked=CHECKED)
    slug = kind.replace("_", "-") + (f"-{rule}" if kind in UNTOUCHED_KINDS else "")
    period = query.period.replace("..", "_")
    parts = (src.name, slug, _local(query.concept), period, extra)
    case_id = _ID_UNSAFE.sub("-", ".".join(p for p in parts if p))
    period_kind = "duration" if ".." in query.period else "instant"
    origin = "injected" if inject else "untouched"
    form, fmt, size = src.profile.tags()
    tags = (f"dqc_{rule}", kind, origin, form, period_kind, fmt, size)
    return GeneratedCase(case_id, src, kind, rule, text, query, expect, inject, tags)


def _answer(src: FilingSource, query: CaseQuery, inject: tuple[InjectSpec, ...]) -> CheckerAnswer:
    """The checkers' answer in the environment the plugin will build for this case."""
    case = AuditCase("generated", Path("<generated>"), 0, src.ref, query, Expectation("consistent"), inject)
    env = injected_environment(src.env, case, data_root=src.data_root) if inject else src.env
    return checker_answer(env, case.audit_query(), data_root=src.data_root)


def _clean_violation(answer: CheckerAnswer) -> bool:
    """A violation with one expected value whose codes are all the findings that touch the fact."""
    return answer.decision == "violation" and not answer.ambiguous and answer.involved == answer.triggered_rules


def _points_at(env: AuditEnvironment, answer: CheckerAnswer, fact: Fact) -> bool:
    """Whether the query found ``fact`` (or an exact duplicate of it), not another fact of its name."""
    return answer.focus in {f.key for f in exact_duplicates(env.filing, fact)}


def _fact(env: AuditEnvironment, key: str) -> Fact:
    fact = env.filing.fact_by_key(key)
    if fact is None:  # the finders only name facts of this filing
        raise KeyError(f"no fact {key!r} in {env.filing.name}")
    return fact


def _view(src: FilingSource, fact: Fact) -> dict:
    return fact_view(ToolContext(src.env, src.data_root), fact)


def _query(src: FilingSource, fact: Fact, rule: str) -> CaseQuery:
    view = _view(src, fact)
    return CaseQuery(view["concept"], view["period"], tuple(sorted(view["dimensions"].items())), rule)


def _inject_spec(src: FilingSource, kind: str, fact: Fact, value: Decimal | None) -> InjectSpec:
    """The entry names the fact by concept, period and dimensions when that names it alone, else by id."""
    view = _view(src, fact)
    selector = FactSelector(view["concept"], view["period"], tuple(sorted(view["dimensions"].items())))
    try:
        key = resolve_selector(src.env, selector, data_root=src.data_root)
    except ValueError:
        key = None
    same = {f.key for f in exact_duplicates(src.env.filing, fact)}
    return InjectSpec(kind, selector if key in same else fact.key, value)


def _member(src: FilingSource, fact: Fact) -> str:
    """The members of a dimensional fact, for ids (``HealthCareMember``); empty without dimensions."""
    return "-".join(_local(m) for _, m in sorted(_view(src, fact)["dimensions"].items()))


def _local(name) -> str:
    return str(name).split(":")[-1]


def _dims_text(view: dict) -> str:
    return ", ".join(f"{a}={m}" for a, m in view["dimensions"].items())


def _describe_injected(src: FilingSource, kind: str, focus: Fact, mutated: Fact, target: MutationTarget) -> str:
    fv, mv = _view(src, focus), _view(src, mutated)
    where = f"{fv['concept']} ({fv['period']})"
    old = dec_display(mutated.number)
    new = dec_display(target.mutation.value) if target.mutation.value is not None else ""
    moved = f"moved from {old} to {new} (1,000,000 units of its last reported digit)"
    exp = dec_display(target.expected)
    if kind == "sign_flip":
        return (f"DQC 0015: {where} is on the non-negative list; its sign is flipped from {old} to "
                f"{dec_display(-mutated.number)}.")
    if kind == "member_perturbed":
        return (f"DQC 0117: the member {_dims_text(mv)} of {where} is {moved}; the un-dimensioned total "
                f"{dec_display(focus.number)} no longer equals the member sum {exp}.")
    if kind == "dim_total_perturbed":
        return (f"DQC 0117: the un-dimensioned total {where} on a statement table is {moved}; its members still "
                f"add up to {exp}.")
    if kind == "calc_total_perturbed":
        return f"DQC 0126: the calculation total {where} is {moved}; its calculation children still add up to {exp}."
    return (f"DQC 0126: the calculation child {mv['concept']} of {where} is {moved}; the total "
            f"{dec_display(focus.number)} no longer equals the children's weighted sum {exp}.")
