"""The messages that open and steer a junior's conversation, built from a prompt profile.

The prose lives in the profile (:mod:`auditflow.agents.profile`); this module only assembles it.
Structured data travels as one JSON block per message, so a language model and the deterministic
policy read exactly the same thing, and cache keys see exactly what the model saw.
"""
from __future__ import annotations

import json

from auditflow.agents.natural_options import opening_options
from auditflow.agents.profile import PromptProfile

FINAL_REPORT = "final_report"


def searching(opening: dict) -> bool:
    """Whether the auditors must find the fact themselves (the question did not resolve to one F1)."""
    return not opening.get("queried_fact") and bool(opening.get("question"))


def _next_call(opening: dict, profile: PromptProfile) -> dict | None:
    """The required tool the role starts with (its strategy) as a ready call, when the profile offers
    one: a small model copies a call reliably, and once it has run one required tool it follows
    still_required; left to choose among a dozen tools it wanders (docs/local-llm.md). While the auditor
    still has to find the fact, only the search for the question's words: the harness does not choose it."""
    required = opening.get("still_required") or []
    if searching(opening):
        # the question's own words, as typed: the search finds a label in a whole question, and
        # choosing among its hits is the auditor's step, not the harness's
        wanted = profile.search is not None and profile.search.opening_call and "search_concepts" in (opening.get("tools") or [])
        return {"name": "search_concepts", "arguments": {"text": opening["question"]}} if wanted else None
    if not profile.opening_next_call or not opening.get("queried_fact") or not required:
        return None
    first = profile.first_required.get(opening.get("role", ""))
    return {"name": first if first in required else required[0], "arguments": {"fact": "F1"}}


def opening_message(opening: dict, *, rule_hint: str | None, profile: PromptProfile) -> str:
    """The case: the queried fact (or the question to find it from), what is required and, in a
    guided profile, the call to start with. The tool list is in the system prompt (and the constraint)."""
    nxt = _next_call(opening, profile)
    observation = {k: v for k, v in opening.items() if k not in ("tools", "role")}
    if searching(opening):
        observation["note"] = profile.search_note
    payload: dict = {"observation": observation}
    if nxt and searching(opening) and profile.search is not None and profile.search.resolvers:
        # natural: the search and the period resolution, either first (the other is offered next)
        payload["next_call_options"] = opening_options(opening["question"], opening.get("tools") or [])
    elif nxt and searching(opening):
        payload["next_call_options"] = [nxt]  # one: the search is mechanical, the choice comes after it
    elif nxt:
        payload["next_call"] = nxt
    if rule_hint and profile.rule_hint:
        payload["hint"] = profile.rule_hint.format(rule=rule_hint)
    return json.dumps(payload, sort_keys=True)


def feedback_message(feedback: str, round_no: int, recheck: dict | None = None) -> str:
    """The Senior's feedback as the auditor reads it; ``recheck``: what a re-opened search adds (the
    facts in conflict as ready calls, the question, what is required again), see
    :func:`auditflow.agents.protocol.recheck_offer`."""
    return json.dumps({"senior_feedback": feedback, "round": round_no, **(recheck or {})}, sort_keys=True)


def final_report_tool(schema: dict, profile: PromptProfile) -> dict:
    return {"type": "function", "function": {
        "name": FINAL_REPORT, "description": profile.report_tool_description, "parameters": profile.report_schema(schema),
    }}


def read_payload(content) -> dict:
    """The JSON block of a message, or {} when it has none (free text from a model)."""
    if not isinstance(content, str):
        return {}
    try:
        obj = json.loads(content)
    except ValueError:
        return {}
    return obj if isinstance(obj, dict) else {}
