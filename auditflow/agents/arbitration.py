"""The Senior's choice: which of two disputed facts the question names.

When the rounds run out and the two auditors' checkers still examined different facts, fusion would
weigh two audits of two facts against each other and keep the more confident report, whichever fact it
is about: on ``cases/hard`` the 1.5B model's ``full`` run ended 25 of its first 116 cases so, 10 of them
right. Which fact a question means is a question of *where to look*, the part of the protocol a model
decides (docs/protocol.md, "The Senior's choice"). So the Senior, a model call of its own (role
``senior``, cached like every other), reads the question and the two facts in the words find_facts
lists facts with, without values or checker results, and chooses one. The audit is then the report of
the auditor whose checkers examined that fact, held to those checkers' results as always.

The two facts are offered as ready calls of ``choose_fact`` (``next_call_options``), so a local model
decodes under the same constraint as an auditor choosing a fact: it copies the question, then writes
the chosen fact's words. An answer that names neither is recorded (``Arbitration.chosen`` None) and the
dispute is fused as it stands. A profile without an ``arbitration:`` section never asks.
"""
from __future__ import annotations

import json
from typing import Any, Mapping

from langchain_core.messages import HumanMessage, SystemMessage

from auditflow.agents.observations import fact_words
from auditflow.agents.profile import PromptProfile
from auditflow.agents.reports import Arbitration, SeniorReview
from auditflow.env.session import AuditSession
from auditflow.llm.toolcalls import OFFERED

CHOOSE_FACT = "choose_fact"
OPTION_IDS = ("A", "B")


def choose_fact_tool() -> dict:
    """The Senior's one tool: the option it chooses, by the id its offer carries."""
    return {"type": "function", "function": {
        "name": CHOOSE_FACT,
        "description": "Choose the fact the question names.",
        "parameters": {"type": "object", "properties": {"fact": {"type": "string", "enum": list(OPTION_IDS)}},
                       "required": ["fact"], "additionalProperties": False},
    }}


def standing_dispute(reviews: list[SeniorReview] | tuple[SeniorReview, ...],
                     audited: Mapping[str, dict | None]) -> tuple[str, str] | None:
    """The keys of the two facts still in dispute when the Senior's last review names a different-facts
    conflict, sorted (a fixed order whoever examined which); else None."""
    if not reviews or not reviews[-1].names_different_facts:
        return None
    keys = sorted({f["key"] for f in audited.values() if f})
    return (keys[0], keys[1]) if len(keys) == 2 else None


def offered_words(sessions: Mapping[str, AuditSession], audited: Mapping[str, dict | None],
                  keys: tuple[str, str]) -> list[str] | None:
    """Each disputed fact in words, as find_facts lists it (members, then the period), led by its
    concept's label when the two are of different concepts. Each is read from the session of an
    auditor that examined it (no new handle anywhere). None when the words cannot tell them apart."""
    examiner = {f["key"]: role for role, f in sorted(audited.items()) if f}
    listed = [sessions[examiner[k]].listing(k) for k in keys]
    named = len({f["concept"] for f in listed}) > 1
    words = [", ".join(filter(None, [(f.get("label") or f["concept"]) if named else None, fact_words(f)]))
             for f in listed]
    return words if len(set(words)) == len(words) else None


def arbitrate(model: Any, sessions: Mapping[str, AuditSession], audited: Mapping[str, dict | None],
              keys: tuple[str, str], question: str, profile: PromptProfile) -> tuple[Arbitration, str | None] | None:
    """Ask the Senior which of the facts ``keys`` the question names: (the record, the chosen key or
    None), or None when there is nothing to ask (no arbitration text in the profile, or two facts
    the words do not tell apart). The options come in the order of ``keys``, permuted by a shuffle seed."""
    if profile.arbitration is None:
        return None
    any_session = sessions[sorted(sessions)[0]]
    order = any_session.ctx.order(list(keys), "arbitration")
    words = offered_words(sessions, audited, tuple(order))
    if words is None:
        return None
    options = [{"is": w, "name": CHOOSE_FACT, "arguments": {"fact": oid}} for w, oid in zip(words, OPTION_IDS)]
    payload = {"question": question, OFFERED: options, "choose": profile.arbitration.choose}
    messages = [SystemMessage(profile.arbitration.system), HumanMessage(json.dumps(payload, sort_keys=True))]
    reply = model.bind_tools([choose_fact_tool()]).invoke(messages)
    answer, picked = _answer(reply)
    chosen = OPTION_IDS.index(picked) if picked in OPTION_IDS else None
    facts = {f["key"]: {k: v for k, v in f.items() if k != "key"} for f in audited.values() if f}
    record = Arbitration(offered=tuple(words), facts=tuple(facts[k] for k in order), chosen=chosen, answer=answer)
    return record, (order[chosen] if chosen is not None else None)


def _answer(reply: Any) -> tuple[str, str | None]:
    """(what came back, as text; the option id it chose, or None)."""
    calls = [c for c in (getattr(reply, "tool_calls", None) or []) if c.get("name") == CHOOSE_FACT]
    if not calls:
        return str(getattr(reply, "content", reply))[:500], None
    args = calls[0].get("args") or {}
    text = json.dumps({"name": CHOOSE_FACT, "arguments": args}, sort_keys=True)
    picked = args.get("fact")
    return text, picked if isinstance(picked, str) else None


def kept_roles(audited: Mapping[str, dict | None], chosen_key: str) -> set[str]:
    """The auditors whose checkers examined the chosen fact: theirs are the reports the audit keeps."""
    return {r for r, f in audited.items() if f and f["key"] == chosen_key}


__all__ = ["CHOOSE_FACT", "choose_fact_tool", "standing_dispute", "offered_words", "arbitrate", "kept_roles"]
