"""A tiny validator for the JSON-Schema subset the tool inputs use (draft 2020-12 keywords).

Tool arguments come from language models, which forget required keys, invent extra ones and pass
numbers as strings. Each problem must come back as a typed observation the model can act on, not as
an exception, and without adding a dependency: so the handful of keywords our schemas use
(``type``, ``properties``, ``required``, ``additionalProperties``, ``enum``, ``minimum``,
``maximum``, ``minLength``, ``items``) is checked here, and nothing else is accepted in a schema.
"""
from __future__ import annotations

from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
    "null": (type(None),),
}


def _is_type(value: Any, name: str) -> bool:
    """JSON types, where a bool is not a number (Python's ``bool`` subclasses ``int``)."""
    if name in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES[name])


def validate(value: Any, schema: dict, where: str = "arguments") -> str | None:
    """The first problem with ``value`` against ``schema`` as one sentence, or None when valid.

    The sentence names the argument, what was expected and what was got, so that a model reading
    it can fix its next call.
    """
    expected = schema.get("type")
    if expected is not None:
        names = expected if isinstance(expected, list) else [expected]
        if not any(_is_type(value, n) for n in names):
            return f"{where} must be of type {' or '.join(names)}, got {_json_type(value)}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where} must be one of {', '.join(map(str, schema['enum']))}, got {value!r}"
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        return f"{where} must not be empty"
    if _is_type(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            return f"{where} must be >= {schema['minimum']}, got {value}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"{where} must be <= {schema['maximum']}, got {value}"
    if isinstance(value, dict):
        return _validate_object(value, schema, where)
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            if (problem := validate(item, schema["items"], f"{where}[{i}]")) is not None:
                return problem
    return None


def _validate_object(value: dict, schema: dict, where: str) -> str | None:
    props: dict = schema.get("properties", {})
    problems = []
    missing = [k for k in schema.get("required", ()) if k not in value]
    if missing:
        problems.append(f"missing required {_plural('argument', missing)} {', '.join(repr(k) for k in missing)} in {where}")
    extra_schema = schema.get("additionalProperties", True)
    extras = sorted(k for k in value if k not in props)
    if extras and extra_schema is False:
        allowed = ", ".join(sorted(props)) or "none"
        problems.append(f"unexpected {_plural('argument', extras)} {', '.join(repr(k) for k in extras)} in {where} "
                        f"(allowed: {allowed})")
    if problems:  # both at once: a model fixing one would otherwise hit the other next
        return "; ".join(problems)
    for key in sorted(value):
        sub = props.get(key, extra_schema if isinstance(extra_schema, dict) else None)
        if sub is not None and (problem := validate(value[key], sub, f"{where}.{key}" if where != "arguments" else key)):
            return problem
    return None


def _plural(word: str, items: list) -> str:
    return word if len(items) == 1 else word + "s"


def _json_type(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _is_type(value, name):
            return name
    return type(value).__name__
