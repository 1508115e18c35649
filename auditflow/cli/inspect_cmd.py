"""``auditflow inspect``: what was loaded from a filing, as a table or JSON."""
from __future__ import annotations

import json
import sys

from rich.console import Console
from rich.table import Table

from auditflow.cli.context import EnvironmentFactory
from auditflow.graphs.environment import AuditEnvironment
from auditflow.xbrl.model import Fact


def fact_json(env: AuditEnvironment, f: Fact) -> dict:
    ctx = env.filing.contexts[f.context_id]
    unit = env.filing.units.get(f.unit_id) if f.unit_id else None
    return {
        "concept": str(f.concept),
        "value": f.value,
        "decimals": None if f.decimals is None else str(f.decimals),
        "unit": str(unit) if unit else None,
        "period": ctx.period.as_json(),
        "dimensions": {str(a): str(m) for a, m in ctx.dimensions},
        "context": f.context_id,
        "id": f.id,
    }


def inspect_document(env: AuditEnvironment, *, with_facts: bool) -> dict:
    doc = {
        "filing": env.filing.source,
        "documents": env.filing.documents,
        "inline": env.filing.is_inline,
        "document_type": env.filing.document_type,
        "counts": env.counts(),
        "duplicates": {k: sum(1 for d in env.filing.duplicates if d.kind == k) for k in ("identical", "consistent", "inconsistent")},
        "warnings": [str(w) for w in env.warnings],
    }
    if with_facts:
        doc["facts"] = [fact_json(env, f) for f in env.filing.facts]
    return doc


def run_inspect(args) -> int:
    env = EnvironmentFactory(args).build(args.filing)
    doc = inspect_document(env, with_facts=args.facts)
    if args.format == "json":
        json.dump(doc, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
        return 0
    console = Console()
    t = Table(title=f"{env.filing.name} ({doc['document_type'] or 'no DocumentType'})", show_header=True)
    t.add_column("what")
    t.add_column("count", justify="right")
    for k, v in doc["counts"].items():
        t.add_row(k.replace("_", " "), f"{v:,}")
    for k, v in doc["duplicates"].items():
        t.add_row(f"duplicates: {k}", f"{v:,}")
    console.print(t)
    for w in doc["warnings"]:
        console.print(f"[yellow]warning[/yellow] {w}", highlight=False, markup=True)
    if args.facts:
        console.print_json(json.dumps(doc["facts"]))
    return 0
