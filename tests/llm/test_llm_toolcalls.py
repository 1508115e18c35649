"""Constrained tool calls: the anyOf schema, the lenient parser, and the adapter for text-only models."""
from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from auditflow.agents.profile import builtin_profile
from auditflow.agents.prompts import final_report_tool
from auditflow.agents.reports import JUNIOR_REPORT_SCHEMA
from auditflow.env.session import tool_schemas
from auditflow.llm.toolcalls import (
    InvalidToolCall, ToolCallingAdapter, key_material, parse_tool_call, response_format, to_text_messages,
    tool_choice_schema, tool_prompt,
)
from llm_fakes import BadTextModel, TextPolicyModel, styled

TOOLS = tool_schemas("compliance") + [final_report_tool(JUNIOR_REPORT_SCHEMA, builtin_profile("guided"))]
ALLOWED = [t["function"]["name"] for t in TOOLS]


def test_the_schema_is_one_branch_per_tool_and_argument_shape_including_the_final_report():
    schema = tool_choice_schema(TOOLS)
    branches = schema["anyOf"]
    assert sorted({b["properties"]["name"]["const"] for b in branches}) == sorted(ALLOWED)
    for b in branches:
        assert b["required"] == ["name", "arguments"] and b["additionalProperties"] is False
    final = next(b for b in branches if b["properties"]["name"]["const"] == "final_report")
    capped = builtin_profile("guided").report_schema(JUNIOR_REPORT_SCHEMA)
    lean = {k: v for k, v in capped["properties"].items() if k != "rationale"}
    assert final["properties"]["arguments"] == {**capped, "properties": lean}
    assert response_format(TOOLS)["json_schema"]["schema"] == schema
    assert tool_choice_schema(list(reversed(TOOLS))) == schema  # bind order changes nothing
    json.dumps(schema)


@pytest.mark.parametrize("turn", range(5))
def test_every_style_a_small_model_writes_parses(turn):
    text = styled("check_sign", {"fact": "F1"}, turn)
    assert parse_tool_call(text, ALLOWED) == ("check_sign", {"fact": "F1"})


@pytest.mark.parametrize("text, expected", [
    ('{"name": "final_report", "parameters": {"decision": "consistent"}}', ("final_report", {"decision": "consistent"})),
    ('{"tool_calls": [{"id": "x", "type": "function", "function": {"name": "check_sign", "arguments": "{\\"fact\\": \\"F2\\"}"}}]}',
     ("check_sign", {"fact": "F2"})),
    ('[{"name": "check_sign", "arguments": {"fact": "F1"}}]', ("check_sign", {"fact": "F1"})),
    ('```\n{"name": "get_concept", "arguments": {}}\n```', ("get_concept", {})),
    ('<tool_call>{"name": "get_concept", "arguments": {"concept": "us-gaap:Assets"}}', ("get_concept", {"concept": "us-gaap:Assets"})),
    ('Step [1]: {"name": "check_sign", "arguments": null}', ("check_sign", {})),
])
def test_lenient_shapes(text, expected):
    assert parse_tool_call(text, ALLOWED) == expected


@pytest.mark.parametrize("text, kind", [
    ("I think the value is fine.", "not_json"),
    ("", "empty"),
    ('{"name": "check_sign", "arguments": {"fact": "F', "truncated_json"),
    ('```json\n{"name": "check_sign", "arguments": {"fact": "F1"}\n```', "truncated_json"),
    ('{"decision": "consistent"}', "not_a_tool_call"),
    ('{"name": "get_fact_history", "arguments": {"fact": "F1"}}', "tool_not_allowed"),  # not a compliance tool
    ('{"name": "check_sign", "arguments": "fact=F1"}', "bad_arguments"),
    ('{"name": "check_sign", "arguments": [1]}', "bad_arguments"),
])
def test_what_is_still_no_call_is_a_typed_error_naming_the_allowed_tools(text, kind):
    with pytest.raises(InvalidToolCall) as err:
        parse_tool_call(text, ALLOWED)
    assert err.value.kind == kind
    assert f"allowed tools: {', '.join(sorted(ALLOWED))}" in str(err.value) and "final_report" in ALLOWED


def _conversation():
    return [
        SystemMessage("You are an auditor."), HumanMessage('{"task": "audit F1"}'),
        AIMessage("", tool_calls=[{"name": "check_sign", "args": {"fact": "F1"}, "id": "call_1", "type": "tool_call"}]),
        ToolMessage('{"outcome": "violation"}', tool_call_id="call_1"),
    ]


def test_text_rendering_for_models_without_a_tool_role():
    out = to_text_messages(_conversation(), TOOLS)
    assert out[0].content.startswith("You are an auditor.\n\nYou act by calling tools.")
    assert "final_report" in out[0].content
    assert json.loads(out[2].content) == {"name": "check_sign", "arguments": {"fact": "F1"}}
    assert isinstance(out[3], HumanMessage)
    assert json.loads(out[3].content) == {"tool": "check_sign", "observation": {"outcome": "violation"}}
    kept = to_text_messages(_conversation(), TOOLS, render_history=False)
    assert kept[2].tool_calls and isinstance(kept[3], ToolMessage)  # left for the local model's template
    assert key_material(TOOLS) != key_material(TOOLS, render_history=False)


def test_a_served_model_reads_its_history_as_the_in_process_model_does():
    """The tool-role history (openai-compatible): the server applies the chat template the in-process
    model applies, so it gets the same messages: the call as the assistant's JSON line, the result as a
    tool message (which the template wraps in <tool_response>)."""
    from auditflow.llm.local import to_openai_messages

    served = to_text_messages(_conversation(), TOOLS, render_history="tool-role")
    in_process = to_openai_messages(to_text_messages(_conversation(), TOOLS, render_history=False))
    assert not served[2].tool_calls and isinstance(served[3], ToolMessage)
    assert [m.content for m in served] == [m["content"] for m in in_process]
    assert len({json.dumps(key_material(TOOLS, render_history=h)) for h in (True, False, "tool-role")}) == 3


def test_each_provider_names_its_history_in_its_registry_entry():
    from auditflow.llm.specs import ModelSpec

    assert ModelSpec.parse("local:qwen2.5-coder-1.5b").history is False  # recorded keys depend on these
    assert ModelSpec.parse("openai:gpt-4o").history is True
    assert ModelSpec.parse("openai-compatible:http://127.0.0.1:8080/v1#qwen2.5-coder-1.5b").history == "tool-role"


def test_the_adapter_constrains_parses_and_numbers_calls():
    inner = TextPolicyModel()
    model = ToolCallingAdapter(inner=inner).bind_tools(TOOLS)
    opening = {"observation": {"queried_fact": {"fact": "F1", "concept": "us-gaap:Assets"}, "tools": ALLOWED}}
    SYSTEM = {r: builtin_profile("guided").system(r) for r in ("compliance", "forensic", "single")}

    msgs = [SystemMessage(SYSTEM["compliance"]), HumanMessage(json.dumps(opening))]
    ai = model.invoke(msgs)
    assert ai.tool_calls == [{"name": "get_concept", "args": {"concept": "us-gaap:Assets"}, "id": "call_1", "type": "tool_call"}]
    assert inner.calls[-1] == ("compliance", response_format(TOOLS))


@pytest.mark.parametrize("kind", ["garbage", "wrong_tool", "truncated", "empty"])
def test_an_unreadable_output_comes_back_without_tool_calls(kind):
    model = ToolCallingAdapter(inner=BadTextModel(kind=kind)).bind_tools(TOOLS)
    ai = model.invoke([SystemMessage("x"), HumanMessage("y")])
    assert ai.tool_calls == [] and isinstance(ai.content, str)
    assert ai.invalid_tool_calls[0]["id"] == "call_1" and "allowed tools: " in ai.invalid_tool_calls[0]["error"]


def test_without_tools_the_adapter_passes_text_through():
    ai = ToolCallingAdapter(inner=BadTextModel(kind="wrong_tool")).invoke([HumanMessage("answer in JSON")])
    assert ai.tool_calls == [] and json.loads(ai.content)["name"] == "delete_filing"


def test_a_native_provider_answering_in_text_is_read_leniently():
    from auditflow.llm.toolcalls import recover_tool_call

    text = 'Calling it.\n```json\n{"name": "check_sign", "arguments": {"fact": "F1"}}\n```'
    got = recover_tool_call(AIMessage(text), TOOLS, 3)
    assert got.tool_calls == [{"name": "check_sign", "args": {"fact": "F1"}, "id": "call_3", "type": "tool_call"}]
    native = AIMessage("", tool_calls=[{"name": "get_concept", "args": {}, "id": "x"}])
    assert recover_tool_call(native, TOOLS, 3) is native
    assert recover_tool_call(AIMessage("no idea"), TOOLS, 1).invalid_tool_calls[0]["error"].startswith("the reply contains no JSON")
    assert recover_tool_call(AIMessage("plain"), [], 1).content == "plain"  # no tools bound: text is the answer


def test_a_handle_closes_the_call_and_a_selector_excludes_it():
    """A checker takes a handle or a selector; the constraint offers the two shapes, never both at once
    (the 1.5B model copied F1's concept and dimensions after the handle: 40 tokens for nothing)."""
    shapes = [b["properties"]["arguments"] for b in tool_choice_schema(TOOLS)["anyOf"]
              if b["properties"]["name"]["const"] == "check_sign"]
    assert [sorted(s["properties"]) for s in shapes] == [["fact"], ["concept", "dimensions", "period"]]
    assert all(s["additionalProperties"] is False for s in shapes) and shapes[0]["required"] == ["fact"]
    one_shape = [b for b in tool_choice_schema(TOOLS)["anyOf"] if b["properties"]["name"]["const"] == "get_concept"]
    assert len(one_shape) == 1  # no handle argument: the tool's schema as it is


def test_a_text_only_model_is_not_asked_for_the_optional_rationale():
    listed = tool_prompt(TOOLS)
    assert "rationale" not in listed and "confidence: num" in listed and "evidence: [str]" in listed
