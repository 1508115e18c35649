"""Issue 18, defect 10: hostile model replies are invalid calls, never a RecursionError or a huge artifact."""
from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from auditflow.llm.toolcalls import (
    MAX_ARGUMENT_CHARS, InvalidToolCall, parse_tool_call, recover_tool_call, to_tool_call_message,
)

TOOLS = [{"type": "function", "function": {"name": "submit_report", "parameters": {
    "type": "object", "properties": {"decision": {"type": "string"}, "rationale": {"type": "string", "maxLength": 80}}}}}]
DEEP = "[" * 50_000 + "]" * 50_000


@pytest.mark.parametrize("text", [
    DEEP,
    '{"name": "submit_report", "arguments": ' + DEEP + "}",
    '{"name": "submit_report", "arguments": "' + DEEP + '"}',
    "prose " + "{" * 50_000,
])
def test_10_a_50000_level_reply_is_an_invalid_call(text):
    with pytest.raises(InvalidToolCall):
        parse_tool_call(text, ["submit_report"])
    msg = to_tool_call_message(text, TOOLS, 1)
    assert msg.tool_calls == [] and msg.invalid_tool_calls


def test_10_a_1mb_argument_is_refused():
    text = '{"name": "submit_report", "arguments": {"decision": "' + "x" * 1_000_000 + '"}}'
    with pytest.raises(InvalidToolCall, match="characters long"):
        parse_tool_call(text, ["submit_report"])
    assert MAX_ARGUMENT_CHARS < 1_000_000


def test_10_a_rationale_past_its_schema_cap_is_an_invalid_call():
    for n in (1_000, 1_000_000):  # the 1 MB one is refused by the size cap before the schema's
        text = '{"name": "submit_report", "arguments": {"decision": "consistent", "rationale": "' + "r" * n + '"}}'
        msg = to_tool_call_message(text, TOOLS, 3)
        assert msg.tool_calls == [] and "at most" in msg.invalid_tool_calls[0]["error"]
    assert "at most 80" in to_tool_call_message(text.replace("r" * n, "r" * 1_000), TOOLS, 3).invalid_tool_calls[0]["error"]
    ok = to_tool_call_message('{"name": "submit_report", "arguments": {"rationale": "short"}}', TOOLS, 3)
    assert ok.tool_calls[0]["args"] == {"rationale": "short"}


def test_10_a_native_tool_call_is_held_to_the_same_bounds():
    native = AIMessage("", tool_calls=[{"name": "submit_report", "args": {"rationale": "r" * 500}, "id": "x"}])
    out = recover_tool_call(native, TOOLS, 2)
    assert out.tool_calls == [] and "at most 80" in out.invalid_tool_calls[0]["error"]
    fine = AIMessage("", tool_calls=[{"name": "submit_report", "args": {"rationale": "ok"}, "id": "x"}])
    assert recover_tool_call(fine, TOOLS, 2) is fine
