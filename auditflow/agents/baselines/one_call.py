"""One model call on a retrieved context: the retrieval baselines' single answer (docs/baselines.md).

The model reads the baseline's instruction, the question (or the queried fact) and the context, and
answers with one call of final_report, as the direct-LLM configuration does: every provider returns it
the same way, and a constrained local model writes the report's schema instead of prose. It is given no
other tool, so it can look nothing up. The deterministic policy, which only relays checker outcomes,
answers unable_to_verify here.
"""
from __future__ import annotations

import json

from langchain_core.messages import HumanMessage, SystemMessage

from auditflow.agents.baselines.prompts import BaselinePrompts
from auditflow.agents.junior import JuniorTurn
from auditflow.agents.policy import DeterministicPolicy
from auditflow.agents.profile import PromptProfile
from auditflow.agents.prompts import FINAL_REPORT, final_report_tool
from auditflow.agents.reports import JUNIOR_REPORT_SCHEMA, TranscriptStep, parse_junior_report
from auditflow.contract import InvalidReportError


def system_text(baseline: str, prompts: BaselinePrompts) -> str:
    """The system prompt: the rules, the baseline's instruction, how to report. All of it is the same for
    every case of a baseline, so a local model's prompt cache keeps it and reads only the case's part."""
    return f"{prompts.system}\n\n{prompts.task[baseline]}\n\n{prompts.report}"


def request(baseline: str, prompts: BaselinePrompts, opening: dict, context: str) -> dict:
    """The human message's payload: what is asked and what was retrieved."""
    payload = {"context": context}
    if opening.get("question"):
        payload["question"] = opening["question"]
    if opening.get("queried_fact"):
        payload["queried_fact"] = opening["queried_fact"]
    return payload


def answer(model, role: str, prompts: BaselinePrompts, profile: PromptProfile, payload: dict) -> JuniorTurn:
    """``role``: the baseline's name (its system prompt, and the report's role)."""
    """The report of one call (or the invalid output it was), as a one-turn transcript."""
    turn = JuniorTurn()
    turn.steps.append(TranscriptStep("message", content=f"context: {payload['context']}"))
    if isinstance(model, DeterministicPolicy):
        text = model.direct_answer(payload)
    else:
        bound = model.bind_tools([final_report_tool(JUNIOR_REPORT_SCHEMA, profile)])
        msg = bound.invoke([SystemMessage(system_text(role, prompts)), HumanMessage(json.dumps(payload, sort_keys=True))])
        calls = [c for c in getattr(msg, "tool_calls", None) or [] if c.get("name") == FINAL_REPORT]
        text = json.dumps(calls[0].get("args") or {}, sort_keys=True) if calls else str(msg.content)
    try:
        turn.report = parse_junior_report(json.loads(text), role)
        turn.steps.append(TranscriptStep("final_report", content=text))
    except (ValueError, InvalidReportError) as exc:
        turn.invalid_outputs = 1
        turn.structural_failure = True
        turn.steps.append(TranscriptStep("invalid_output", content=f"{exc}: {text[:500]}"))
    return turn
