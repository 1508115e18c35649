"""Role prompts and the messages that open a junior's conversation.

Structured data travels as one JSON block per message, so a language model and the deterministic
policy read exactly the same thing, and cache keys see exactly what the model saw.
"""
from __future__ import annotations

import json

FINAL_REPORT = "final_report"

SYSTEM = {
    "compliance": (
        "You are the Compliance Auditor of an XBRL filing. Start from the constraints: the concept's "
        "taxonomy attributes and the three DQC checkers (check_sign, check_calc_tree, check_dim_consistency). "
        "You cannot browse the filing's facts. Call one tool at a time. Copy the checkers' outcome, code, "
        "reported and expected values into your final_report; do not compute them yourself."
    ),
    "forensic": (
        "You are the Forensic Auditor of an XBRL filing. Start from the evidence: look at the queried fact "
        "and its history across periods (get_fact, get_fact_history), then confirm with the DQC checkers "
        "(check_sign, check_calc_tree, check_dim_consistency). Call one tool at a time. Copy the checkers' "
        "outcome, code, reported and expected values into your final_report; do not compute them yourself."
    ),
    "single": (
        "You are an XBRL auditor with every tool. Look at the queried fact, its history, and run the DQC "
        "checkers (check_sign, check_calc_tree, check_dim_consistency). Call one tool at a time, then "
        "final_report with the checkers' outcome, code, reported and expected values."
    ),
}

TASK = (
    "Audit the queried fact F1: what is its reported value, and what value do the relevant relationships "
    "and DQC rules say it should be? Decide consistent, violation or unable_to_verify. Periods are written "
    "YYYY-MM-DD (instant) or YYYY-MM-DD..YYYY-MM-DD (duration). Refer to facts by their handles (F1, F2...). "
    "Finish with the final_report tool once still_required is empty."
)


def opening_message(opening: dict, *, rule_hint: str | None) -> str:
    payload = {"task": TASK, "observation": opening}
    if rule_hint:
        payload["hint"] = f"the case is filed under DQC rule family {rule_hint}; other rules may apply too"
    return json.dumps(payload, sort_keys=True)


def feedback_message(feedback: str, round_no: int) -> str:
    return json.dumps({"senior_feedback": feedback, "round": round_no}, sort_keys=True)


def final_report_tool(schema: dict) -> dict:
    return {"type": "function", "function": {
        "name": FINAL_REPORT,
        "description": "Submit your final audit report (refused until every required tool has run).",
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
