"""The protocol as a langgraph graph: juniors (in parallel) -> Senior -> juniors again or fusion.

Node functions are module level and take the graph state plus the run context (sessions, models,
conversations) through ``config["configurable"]``, so each can be tested alone and nothing lives in
globals. The graph assembly is a short function with no logic.
"""
from __future__ import annotations

import functools
import operator
from typing import Annotated, Any, TypedDict

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.graph import END, START, StateGraph

from auditflow.agents import senior
from auditflow.agents.junior import run_turn
from auditflow.agents.profile import PromptProfile
from auditflow.agents.prompts import feedback_message, final_report_tool, opening_message
from auditflow.agents.reports import JUNIOR_REPORT_SCHEMA


def _merge(a: dict, b: dict) -> dict:
    return {**a, **b}


class ProtocolState(TypedDict, total=False):
    round: int
    reports: Annotated[dict, _merge]  # role -> JuniorReport | None (latest round)
    turns: Annotated[dict, _merge]  # role -> list of JuniorTurn, one per round
    reviews: Annotated[list, operator.add]
    feedback: dict  # role -> text for the next round
    done: bool


class RunContext:
    """What the nodes need that is not state: per-role sessions, bound models and conversations."""

    def __init__(self, *, sessions: dict, models: dict, config, rule_hint: str | None, profile: PromptProfile) -> None:
        self.sessions, self.config, self.profile = sessions, config, profile
        report_tool = final_report_tool(JUNIOR_REPORT_SCHEMA, profile)
        self.models = {r: m.bind_tools(sessions[r].tool_schemas() + [report_tool]) for r, m in models.items()}
        self.messages = {
            r: [SystemMessage(profile.system(r, search=s.searching)),
                HumanMessage(opening_message(s.opening(), rule_hint=rule_hint, profile=profile))]
            for r, s in sessions.items()
        }

    def checked(self) -> dict:
        """Role -> the fact key its checker calls examined last (None: no checker ran): two auditors who
        checked different facts are a conflict the Senior names."""
        return {r: s.checked_fact() for r, s in self.sessions.items()}

    def workpapers(self) -> dict:
        """Role -> what its own checker runs returned so far (None: it did not run every checker); empty
        without checkers. The Senior holds each report to it, and fusion discounts a report that strays."""
        if not self.config.checks:
            return {}
        return {r: senior.workpapers(s.transcript, fact=(s.target() or {}).get("fact")) for r, s in self.sessions.items()}

    @property
    def searching(self) -> bool:
        """Whether the auditors had to find the fact themselves (a question the harness did not resolve)."""
        return any(s.searching for s in self.sessions.values())


def _ctx(config) -> RunContext:
    return config["configurable"]["auditflow"]


def junior_node(role: str):
    """A node running one junior's turn for the current round."""

    def node(state: ProtocolState, config) -> dict:
        ctx = _ctx(config)
        fb = (state.get("feedback") or {}).get(role)
        if fb:
            ctx.messages[role].append(HumanMessage(feedback_message(fb, state.get("round", 1))))
        turn = run_turn(ctx.models[role], ctx.sessions[role], ctx.messages[role], profile=ctx.profile)
        history = list((state.get("turns") or {}).get(role, [])) + [turn]
        return {"reports": {role: turn.report}, "turns": {role: history}}

    node.__name__ = f"junior_{role}"
    return node


def senior_node(state: ProtocolState, config) -> dict:
    ctx = _ctx(config)
    rnd = state.get("round", 1)
    if not ctx.config.senior or len(ctx.sessions) < 2:
        return {"done": True}
    rev = senior.review(state["reports"], rnd, ctx.workpapers(), profile=ctx.profile, checked=ctx.checked(),
                        searching=ctx.searching)
    done = rev.accepted or rnd >= ctx.config.max_rounds
    return {"reviews": [rev], "feedback": rev.feedback, "round": rnd + (0 if done else 1), "done": done}


def _after_senior(state: ProtocolState, config) -> Any:
    if state.get("done"):
        return END
    feedback = state.get("feedback") or {}
    return [f"junior_{r}" for r in _ctx(config).sessions if r in feedback]  # a standing report is not redone


def build_graph(roles: tuple[str, ...]):
    g = StateGraph(ProtocolState)
    for r in roles:
        g.add_node(f"junior_{r}", junior_node(r))
        g.add_edge(START, f"junior_{r}")
        g.add_edge(f"junior_{r}", "senior")
    g.add_node("senior", senior_node)
    g.add_conditional_edges("senior", _after_senior, [f"junior_{r}" for r in roles] + [END])
    return g.compile()


@functools.lru_cache(maxsize=None)
def compiled_graph(roles: tuple[str, ...]):
    """The compiled graph for these roles, built once per process: it holds no run state (that travels
    in ``config["configurable"]``), and compiling it again cost about a third of a warm case."""
    return build_graph(roles)
