"""The versioned case-file schema (JSON Schema draft 2020-12, as a dict) and a small validator for it.

The dict is the single source: ``case-schema-v2.json`` next to this module is generated from it
(``python -m auditflow.cases > auditflow/cases/case-schema-v2.json``) for editors, and a test
checks that the two agree. The validator implements exactly the keywords the schema uses (listed
in :data:`KEYWORDS`; anything else is refused at import) because AuditFlow takes no jsonschema
dependency, and because every error must carry the file, line and field an author has to fix,
which a generic validator does not report. Meaning-level checks (numbers that parse, known tool
names, unique ids) live in :mod:`auditflow.cases.model`.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterator, Mapping

from auditflow.contract import DECISIONS, RULE_CODE_PATTERN
from auditflow.cases.errors import CaseSchemaError
from auditflow.errors import quoted

SCHEMA_VERSION = 2  # version 1 files (structured queries only) are still read: v2 only adds fields
READ_VERSIONS = (1, 2)
Path_ = tuple  # a path into the YAML data: keys and list indexes

_AMOUNT = {
    "type": ["string", "integer", "number", "null"],
    "description": "An amount: 12500000, \"-12,500,000\", \"(12,500,000)\" or \"$12,500,000\"; compared as a "
                   "number (commas, signs, parentheses and currency marks normalised). Quote it to keep it exact.",
}
_QNAME = {"type": "string", "pattern": r"^[A-Za-z_][\w.-]*:[A-Za-z_][\w.-]*$",
          "description": "A prefixed name as the filing writes it, e.g. us-gaap:Assets."}
_PERIOD = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}(\.\.\d{4}-\d{2}-\d{2})?$",
           "description": "YYYY-MM-DD (instant) or YYYY-MM-DD..YYYY-MM-DD (duration, inclusive end)."}
_DIMENSIONS = {"type": "object", "propertyNames": {"$ref": "#/$defs/qname"},
               "additionalProperties": {"type": "string", "minLength": 1},
               "description": "Axis -> member, e.g. {srt:ProductOrServiceAxis: acme:WidgetsMember}; omit for none."}
_SELECTOR = {
    "type": ["string", "object"], "minLength": 1,
    "description": "The fact to change: its id (Fact.key, e.g. f-bs-03) or {concept, period, dimensions}.",
    "properties": {"concept": {"$ref": "#/$defs/qname"}, "period": {"$ref": "#/$defs/period"},
                   "dimensions": {"$ref": "#/$defs/dimensions"}},
    "required": ["concept", "period"], "additionalProperties": False,
}
_INJECT = {
    "type": "object",
    "description": "One deterministic change to the loaded filing, applied before the audit.",
    "properties": {"set_value": {"$ref": "#/$defs/selector"}, "flip_sign": {"$ref": "#/$defs/selector"},
                   "remove": {"$ref": "#/$defs/selector"},
                   "value": {**_AMOUNT, "type": ["string", "integer", "number"],
                             "description": "The new value (set_value only)."}},
    "additionalProperties": False,
    "oneOf": [{"title": "set_value", "required": ["set_value"]}, {"title": "flip_sign", "required": ["flip_sign"]},
              {"title": "remove", "required": ["remove"]}],
    "dependentRequired": {"set_value": ["value"]},
}
_QUERY = {
    "type": "object", "additionalProperties": False,
    "description": "Which number to audit, in one of three forms (docs/query-forms.md): concept + period (+ dimensions); "
                   "text (plain words); finmr (a FinMR question).",
    "properties": {"concept": {"$ref": "#/$defs/qname"}, "period": {"$ref": "#/$defs/period"},
                   "dimensions": {"$ref": "#/$defs/dimensions"},
                   "text": {"type": "string", "minLength": 1,
                            "description": "Plain words as an auditor types them: the filing's label, the period as its "
                                           "statements print it, members by label. Nothing resolves it up front."},
                   "finmr": {"type": "string", "minLength": 1,
                             "description": "A FinMR question: \"What's the reported value of us-gaap:X in the Instance "
                                            "document for the period 2021-09-01 to 2021-11-30?\""},
                   "rule_hint": {"type": "string", "pattern": r"^(DQC\.US\.)?\d{4}$",
                                 "description": "Rule family hint, e.g. \"0015\" (quoted: YAML reads 0015 as a number)."}},
}
_EXPECT = {
    "type": "object", "required": ["decision"], "additionalProperties": False,
    "properties": {
        "decision": {"enum": list(DECISIONS)},
        "triggered_rules": {"type": "array", "uniqueItems": True,
                            "items": {"type": "string", "pattern": RULE_CODE_PATTERN},
                            "description": "Full DQC codes; compared as a set. Omit to leave unchecked."},
        "reported_value": {**_AMOUNT, "description": "The value as filed (FinMR extracted value). Omit to leave "
                                                     "unchecked; null means the audit must report none."},
        "expected_value": {**_AMOUNT, "description": "The value the rule expects (FinMR calculated value)."},
        "tools_called": {"type": "array", "uniqueItems": True, "items": {"type": "string", "pattern": r"^[a-z_]+$"},
                         "description": "Tools some auditor must have run successfully, e.g. [check_sign]."},
        "fact": {"type": "object", "required": ["concept", "period"], "additionalProperties": False,
                 "properties": {"concept": {"$ref": "#/$defs/qname"}, "period": {"$ref": "#/$defs/period"},
                                "dimensions": {"$ref": "#/$defs/dimensions"}},
                 "description": "The fact the question means (text and finmr queries): auditing another one is E."},
        "not_found": {"enum": [True],
                      "description": "The queried fact is meant to be missing: the audit must say unable_to_verify "
                                     "instead of refusing the query as an input error."},
    },
}
_CASE = {
    "type": "object", "required": ["id", "query", "expect"], "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
               "description": "Unique in the file; becomes the test name (select with -k)."},
        "description": {"type": "string"},
        "filing": {"type": "string", "minLength": 1,
                   "description": "A path (relative to this file), a folder name under the data root's filings/ "
                                  "or filings-rolled/, or an EDGAR accession number staged there. A path stays "
                                  "inside this file's folder, the project's rootdir, the data root or AuditFlow's "
                                  "bundled samples."},
        "query": {"$ref": "#/$defs/query"},
        "inject": {"type": "array", "items": {"$ref": "#/$defs/inject"}},
        "expect": {"$ref": "#/$defs/expect"},
        "tags": {"$ref": "#/$defs/tags"},
        "requires": {"$ref": "#/$defs/requires"},
    },
}
CASE_FILE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "urn:auditflow:case-schema:v2",
    "title": "AuditFlow audit case file, schema version 2",
    "type": "object", "required": ["auditflow", "cases"], "additionalProperties": False,
    "properties": {
        "auditflow": {"enum": list(READ_VERSIONS), "description": "Case-file schema version (1 or 2)."},
        "defaults": {"type": "object", "additionalProperties": False,
                     "description": "Fields every case of this file takes unless it sets them itself.",
                     "properties": {"filing": {"$ref": "#/$defs/case/properties/filing"},
                                    "tags": {"$ref": "#/$defs/tags"}, "requires": {"$ref": "#/$defs/requires"}}},
        "cases": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/case"}},
    },
    "$defs": {
        "case": _CASE, "query": _QUERY, "expect": _EXPECT, "inject": _INJECT, "selector": _SELECTOR,
        "qname": _QNAME, "period": _PERIOD, "dimensions": _DIMENSIONS,
        "tags": {"type": "array", "uniqueItems": True,
                 "items": {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*$"},
                 "description": "Extra pytest markers for -m selection."},
        "requires": {"type": "array", "uniqueItems": True, "items": {"enum": ["data_root"]},
                     "description": "Resources the case needs; it is skipped, with the reason, when they are missing."},
    },
}

KEYWORDS = frozenset({
    "$schema", "$id", "$ref", "$defs", "title", "description", "type", "const", "enum", "pattern", "minLength",
    "minItems", "uniqueItems", "items", "properties", "required", "additionalProperties", "propertyNames", "oneOf",
    "dependentRequired",
})


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return {str: "string", list: "array", dict: "object"}.get(type(value), type(value).__name__)


def _type_ok(value: Any, names: list[str]) -> bool:
    t = _json_type(value)
    return t in names or (t == "integer" and "number" in names)


def _deref(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """Follow a local ``$ref`` (``#/$defs/...``) into :data:`CASE_FILE_SCHEMA`."""
    while "$ref" in schema:
        node: Any = CASE_FILE_SCHEMA
        for part in schema["$ref"].removeprefix("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def dotted(path: Path_) -> str:
    """``("cases", 0, "expect")`` -> ``cases[0].expect``: how fields are named in messages."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out



# At most this many problems of one file are kept; the rest are counted in one last line.
MAX_PROBLEMS = 100


def _type_hint(value: Any, names: list[str]) -> str:
    """A hint for the YAML surprises authors hit: unquoted 0015 is a number, unquoted dates, floats."""
    if "string" in names and isinstance(value, (int, float)) and not isinstance(value, bool):
        return " (quote it: YAML reads unquoted digits such as 0015 as a number)"
    return ""


def iter_errors(value: Any, schema: Mapping[str, Any], path: Path_ = ()) -> Iterator[tuple[Path_, str]]:
    """Every (path, message) where ``value`` breaks ``schema``. Object keywords apply to objects only,
    string keywords to strings only, as in JSON Schema."""
    schema = _deref(schema)
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not _type_ok(value, names):
            yield path, (f"must be {' or '.join(names)}, got {_json_type(value)} {quoted(value)}"
                         + _type_hint(value, names))
            return
    if "const" in schema and value != schema["const"]:
        yield path, f"must be {schema['const']!r}, got {quoted(value)}" + _described(schema)
    if "enum" in schema and value not in schema["enum"]:
        yield path, f"must be one of {', '.join(map(str, schema['enum']))}, got {quoted(value)}"
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            yield path, "must not be empty"
        elif "pattern" in schema and not re.search(schema["pattern"], value):
            yield path, f"{quoted(value)} does not match {schema['pattern']}" + _described(schema)
    if isinstance(value, list):
        yield from _array_errors(value, schema, path)
    if isinstance(value, dict):
        yield from _object_errors(value, schema, path)


def _described(schema: Mapping[str, Any]) -> str:
    return f" ({schema['description']})" if "description" in schema else ""


def _array_errors(value: list, schema: Mapping[str, Any], path: Path_) -> Iterator[tuple[Path_, str]]:
    if len(value) < schema.get("minItems", 0):
        yield path, f"needs at least {schema['minItems']} item(s)"
    if schema.get("uniqueItems"):
        hashed: set = set()  # a set, not a list: 100,000 aliased items once took minutes to compare
        others: list = []
        for i, item in enumerate(value):
            try:
                seen = item in hashed
                hashed.add(item)
            except TypeError:  # a list or mapping item (already a type error of its own)
                seen = item in others
                others.append(item)
            if seen:
                yield path + (i,), f"{quoted(item)} is listed twice"
    if "items" in schema:
        for i, item in enumerate(value):
            yield from iter_errors(item, schema["items"], path + (i,))


def _object_errors(value: dict, schema: Mapping[str, Any], path: Path_) -> Iterator[tuple[Path_, str]]:
    props: Mapping[str, Any] = schema.get("properties", {})
    for key in schema.get("required", ()):
        if key not in value:
            yield path, f"missing required field {quoted(key)}"
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        if "propertyNames" in schema:
            for _p, msg in iter_errors(key, schema["propertyNames"], path + (key,)):
                yield path + (key,), f"key {msg}"
        if key in props:
            yield from iter_errors(item, props[key], path + (key,))
        elif extra is False:
            yield path + (key,), f"unknown field {quoted(key)} (allowed: {', '.join(sorted(props)) or 'none'})"
        elif isinstance(extra, Mapping):
            yield from iter_errors(item, extra, path + (key,))
    for key, needed in schema.get("dependentRequired", {}).items():
        missing = [n for n in needed if key in value and n not in value]
        if missing:
            yield path, f"{key} needs {', '.join(repr(m) for m in missing)}"
    if "oneOf" in schema:
        matches = [b for b in schema["oneOf"] if not any(True for _ in iter_errors(value, b, path))]
        if len(matches) != 1:
            titles = ", ".join(b.get("title", "?") for b in schema["oneOf"])
            got = ", ".join(b.get("title", "?") for b in matches) or "none"
            yield path, f"must have exactly one of {titles} (got {got})"


def validate_case(data: Any, *, file: str, line_map: Mapping[Path_, int], path: Path_ = ()) -> list[CaseSchemaError]:
    """Schema errors of one case (``data`` at ``path`` in the file), each with its file, line and field."""
    return _located(iter_errors(data, _CASE, path), file, line_map)


def validate_file(data: Any, *, file: str, line_map: Mapping[Path_, int]) -> list[CaseSchemaError]:
    """Schema errors of a whole case file."""
    return _located(iter_errors(data, CASE_FILE_SCHEMA), file, line_map)


def line_of(path: Path_, line_map: Mapping[Path_, int]) -> int:
    """The line of ``path``, else of its nearest ancestor in the map (a missing field: its parent)."""
    for n in range(len(path), -1, -1):
        if path[:n] in line_map:
            return line_map[path[:n]]
    return 1


def _located(errors: Iterator[tuple[Path_, str]], file: str, line_map: Mapping[Path_, int]) -> list[CaseSchemaError]:
    """The first :data:`MAX_PROBLEMS` errors, and a last line counting the rest (a file of aliases can
    have a million wrong items: listing them all would cost hundreds of megabytes and help nobody)."""
    found: list[CaseSchemaError] = []
    more = 0
    for p, msg in errors:
        if len(found) < MAX_PROBLEMS:
            found.append(CaseSchemaError(file, line_of(p, line_map), dotted(p), msg))
        else:
            more += 1
    if more:
        found.append(CaseSchemaError(file, found[-1].line, "", f"... and {more:,} more problems like these "
                                                                 f"(only the first {MAX_PROBLEMS} are listed)"))
    return found


def _check_keywords(schema: Any) -> None:
    """Refuse a schema keyword the validator does not implement (it would be silently ignored)."""
    if not isinstance(schema, dict):
        return
    for key, sub in schema.items():
        if key not in KEYWORDS:
            raise AssertionError(f"case schema uses {key!r}, which auditflow.cases.schema does not implement")
        if key in ("properties", "$defs"):
            for v in sub.values():
                _check_keywords(v)
        elif key in ("items", "additionalProperties", "propertyNames"):
            _check_keywords(sub)
        elif key == "oneOf":
            for v in sub:
                _check_keywords(v)


_check_keywords(CASE_FILE_SCHEMA)


def schema_json() -> str:
    """The published JSON Schema text (what ``case-schema-v2.json`` holds)."""
    return json.dumps(CASE_FILE_SCHEMA, indent=2, sort_keys=False) + "\n"

