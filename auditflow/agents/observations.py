"""What an auditor reads of a tool result: the observation, trimmed to what a decision needs.

The session returns full observations, and the transcript keeps them whole for reviewers. The
conversation gets a shorter view: a small local model reads its prompt at ~40 tokens a second on two
cores (docs/benchmarks.md), and it copies outcome, code, reported and expected reliably but gains
nothing from a checker's itemised evidence (docs/local-llm.md: "keep observations short and flat").
The facts a check rests on stay visible as handles, so an auditor can still cite them or open one
with get_fact, and the deterministic policy cites the same facts from the same view.
"""
from __future__ import annotations

import re
from typing import Any

from auditflow.agents.natural_options import natural_options
from auditflow.agents.profile import PromptProfile
from auditflow.env.phrases import period_phrase
from auditflow.env.query import parse_period
from auditflow.env.tools import CHECKS

_PERIOD = re.compile(r"\d{4}-\d\d-\d\d(?:\.\.\d{4}-\d\d-\d\d)?")
_HANDLE = re.compile(r"F\d+")
_PAIR = r"[\w.-]+:[\w.-]+=[^,=]+"
_MEMBERS = re.compile(rf"{_PAIR}(?:, {_PAIR})*")  # the axis=member pairs of a dimension set (env.facts)
KEEP_WHEN_NULL = frozenset({"code", "reported", "expected", "queried_fact"})  # "null" is itself the answer
DROP = frozenset({"statement", "labels"})  # a role's long title; labels beside the standard label
# A checker's prose: a small model copied "reported, expected and code are the total's" into its own
# reasoning and then decided by the last result's reason instead of by the violations found.
CHECKER_PROSE = frozenset({"reason", "note", "tolerance", "total"})
# A checker that did not apply has no code and no expected value, and F1's value is in the opening
# and in the last observation (F1_value): ~15 tokens less to read per such result, and the most
# common result (two of a case's three checkers usually do not apply).
NOT_APPLICABLE_MOOT = frozenset({"code", "expected", "reported"})


def checker_results(transcript: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The observations of the checker calls in one auditor's conversation, in order: what the last
    observation summarises for the auditor and what the Senior holds its report to."""
    return [step.get("observation") or {} for step in transcript if step.get("tool") in CHECKS]


def model_view(obs: dict[str, Any]) -> dict[str, Any]:
    """``obs`` without nulls (but code, reported, expected of a checker that applied), long titles and itemised evidence:
    a checker's ``evidence`` list becomes ``facts``, the handles of the facts it rests on, and its
    prose (reason, note, tolerance) stays in the transcript."""
    view: dict[str, Any] = {}
    checker = "outcome" in obs and "rule" in obs
    moot = NOT_APPLICABLE_MOOT if checker and obs.get("outcome") == "not_applicable" else frozenset()
    for key, value in obs.items():
        if key in DROP or key in moot or (checker and key in CHECKER_PROSE) or (value is None and key not in KEEP_WHEN_NULL):
            continue
        if key == "evidence" and isinstance(value, list):
            handles = [e["fact"] for e in value if isinstance(e, dict) and isinstance(e.get("fact"), str)]
            if handles:
                view["facts"] = list(dict.fromkeys(handles))
            continue
        view[key] = value
    return view


def guided_view(obs: dict[str, Any], transcript: list[dict[str, Any]], *, focus: dict[str, Any] | None,
                profile: PromptProfile, target: dict[str, Any] | None = None, chosen: str | None = None,
                role: str = "", allowed: tuple[str, ...] = (), question: str | None = None,
                gated: bool = True) -> dict[str, Any]:
    """What the auditor reads of ``obs``: the profile's view plus, in a guided profile, where to go next.

    ``focus``: the queried fact's view when the question handed it over as F1; ``target``: otherwise,
    the fact this auditor chose and last checked (its handle and value), or None before it chose one;
    ``chosen``: the handle this auditor last worked on (checked, or opened with a fact tool), ``role``
    and ``allowed`` its role and tools, ``question`` what it was asked, ``gated`` whether its
    configuration requires tools at all (the no-gating ablation does not): while it searches, a profile with search guidance offers the calls it could
    take next (:func:`search_options`) and, once it has chosen a fact, the next required tool on it.

    While tools are still required, ``next_call`` names the first of them, ready to copy (a small
    model copies a call reliably, picks among a dozen tools poorly, and reaches for final_report as
    soon as it has seen one violation: docs/local-llm.md). Once nothing is required, ``next_call`` is
    final_report, ``violations_found`` lists the violations every checker of this conversation
    returned (code, reported, expected) and ``consistent_found`` the rules whose checker passed the
    fact, with the fact's value beside them: a small model otherwise decides by whichever result came
    last. The checkers decide; the auditor chose where to look, and nothing here chooses for it.
    """
    view = model_view(obs) if profile.view == "trimmed" else dict(obs)
    required = obs.get("still_required")
    if not isinstance(required, list) or obs.get("accepted"):
        return view
    subject = focus or target or {}
    handle = "F1" if focus else (target or {}).get("fact")
    if focus is None and profile.search is not None and (required or not gated):
        # without gating nothing is ever required, but the search still offers its candidates
        if profile.search.resolvers:  # natural: the resolvers first, then choices ordered by their answers
            options, instead = natural_options(transcript, allowed, question, lambda step: search_options(
                step, role, allowed, required, profile))
        else:
            options, instead = search_options(transcript[-1] if transcript else {}, role, allowed, required, profile), True
        if options:
            for listed in OFFERED_INSTEAD if instead else ():  # the options carry what the model needs of
                view.pop(listed, None)  # these lists (the transcript keeps them whole): half the tokens to read
            view["next_call_options"] = options
            if not instead:  # natural's resolutions: one ready call, nothing to choose among
                return view
            view["choose"] = profile.search.options_note
            if question:
                view["question"] = question  # beside the options: a small model compares what it read last
            return view
        handle = chosen or handle
    if required:
        if profile.next_call and handle:
            tool = required[0]
            args = {"concept": subject["concept"]} if tool == "get_concept" and subject.get("concept") else {"fact": handle}
            view["next_call"] = {"name": tool, "arguments": args}
        return view
    report_args = None
    if profile.violations_found:
        found: dict[str, dict[str, Any]] = {}
        passed: set[str] = set()
        for out in checker_results(transcript):
            if not focus and target and out.get("fact") != target.get("fact"):
                continue  # a searching auditor may have checked other facts first: it audits the last one
            if out.get("outcome") == "violation" and out.get("code"):
                found[out["code"]] = {k: out.get(k) for k in ("code", "reported", "expected")}
            elif out.get("outcome") == "consistent" and out.get("rule"):
                passed.add(str(out["rule"]))
        view["violations_found"] = [found[c] for c in sorted(found)]
        view["consistent_found"] = sorted(passed)
        if focus:
            view["F1_value"] = focus.get("value")
        elif target:
            view["fact_value"] = target.get("value")
            if profile.search is not None and profile.search.report_call:
                report_args = ready_report([found[c] for c in sorted(found)], sorted(passed), target)
    if profile.next_call:
        view["next_call"] = {"name": "final_report", **({"arguments": report_args} if report_args else {})}
    if profile.how_to_report:
        view["how_to_report"] = profile.how_to_report
    return view


def ready_report(violations: list[dict[str, Any]], passed: list[str], target: dict[str, Any]) -> dict[str, Any]:
    """The final report the checkers' results on ``target`` imply, by the profile's reporting rule, ready
    to copy: the decision is what the checkers found on the fact the auditor chose (the environment
    decides what is true of what it looked at); the model still sends it, or another."""
    value, handle = target.get("value"), target.get("fact")
    if violations:
        first = violations[0]
        decision, rules, reported, expected = "violation", [v["code"] for v in violations], first["reported"], first["expected"]
    elif passed:
        decision, rules, reported, expected = "consistent", [], value, value
    else:
        decision, rules, reported, expected = "unable_to_verify", [], value, None
    return {"decision": decision, "triggered_rules": rules, "reported_value": reported, "expected_value": expected,
            "confidence": 0.0 if decision == "unable_to_verify" else 1.0, "evidence": [handle] if handle else []}


# -- while an auditor searches ------------------------------------------------------------------------
OFFERED_INSTEAD = ("concepts", "facts")  # a search's hits, find_facts' facts: each is an option's "is" and call


def search_options(step: dict[str, Any], role: str, allowed: tuple[str, ...], required: list[str],
                   profile: PromptProfile) -> list[dict[str, Any]]:
    """Ready calls, one per candidate the last step showed, for a model to choose from (never chosen here),
    each led by what it points at in words (``is``): under constrained decoding the model writes those
    words first, so it chooses by matching the question's words, not by a handle's position.

    The calls name the role's next required tool; without gating, the tool it would be required to run.

    * after ``search_concepts``: per concept the filing reports, ``find_facts`` on it (a role that
      cannot browse facts: its first required checker on it, to which it adds the period);
    * after ``find_facts``: per fact listed, the role's first look at a fact (or its next required tool);
    * after a failed call whose error names close matches (periods, dimension sets, handles): the same
      call with each.
    """
    assert profile.search is not None
    tool, args, obs = step.get("tool"), step.get("arguments") or {}, step.get("observation") or {}
    limit = profile.search.max_options
    pending = list(required) or [t for t in (profile.first_required.get(role), *CHECKS) if t and t in allowed]
    if tool == "search_concepts" and "error" not in obs:
        hits = [h for h in obs.get("concepts") or [] if h.get("reported") and h.get("concept")][:limit]
        name = "find_facts" if "find_facts" in allowed else next((t for t in pending if t in CHECKS), None)
        if name is None:
            return []
        # the words the search matched lead; the standard label beside them when those were the filer's own
        return [{"is": h.get("matched_label") or h.get("label") or h["concept"], "name": name,
                 "arguments": {"concept": h["concept"]}, **({"label": h["label"]} if h.get("matched_label") and h.get("label") else {})}
                for h in hits]
    if tool == "find_facts" and "error" not in obs:
        first = profile.first_required.get(role)
        name = first if first in pending else (pending[0] if pending else None)
        if name is None:
            return []
        facts = [f for f in obs.get("facts") or [] if isinstance(f.get("fact"), str)][:limit]
        return [{"is": fact_words(f), "name": name, "arguments": {"fact": f["fact"]}} for f in facts]
    error = obs.get("error") if isinstance(obs.get("error"), dict) else None
    if error and tool and ("concept" in args or "fact" in args):
        matches = [m for m in error.get("close_matches") or [] if isinstance(m, str)][:limit]
        if "concept" in args and matches and all(_is_period(m) for m in matches):
            return [{"is": period_phrase(parse_period(m)), "name": tool, "arguments": {**args, "period": m}} for m in matches]
        if "concept" in args and matches and all(_MEMBERS.fullmatch(m) for m in matches):
            return [{"is": ", ".join(pair.split("=", 1)[1] for pair in m.split(", ")), "name": tool,
                     "arguments": {**args, "dimensions": dict(pair.split("=", 1) for pair in m.split(", "))}} for m in matches]
        if "fact" in args and matches and all(_is_handle(m) for m in matches):
            return [{"is": m, "name": tool, "arguments": {**args, "fact": m}} for m in matches]
    return []


def fact_words(fact: dict[str, Any]) -> str:
    """A listed fact in words, as a statement would head it: its members (labels without the "[Member]"
    tag), then its period ("Product, year ended September 30, 2023"; the total: the period alone)."""
    members = [m.removesuffix("[Member]").strip() for m in fact.get("members") or []]
    return ", ".join([*members, fact.get("period_text") or fact.get("period") or ""])


def _is_period(text: str) -> bool:
    return bool(_PERIOD.fullmatch(text))


def _is_handle(text: str) -> bool:
    return bool(_HANDLE.fullmatch(text))
