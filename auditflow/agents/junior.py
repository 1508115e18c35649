"""One junior auditor's turn: call tools through the gated session until a final report is accepted.

Whatever the model emits is handled here: a tool call runs in the environment; a final report is
validated and offered to the gate; anything else is an *invalid output*, recorded, fed back once as
an error observation, and counted. Two invalid outputs in a row end the turn as a structural failure.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from auditflow.agents.observations import guided_view
from auditflow.agents.profile import PromptProfile
from auditflow.agents.prompts import FINAL_REPORT
from auditflow.agents.reports import EvidenceStep, JuniorReport, ToolCall, TranscriptStep, parse_junior_report
from auditflow.contract import InvalidReportError
from auditflow.env.session import AuditSession

MAX_STEPS = 14
MAX_INVALID_IN_A_ROW = 2
# Steps in a row that move nothing (a failed call, a refused final, a call already answered) after
# which an auditor ends its turn. Lost in a search, the 1.5B model spent its whole budget -- minutes on
# two cores -- repeating itself; with the fact handed over as F1, the 0.5B model re-ran a checker it
# had already run until the budget was spent (14 calls a round for each auditor, ten minutes a case),
# and without checkers the 1.5B model asked for the same concept again and again. A loop is a loop
# whatever the question's form.
MAX_STALLED_STEPS = 4


@dataclass
class JuniorTurn:
    report: JuniorReport | None = None
    steps: list[TranscriptStep] = field(default_factory=list)
    invalid_outputs: int = 0
    structural_failure: bool = False


def _dump(obj) -> str:
    return json.dumps(obj, sort_keys=True)


def run_turn(model, session: AuditSession, messages: list[BaseMessage], *, profile: PromptProfile,
             max_steps: int = MAX_STEPS) -> JuniorTurn:
    """Advance the conversation in ``messages`` (mutated in place) until a report is accepted, the turn
    budget (``max_steps`` model calls) runs out, or ``MAX_STALLED_STEPS`` steps in a row move nothing:
    every configuration is bounded, with or without checkers to reach, whether the auditor searches for
    the fact or was handed it."""
    turn = JuniorTurn()
    invalid_in_a_row = stalled = 0
    evidence: list[EvidenceStep] = []
    answered: set[str] = set()  # the calls that succeeded in this turn
    for _ in range(max_steps):
        ai = model.invoke(messages)
        if not isinstance(ai, AIMessage):
            ai = AIMessage(content=str(getattr(ai, "content", ai)))
        messages.append(ai)
        if not ai.tool_calls:
            turn.invalid_outputs += 1
            turn.steps.append(TranscriptStep("invalid_output", content=str(ai.content)[:2000]))
            # no tool call to answer: a ToolMessage here would be refused by chat APIs
            messages.append(HumanMessage(_dump({"error": {"type": "invalid_output", "message": _why_invalid(ai)}})))
            outcome = "invalid"
        else:
            # one call a step: small models are told so, and it keeps order simple
            outcome = _handle_call(ai.tool_calls[0], session, messages, turn, evidence, profile)
            _refuse_extra_calls(ai.tool_calls[1:], messages)
        if outcome == "done":
            return turn
        invalid_in_a_row = invalid_in_a_row + 1 if outcome == "invalid" else 0
        if invalid_in_a_row >= MAX_INVALID_IN_A_ROW:
            turn.structural_failure = True
            return turn
        stalled = 0 if _progressed(turn, answered) else stalled + 1
        if stalled >= MAX_STALLED_STEPS:
            break
    turn.structural_failure = turn.report is None
    return turn


def _progressed(turn: JuniorTurn, answered: set[str]) -> bool:
    """Whether the turn's last step moved the audit: a tool call that succeeded with arguments not
    already answered in this turn."""
    step = turn.steps[-1] if turn.steps else None
    if step is None or step.kind != "tool_call" or step.tool_call is None or step.tool_call.error is not None:
        return False
    signature = _dump([step.tool_call.tool, step.tool_call.arguments])
    if signature in answered:
        return False
    answered.add(signature)
    return True


def _why_invalid(ai: AIMessage) -> str:
    """What to tell the model: the parser's own diagnosis (``invalid_tool_calls``) when it gave one."""
    detail = next((c.get("error") for c in ai.invalid_tool_calls if c.get("error")), None)
    return detail or "reply with exactly one tool call (a tool from the list, or final_report)"


def _refuse_extra_calls(calls: list[dict], messages: list[BaseMessage]) -> None:
    """Every tool call of a message must be answered (chat APIs refuse the next request otherwise)."""
    for call in calls:
        messages.append(ToolMessage(_dump({"error": {"type": "not_run", "message":
            "only the first tool call of a message is run: call one tool at a time"}}), tool_call_id=call.get("id") or "call"))


def _handle_call(call: dict, session: AuditSession, messages, turn: JuniorTurn, evidence: list[EvidenceStep],
                 profile: PromptProfile) -> str:
    """Run one call; "done" (report accepted), "invalid" (an invalid final report, or a tool the role
    may not use) or "ok"."""
    name, args, cid = call["name"], call.get("args") or {}, call.get("id") or "call"
    if name != FINAL_REPORT:
        obs = session.call(name, args)
        messages.append(ToolMessage(_dump(_view(session, obs, profile)), tool_call_id=cid))
        error = (obs["error"].get("message") or obs["error"].get("type")) if "error" in obs else None
        if name not in session.allowed:
            # the session records the refusal (tool_not_allowed, later repeated_failure); for the run
            # naming a tool the role may not use is an invalid output, like unparseable text
            turn.invalid_outputs += 1
            turn.steps.append(TranscriptStep("invalid_output", content=error, tool_call=ToolCall(name, args, obs, error, cid)))
            return "invalid"
        turn.steps.append(TranscriptStep("tool_call", tool_call=ToolCall(name, args, obs, error, cid)))
        if error is None:
            evidence.append(EvidenceStep(name, args, _summary(obs), _handles(obs)))
        return "ok"
    try:
        report = parse_junior_report(args, session.role, steps=tuple(evidence))
    except InvalidReportError as exc:
        turn.invalid_outputs += 1
        turn.steps.append(TranscriptStep("invalid_output", content=str(exc), tool_call=ToolCall(name, args, None, str(exc), cid)))
        messages.append(ToolMessage(_dump({"error": {"type": "invalid_report", "message": str(exc)}}), tool_call_id=cid))
        return "invalid"
    obs = session.final(args)
    messages.append(ToolMessage(_dump(_view(session, obs, profile)), tool_call_id=cid))
    kind = "final_report" if obs.get("accepted") else "refused_final"
    turn.steps.append(TranscriptStep(kind, tool_call=ToolCall(name, args, obs, call_id=cid)))
    if obs.get("accepted"):
        turn.report = report
        return "done"
    return "ok"


def _view(session: AuditSession, obs: dict, profile: PromptProfile) -> dict:
    focus = session.opening().get("queried_fact") if session.focus is not None else None
    if focus:
        return guided_view(obs, session.transcript, focus=focus, profile=profile)
    return guided_view(obs, session.transcript, focus=None, profile=profile, target=session.target(),
                       chosen=session.chosen_handle(), role=session.role, allowed=session.allowed,
                       question=session.query.question, gated=bool(session.required))


def _handles(obs: dict) -> tuple[str, ...]:
    found = set()

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k == "fact" and isinstance(v, str) and v.startswith("F"):
                    found.add(v)
                else:
                    walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(obs)
    return tuple(sorted(found, key=lambda h: int(h[1:]) if h[1:].isdigit() else 0))


def _summary(obs: dict) -> str:
    if "outcome" in obs:
        return f"{obs.get('rule')}: {obs.get('outcome')} {obs.get('code') or ''} reported {obs.get('reported')} expected {obs.get('expected')}".strip()
    keys = [k for k in sorted(obs) if k != "still_required"]
    return ", ".join(keys)[:200]
