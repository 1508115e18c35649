"""Role prompts and the messages that open a junior's conversation.

Structured data travels as one JSON block per message, so a language model and the deterministic
policy read exactly the same thing, and cache keys see exactly what the model saw.
"""
from __future__ import annotations

import json

FINAL_REPORT = "final_report"

# What every auditor is told, first in the system prompt: shared by the roles and identical across
# cases, so a local model's prompt cache keeps it (docs/benchmarks.md, "Local model"); the opening
# message then carries only the case.
TASK = (
    "You audit one fact, F1, of an XBRL filing against the DQC rules: what is its reported value, and what "
    "value do the rules say it should be? Facts are named by handles (F1, F2...); periods are YYYY-MM-DD "
    "(instant) or YYYY-MM-DD..YYYY-MM-DD (duration). Every tool result lists still_required: call those tools "
    "one at a time (arguments {\"fact\": \"F1\"}), then final_report. A checker returns outcome (violation, "
    "consistent or not_applicable), code, reported and expected. Copy, do not compute. The last result lists "
    "violations_found and consistent_found: if violations_found has any, decision violation, triggered_rules "
    "their codes (each once), reported_value and expected_value copied from the first. Else if "
    "consistent_found has any: decision consistent, triggered_rules [], reported_value and expected_value both "
    "F1_value. If both are []: decision unable_to_verify, expected_value null."
)

ROLE = {
    "compliance": ("You are the Compliance Auditor. Start from the constraints: the checkers (get_concept tells "
                   "which rules can check the concept). You cannot browse the filing's facts."),
    "forensic": ("You are the Forensic Auditor. Start from the evidence: get_fact_history of F1, then confirm "
                 "with the checkers."),
    "single": "You are an XBRL auditor with every tool: get_fact_history of F1, then the checkers.",
}

SYSTEM = {role: f"{TASK}\n\n{text}" for role, text in ROLE.items()}


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


def opening_message(opening: dict, *, rule_hint: str | None) -> str:
    """The case: the queried fact, what is required and the call to start with. The tool list is in
    the system prompt (and the constraint); repeating it here cost tokens on every case."""
    nxt = _next_call(opening)
    payload: dict = {"observation": {k: v for k, v in opening.items() if k not in ("tools", "role")}}
    if nxt:
        payload["next_call"] = nxt
    if rule_hint:
        payload["hint"] = f"filed under DQC rule family {rule_hint}; other rules may apply too"
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
