"""A deterministic policy backend: NOT a language model.

It implements langchain's chat-model interface so the protocol runs unchanged without any LLM: it
reads the observations in the conversation and plans the next tool call by the role's strategy
(Compliance: constraints first; Forensic: evidence first, checks last), then writes the final report
from the checkers' outcomes. It is the no-LLM baseline, the protocol's test double, and the floor any
model must beat.
"""
from __future__ import annotations

import json
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from auditflow.agents.prompts import FINAL_REPORT, read_payload
from auditflow.env.tools import CHECKS

PLANS = {
    "compliance": ("get_concept",) + CHECKS,
    "forensic": ("get_fact", "get_fact_history") + CHECKS,
    "single": ("get_fact", "get_fact_history") + CHECKS,
    "direct": (),
}


def _history(messages: list[BaseMessage]) -> tuple[dict, list[tuple[str, dict]]]:
    """The opening observation and (tool name, observation) pairs, oldest first."""
    opening: dict = {}
    names: dict[str, str] = {}
    seen: list[tuple[str, dict]] = []
    for m in messages:
        if isinstance(m, HumanMessage) and not opening:
            opening = read_payload(m.content).get("observation", {}) or {}
        elif isinstance(m, AIMessage):
            for c in m.tool_calls:
                names[c["id"]] = c["name"]
        elif isinstance(m, ToolMessage):
            seen.append((names.get(m.tool_call_id, ""), read_payload(m.content)))
    return opening, seen


def _arguments(tool: str, focus: dict) -> dict:
    if tool == "get_concept":
        return {"concept": focus.get("concept", "")}
    return {"fact": focus.get("fact", "F1")}


def plan_next(role: str, messages: list[BaseMessage], allowed: frozenset[str] | set[str]) -> tuple[str, dict]:
    """The next (tool, arguments) for this role, given everything observed so far and the tools bound."""
    opening, seen = _history(messages)
    focus = opening.get("queried_fact") or {}
    done = {name for name, obs in seen if "error" not in obs}
    if not focus:
        return FINAL_REPORT, _report({}, {}, "the queried fact is not in the filing")
    for tool in PLANS.get(role, ()):
        if tool in allowed and tool not in done:
            return tool, _arguments(tool, focus)
    checks = {name: obs for name, obs in seen if name in CHECKS and "error" not in obs}
    return FINAL_REPORT, _report(focus, checks, "")


def _report(focus: dict, checks: dict[str, dict], why: str) -> dict:
    violations = [o for o in checks.values() if o.get("outcome") == "violation"]
    consistent = [o for o in checks.values() if o.get("outcome") == "consistent"]
    reported = focus.get("value")
    if violations:
        v = sorted(violations, key=lambda o: o.get("rule", ""))[0]
        decision, rules, expected = "violation", sorted({o["code"] for o in violations if o.get("code")}), v.get("expected")
    elif consistent:
        decision, rules, expected = "consistent", [], reported
    else:
        decision, rules, expected = "unable_to_verify", [], None
        why = why or "no checker applies to this fact"
    cited = {h for o in checks.values() for h in o.get("facts", [])}
    evidence = sorted(cited | ({"F1"} if focus else set()))
    return {
        "decision": decision, "triggered_rules": rules, "reported_value": reported, "expected_value": expected,
        "confidence": 1.0 if decision != "unable_to_verify" else 0.0, "evidence": evidence,
        "rationale": why or "; ".join(f"{o.get('rule')}: {o.get('outcome')} ({o.get('reason', '')})" for _, o in sorted(checks.items())),
    }


class DeterministicPolicy(BaseChatModel):
    """Plans tool calls by rule; not a language model (its ``_llm_type`` says so)."""

    role: str = "forensic"
    tools: frozenset[str] = frozenset()  # names of the bound tools: what the role may call

    @property
    def _llm_type(self) -> str:
        return "auditflow-deterministic-policy (not a language model)"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"policy": "auditflow-deterministic", "role": self.role}

    def bind_tools(self, tools, **kwargs):  # noqa: ARG002 - one call is always made
        names = frozenset(t["function"]["name"] if isinstance(t, dict) and "function" in t else getattr(t, "name", str(t))
                          for t in tools)
        return self.model_copy(update={"tools": names})

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:  # noqa: ARG002
        tool, args = plan_next(self.role, list(messages), self.tools)
        n = sum(1 for m in messages if isinstance(m, AIMessage)) + 1
        msg = AIMessage(content="", tool_calls=[{"name": tool, "args": args, "id": f"call_{n}", "type": "tool_call"}])
        return ChatResult(generations=[ChatGeneration(message=msg)])

    def direct_answer(self, payload: dict) -> str:
        """Direct-LLM configuration: with no tools the policy cannot verify anything, and says so."""
        focus = payload.get("queried_fact") or {}
        return json.dumps(_report(focus, {}, "no tools: the deterministic policy only relays checker outcomes"))
