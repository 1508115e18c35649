"""What every tool shares: the Tool record, typed error observations, fact handles, the call context.

A tool is a pure function ``(ToolContext, arguments) -> observation``: a plain JSON-serialisable
dict with deterministic content. Tools signal bad arguments by raising :class:`ToolError`, which the
dispatcher (:func:`auditflow.env.tools.run_tool`) turns into an error observation; nothing ever
escapes to the caller as an exception, because the caller is a model loop that must keep going.

Facts are shown as short per-run handles (``F1``, ``F2``, ...), never as raw XBRL ids: real ids run
to hundreds of characters and small models truncate them (docs/local-llm.md).
"""
from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal

from auditflow.graphs.environment import AuditEnvironment
from auditflow.xbrl.model import Fact

ToolKind = Literal["static", "dynamic", "check"]
ErrorType = Literal[
    "unknown_concept", "unknown_fact", "period_not_in_filing", "malformed_qname", "bad_arguments",
    "tool_not_allowed", "repeated_failure", "internal_error",
]
MAX_CLOSE_MATCHES = 5


class ToolError(Exception):
    """A bad argument, reported to the model as ``{"error": {...}}`` with close matches."""

    def __init__(self, type_: ErrorType, message: str, close_matches: list[str] | tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.type = type_
        self.message = message
        self.close_matches = list(close_matches)[:MAX_CLOSE_MATCHES]

    def observation(self) -> dict[str, Any]:
        return error_observation(self.type, self.message, self.close_matches)


def error_observation(type_: str, message: str, close_matches: list[str] | tuple[str, ...] = ()) -> dict[str, Any]:
    """The one shape of every error a tool or the session returns."""
    return {"error": {"type": type_, "message": message, "close_matches": list(close_matches)}}


def is_error(observation: dict) -> bool:
    return "error" in observation


class Handles:
    """Per-run fact handles: F1, F2, ... in order of first appearance, mapped back to fact keys."""

    def __init__(self) -> None:
        self._by_key: dict[str, str] = {}
        self._by_handle: dict[str, str] = {}

    def handle(self, fact: Fact) -> str:
        h = self._by_key.get(fact.key)
        if h is None:
            h = f"F{len(self._by_key) + 1}"
            self._by_key[fact.key] = h
            self._by_handle[h] = fact.key
        return h

    def key(self, handle: str) -> str | None:
        return self._by_handle.get(handle.strip().upper())

    def known(self) -> list[str]:
        return list(self._by_handle)

    def items(self) -> list[tuple[str, str]]:
        """(handle, fact key) pairs in handle order: how a harness maps handles back to facts."""
        return list(self._by_handle.items())


@dataclass
class ToolContext:
    """What a tool call may read: the environment, the data root for the rules, this run's handles.

    ``focus`` is the queried fact; checker tools called without a fact use it.
    """

    env: AuditEnvironment
    data_root: Path | None = None
    handles: Handles = field(default_factory=Handles)
    focus: Fact | None = None
    shuffle: int | None = None  # a seed: list observations come in a seeded permutation (order robustness)

    def order(self, items: list, *salt: Any) -> list:
        """``items`` as shown: unchanged, or with a shuffle seed a permutation fixed by the seed, the tool
        and its arguments (``salt``). Tools call it before assigning handles, so handles follow the
        order shown. Small models pick by position (docs/local-llm.md); the suite measures whether a
        model does by replaying the same cases shuffled."""
        items = list(items)
        if self.shuffle is None or len(items) < 2:
            return items
        seed = hashlib.sha256(json.dumps([self.shuffle, *map(str, salt)]).encode()).digest()
        random.Random(seed).shuffle(items)
        return items


ToolFunction = Callable[[ToolContext, dict], dict]


@dataclass(frozen=True)
class Tool:
    """One typed action: a name, a description for the model, its kind, an input schema, a function.

    ``input_schema`` is a JSON Schema (draft 2020-12, the subset :mod:`auditflow.env.schema`
    checks) for an object with ``additionalProperties: false``.
    """

    name: str
    description: str
    kind: ToolKind
    input_schema: dict
    function: ToolFunction

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(self.input_schema.get("required", ()))

    def openai_schema(self) -> dict:
        """The OpenAI function-calling form, for LLM backends."""
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.input_schema}}


def object_schema(properties: dict, required: tuple[str, ...] = ()) -> dict:
    """A closed object schema: models must not invent arguments."""
    return {"type": "object", "properties": properties, "required": list(required), "additionalProperties": False}


# Argument schemas shared by several tools: one notation everywhere.
CONCEPT_ARG = {"type": "string", "minLength": 1, "description": "a prefixed concept name, e.g. us-gaap:Assets"}
PERIOD_ARG = {"type": "string", "minLength": 1,
              "description": "YYYY-MM-DD for an instant or YYYY-MM-DD..YYYY-MM-DD for a duration"}
DIMENSIONS_ARG = {"type": "object", "additionalProperties": {"type": "string"},
                  "description": 'axis -> member, e.g. {"srt:ProductOrServiceAxis": "acme:WidgetsMember"}; {} means no dimensions'}
FACT_ARG = {"type": "string", "minLength": 1, "description": "a fact handle such as F1"}
ROLE_ARG = {"type": "string", "minLength": 1,
            "description": "a role: its short name (e.g. ConsolidatedBalanceSheets), title or URI"}
