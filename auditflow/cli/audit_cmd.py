"""``auditflow audit``: run the three-auditor protocol on one fact and show the result."""
from __future__ import annotations

import json
import sys

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from auditflow.agents.audit import policy_models, run_audit
from auditflow.cli.context import EnvironmentFactory
from auditflow.env.query import AuditQuery, parse_dims
from auditflow.errors import AuditflowError


def _models(backend: str):
    if backend == "policy":
        return policy_models
    raise AuditflowError(f"unknown backend {backend!r}; available here: policy (the deterministic, non-LLM planner)")


def run_audit_cmd(args) -> int:
    factory = EnvironmentFactory(args)
    env = factory.build(args.filing)
    query = AuditQuery(env.filing.name, args.concept, args.period, parse_dims(args.dims or []), args.rule)
    result = run_audit(env, query, config=args.config, models=_models(args.backend), data_root=factory.data_root)
    if args.format == "json":
        sys.stdout.write(result.canonical_json() + "\n")
        return 0
    render(Console(), result)
    return 0


def render(console: Console, r) -> None:
    colour = {"violation": "red", "consistent": "green"}.get(r.decision, "yellow")
    head = Table.grid(padding=(0, 2))
    head.add_row("decision", f"[{colour}]{r.decision}[/{colour}]")
    head.add_row("triggered rules", ", ".join(r.triggered_rules) or "none")
    head.add_row("reported value", str(r.reported_value))
    head.add_row("expected value", str(r.expected_value))
    head.add_row("credibility", f"{r.credibility:.3f}  (Bel {r.bel:.3f}, Pl {r.pl:.3f}, BetP {r.betp:.3f}, conflict {r.conflict:.3f})")
    head.add_row("rounds", str(r.rounds))
    q = r.query
    console.print(Panel(head, title=escape(f"{q['concept']} @ {q['period']} {q['dimensions'] or ''} [{r.config}]")))
    path = Table(title="evidence path")
    for col in ("tool", "arguments", "summary", "facts"):
        path.add_column(col)
    for step in r.evidence_path:
        path.add_row(step.tool, escape(json.dumps(step.arguments, sort_keys=True)), escape(step.summary), ", ".join(step.facts))
    console.print(path)
    for rev in r.reviews:
        console.print(f"Senior round {rev.round}: {'accepted' if rev.accepted else 'conflict: ' + str(rev.conflict_source)} — {escape(rev.reason)}")
