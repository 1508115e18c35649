"""One model call on a retrieved context: the retrieval baselines' single answer (docs/baselines.md).

The model reads the baseline's instruction, the question (or the queried fact) and the context, and
answers with one call of final_report, as the direct-LLM configuration does: every provider returns it
the same way, and a constrained local model writes the report's schema instead of prose. It is given no
other tool, so it can look nothing up. The deterministic policy, which only relays checker outcomes,
answers unable_to_verify here.
"""
from __future__ import annotations

from auditflow.agents.baselines.prompts import BaselinePrompts
from auditflow.agents.direct import answer_once
from auditflow.agents.junior import JuniorTurn
from auditflow.agents.profile import PromptProfile
from auditflow.agents.reports import TranscriptStep


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
    """The report of one call (or the invalid output it was), as a one-turn transcript. ``role``: the
    baseline's name (its system prompt, and the report's role)."""
    turn = JuniorTurn()
    turn.steps.append(TranscriptStep("message", content=f"context: {payload['context']}"))
    return answer_once(model, system=system_text(role, prompts), payload=payload, role=role, profile=profile,
                       turn=turn)
