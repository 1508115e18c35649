"""Scripted chat models for the LLM-layer tests: no network, no weights, fully deterministic.

* :class:`TextPolicyModel` is a *text-only* model (like the local one): it reads the conversation the
  ToolCallingAdapter renders, plans with the deterministic policy, and writes the call as text in a
  different style each turn (bare JSON, code fence, ``<tool_call>`` tags, OpenAI shape, prose first),
  so a whole audit exercises the lenient parser.
* :class:`BadTextModel` writes garbage, a tool nobody has, or truncated JSON.
* :class:`NativeToolModel` is a tool-calling model emitting fixed ``tool_calls``.
* :class:`ExplodingModel` fails the test on any call: a warm replay must make none.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from auditflow.agents.policy import plan_next
from auditflow.agents.profile import ROLES, builtin_profile
from auditflow.agents.prompts import read_payload
from auditflow.env.session import ROLE_TOOLS


def _result(msg: AIMessage) -> ChatResult:
    return ChatResult(generations=[ChatGeneration(message=msg)])


def role_of(messages: list[BaseMessage]) -> str:
    system = next((str(m.content) for m in messages if isinstance(m, SystemMessage)), "")
    for name in ("guided", "plain"):
        profile = builtin_profile(name)
        for search in (False, True):
            for r in ROLES:
                if system.startswith(profile.system(r, search=search)):
                    return r
    return "single"


def allowed(role: str) -> frozenset[str]:
    """What the role may call (what the adapter bound): the planner needs it now that the opening
    message no longer lists the tools."""
    return frozenset(ROLE_TOOLS.get(role, ())) | {"final_report"}


def policy_history(messages: list[BaseMessage]) -> list[BaseMessage]:
    """Undo the adapter's rendering for the planner: calls written as JSON text become tool calls, and
    tool results given as user messages (the text history) or as tool messages (the tool-role history
    of a served model) become tool messages answering them."""
    if any(isinstance(m, AIMessage) and m.tool_calls for m in messages):
        return [m for m in messages if not isinstance(m, SystemMessage)]
    out: list[BaseMessage] = []
    n = 0
    for m in messages:
        payload = read_payload(m.content)
        if isinstance(m, AIMessage) and "name" in payload:
            n += 1
            out.append(AIMessage("", tool_calls=[{"name": payload["name"], "args": payload.get("arguments") or {},
                                                   "id": f"c{n}", "type": "tool_call"}]))
        elif isinstance(m, HumanMessage) and "tool" in payload and "observation" in payload:
            out.append(ToolMessage(json.dumps(payload["observation"]), tool_call_id=f"c{n}"))
        elif isinstance(m, ToolMessage):
            out.append(ToolMessage(m.content, tool_call_id=f"c{n}"))
        elif not isinstance(m, SystemMessage):
            out.append(m)
    return out


def styled(name: str, args: dict, turn: int) -> str:
    """The call in one of the styles small models write."""
    style = turn % 5
    if style == 0:
        return json.dumps({"name": name, "arguments": args})
    if style == 1:
        return f"I will call {name} now.\n```json\n{json.dumps({'name': name, 'arguments': args}, indent=1)}\n```"
    if style == 2:
        return f"<tool_call>\n{json.dumps({'name': name, 'parameters': args})}\n</tool_call>"
    if style == 3:
        return json.dumps({"type": "function", "function": {"name": name, "arguments": json.dumps(args)}})
    return f"Next step (see {{the plan}}): {json.dumps({'function': {'name': name, 'arguments': args}})}"


class TextPolicyModel(BaseChatModel):
    """A text-only stand-in for a small LLM that follows the deterministic policy."""

    supports_json_schema: ClassVar[bool] = True
    calls: list = Field(default_factory=list)  # (role, response_format) per call, shared by copies

    @property
    def _llm_type(self) -> str:
        return "test-text-policy"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:  # noqa: ARG002
        role = role_of(list(messages))
        self.calls.append((role, kwargs.get("response_format")))
        tool, args = plan_next(role, policy_history(list(messages)), allowed(role))
        turn = sum(isinstance(m, AIMessage) for m in messages)
        return _result(AIMessage(content=styled(tool, args, turn)))


class BadTextModel(BaseChatModel):
    """Writes one kind of unusable output, every time (after ``good_turns`` good ones)."""

    kind: str = "garbage"
    good_turns: int = 0

    @property
    def _llm_type(self) -> str:
        return "test-bad-text"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:  # noqa: ARG002
        turn = sum(isinstance(m, AIMessage) for m in messages)
        if turn < self.good_turns:
            role = role_of(list(messages))
            tool, args = plan_next(role, policy_history(list(messages)), allowed(role))
            return _result(AIMessage(content=json.dumps({"name": tool, "arguments": args})))
        text = {
            "garbage": "The filing looks fine to me, I think. ¯\\_(ツ)_/¯",
            "wrong_tool": '{"name": "delete_filing", "arguments": {"fact": "F1"}}',
            "truncated": '{"name": "check_sign", "arguments": {"fact": "F',
            "empty": "",
        }[self.kind]
        return _result(AIMessage(content=text))


class NativeToolModel(BaseChatModel):
    """A model with native tool calls that always calls ``tool`` (e.g. one its role may not use)."""

    tool: str = "get_fact_history"
    args: dict = Field(default_factory=lambda: {"fact": "F1"})

    @property
    def _llm_type(self) -> str:
        return "test-native-tool"

    def bind_tools(self, tools, **kwargs):  # noqa: ARG002
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:  # noqa: ARG002
        n = sum(isinstance(m, AIMessage) for m in messages) + 1
        return _result(AIMessage(content="", tool_calls=[{"name": self.tool, "args": self.args, "id": f"nat_{n}", "type": "tool_call"}]))


class ExplodingModel(BaseChatModel):
    """Any call is a test failure: proves a replay never reaches the model."""

    @property
    def _llm_type(self) -> str:
        return "test-exploding"

    def bind_tools(self, tools, **kwargs):  # noqa: ARG002
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:  # noqa: ARG002
        raise AssertionError("the model was called during a warm-cache replay")


def explode() -> Any:
    raise AssertionError("the provider model was built during a warm-cache replay")


# -- a worker for the multi-process cache test (module level: picklable for spawn) -----------------

def record_worker(directory: str, worker: int, n_shared: int, n_own: int) -> dict:
    """Record shared and own calls into one cache directory, overwrite the shared ones, replay them all."""
    from auditflow.llm.cache import LLMCache
    from auditflow.llm.cachekey import CacheKey

    cache = LLMCache(Path(directory), "new_episodes", case_id=f"case-{worker % 3}")
    keys = [CacheKey.compute(role="forensic", model="test:m", messages=[HumanMessage(f"shared {i}")], tools=[])
            for i in range(n_shared)]
    keys += [CacheKey.compute(role="forensic", model="test:m", messages=[HumanMessage(f"own {worker} {i}")], tools=[])
             for i in range(n_own)]
    big = "x" * 200_000  # large entries widen the window a non-atomic write would leave open
    for k in keys:
        text = k.request["messages"][0]["content"]
        cache.get_or_call(k.key, k.request, lambda t=text: AIMessage(content=f"{t} {big}"), role="forensic", model="test:m")
    rewrite = LLMCache(Path(directory), "all", case_id=f"case-{worker % 3}")  # every worker overwrites the shared ones
    for k in keys[:n_shared]:
        text = k.request["messages"][0]["content"]
        rewrite.get_or_call(k.key, k.request, lambda t=text: AIMessage(content=f"{t} {big}"), role="forensic", model="test:m")
    cache.stats.merge(rewrite.stats)
    replay = LLMCache(Path(directory), "none", case_id=f"case-{worker % 3}")  # while others may still write
    for k in keys:
        text = k.request["messages"][0]["content"]
        msg = replay.get_or_call(k.key, k.request, explode, role="forensic", model="test:m")
        assert msg.content == f"{text} {big}"
    return cache.stats.to_json()
