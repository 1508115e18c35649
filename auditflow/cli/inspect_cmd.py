"""``auditflow inspect``: what was loaded from a filing, as a table or JSON."""
from __future__ import annotations

import json
import sys

from rich.console import Console
from rich.table import Table

from auditflow.cli.context import environment_factory
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


def write_graph(env: AuditEnvironment, path: str) -> None:
    """Export the filing graph (with its bridge edges to the taxonomy) as GraphML. Node keys are the
    graph's ``(kind, key)`` tuples written as ``kind:key``; attribute values that GraphML cannot hold
    (None, Decimals, tuples) are written as text, and None attributes are left out."""
    import networkx as nx

    g = env.filing_graph
    out = nx.MultiDiGraph()
    name = {n: f"{n[0]}:{n[1]}" if isinstance(n, tuple) and len(n) == 2 else str(n) for n in g.nodes}
    for n, attrs in g.nodes(data=True):
        out.add_node(name[n], **_graphml_attrs(attrs))
    for u, v, k, attrs in g.edges(keys=True, data=True):
        out.add_edge(name[u], name[v], key=k, **_graphml_attrs(attrs))
    nx.write_graphml(out, path)


def _graphml_attrs(attrs: dict) -> dict:
    return {k: v if isinstance(v, (str, int, float, bool)) else str(v) for k, v in attrs.items() if v is not None}


def run_inspect(args) -> int:
    # the networkx filing graph is built only when it is exported (issue 21: nothing else here reads it)
    env = environment_factory(args).build(args.filing)
    if getattr(args, "graph", None):
        write_graph(env, args.graph)
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
