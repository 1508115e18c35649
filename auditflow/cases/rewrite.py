"""Rewriting a case's ``expect:`` block from actual results (``--auditflow-update-expected``).

Only the text of each ``expect:`` value is replaced, located through the YAML node marks, so
comments, ordering and formatting elsewhere in the file survive and the change reviews as a small
diff (the syrupy / pytest-regressions workflow: regenerate, review, commit). Edits are applied
from the end of the file backwards so earlier offsets stay valid.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

import yaml

from auditflow.cases.yamlsrc import find_node, parse_yaml

FIELD_ORDER = ("decision", "triggered_rules", "reported_value", "expected_value", "tools_called")


def expect_from_actual(actual: Mapping[str, Any], old_tools: list[str] | tuple[str, ...] = ()) -> dict[str, Any]:
    """The new ``expect:`` mapping: the actual answer, and the required tools that were actually called."""
    out = {k: actual.get(k) for k in FIELD_ORDER[:4]}
    out["triggered_rules"] = sorted(out["triggered_rules"] or [])
    tools = [t for t in old_tools if t in set(actual.get("tools_called") or ())]
    if tools:
        out["tools_called"] = tools
    return out


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, list):
        return "[" + ", ".join(value) + "]"
    return json.dumps(str(value)) if not isinstance(value, bool) else str(value).lower()


def render_expect(expect: Mapping[str, Any], *, indent: int, flow: bool) -> str:
    """``expect`` as YAML text to put where the old value started (first line unindented)."""
    pairs = [f"{k}: {_scalar(expect[k]) if k not in ('decision',) else expect[k]}" for k in FIELD_ORDER if k in expect]
    if flow:
        return "{" + ", ".join(pairs) + "}"
    return ("\n" + " " * indent).join(pairs)


def _last_end(node: yaml.Node) -> int:
    """Where a node's own text ends: block collections end at their last child, not at the next token."""
    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style and node.value:
        last = node.value[-1]
        return _last_end(last[1] if isinstance(node, yaml.MappingNode) else last)
    return node.end_mark.index


def rewrite_expectations(path: Path, updates: Mapping[int, Mapping[str, Any]]) -> int:
    """Replace the ``expect:`` of the cases at the given indexes (``cases[i]``) with new mappings.

    Returns the number of cases rewritten. A case without an ``expect:`` node is left alone.
    """
    text = path.read_text(encoding="utf-8")
    doc = parse_yaml(text, file=str(path))
    edits = []
    for index, expect in updates.items():
        node = find_node(doc.node, ("cases", index, "expect")) if doc.node is not None else None
        if node is None:
            continue
        flow = isinstance(node, yaml.MappingNode) and bool(node.flow_style)
        new = render_expect(expect, indent=node.start_mark.column, flow=flow)
        edits.append((node.start_mark.index, _last_end(node), new))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    if edits:
        path.write_text(text, encoding="utf-8")
    return len(edits)
