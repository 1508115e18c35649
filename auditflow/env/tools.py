"""The tool registry and the one entry point that runs a tool: validate, call, never raise.

Tools by kind:

* static (taxonomy and the filer's extension): search_concepts, get_concept, get_calc_children,
  get_calc_parents, get_dimension_members;
* dynamic (the reported facts): find_facts, get_fact, get_fact_history;
* check (the deterministic DQC rules): check_sign, check_calc_tree, check_dim_consistency.

:func:`run_tool` is where "never an exception" is enforced: schema problems, resolution problems
(:class:`ToolError`) and, as a last resort, bugs all come back as ``{"error": {...}}`` observations,
because the caller is a model loop that must be able to continue and recover.
"""
from __future__ import annotations

import json
from typing import Any

from auditflow.env.check_tools import CHECK_TOOLS
from auditflow.env.dynamic_tools import DYNAMIC_TOOLS
from auditflow.env.schema import validate
from auditflow.env.static_tools import STATIC_TOOLS
from auditflow.env.tool_base import Tool, ToolContext, ToolError, error_observation

ALL_TOOLS: tuple[Tool, ...] = STATIC_TOOLS + DYNAMIC_TOOLS + CHECK_TOOLS
TOOLS: dict[str, Tool] = {t.name: t for t in ALL_TOOLS}
STATIC = tuple(t.name for t in STATIC_TOOLS)
DYNAMIC = tuple(t.name for t in DYNAMIC_TOOLS)
CHECKS = tuple(t.name for t in CHECK_TOOLS)


def run_tool(ctx: ToolContext, name: str, arguments: Any) -> dict[str, Any]:
    """Run tool ``name`` on ``arguments``; the observation is JSON-serialisable and never an exception."""
    tool = TOOLS.get(name)
    if tool is None:
        return error_observation("bad_arguments", f"no tool named {name!r}", sorted(TOOLS))
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
