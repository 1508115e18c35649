"""The Senior Auditor: accept a consensus, or name where the juniors diverge and tell each what to redo.

The review is deterministic on purpose. Whether two reports agree (decision, triggered rules, values)
and which kind of evidence explains a disagreement are facts about the reports, not judgement calls;
keeping them out of a language model makes the loop terminate and the artifact reproducible.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from auditflow.agents.observations import checker_results
from auditflow.agents.profile import PromptProfile
from auditflow.agents.reports import SeniorReview
from auditflow.env.tools import CHECKS
from auditflow.rules.registry import agent_rules, agent_tools

_RULE_TOOL = agent_rules()  # rule id -> the checker tool the auditors have for it (the rule registry)
_ALL_CHECKS = ", ".join(CHECKS)


def _families(codes) -> set[str]:
    return {c.split(".")[2] for c in codes if c.count(".") >= 3}


def _same(a: Decimal | None, b: Decimal | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and a == b)


def agree(r1, r2) -> bool:
    return (
        r1.decision == r2.decision
        and set(r1.triggered_rules) == set(r2.triggered_rules)
        and _same(r1.reported_value, r2.reported_value)
        and _same(r1.expected_value, r2.expected_value)
    )


def coherent(report) -> bool:
    """Whether a report agrees with itself: a violation names its rules and two different values, a
    consistent decision names none and one value twice, unable_to_verify names no rule and no
    expected value.

    When only one of two disagreeing reports contradicts itself (the small local model writes
    "unable_to_verify" beside the violation it has just copied), that one is sent back and the
    coherent one stands: a second round for both costs a case about half again on two cores.
    """
    rules, rep, exp = report.triggered_rules, report.reported_value, report.expected_value
    if report.decision == "violation":
        return bool(rules) and not (rep is not None and exp is not None and rep == exp)
    if report.decision == "consistent":
        return not rules and rep is not None and _same(rep, exp)
    return not rules and exp is None  # an expected value is something verified


@dataclass(frozen=True)
class Workpapers:
    """What one auditor's own checker runs returned: the codes of the violations, the rules that passed."""

    codes: frozenset[str]
    passed: frozenset[str]
    violations: tuple[dict, ...] = ()  # the violation observations, in call order (the first one's values are reported)

    @property
    def decision(self) -> str:
        """The reporting rule every auditor is given (auditflow.agents.prompts.TASK), applied to these results."""
        return "violation" if self.codes else "consistent" if self.passed else "unable_to_verify"


def workpapers(transcript, fact: str | None = None) -> Workpapers | None:
    """The checker results of one auditor's conversation for the fact it audits (``fact``, a handle; None:
    every checker result), or None when it did not run every checker on it (without gating it may skip
    them; fusion discounts that)."""
    steps = [s for s in transcript if fact is None or (s.get("observation") or {}).get("fact") == fact]
    if not set(CHECKS) <= {step.get("tool") for step in steps if "error" not in (step.get("observation") or {})}:
        return None
    results = checker_results(steps)
    return Workpapers(frozenset(o["code"] for o in results if o.get("outcome") == "violation" and o.get("code")),
                      frozenset(str(o["rule"]) for o in results if o.get("outcome") == "consistent" and o.get("rule")),
                      tuple(o for o in results if o.get("outcome") == "violation" and o.get("code")))


def grounded(report, papers: Workpapers | None) -> bool:
    """Whether a report says what its own checkers returned: the decision the reporting rule gives and
    exactly the violations' codes (``papers`` None: not known, nothing to hold it to).

    A senior auditor ties each finding to the workpapers. The 1.5B model sometimes wrote a code no
    checker returned (``DQC.US.0117.0015``, a family number as a message number), dropped one it saw,
    or wrote "consistent" when no checker had passed the fact; when both juniors made the same slip
    their reports agreed, and agreement alone accepted it.
    """
    return papers is None or (report.decision == papers.decision and set(report.triggered_rules) == papers.codes)


def diagnose(r1, r2) -> tuple[str, str]:
    """The likely source of a disagreement and a one-line reason, from what differs."""
    if "unable_to_verify" in (r1.decision, r2.decision) or None in (r1.reported_value, r2.reported_value):
        return "missing_fact", "one auditor could not find or verify the queried fact"
    if not _same(r1.reported_value, r2.reported_value):
        return "wrong_period", f"reported values differ ({r1.reported_value} vs {r2.reported_value}): likely a different period or context"
    fams = _families(set(r1.triggered_rules) ^ set(r2.triggered_rules)) or _families(set(r1.triggered_rules) | set(r2.triggered_rules))
    for rule, tool in agent_tools():  # in the auditors' tool order, each rule's own conflict words
        if rule in fams and tool.conflict is not None:
            return tool.conflict
    if not _same(r1.expected_value, r2.expected_value):
        return "other", f"expected values differ ({r1.expected_value} vs {r2.expected_value})"
    return "other", "decisions or triggered rules differ"


def _wording(profile: PromptProfile, searching: bool) -> dict[str, str]:
    fb = profile.feedback
    return {"fact": fb["searched_fact"] if searching else fb["queried_fact"],
            "handle": fb["searched_fact"] if searching else "F1", "value_name": "fact_value" if searching else "F1_value"}


def _feedback_for(me, other, source: str, profile: PromptProfile, searching: bool) -> str:
    rules = sorted(_families(set(me.triggered_rules) | set(other.triggered_rules)))
    tools = ", ".join(_RULE_TOOL[r] for r in rules if r in _RULE_TOOL) or _ALL_CHECKS
    return profile.feedback["disagree"].format(
        other_decision=other.decision, other_rules=sorted(other.triggered_rules) or "none", other_reported=other.reported_value,
        other_expected=other.expected_value, my_decision=me.decision, my_rules=sorted(me.triggered_rules) or "none",
        my_reported=me.reported_value, my_expected=me.expected_value, source=source.replace("_", " "), tools=tools,
        **_wording(profile, searching))


def _grounding_feedback(report, papers: Workpapers, profile: PromptProfile, searching: bool) -> str:
    words = _wording(profile, searching)
    what = profile.feedback["grounding_what"][papers.decision].format(**words)
    return profile.feedback["grounding"].format(
        decision=report.decision, rules=sorted(report.triggered_rules) or "none", codes=", ".join(sorted(papers.codes)) or "none",
        passed=", ".join(sorted(papers.passed)) or "none", papers_decision=papers.decision, what=what, **words)


def describe_fact(fact: dict | None) -> str:
    """A fact as a reader names it: concept, period, members and value (never a per-session handle)."""
    if not fact:
        return "no fact"
    dims = "".join(f" [{a}={m}]" for a, m in sorted((fact.get("dimensions") or {}).items()))
    return f"{fact.get('concept')} for {fact.get('period')}{dims} ({fact.get('value')})"


def fact_conflict(a: dict | None, b: dict | None) -> str | None:
    """Why two auditors' checked facts differ, as a conflict source, or None when they checked the same one."""
    if a is None or b is None or a["key"] == b["key"]:
        return None  # one of them checked nothing: its report is held to its (missing) workpapers instead
    if a["concept"] != b["concept"]:
        return "missing_fact"
    if a["period"] != b["period"]:
        return "wrong_period"
    if a["dimensions"] != b["dimensions"]:
        return "unresolved_dimensional_context"
    return None  # the same fact filed twice (exact duplicates)


def rechecks(profile: PromptProfile) -> bool:
    """Whether a fact conflict between searching auditors re-opens the search with both facts offered."""
    return bool(profile.search and profile.search.recheck_on_conflict)


def review(reports: dict, round_no: int, found: dict | None = None, *, profile: PromptProfile,
           checked: dict | None = None, searching: bool = False) -> SeniorReview:
    """Accept when both juniors checked the same fact, agree, and say what their own checkers returned
    (``found``: role -> its :class:`Workpapers`, or None when it did not run every checker;
    ``checked``: role -> the fact its checkers examined, see ``AuditSession.checked_fact``); otherwise
    diagnose and give targeted feedback to each junior whose report contradicts itself or its
    workpapers, or to both when neither (or each) does. The texts come from the prompt profile."""
    roles = sorted(reports)
    if len(roles) < 2:
        return SeniorReview(round_no, True, reason="single report")
    a, b = reports[roles[0]], reports[roles[1]]
    words = _wording(profile, searching)
    if a is None or b is None:
        missing = [r for r in roles if reports[r] is None]
        fb = {r: profile.feedback["no_report"].format(**words) for r in missing}
        return SeniorReview(round_no, False, "other", fb, reason=f"no valid report from {', '.join(missing)}")
    found, checked = found or {}, checked or {}
    facts = (checked.get(roles[0]), checked.get(roles[1]))
    source = fact_conflict(*facts) if all(r in checked for r in roles) else None
    if source is not None:
        if searching and rechecks(profile):
            # the search re-opens with both facts offered (protocol.recheck_offer): one text for both, the
            # facts in a fixed order, no "you" and "your colleague": told who chose which, each of the
            # 1.5B auditors took the other's fact and the conflict stood, swapped
            text = profile.feedback["facts_in_dispute"].format(
                facts=" and ".join(describe_fact(f) for f in sorted(facts, key=lambda f: f["key"])),
                source=source.replace("_", " "), tools=_ALL_CHECKS, **words)
            fb = dict.fromkeys(roles, text)
        else:
            fb = {r: profile.feedback["different_facts"].format(
                      my_fact=describe_fact(checked[r]), other_fact=describe_fact(checked[o]),
                      source=source.replace("_", " "), tools=_ALL_CHECKS, **words)
                  for r, o in ((roles[0], roles[1]), (roles[1], roles[0]))}
        return SeniorReview(round_no, False, source, fb, different_facts=True,
                            reason=f"the auditors checked different facts: {describe_fact(facts[0])} and {describe_fact(facts[1])}")
    ungrounded = [r for r in roles if not grounded(reports[r], found.get(r))]  # found[r] is not None for these
    if agree(a, b):
        if not ungrounded:
            return SeniorReview(round_no, True, reason="decision, triggered rules and values agree")
        fb = {r: _grounding_feedback(reports[r], found[r], profile, searching) for r in ungrounded}
        return SeniorReview(round_no, False, "other", fb,
                            reason=f"the reports agree, but {' and '.join(ungrounded)} did not report what its "
                                   "checkers returned")
    source, reason = diagnose(a, b)
    redo = [r for r in roles if not coherent(reports[r]) or r in ungrounded] or roles
    if len(redo) < len(roles):
        reason += f"; only {redo[0]}'s report contradicts itself or its checkers, the other stands"
    other = {roles[0]: b, roles[1]: a}
    fb = {r: _grounding_feedback(reports[r], found[r], profile, searching) if r in ungrounded
          else _feedback_for(reports[r], other[r], source, profile, searching) for r in redo}
    return SeniorReview(round_no, False, source, fb, reason)
