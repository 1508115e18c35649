"""The tool registry and the one entry point that runs a tool: validate, call, never raise.

Tools by kind:

* static (taxonomy and the filer's extension): search_concepts, get_concept, get_calc_children,
  get_calc_parents, get_dimension_members;
* dynamic (the reported facts): find_facts, get_fact, get_fact_history;
* check (the deterministic DQC rules): check_sign, check_calc_tree, check_dim_consistency.

Tool sets are versioned, and a prompt profile chooses one (docs/prompt-profiles.md, "Tool sets"): the
tools' names, descriptions, schemas and observations reach the model, so changing a tool would change
the cache key of every recorded conversation that used it. Version 1 is the set the recordings were
made with and stays byte for byte as it is (``ALL_TOOLS``, ``TOOLS``, ``STATIC``... name it); version 2
searches concepts by meaning (:mod:`auditflow.env.search_tool`) and resolves period phrases and member
words (``resolve_period``, :mod:`auditflow.env.periods`; ``resolve_member``, :mod:`auditflow.env.members`).

:func:`run_tool` is where "never an exception" is enforced: schema problems, resolution problems
(:class:`ToolError`) and, as a last resort, bugs all come back as ``{"error": {...}}`` observations,
because the caller is a model loop that must be able to continue and recover.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from auditflow.env.check_tools import CHECK_TOOLS
from auditflow.env.dynamic_tools import DYNAMIC_TOOLS
from auditflow.env.members import MEMBER_TOOLS
from auditflow.env.periods import PERIOD_TOOLS
from auditflow.env.schema import validate
from auditflow.env.search_tool import SEARCH_BY_MEANING
from auditflow.env.static_tools import STATIC_TOOLS
from auditflow.env.tool_base import Tool, ToolContext, ToolError, error_observation

ALL_TOOLS: tuple[Tool, ...] = STATIC_TOOLS + DYNAMIC_TOOLS + CHECK_TOOLS
TOOLS: dict[str, Tool] = {t.name: t for t in ALL_TOOLS}
STATIC = tuple(t.name for t in STATIC_TOOLS)
DYNAMIC = tuple(t.name for t in DYNAMIC_TOOLS)
CHECKS = tuple(t.name for t in CHECK_TOOLS)


@dataclass(frozen=True)
class ToolSet:
    """One version of the tools, by kind, in the order a role's tool list shows them."""

    version: int
    static: tuple[Tool, ...]
    dynamic: tuple[Tool, ...]
    checks: tuple[Tool, ...]
    by_name: dict[str, Tool] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {t.name: t for t in self.static + self.dynamic + self.checks})

    def names(self, kind: str) -> tuple[str, ...]:
        """The names of one kind ("static", "dynamic" or "check") in order."""
        return tuple(t.name for t in {"static": self.static, "dynamic": self.dynamic, "check": self.checks}[kind])


TOOLSET_V1 = ToolSet(1, STATIC_TOOLS, DYNAMIC_TOOLS, CHECK_TOOLS)
# version 2: search_concepts by meaning in version 1's place, and the period and member resolvers (static:
# they read the filing's calendar and axes, not its facts, so Compliance has them too)
TOOLSET_V2 = ToolSet(2, (SEARCH_BY_MEANING,) + STATIC_TOOLS[1:] + PERIOD_TOOLS + MEMBER_TOOLS, DYNAMIC_TOOLS, CHECK_TOOLS)
TOOL_SETS: dict[int, ToolSet] = {1: TOOLSET_V1, 2: TOOLSET_V2}


def tool_set(version: int) -> ToolSet:
    """The tool set of ``version``; :class:`ValueError` names the versions there are."""
    found = TOOL_SETS.get(version) if isinstance(version, int) and not isinstance(version, bool) else None
    if found is None:
        raise ValueError(f"no tool set version {version!r}; there are {', '.join(map(str, TOOL_SETS))}")
    return found


def run_tool(ctx: ToolContext, name: str, arguments: Any, *, tools: ToolSet = TOOLSET_V1) -> dict[str, Any]:
    """Run tool ``name`` of the set ``tools`` on ``arguments``; the observation is JSON-serialisable and
    never an exception."""
    tool = tools.by_name.get(name)
    if tool is None:
        return error_observation("bad_arguments", f"no tool named {name!r}", sorted(tools.by_name))
    problem = validate(arguments, tool.input_schema)
    if problem is not None:
        return error_observation("bad_arguments", f"{name}: {problem}", list(tool.input_schema["properties"]))
    try:
        obs = tool.function(ctx, arguments)
    except ToolError as exc:
        return exc.observation()
    except Exception as exc:  # noqa: BLE001 - a bug must not kill the agent loop; the message names it
        return error_observation("internal_error", f"{name} failed: {type(exc).__name__}: {exc}")
    return json.loads(json.dumps(obs))  # a private, JSON-only copy: callers may keep or change it freely
