"""One model call answered with final_report: the direct-LLM configuration's turn and the retrieval baselines'.

The model is offered the one tool final_report, so every provider returns the answer the same way and a
constrained local model writes the report's schema instead of prose; it is given no other tool, so it can
look nothing up. The deterministic policy, which only relays checker outcomes, gives its direct answer
instead. Whatever comes back is parsed as a junior's report, or recorded as the invalid output it was
(docs/baselines.md).
"""
from __future__ import annotations

import json

from langchain_core.messages import HumanMessage, SystemMessage

from auditflow.agents.junior import JuniorTurn
from auditflow.agents.policy import DeterministicPolicy
from auditflow.agents.profile import PromptProfile
from auditflow.agents.prompts import FINAL_REPORT, final_report_tool
from auditflow.agents.reports import JUNIOR_REPORT_SCHEMA, TranscriptStep, parse_junior_report
from auditflow.contract import InvalidReportError


def answer_once(model, *, system: str, payload: dict, role: str, profile: PromptProfile,
                turn: JuniorTurn | None = None) -> JuniorTurn:
    """Ask ``model`` once (``system``, then ``payload`` as sorted JSON) and add its report, as ``role``'s, to
    ``turn`` (a new one by default): a final_report step, or one invalid output that ends the turn as a
    structural failure."""
    turn = JuniorTurn() if turn is None else turn
    if isinstance(model, DeterministicPolicy):
        text = model.direct_answer(payload)
    else:
        bound = model.bind_tools([final_report_tool(JUNIOR_REPORT_SCHEMA, profile)])
        msg = bound.invoke([SystemMessage(system), HumanMessage(json.dumps(payload, sort_keys=True))])
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
