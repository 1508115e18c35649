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
from auditflow.cases.schema import dotted, quoted

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


# Limits no real case file comes near (the largest committed one has a few thousand nodes, depth < 10).
# An alias bomb (a few hundred bytes whose aliases expand to billions of nodes) and deep flow nesting
# are refused with a clear error instead of hanging or exhausting the recursion limit. Nodes alone do
# not bound the size: 2,000 aliases to one 30,000-character string are 2,000 nodes but 60 million
# characters, which every message quoting them copied (issue 44). So the characters of the scalars,
# keys included, are counted through the aliases too, against the file limit: a document without
# aliases never has more characters in its scalars than in its text.
MAX_EXPANDED_NODES = 1_000_000
MAX_DEPTH = 64
MAX_TEXT = 16 * 1024 * 1024
MAX_EXPANDED_CHARS = MAX_TEXT


def parse_yaml(text: str, *, file: str) -> YamlDoc:
    """Parse one YAML document; a syntax error or several documents is a :class:`CaseFileError`,
    and so is a file past the limits above."""
    if len(text) > MAX_TEXT:
        raise _refused(file, 1, f"the file has {len(text):,} characters (more than {MAX_TEXT:,})")
    try:
        loader = _CaseLoader(text)  # reads the first characters: a NUL byte raises here
    except yaml.YAMLError as exc:
        raise CaseFileError([CaseSchemaError(file, 1, "", f"YAML: {_clip(str(exc))}")], file=file) from None
    try:
        node = loader.get_single_node()
        if node is not None:
            _check_size(node, file)
        data = loader.construct_document(node) if node is not None else None
    except CaseFileError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        problem = " ".join(str(x) for x in (exc.context, exc.problem) if x)
        if "expected a single document" in problem:
            problem += " (a case file holds one YAML document; put several cases under cases:)"
        raise CaseFileError([CaseSchemaError(file, line, "", f"YAML syntax: {problem}")], file=file) from None
    except yaml.YAMLError as exc:
        raise CaseFileError([CaseSchemaError(file, 1, "", f"YAML: {_clip(str(exc))}")], file=file) from None
    except RecursionError:
        raise _refused(file, 1, f"the YAML is nested too deeply (more than {MAX_DEPTH} levels)") from None
    except (ValueError, TypeError, OverflowError) as exc:  # e.g. a 5,000-digit integer past Python's limit
        raise CaseFileError([CaseSchemaError(file, 1, "", f"YAML value: {_clip(str(exc))}")], file=file) from None
    finally:
        loader.dispose()
    doc = YamlDoc(data, node)
    if node is not None:
        _walk(node, (), doc, file, set())
    return doc


def _refused(file: str, line: int, what: str) -> CaseFileError:
    return CaseFileError([CaseSchemaError(file, line, "", f"{what}; refused (see docs/reliability.md)")], file=file)


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _check_size(root: yaml.Node, file: str) -> None:
    """Refuse a node tree deeper than MAX_DEPTH, or whose aliases expand past MAX_EXPANDED_NODES nodes
    or MAX_EXPANDED_CHARS characters of scalars.

    Aliased nodes are the same object, so the expanded size is counted once per node (memoised) and the
    check costs the size of the file, not of the expansion."""
    size: dict[int, tuple[int, int]] = {}  # id(node) -> (nodes, characters) of its expansion
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        if depth > MAX_DEPTH:
            raise _refused(file, node.start_mark.line + 1, f"the YAML is nested more than {MAX_DEPTH} levels deep")
        children = _children(node)
        if done:
            nodes = 1 + sum(size[id(c)][0] for c in children)
            chars = len(node.value) if isinstance(node, yaml.ScalarNode) else sum(size[id(c)][1] for c in children)
            size[id(node)] = (min(nodes, MAX_EXPANDED_NODES + 1), min(chars, MAX_EXPANDED_CHARS + 1))
            if nodes > MAX_EXPANDED_NODES:
                raise _refused(file, node.start_mark.line + 1, "the YAML's aliases expand to more than "
                               f"{MAX_EXPANDED_NODES:,} nodes (an alias bomb)")
            if chars > MAX_EXPANDED_CHARS:
                raise _refused(file, node.start_mark.line + 1, "the YAML's aliases expand to more than "
                               f"{MAX_EXPANDED_CHARS:,} characters (an alias bomb: each alias repeats "
                               "its anchor's text)")
            continue
        if id(node) in size:
            continue
        size[id(node)] = (0, 0)  # in progress: a recursive alias counts as nothing more
        stack.append((node, depth, True))
        stack.extend((c, depth + 1, False) for c in children if id(c) not in size)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _walk(node: yaml.Node, path: tuple, doc: YamlDoc, file: str, seen: set[int]) -> None:
    """Record the line of ``path`` and of everything under it; note duplicate keys. A node reached
    again through an alias is not walked again (its lines are those of its anchor)."""
    doc.line_map.setdefault(path, node.start_mark.line + 1)
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        keys: set = set()  # its own name: it once shadowed ``seen``, so aliased mappings were walked again
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.start_mark)
            sub = path + (key,)
            if key in keys:
                doc.duplicates.append(CaseSchemaError(file, key_node.start_mark.line + 1, dotted(sub),
                                                      f"duplicate key {quoted(key)} (YAML would keep only the last one)"))
            keys.add(key)
            doc.line_map[sub] = key_node.start_mark.line + 1
            _walk(value_node, sub, doc, file, seen)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            doc.line_map[path + (i,)] = item.start_mark.line + 1
            _walk(item, path + (i,), doc, file, seen)


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
