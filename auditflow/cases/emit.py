"""Writing generated cases as case files: readable, schema-valid, byte-identical for the same cases.

The files are read by people (reviews, diffs of a regenerated corpus) as much as by the plugin,
so they are written by hand in the style of the starter cases rather than dumped: flow mappings
for short queries and selectors, amounts quoted (exact, never floats), descriptions folded. Nothing
in the text depends on the time, the machine or the output path beyond the relative paths a case
file needs, so a regenerated corpus diffs clean.
"""
from __future__ import annotations

import json
import os
import re
import textwrap
from pathlib import Path
from typing import Iterable

from auditflow.cases.generated import GeneratedCase
from auditflow.cases.model import FactSelector, InjectSpec
from auditflow.rules.finding import dec_str

SCHEMA_FILE = Path(__file__).resolve().parent / "case-schema-v1.json"
CASE_SUFFIX = ".case.yaml"
WIDTH = 100
_PLAIN = re.compile(r"^[A-Za-z_][\w.:-]*$|^\d{4}-\d{2}-\d{2}(\.\.\d{4}-\d{2}-\d{2})?$")
_RESERVED = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}


def write_cases(cases: list[GeneratedCase], out: Path, *, header: Iterable[str] = ()) -> list[Path]:
    """Write the cases to ``out``: one file when it ends in ``.yaml``/``.yml``, else one
    ``<filing>.case.yaml`` per filing in the folder ``out``. Returns the files written."""
    out = Path(out)
    if out.suffix in (".yaml", ".yml"):
        groups = {out: cases}
    else:
        groups = {}
        for c in cases:
            groups.setdefault(out / f"{c.filing.name}{CASE_SUFFIX}", []).append(c)
    written = []
    for path, group in groups.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_case_file(group, where=path.parent, header=header), encoding="utf-8")
        written.append(path)
    return written


def render_case_file(cases: list[GeneratedCase], *, where: Path, header: Iterable[str] = ()) -> str:
    """The text of one case file placed in the folder ``where`` (relative paths are computed from it)."""
    filings = {c.filing.ref for c in cases}
    shared = _filing(next(iter(filings)), where) if len(filings) == 1 else None
    v2 = any(c.query.form != "structured" or c.expect.fact is not None for c in cases)  # else as v1 always wrote it
    schema = SCHEMA_FILE.with_name("case-schema-v2.json") if v2 else SCHEMA_FILE
    lines = [f"# yaml-language-server: $schema={_rel(schema, where)}", "#"]
    lines += [f"# {h}".rstrip() for h in header]
    lines += [f"auditflow: {2 if v2 else 1}", "defaults:"]
    if shared is not None:
        lines.append(f"  filing: {_scalar(shared)}")
    lines += ["  requires: [data_root]   # real filings live in the data root: skipped, saying why, without one",
              "cases:"]
    for c in cases:
        lines += _case(c, None if shared is not None else _filing(c.filing.ref, where))
    return "\n".join(lines).rstrip("\n") + "\n"


def _case(c: GeneratedCase, filing: str | None) -> list[str]:
    out = [f"  - id: {_scalar(c.id)}", "    description: >-"]
    out += [f"      {line}" for line in textwrap.wrap(c.description, WIDTH - 6, break_long_words=False,
                                                      break_on_hyphens=False)]
    if filing is not None:
        out.append(f"    filing: {_scalar(filing)}")
    q = c.query
    if q.form != "structured":
        out.append(f"    query: {{{q.form}: {json.dumps(q.text, ensure_ascii=False)}}}")
    else:
        out += _mapping("query", [("concept", q.concept), ("period", q.period)], q.dimensions,
                        [("rule_hint", json.dumps(q.rule_hint))] if q.rule_hint else [], indent=4)
    if c.inject:
        out.append("    inject:")
        for spec in c.inject:
            out += _inject(spec)
    e = c.expect
    out += ["    expect:", f"      decision: {e.decision}",
            f"      triggered_rules: [{', '.join(e.triggered_rules)}]",
            f"      reported_value: {_amount(e.reported_value)}",
            f"      expected_value: {_amount(e.expected_value)}"]
    if e.fact is not None:
        out += _mapping("fact", [("concept", e.fact.concept), ("period", e.fact.period)], e.fact.dimensions, [], indent=6)
    out += [f"    tags: [{', '.join(c.tags)}]", ""]
    return out


def _inject(spec: InjectSpec) -> list[str]:
    value = [f"        value: {_amount(spec.value)}"] if spec.kind == "set_value" else []
    if isinstance(spec.target, str):
        return [f"      - {spec.kind}: {_scalar(spec.target)}", *value]
    t: FactSelector = spec.target
    lines = _mapping(spec.kind, [("concept", t.concept), ("period", t.period)], t.dimensions, [], indent=8)
    lines[0] = "      - " + lines[0].lstrip()
    return lines + value


def _mapping(key: str, fields: list[tuple[str, str]], dims: tuple, raw: list[tuple[str, str]],
             *, indent: int) -> list[str]:
    """``key: {a: x, b: y}`` on one line; with dimensions, a block so each axis gets its own line."""
    pad = " " * indent
    if not dims:
        inner = ", ".join([f"{k}: {_scalar(v)}" for k, v in fields] + [f"{k}: {v}" for k, v in raw])
        return [f"{pad}{key}: {{{inner}}}"]
    lines = [f"{pad}{key}:"] + [f"{pad}  {k}: {_scalar(v)}" for k, v in fields]
    lines.append(f"{pad}  dimensions:")
    lines += [f"{pad}    {_scalar(a)}: {_scalar(m)}" for a, m in dims]
    return lines + [f"{pad}  {k}: {v}" for k, v in raw]


def _scalar(text: str) -> str:
    """Plain when it is a name, a period or a path the case loader reads back as the same string;
    double-quoted (JSON escapes are valid YAML) otherwise."""
    if _PLAIN.match(text) and text.lower() not in _RESERVED:
        return text
    return json.dumps(text, ensure_ascii=False)


def _amount(value) -> str:
    return "null" if value is None else json.dumps(dec_str(value))


def _filing(ref: str, where: Path) -> str:
    """A data-root name as is; a path relative to the case file's folder (as the loader resolves it)."""
    path = Path(ref)
    return _rel(path, where) if path.is_absolute() else ref


def _rel(target: Path, where: Path) -> str:
    return Path(os.path.relpath(Path(target).resolve(), Path(where).resolve())).as_posix()
