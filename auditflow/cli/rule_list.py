"""``auditflow check --list-rules``: every registered rule as its registry entry describes it.

Per rule: id, title, the rule version we follow, the forms it applies to (its row of the form-lookup
CSV its entry names, under the data root; a rule without a row runs on every form), what it reads,
its level, and whether it runs here or why not: a rule registered with a ``cannot_run`` reason never
runs, and a rule that needs the data root does not run without one. Nothing here is kept by hand, so
the list cannot go out of date (docs/rules/README.md).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from auditflow.errors import ResourceError
from auditflow.rules import registry
from auditflow.rules.resources import load_form_lookup, normalise_rule

EVERY_FORM = "every form"
SHOWN_FORMS = 4  # the table names this many forms, then the count


def forms_of(spec: registry.RuleSpec, data_root: Path | None) -> list[str] | str:
    """The forms of the rule's row in its form lookup, sorted; :data:`EVERY_FORM` without a row; a
    sentence when the lookup cannot be read (no data root, a missing or damaged file)."""
    if data_root is None:
        return f"unknown: no data root to read {spec.form_lookup.as_posix()} from"
    try:
        lookup = load_form_lookup(data_root, spec.form_lookup)
    except ResourceError as exc:
        return f"unknown: {exc}"
    row = lookup.get(normalise_rule(spec.id))
    return EVERY_FORM if row is None else sorted(row)


def runs_here(spec: registry.RuleSpec, data_root: Path | None) -> str | None:
    """None when the rule runs here; else why not."""
    if spec.cannot_run:
        return spec.cannot_run
    if data_root is None and spec.needs_data_root:
        return "needs the data root (--data-root or AUDITFLOW_DATA_ROOT)"
    return None


def rule_row(spec: registry.RuleSpec, data_root: Path | None) -> dict[str, Any]:
    why_not = runs_here(spec, data_root)
    return {"rule": spec.name, "title": spec.title, "version": spec.version_text,
            "forms": forms_of(spec, data_root), "needs": sorted(n.value for n in spec.needs),
            "level": spec.level.value, "levels": {code: lv.value for code, lv in sorted(spec.levels.items())},
            "runs": why_not is None, "not_run": why_not,
            "auditors": spec.agent_tool.name if spec.agent_tool else None, "doc": spec.doc}


def rule_rows(rules: tuple[str, ...], data_root: Path | None) -> list[dict[str, Any]]:
    return [rule_row(registry.get(r), data_root) for r in rules]


def forms_text(forms: list[str] | str) -> str:
    if isinstance(forms, str):
        return forms
    head = ", ".join(forms[:SHOWN_FORMS])
    return head if len(forms) <= SHOWN_FORMS else f"{head}, … ({len(forms)} forms)"


def level_text(row: dict[str, Any]) -> str:
    """``error``, or ``error (warning for DQC.US.0001.61)`` when some codes have another level."""
    other: dict[str, list[str]] = {}
    for code, level in row["levels"].items():
        if level != row["level"]:
            other.setdefault(level, []).append(code)
    extra = "; ".join(f"{level} for {', '.join(codes)}" for level, codes in sorted(other.items()))
    return row["level"] + (f" ({extra})" if extra else "")


def print_rules(rules: tuple[str, ...], fmt: str, data_root: Path | None) -> None:
    rows = rule_rows(rules, data_root)
    if fmt == "json":
        print(json.dumps(rows, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    runnable = sum(1 for r in rows if r["runs"])
    table = Table(title=f"{len(rows)} registered DQC rules, {runnable} run here")
    for col in ("rule", "title", "version", "forms", "reads", "level", "runs here", "auditors' tool"):
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(row["rule"], row["title"], row["version"], forms_text(row["forms"]), ", ".join(row["needs"]),
                      level_text(row), "yes" if row["runs"] else f"no: {row['not_run']}", row["auditors"] or "")
    Console(width=None if sys.stdout.isatty() else 200).print(table)  # as the check's table
