"""The cache key: a sha256 of the canonical request, built from what changes a model's answer only.

Listed in one place on purpose, so a reviewer sees every input that can change an answer at once. In the key:

* ``role`` and the model spec string;
* the system prompt (the leading system messages) and the rest of the history, canonical: each
  message's type, text, and tool calls as name + arguments;
* the sorted tool names and a sha256 of the tool schemas sorted by name (bind order is irrelevant);
* ``extra``: what a wrapper adds to the request, e.g. the JSON-schema constraint's hash.

Left out because they change on every run without changing the answer: message ids, tool-call ids
(``tool_call_id`` of tool results too), usage and response metadata, timestamps.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage

from auditflow.llm.toolcalls import normalise_tools

KEY_VERSION = 1  # bump when the canonical request changes shape: every old entry becomes a miss


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str) -> str:
    """Lone surrogates (a model may emit one) as JSON ``\\udxxx`` escapes, which UTF-8 can carry and
    ``json.loads`` turns back into the same character. Text without one is returned unchanged, so the
    key of every ordinary request, and every committed entry, stays byte for byte what it was."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) if _SURROGATE.search(text) else text


def sha256_hex(text: str) -> str:
    return hashlib.sha256(escape_surrogates(text).encode("utf-8")).hexdigest()


def canonical_content(content: Any) -> Any:
    """Message text; content blocks keep their type and text only (block ids are volatile)."""
    if isinstance(content, list):
        return [b if isinstance(b, str) else {k: b[k] for k in ("type", "text") if k in b} for b in content]
    return content if isinstance(content, str) else str(content)


def canonical_message(m: BaseMessage) -> dict:
    """Type, content and tool calls (name + arguments): what the model read, nothing volatile."""
    out: dict[str, Any] = {"type": m.type, "content": canonical_content(m.content)}
    calls = getattr(m, "tool_calls", None)
    if calls:
        out["tool_calls"] = [{"name": c["name"], "args": c.get("args") or {}} for c in calls]
    return out


def canonical_request(*, role: str, model: str, messages: list[BaseMessage], tools: list,
                      extra: dict | None = None) -> dict:
    """The readable request stored with an entry; its canonical JSON's sha256 is the key."""
    messages = list(messages)
    n_system = next((i for i, m in enumerate(messages) if not isinstance(m, SystemMessage)), len(messages))
    schemas = normalise_tools(list(tools))
    return {
        "version": KEY_VERSION, "role": role, "model": model,
        "system": "\n\n".join(str(canonical_content(m.content)) for m in messages[:n_system]),
        "messages": [canonical_message(m) for m in messages[n_system:]],
        "tools": {"names": [t["function"]["name"] for t in schemas], "schema_sha256": sha256_hex(canonical_json(schemas))},
        "extra": dict(extra or {}),
    }


def request_key(request: dict) -> str:
    return sha256_hex(canonical_json(request))


@dataclass(frozen=True, slots=True)
class CacheKey:
    """A call's key and the readable request it hashes (stored in the entry for reviewers)."""

    key: str
    request: dict

    @classmethod
    def compute(cls, *, role: str, model: str, messages: list[BaseMessage], tools: list,
                extra: dict | None = None) -> CacheKey:
        request = canonical_request(role=role, model=model, messages=messages, tools=tools, extra=extra)
        return cls(request_key(request), request)


_INVALID_CALL_KEYS = ("name", "args", "id", "error")


def response_to_json(msg: Any) -> dict:
    """What is replayed: the content, the tool calls with their ids (ids appear in transcripts) and
    the unreadable calls with their errors (the junior loop feeds those back)."""
    calls = getattr(msg, "tool_calls", None) or []
    out = {"content": canonical_content(getattr(msg, "content", msg)),
           "tool_calls": [{"name": c["name"], "args": c.get("args") or {}, "id": c.get("id")} for c in calls]}
    bad = getattr(msg, "invalid_tool_calls", None) or []
    if bad:
        out["invalid_tool_calls"] = [{k: c.get(k) for k in _INVALID_CALL_KEYS} for c in bad]
    return out


def response_from_json(obj: dict) -> AIMessage:
    calls = [{"name": c["name"], "args": c["args"], "id": c["id"], "type": "tool_call"} for c in obj["tool_calls"]]
    bad = [{**{k: c.get(k) for k in _INVALID_CALL_KEYS}, "type": "invalid_tool_call"}
           for c in obj.get("invalid_tool_calls", [])]
    return AIMessage(content=obj["content"], tool_calls=calls, invalid_tool_calls=bad)


def check_entry(entry: Any, key: str) -> str | None:
    """Why an entry cannot be replayed, or None when it is sound."""
    if not isinstance(entry, dict) or entry.get("key") != key:
        return "the entry is not an object for this key"
    if not isinstance(entry.get("request"), dict) or request_key(entry["request"]) != key:
        return "the entry's request does not hash to its key (edited or damaged)"
    resp = entry.get("response")
    if not isinstance(resp, dict) or not isinstance(resp.get("content"), (str, list)):
        return "the entry has no response content"
    if isinstance(resp["content"], list) and not all(
            isinstance(b, str) or (isinstance(b, dict) and isinstance(b.get("type"), str)) for b in resp["content"]):
        return "the entry's content blocks are malformed"
    calls = resp.get("tool_calls")
    if not isinstance(calls, list) or not all(
            isinstance(c, dict) and isinstance(c.get("name"), str) and isinstance(c.get("args"), dict)
            and isinstance(c.get("id"), (str, type(None))) for c in calls):
        return "the entry's tool calls are malformed"
    bad = resp.get("invalid_tool_calls", [])
    if not isinstance(bad, list) or not all(isinstance(c, dict) and set(c) <= set(_INVALID_CALL_KEYS) and all(
            isinstance(c.get(k), (str, type(None))) for k in _INVALID_CALL_KEYS) for c in bad):
        return "the entry's invalid tool calls are malformed"
    return None


