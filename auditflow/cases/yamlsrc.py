"""Reading case YAML with the line of every field, so errors can point at the line to fix.

The YAML is composed (node tree, with marks) and then constructed, and the two are walked together
to build a line map ``{path: line}``. Timestamps are NOT resolved: ``period: 2024-12-31`` stays the
string the author wrote instead of becoming a ``datetime.date`` that the schema would refuse.
Duplicate keys, which PyYAML silently resolves to the last one, are reported as problems.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from auditflow.cases.errors import CaseFileError, CaseSchemaError
from auditflow.cases.schema import dotted

_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class _CaseLoader(yaml.SafeLoader):
    """SafeLoader without the timestamp resolver (dates stay strings)."""


_CaseLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


@dataclass
class YamlDoc:
    """A parsed YAML document: the data, its node tree, and the line of each path."""

    data: Any
    node: yaml.Node | None
    line_map: dict[tuple, int] = field(default_factory=dict)
    duplicates: list[CaseSchemaError] = field(default_factory=list)


def parse_yaml(text: str, *, file: str) -> YamlDoc:
    """Parse one YAML document; a syntax error or several documents is a :class:`CaseFileError`."""
    loader = _CaseLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        problem = " ".join(str(x) for x in (exc.context, exc.problem) if x)
        if "expected a single document" in problem:
            problem += " (a case file holds one YAML document; put several cases under cases:)"
        raise CaseFileError([CaseSchemaError(file, line, "", f"YAML syntax: {problem}")], file=file) from None
    except yaml.YAMLError as exc:
        raise CaseFileError([CaseSchemaError(file, 1, "", f"YAML: {exc}")], file=file) from None
    finally:
        loader.dispose()
    doc = YamlDoc(data, node)
    if node is not None:
        _walk(node, (), doc, file)
    return doc


def _walk(node: yaml.Node, path: tuple, doc: YamlDoc, file: str) -> None:
    """Record the line of ``path`` and of everything under it; note duplicate keys."""
    doc.line_map.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: set = set()
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.start_mark)
            sub = path + (key,)
            if key in seen:
                doc.duplicates.append(CaseSchemaError(file, key_node.start_mark.line + 1, dotted(sub),
                                                      f"duplicate key {key!r} (YAML would keep only the last one)"))
            seen.add(key)
            doc.line_map[sub] = key_node.start_mark.line + 1
            _walk(value_node, sub, doc, file)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            doc.line_map[path + (i,)] = item.start_mark.line + 1
            _walk(item, path + (i,), doc, file)


def find_node(node: yaml.Node, path: tuple) -> yaml.Node | None:
    """The node at ``path`` (keys and indexes), or None."""
    for part in path:
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            node = next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == part), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
        else:
            return None
        if node is None:
            return None
    return node
