"""Role prompts and the messages that open a junior's conversation.

Structured data travels as one JSON block per message, so a language model and the deterministic
policy read exactly the same thing, and cache keys see exactly what the model saw.
"""
from __future__ import annotations

import json

FINAL_REPORT = "final_report"

SYSTEM = {
    "compliance": (
        "You are the Compliance Auditor of an XBRL filing. Start from the constraints: get_concept for the "
        "queried concept, then the three DQC checkers check_sign, check_calc_tree and check_dim_consistency, "
        "each with the arguments {\"fact\": \"F1\"}. You cannot browse the filing's facts. Call one tool at a "
        "time. Copy the checkers' outcome, code, reported and expected values into your final_report; do not "
        "compute them yourself."
    ),
    "forensic": (
        "You are the Forensic Auditor of an XBRL filing. Start from the evidence: get_fact and get_fact_history "
        "for the queried fact, then confirm with the three DQC checkers check_sign, check_calc_tree and "
        "check_dim_consistency, each with the arguments {\"fact\": \"F1\"}. Call one tool at a time. Copy the "
        "checkers' outcome, code, reported and expected values into your final_report; do not compute them yourself."
    ),
    "single": (
        "You are an XBRL auditor with every tool. Look at the queried fact and its history (get_fact, "
        "get_fact_history), then run the three DQC checkers check_sign, check_calc_tree and check_dim_consistency, "
        "each with the arguments {\"fact\": \"F1\"}. Call one tool at a time, then final_report with the "
        "checkers' outcome, code, reported and expected values."
    ),
}

TASK = (
    "Audit the queried fact F1: what is its reported value, and what value do the relevant relationships "
    "and DQC rules say it should be? Decide consistent, violation or unable_to_verify. Periods are written "
    "YYYY-MM-DD (instant) or YYYY-MM-DD..YYYY-MM-DD (duration). Refer to facts by their handles (F1, F2...). "
    "Call the tools listed in still_required, one at a time. Once still_required is empty, call final_report. "
    "Only a checker result whose outcome is violation counts: put its code, exactly as written, in "
    "triggered_rules and copy its reported and expected values. A result whose outcome is consistent or "
    "not_applicable has code null and adds no rule. If no result is a violation: decision consistent, "
    "triggered_rules []."
)


# The required tool each role starts with (its strategy), suggested as a ready call in the opening:
# a small model copies a call reliably, and once it has run one required tool it follows
# still_required; left to choose among a dozen tools it wanders (docs/local-llm.md).
FIRST_REQUIRED = {"compliance": "check_sign", "forensic": "get_fact_history", "single": "get_fact_history"}


def _next_call(opening: dict) -> dict | None:
    required = opening.get("still_required") or []
    if not opening.get("queried_fact") or not required:
        return None
    first = FIRST_REQUIRED.get(opening.get("role", ""))
    return {"name": first if first in required else required[0], "arguments": {"fact": "F1"}}


def _tools_first(opening: dict, nxt: dict | None) -> dict:
    """The opening with its tool list in the order to use them: the suggested call, the other required
    tools, then the rest (small models favour what is listed first)."""
    tools = opening.get("tools")
    if not isinstance(tools, list):
        return opening
    lead = ([nxt["name"]] if nxt else []) + list(opening.get("still_required") or [])
    order = list(dict.fromkeys([t for t in lead if t in tools] + tools))
    return {**opening, "tools": order}


def opening_message(opening: dict, *, rule_hint: str | None) -> str:
    nxt = _next_call(opening)
    payload = {"task": TASK, "observation": _tools_first(opening, nxt)}
    if nxt:
        payload["next_call"] = nxt
    if rule_hint:
        payload["hint"] = f"the case is filed under DQC rule family {rule_hint}; other rules may apply too"
    return json.dumps(payload, sort_keys=True)


def feedback_message(feedback: str, round_no: int) -> str:
    return json.dumps({"senior_feedback": feedback, "round": round_no}, sort_keys=True)


def final_report_tool(schema: dict) -> dict:
    return {"type": "function", "function": {
        "name": FINAL_REPORT,
        "description": ("Submit your final audit report (refused until every required tool has run). triggered_rules: "
                        "the code of each checker result with outcome violation, copied exactly, never made up; "
                        "reported_value and expected_value: copied from that result."),
        "parameters": schema,
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
