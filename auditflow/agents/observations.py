"""What an auditor reads of a tool result: the observation, trimmed to what a decision needs.

The session returns full observations, and the transcript keeps them whole for reviewers. The
conversation gets a shorter view: a small local model reads its prompt at ~40 tokens a second on two
cores (docs/benchmarks.md), and it copies outcome, code, reported and expected reliably but gains
nothing from a checker's itemised evidence (docs/local-llm.md: "keep observations short and flat").
The facts a check rests on stay visible as handles, so an auditor can still cite them or open one
with get_fact, and the deterministic policy cites the same facts from the same view.
"""
from __future__ import annotations

from typing import Any

from auditflow.agents.profile import PromptProfile
from auditflow.env.tools import CHECKS

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
                profile: PromptProfile, target: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the auditor reads of ``obs``: the profile's view plus, in a guided profile, where to go next.

    ``focus``: the queried fact's view when the question handed it over as F1; ``target``: otherwise,
    the fact this auditor chose and last checked (its handle and value), or None before it chose one.

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
    subject = focus or target
    handle = "F1" if focus else (target or {}).get("fact")
    if required:
        if profile.next_call and handle:
            tool = required[0]
            args = {"concept": subject["concept"]} if tool == "get_concept" and subject.get("concept") else {"fact": handle}
            view["next_call"] = {"name": tool, "arguments": args}
        return view
    if profile.violations_found:
        found: dict[str, dict[str, Any]] = {}
        passed: set[str] = set()
        for out in checker_results(transcript):
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
    if profile.next_call:
        view["next_call"] = {"name": "final_report"}
    if profile.how_to_report:
        view["how_to_report"] = profile.how_to_report
    return view
