"""Tool calls that small models can follow: a JSON-schema constraint, a lenient parser, an adapter.

Small local models do not fill OpenAI ``tool_calls``: they write JSON in the message text, in code
fences, in ``<tool_call>`` tags, after a sentence of prose, and they invent tools
(docs/local-llm.md). Constrained decoding against an ``anyOf`` of ``{name: const, arguments: schema}``
objects (one per tool the role may call now, the final report included) made every output parse, so:

* :func:`tool_choice_schema` builds that schema and :func:`response_format` the OpenAI-style
  ``response_format`` carrying it;
* :func:`parse_tool_call` reads whatever text a model wrote, leniently, and raises
  :class:`InvalidToolCall` for what still is not a call of an allowed tool;
* :class:`ToolCallingAdapter` gives a text-only chat model langchain's tool-calling interface. An
  output it cannot read becomes an ``AIMessage`` *without* tool calls and with the raw text, which
  the junior loop records, feeds back once and counts as an invalid output.
"""
from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field

from auditflow.llm.errors import PicklableError

PROTOCOL = "auditflow-json-tool-call/2"  # bump when the prompt or the message rendering changes
TOOL_PROMPT = (
    "You act by calling tools. Reply with exactly one JSON object and nothing else:\n"
    '{{"name": <one tool name from the list>, "arguments": {{...the tool\'s arguments...}}}}\n'
    "Tools:\n{tools}"
)
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCED = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)(?:```|$)", re.DOTALL)
_MAX_STARTS = 64  # brace positions tried per candidate: prose before the JSON is short


class InvalidToolCall(PicklableError):
    """A model's output that is not one call of an allowed tool (not JSON, truncated, unknown tool...)."""

    def __init__(self, kind: str, message: str, *, text: str, allowed: tuple[str, ...]) -> None:
        super().__init__(f"{message}. Reply with one JSON object "
                         f'{{"name": ..., "arguments": {{...}}}}; allowed tools: {", ".join(allowed) or "none"}')
        self.kind, self.text, self.allowed = kind, text, allowed


# -- schemas -------------------------------------------------------------------------------------

def normalise_tools(tools: list) -> list[dict]:
    """OpenAI tool dicts, sorted by name: the order a tool was bound in changes nothing downstream."""
    converted = [convert_to_openai_tool(t) for t in tools]
    return sorted(converted, key=lambda t: t["function"]["name"])


def _params(tool: dict) -> dict:
    return tool["function"].get("parameters") or {"type": "object", "properties": {}}


HANDLE = "fact"  # the argument that names a fact by handle; it makes a tool's other selectors moot
# Optional free text a text-only model is not asked for: under constrained decoding every token is
# generated one by one (~8 a second when two auditors decode together on two cores), and the 1.5B
# model filled the final report's rationale to its 80-character cap, cut mid-sentence, often about
# a rule that did not apply. Providers with a tool API still get the whole schema.
OMITTED_PROSE = frozenset({"rationale"})


def _asked(name: str, required) -> bool:
    """Whether a text-only model is asked for argument ``name`` (not optional prose)."""
    return name in required or name not in OMITTED_PROSE


def argument_shapes(params: dict) -> list[dict]:
    """A tool's parameters as the shapes a call may take, without optional prose (OMITTED_PROSE): a
    tool that takes a fact handle *or* a selector (concept, period, dimensions) gets one shape for each.

    The tools ignore the selector when a handle is given (``fact`` wins), but a plain schema lets a
    model write both: the 1.5B model wrote ``{"fact": "F1"}`` and then copied F1's concept and
    dimensions after it, 40 tokens more to generate and to read back (~5 s on two cores). With two
    shapes the grammar closes the call after the handle.
    """
    required = params.get("required") or ()
    props = {k: v for k, v in (params.get("properties") or {}).items() if _asked(k, required)}
    if props != (params.get("properties") or {}):
        params = {**params, "properties": props}
    others = {k: v for k, v in props.items() if k != HANDLE}
    if HANDLE not in props or not others or HANDLE in required:
        return [params]
    by_handle = {**params, "properties": {HANDLE: props[HANDLE]}, "required": [HANDLE], "additionalProperties": False}
    by_selector = {**params, "properties": others, "additionalProperties": False,
                   "required": [k for k in required if k != HANDLE]}
    return [by_handle, by_selector]


def tool_choice_schema(tools: list) -> dict:
    """``anyOf`` one ``{"name": const, "arguments": <a shape of the tool's parameters>}`` object per
    tool and argument shape (:func:`argument_shapes`)."""
    return {"anyOf": [
        {"type": "object",
         "properties": {"name": {"const": t["function"]["name"]}, "arguments": shape},
         "required": ["name", "arguments"], "additionalProperties": False}
        for t in normalise_tools(tools) for shape in argument_shapes(_params(t))
    ]}


def response_format(tools: list) -> dict:
    """The OpenAI/llama.cpp ``response_format`` that constrains decoding to one allowed tool call."""
    return {"type": "json_schema", "json_schema": {"name": "tool_call", "strict": True, "schema": tool_choice_schema(tools)}}


OFFERED = "next_call_options"  # an observation's ready calls to choose from (a guided profile's search)


def offered_calls(messages: list[BaseMessage], tools: list[dict]) -> list[dict] | None:
    """The calls the latest observation offers to choose from, when it offers any and every one names a
    bound tool: ``[{"name", "arguments"}, ...]``; else None.

    The latest observation is the first message after the model's last reply carrying a JSON object
    (a tool result, or the opening). Under constrained decoding the reply is then one of these calls:
    the model still chooses which (the concept, the fact, the period), and a lost 1.5B model can no
    longer spend its budget composing calls that name a concept where a handle belongs.
    """
    after: list[BaseMessage] = []
    for m in reversed(messages):
        if isinstance(m, AIMessage):
            break
        after.append(m)
    bound = {t["function"]["name"] for t in tools}
    for m in reversed(after):
        if isinstance(m, SystemMessage):
            continue
        payload = _observation(m)
        offered = payload.get(OFFERED) if isinstance(payload, dict) else None
        if not isinstance(offered, list) or not offered:
            return None
        question = payload.get("question") if isinstance(payload.get("question"), str) else None
        calls = [{"is": o.get("is"), "name": o.get("name"), "arguments": o.get("arguments") or {}, "question": question}
                 for o in offered if isinstance(o, dict)]
        if len(calls) != len(offered) or any(c["name"] not in bound or not isinstance(c["arguments"], dict) for c in calls):
            return None
        return calls
    return None


LOOKING_FOR = "looking_for"  # what the model writes before it chooses: the question's words for the fact
LOOKING_FOR_MAX = 120


def offered_format(calls: list[dict]) -> dict:
    """The ``response_format`` that admits exactly ``calls``, written out as constants. Among several
    described calls the model first writes what it is looking for (``looking_for``: the question, word
    for word, when the observation restates it; else its own words), then the chosen call's words
    (``is``), then the call. The 1.5B model, asked to choose straight away, took the first option
    whatever the question said; let to write its own words first, it wrote the first option's period
    into them; copying the question, it reads the question's words right before it chooses."""
    described = len(calls) > 1 and all(isinstance(c.get("is"), str) for c in calls)

    def shape(c: dict) -> dict:
        # first the question's own words for what is sought (copied, so the choice that follows is
        # made right after reading them), then the chosen call's words, then the call
        sought = {"const": c["question"]} if isinstance(c.get("question"), str) else {"type": "string", "maxLength": LOOKING_FOR_MAX}
        props: dict = {LOOKING_FOR: sought} if described else {}
        if isinstance(c.get("is"), str):
            props["is"] = {"const": c["is"]}
        props.update(name={"const": c["name"]}, arguments={"const": c["arguments"]})
        return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}

    return {"type": "json_schema", "json_schema": {"name": "tool_call", "strict": True,
                                                   "schema": {"anyOf": [shape(c) for c in calls]}}}


def _type_hint(schema: dict) -> str:
    """A JSON schema as a few characters of pseudo-type: enough for a model to fill the field."""
    if "enum" in schema:
        return "|".join(json.dumps(v) for v in schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return "|".join(_type_hint({**schema, "type": k}) for k in kind)
    if kind == "array":
        return f"[{_type_hint(schema.get('items') or {})}]"
    if kind == "object":
        extra = schema.get("additionalProperties")
        return f"{{str: {_type_hint(extra)}}}" if isinstance(extra, dict) else "{...}"
    return {"string": "str", "integer": "int", "number": "num", "boolean": "bool", "null": "null"}.get(kind, "any")


def signature(tool: dict) -> str:
    """``name(arg: type, optional?: type)``: a tool's call shape in one short line.

    Argument descriptions and full JSON schemas stay out of the prompt: a small model reads a prompt
    at ~40 tokens a second on two cores, the schemas were three quarters of its first prompt, and
    under constrained decoding the grammar enforces them anyway. Their example values also leaked
    into the calls (a model copied a schema's example dimensions into a real call).
    """
    params = _params(tool)
    required = set(params.get("required") or ())
    args = [f"{name}{'' if name in required else '?'}: {_type_hint(spec)}"
            for name, spec in (params.get("properties") or {}).items() if _asked(name, required)]
    return f"{tool['function']['name']}({', '.join(args)})"


def tool_prompt(tools: list) -> str:
    """The tool list as text, for a model that has no tool API (appended to the system prompt)."""
    lines = [f"- {signature(t)}: {t['function'].get('description', '').strip()}" for t in normalise_tools(tools)]
    return TOOL_PROMPT.format(tools="\n".join(lines))


def key_material(tools: list, *, render_history: bool | str = True) -> dict:
    """What the adapter adds to a cache key: its protocol and hashes of the prompt and the constraint."""
    def sha(obj: Any) -> str:
        return hashlib.sha256(json.dumps(obj, sort_keys=True, ensure_ascii=False).encode()).hexdigest()

    return {"tool_protocol": PROTOCOL, "render_history": render_history, "tool_prompt_sha256": sha(tool_prompt(tools)),
            "response_format_sha256": sha(response_format(tools))}


# -- the lenient parser --------------------------------------------------------------------------

def _candidates(text: str) -> list[str]:
    """Where a call may be written: inside <tool_call> tags, inside code fences, anywhere."""
    return [m.group(1) for m in _TAGGED.finditer(text)] + [m.group(1) for m in _FENCED.finditer(text)] + [text]


def _truncated(s: str, start: int) -> bool:
    """Whether the JSON starting at ``start`` runs out before its brackets close (a cut-off output)."""
    depth, in_str, esc = 0, False, False
    for ch in s[start:]:
        if in_str:
            esc, in_str = (False, True) if esc else (ch == "\\", ch != '"')
        elif ch == '"':
            in_str = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return False
    return depth > 0 or in_str


def _json_values(s: str, found: dict) -> Any:
    """Every JSON object or array in ``s``, outermost first (prose around them is skipped); notes in
    ``found`` whether any JSON was seen and whether one was cut off."""
    decoder, end = json.JSONDecoder(), 0
    for i in [i for i, ch in enumerate(s) if ch in "{["][:_MAX_STARTS]:
        if i < end:
            continue
        try:
            obj, end = decoder.raw_decode(s, i)
        except RecursionError:  # 50,000 nested brackets: no call, and nothing after it is read either
            found["too_deep"] = True
            return
        except ValueError:
            found["truncated"] = found["truncated"] or _truncated(s, i)
            continue
        found["json"] = True
        yield obj


def _as_call(obj: Any) -> tuple[Any, Any] | None:
    """(name, arguments) from the shapes models write, or None if ``obj`` is no tool call."""
    if isinstance(obj, list):
        obj = obj[0] if obj else None
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("tool_calls"), list) and obj["tool_calls"]:
        return _as_call(obj["tool_calls"][0])
    if isinstance(obj.get("function"), dict):
        obj = obj["function"]
    name = next((obj[k] for k in ("name", "tool", "tool_name", "function") if isinstance(obj.get(k), str)), None)
    if name is None:
        return None
    args = next((obj[k] for k in ("arguments", "parameters", "args", "input") if k in obj), None)
    return name, args


def _arguments(args: Any, text: str, allowed: tuple[str, ...]) -> dict:
    if args is None:
        return {}
    if isinstance(args, str):  # OpenAI style: arguments as a JSON string
        try:
            args = json.loads(args) if args.strip() else {}
        except RecursionError:
            raise InvalidToolCall("bad_arguments", f"the arguments are nested more than {MAX_DEPTH} levels deep",
                                  text=text, allowed=allowed) from None
        except ValueError:
            raise InvalidToolCall("bad_arguments", "the arguments are a string that is not JSON", text=text, allowed=allowed) from None
    if not isinstance(args, dict):
        raise InvalidToolCall("bad_arguments", f"the arguments must be a JSON object, got {type(args).__name__}",
                              text=text, allowed=allowed)
    if _depth(args) > MAX_DEPTH:
        raise InvalidToolCall("bad_arguments", f"the arguments are nested more than {MAX_DEPTH} levels deep",
                              text=text, allowed=allowed)
    size = len(json.dumps(args, ensure_ascii=False))
    if size > MAX_ARGUMENT_CHARS:
        raise InvalidToolCall("bad_arguments", f"the arguments are {size:,} characters long (at most "
                              f"{MAX_ARGUMENT_CHARS:,})", text=text, allowed=allowed)
    return args


# Bounds no real call comes near (the recorded calls' arguments are under 300 characters, depth 3): a
# hostile or runaway reply must not become a 56 MB artifact or a RecursionError out of run_audit.
MAX_DEPTH = 32
MAX_ARGUMENT_CHARS = 65_536


def _depth(obj: Any) -> int:
    """Nesting depth of a parsed JSON value, without recursion."""
    deepest, stack = 0, [(obj, 1)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        if d > MAX_DEPTH:
            break
        if isinstance(node, dict):
            stack.extend((v, d + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, d + 1) for v in node)
    return deepest


def schema_problem(name: str, args: dict, tools: list[dict]) -> str | None:
    """Why ``args`` break their tool's declared string caps (``maxLength``), or None. The schema is sent
    to the model; a reply that ignores it (a 1 MB rationale against a cap of 80) is an invalid call."""
    tool = next((t for t in tools if t["function"]["name"] == name), None)
    props = _params(tool).get("properties", {}) if tool else {}
    for key, value in args.items():
        cap = props.get(key, {}).get("maxLength") if isinstance(props.get(key), dict) else None
        if isinstance(value, str) and isinstance(cap, int) and len(value) > cap:
            return f"the argument {key!r} is {len(value):,} characters long; the schema allows at most {cap}"
    return None


def parse_tool_call(text: str, allowed_names) -> tuple[str, dict]:
    """(tool name, arguments) from a model's text; :class:`InvalidToolCall` when there is none.

    Accepts ``{"name", "arguments"}``, ``{"name", "parameters"}``, ``{"function": {...}}`` and OpenAI's
    ``{"tool_calls": [{"function": {"name", "arguments": "<json>"}}]}``, bare or in fences or tags.
    """
    allowed = tuple(sorted(allowed_names))
    text = text if isinstance(text, str) else str(text)
    if not text.strip():
        raise InvalidToolCall("empty", "the reply is empty", text=text, allowed=allowed)
    found = {"json": False, "truncated": False}
    for cand in _candidates(text):
        for obj in _json_values(cand, found):
            call = _as_call(obj)
            if call is None:
                continue
            name, args = call
            if name not in allowed:
                raise InvalidToolCall("tool_not_allowed", f"there is no tool {name!r} you may call",
                                      text=text, allowed=allowed)
            return name, _arguments(args, text, allowed)
    if found.get("too_deep"):
        raise InvalidToolCall("not_json", "the JSON in the reply is nested too deeply to read", text=text,
                              allowed=allowed)
    if found["truncated"]:
        raise InvalidToolCall("truncated_json", "the JSON in the reply is cut off before it ends", text=text, allowed=allowed)
    if found["json"]:
        raise InvalidToolCall("not_a_tool_call", "the reply's JSON names no tool", text=text, allowed=allowed)
    raise InvalidToolCall("not_json", "the reply contains no JSON object", text=text, allowed=allowed)


# -- the adapter ---------------------------------------------------------------------------------

def message_text(msg: Any) -> str:
    """A message's text (content blocks joined), whatever the provider returned."""
    content = getattr(msg, "content", msg)
    if isinstance(content, list):
        return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content
                       if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text"))
    return str(content)


def _observation(content: Any) -> Any:
    text = message_text(content)
    try:
        return json.loads(text)
    except ValueError:
        return text


def render_tool_call(call) -> str:
    """A tool call as a constrained model wrote it: one line of {"name", "arguments"} JSON."""
    return json.dumps({"name": call["name"], "arguments": call.get("args") or {}}, ensure_ascii=False)


def to_text_messages(messages: list[BaseMessage], tools: list[dict], *,
                     render_history: bool | str = True) -> list[BaseMessage]:
    """The conversation for a text-only model: the tool list appended to the system prompt and, with
    ``render_history`` True, earlier calls as their JSON and tool results as user messages (text models
    and chat templates differ in tool-role support). False leaves calls and results for the inner model
    to render (the local model's Qwen template has a tool role). ``"tool-role"`` renders them as the
    local model does, for a server that applies the same template: each call as the assistant's JSON
    line, each result as a ``tool`` message (``auditflow.llm.specs.PROVIDER_HISTORY``)."""
    names: dict[str, str] = {}
    out: list[BaseMessage] = []
    suffix = tool_prompt(tools) if tools else ""
    for m in messages:
        if isinstance(m, SystemMessage):
            out.append(SystemMessage("\n\n".join(x for x in (message_text(m), suffix) if x)))
            suffix = ""
        elif render_history is False:
            out.append(m)
        elif render_history == "tool-role":
            if isinstance(m, AIMessage) and m.tool_calls:
                out.append(AIMessage("\n".join(render_tool_call(c) for c in m.tool_calls)))
            else:  # a tool message keeps its role; the server's chat template marks it as a tool result
                out.append(m)
        elif isinstance(m, AIMessage) and m.tool_calls:
            names.update({c.get("id") or "": c["name"] for c in m.tool_calls})
            calls = [{"name": c["name"], "arguments": c.get("args") or {}} for c in m.tool_calls]
            out.append(AIMessage(json.dumps(calls[0] if len(calls) == 1 else calls, sort_keys=True)))
        elif isinstance(m, AIMessage):
            out.append(AIMessage(message_text(m)))
        elif isinstance(m, ToolMessage):
            out.append(HumanMessage(json.dumps({"tool": names.get(m.tool_call_id, "error"),
                                                "observation": _observation(m)}, sort_keys=True)))
        else:
            out.append(m)
    return ([SystemMessage(suffix)] if suffix else []) + out


def to_tool_call_message(text: str, tools: list[dict], position: int) -> AIMessage:
    """The model's text as an AIMessage with one tool call (id ``call_<position>``), or, when the text
    is no call of a bound tool, with no tool call and the raw text: an invalid output. The parser's
    message goes into langchain's ``invalid_tool_calls``, where the junior loop finds what to feed back."""
    allowed = [t["function"]["name"] for t in tools]
    try:
        name, args = parse_tool_call(text, allowed)
        if (problem := schema_problem(name, args, tools)) is not None:
            raise InvalidToolCall("bad_arguments", problem, text=text, allowed=tuple(sorted(allowed)))
    except InvalidToolCall as exc:
        bad = {"name": None, "args": None, "id": f"call_{position}", "error": str(exc), "type": "invalid_tool_call"}
        return AIMessage(content=text, invalid_tool_calls=[bad])
    return AIMessage(content=text, tool_calls=[{"name": name, "args": args, "id": f"call_{position}", "type": "tool_call"}])


def recover_tool_call(msg: Any, tools: list[dict], position: int) -> Any:
    """A native tool-calling provider that answered in text (a small model behind an OpenAI-compatible
    server writes its call as JSON in the content): read the call leniently. Messages that carry tool
    calls, or a diagnosis already, are returned as they are."""
    if not tools or not isinstance(msg, AIMessage) or msg.invalid_tool_calls:
        return msg
    if msg.tool_calls:  # a native call is held to the same bounds as a parsed one
        problem = next((p for c in msg.tool_calls if (p := _native_problem(c, tools))), None)
        if problem is None:
            return msg
        bad = {"name": None, "args": None, "id": f"call_{position}", "error": problem, "type": "invalid_tool_call"}
        return AIMessage(content=message_text(msg), invalid_tool_calls=[bad])
    return to_tool_call_message(message_text(msg), tools, position)


def _native_problem(call: dict, tools: list[dict]) -> str | None:
    allowed = tuple(sorted(t["function"]["name"] for t in tools))
    try:
        args = _arguments(call.get("args") or {}, "", allowed)
    except InvalidToolCall as exc:
        return str(exc)
    return schema_problem(call.get("name", ""), args, tools)


class ToolCallingAdapter(BaseChatModel):
    """Tool calling for a chat model that only writes text (the local model, Transformers).

    ``bind_tools`` keeps the schemas; each call renders them into the prompt, passes the
    :func:`response_format` constraint when the inner model has ``supports_json_schema`` (narrowed to
    the :func:`offered_calls` when the latest observation offers some), and parses
    the text with :func:`parse_tool_call`. ``call_lock`` serialises calls into one in-process model;
    ``render_history=False`` leaves earlier calls and tool results for the inner model to render.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: Any
    tools: list[dict] = Field(default_factory=list)
    call_lock: Any = None
    render_history: bool | str = True

    @property
    def _llm_type(self) -> str:
        return "auditflow-tool-calling-adapter"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"adapter": PROTOCOL, "inner": getattr(self.inner, "_llm_type", type(self.inner).__name__)}

    def bind_tools(self, tools, *, tool_choice=None, **kwargs):  # noqa: ARG002 - one call is always required
        return self.model_copy(update={"tools": normalise_tools(list(tools))})

    @staticmethod
    def key_material(tools: list, *, render_history: bool | str = True) -> dict:
        return key_material(tools, render_history=render_history)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:  # noqa: ARG002
        prompt = to_text_messages(list(messages), self.tools, render_history=self.render_history)
        if self.tools and getattr(self.inner, "supports_json_schema", False):
            offered = offered_calls(list(messages), self.tools)
            kwargs = {**kwargs, "response_format": offered_format(offered) if offered else response_format(self.tools)}
        if self.call_lock is not None:
            with self.call_lock:
                out = self.inner.invoke(prompt, stop=stop, **kwargs)
        else:
            out = self.inner.invoke(prompt, stop=stop, **kwargs)
        text = message_text(out)
        position = sum(isinstance(m, AIMessage) for m in messages) + 1
        diagnosis = getattr(out, "invalid_tool_calls", None)  # a remote answer that refused or was cut off
        if not self.tools:  # no tools bound (the direct-LLM configuration): plain text
            msg = AIMessage(content=text)
        elif diagnosis:
            msg = AIMessage(content=text, invalid_tool_calls=[{**diagnosis[0], "id": f"call_{position}"}])
        else:
            msg = to_tool_call_message(text, self.tools, position)
        if getattr(out, "usage_metadata", None):  # the tokens, for the live-call line (auditflow.llm.progress);
            msg.usage_metadata = out.usage_metadata  # never recorded nor replayed (cachekey.response_to_json)
        return ChatResult(generations=[ChatGeneration(message=msg)])
