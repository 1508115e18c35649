"""The paper's retrieval and tool-harness baselines as configurations (docs/baselines.md).

``vanilla-rag``, ``graphrag`` and ``treerag`` retrieve a context from the filing (:mod:`.vanilla`,
:mod:`.graph`, :mod:`.tree`) and ask the model once (:mod:`.one_call`); ``herculean`` is one ReAct agent
with read-only tools (:mod:`.herculean`). None of them runs a checker or gets a checker's verdict, and none
has a Senior: what the model reports is the audit. :func:`run_baseline` is what
:func:`auditflow.agents.audit.run_audit` calls for them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from auditflow.agents.baselines import graph, herculean, one_call, tree, vanilla
from auditflow.agents.baselines.lines import concept_label, period_words
from auditflow.agents.baselines.prompts import BaselinePrompts, baseline_prompts
from auditflow.agents.configs import BASELINES
from auditflow.agents.junior import JuniorTurn
from auditflow.agents.profile import PromptProfile
from auditflow.env.query import AuditQuery
from auditflow.env.session import AuditSession
from auditflow.graphs.environment import AuditEnvironment

__all__ = ["BASELINES", "RUNNERS", "BaselineRun", "run_baseline"]

# What a baseline does with its session: (name, session, model, prompts, profile) -> its one turn.
Runner = Callable[[str, AuditSession, object, BaselinePrompts, PromptProfile], JuniorTurn]


@dataclass(frozen=True)
class BaselineRun:
    """The baseline's one turn, the fact its report is about (None: it named none) and the handle names."""

    role: str
    turn: JuniorTurn
    fact: dict | None
    handles: dict[str, dict]


def _question(session: AuditSession) -> str:
    """What retrieval searches with: a question in plain words as asked; a FinMR or structured query as
    the concept it names and its period in words (FinMR's fixed wording, "reported value ... Instance
    document", would otherwise pull every retriever to the cover page), with the handed-over fact's
    labels when there is one."""
    q = session.query
    if q.form == "text":
        return q.question or ""
    words = [q.concept or ""]
    if session.focus is not None:
        focus = session.focus
        words += [concept_label(session.ctx, focus.concept),
                  period_words(session.ctx.env.filing.contexts[focus.context_id].period)]
    elif q.period:
        words.append(q.period)
    return " ".join(w for w in words if w)


def _evidence(turn: JuniorTurn) -> list[str]:
    """The handles the accepted report names in ``evidence`` (the fact it audited first)."""
    for step in reversed(turn.steps):
        if step.kind != "final_report":
            continue
        args = step.tool_call.arguments if step.tool_call is not None else None
        if args is None:
            try:
                args = json.loads(step.content)
            except ValueError:
                return []
        ev = args.get("evidence") if isinstance(args, dict) else None
        return [h for h in ev if isinstance(h, str)] if isinstance(ev, list) else []
    return []


def reported_fact(session: AuditSession, turn: JuniorTurn) -> dict | None:
    """The fact the report is about: the first handle of its evidence this session showed, else the fact
    the case handed over, else (the agent) the fact its last successful call named."""
    for h in _evidence(turn):
        key = session.ctx.handles.key(h)
        if key is not None:
            return {"key": key, **session.fact_name(key)}
    return session.worked_fact()


def _one_call(retrieve: Callable[[AuditSession, str, PromptProfile], str]) -> Runner:
    """A retrieval baseline: the context ``retrieve`` finds for the question, then one call."""
    def run(name: str, session: AuditSession, model, prompts: BaselinePrompts, profile: PromptProfile) -> JuniorTurn:
        ctx_text = retrieve(session, _question(session), profile)
        return one_call.answer(model, name, prompts, profile, one_call.request(name, prompts, session.opening(), ctx_text))
    return run


def _agent(name: str, session: AuditSession, model, prompts: BaselinePrompts, profile: PromptProfile) -> JuniorTurn:
    """``herculean``: one ReAct agent with the read-only tools."""
    return herculean.run(model, herculean.restrict(session), prompts, profile)


# One entry per baseline, in BASELINES' order (its names also key the prompts and the configurations).
RUNNERS: dict[str, Runner] = {
    "vanilla-rag": _one_call(lambda session, text, profile: vanilla.context(session.ctx, text)),
    "graphrag": _one_call(lambda session, text, profile: graph.context(session.ctx, text, focus=session.focus,
                                                                        tools=profile.tools)),
    "treerag": _one_call(lambda session, text, profile: tree.context(session.ctx, text)),
    "herculean": _agent,
}
assert tuple(RUNNERS) == BASELINES, "a baseline needs a runner here and its prompts in prompts.py"


def run_baseline(name: str, env: AuditEnvironment, query: AuditQuery, *, model, data_root: Path | None,
                 profile: PromptProfile, shuffle: int | None = None) -> BaselineRun:
    runner = RUNNERS.get(name)
    if runner is None:
        raise ValueError(f"no baseline {name!r}; there are {', '.join(BASELINES)}")
    prompts = baseline_prompts(profile)
    session = AuditSession(env, query, "single", data_root=data_root, required=(), shuffle=shuffle, tools=profile.tools)
    session.role = name  # the report's and the transcript's role
    turn = runner(name, session, model, prompts, profile)
    handles = {h: session.fact_name(k) for h, k in session.handles().items()}
    return BaselineRun(name, turn, reported_fact(session, turn), handles)
