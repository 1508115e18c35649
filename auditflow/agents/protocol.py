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
from auditflow.agents.observations import fact_words
from auditflow.agents.profile import PromptProfile
from auditflow.agents.prompts import feedback_message, final_report_tool, opening_message
from auditflow.agents.reports import JUNIOR_REPORT_SCHEMA
from auditflow.env.tools import CHECKS


def _merge(a: dict, b: dict) -> dict:
    return {**a, **b}


class ProtocolState(TypedDict, total=False):
    round: int
    reports: Annotated[dict, _merge]  # role -> JuniorReport | None (latest round)
    turns: Annotated[dict, _merge]  # role -> list of JuniorTurn, one per round
    reviews: Annotated[list, operator.add]
    feedback: dict  # role -> text for the next round
    recheck: tuple  # fact keys the auditors' checkers examined, when the Senior found them different
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
            offer = recheck_offer(ctx.sessions[role], state.get("recheck") or (), ctx.profile)
            ctx.messages[role].append(HumanMessage(feedback_message(fb, state.get("round", 1), offer)))
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
    checked = ctx.checked()
    rev = senior.review(state["reports"], rnd, ctx.workpapers(), profile=ctx.profile, checked=checked,
                        searching=ctx.searching)
    done = rev.accepted or rnd >= ctx.config.max_rounds
    # taken here, before the next round's auditors (threads) move on to other facts
    recheck = () if done else _facts_in_conflict(checked, ctx)
    return {"reviews": [rev], "feedback": rev.feedback, "round": rnd + (0 if done else 1), "done": done,
            "recheck": recheck}


def _facts_in_conflict(checked: dict, ctx: RunContext) -> tuple[str, ...]:
    """The keys of the two facts the auditors' checkers examined when they differ, the auditors were
    searching and the profile re-opens the search on such a conflict; else ()."""
    facts = list(checked.values())
    if not (ctx.searching and senior.rechecks(ctx.profile) and len(facts) == 2):
        return ()
    if senior.fact_conflict(*facts) is None:
        return ()
    return tuple(sorted(f["key"] for f in facts))


def recheck_offer(session, keys: tuple[str, ...], profile: PromptProfile) -> dict | None:
    """What the feedback adds when the Senior found the auditors examined different facts: the audit
    re-opens (every required tool again, :meth:`AuditSession.reopen`) and both facts are offered as
    ready calls, each led by its words as find_facts lists it, beside the question. The auditor
    chooses again between the two facts in dispute (the Senior's text does not say who chose which);
    the checkers decide what is true of the fact chosen. The facts come in a fixed order (their keys;
    shuffled with the session's seed), never "yours first"."""
    if not keys or not session.searching or profile.search is None:
        return None
    required = session.reopen()
    first = profile.first_required.get(session.role)
    pending = required or [t for t in (first, *CHECKS) if t and t in session.allowed]
    tool = first if first in pending else pending[0]
    facts = [session.listing(key) for key in session.ctx.order(list(keys), "recheck")]
    named = len({f["concept"] for f in facts}) > 1  # different concepts: each option says which
    options = [{"is": ", ".join(filter(None, [f.get("label") or f["concept"] if named else None, fact_words(f)])),
                "name": tool, "arguments": {"fact": f["fact"]}} for f in facts]
    return {"next_call_options": options, "choose": profile.search.options_note,
            "question": session.query.question, "still_required": required}


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
