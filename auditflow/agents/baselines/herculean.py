"""HERCULEAN as a baseline: one ReAct agent with a read-only tool set and no checkers
(docs/baselines.md, "herculean").

Its tools are ours, chosen to match the published harness's kinds: the facts of a concept by period
(find_facts, get_fact; non-dimensional facts come first in find_facts), the calculation network of a
concept as parent and as child with weights (get_calc_children, get_calc_parents), and a concept's
metadata (get_concept: label, period type, balance), with search_concepts to find a concept from the
question's words. No DQC checker, no required tools (nothing gates the report), no Senior, no fusion
of two auditors: the model computes the expected value itself. Observations are the profile's view of
the tools' output without the guided hints that summarise checker results (there are none to
summarise), so the agent decides when it has read enough.
"""
from __future__ import annotations

import json
from dataclasses import replace

from langchain_core.messages import HumanMessage, SystemMessage

from auditflow.agents.baselines.prompts import BaselinePrompts
from auditflow.agents.junior import JuniorTurn, run_turn
from auditflow.agents.policy import DeterministicPolicy
from auditflow.agents.profile import PromptProfile
from auditflow.agents.prompts import final_report_tool
from auditflow.agents.reports import JUNIOR_REPORT_SCHEMA, TranscriptStep
from auditflow.env.session import AuditSession

TOOLS = ("search_concepts", "get_concept", "get_calc_children", "get_calc_parents", "find_facts", "get_fact")


def restrict(session: AuditSession) -> AuditSession:
    """The session with HERCULEAN's tools only (the search tool of the profile's tool set) and nothing required."""
    session.allowed = tuple(t for t in session.allowed if t in TOOLS)
    session.required = ()
    return session


def run(model, session: AuditSession, prompts: BaselinePrompts, profile: PromptProfile) -> JuniorTurn:
    """One agent's turn until it reports, its budget runs out or it stalls (as any junior's turn)."""
    if isinstance(model, DeterministicPolicy):
        # the policy only relays checker outcomes; with none to relay it cannot verify anything
        turn = JuniorTurn()
        text = model.direct_answer({"queried_fact": session.opening().get("queried_fact")})
        from auditflow.agents.reports import parse_junior_report

        turn.report = parse_junior_report(json.loads(text), session.role)
        turn.steps.append(TranscriptStep("final_report", content=text))
        return turn
    opening = {k: v for k, v in session.opening().items() if k not in ("tools", "role", "still_required")}
    payload = {"observation": opening, "how_to_report": prompts.agent_report}
    messages = [SystemMessage(prompts.system_of("herculean")), HumanMessage(json.dumps(payload, sort_keys=True))]
    bound = model.bind_tools(session.tool_schemas() + [final_report_tool(JUNIOR_REPORT_SCHEMA, profile)])
    # the profile's view of each observation, without the hints that summarise checker results
    bare = replace(profile, next_call=False, violations_found=False, how_to_report=None, search=None)
    return run_turn(bound, session, messages, profile=bare)
