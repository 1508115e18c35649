"""``auditflow audit``: run the three-auditor protocol on one fact and show the result.

``--model`` takes the deterministic ``policy`` (the default) or a model spec; LLM calls go through the
pytest plugin's cache (the folder the ini's ``auditflow_cache_dir`` names, found as pytest finds its ini
file) in ``--record-mode``, and the data root is the plugin's too. The record mode defaults to ``once``:
a first live audit calls the model and records, the same audit again replays (issue 40); the pytest
plugin's default stays ``none`` (replay only, for CI).
Its exit code is the decision, as ``check``'s is its findings: 0 consistent, 1 violation, 3 unable to
verify, and 2 for any error (README, "Commands").
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from auditflow.agents.audit import run_audit
from auditflow.dataroot import resolve_data_root
from auditflow.agents.profile import load_profile
from auditflow.env.query import AuditQuery, QueryError, parse_dims
from auditflow.cli.exits import EXIT_FINDINGS, EXIT_OK, EXIT_UNVERIFIED
from auditflow.graphs.factory import locate_filing, shared_environment


def _models(args, defaults):
    """The model factory for ``--model``, over the pytest plugin's LLM cache (the same ini file and folder),
    checked before the filing loads; returns it and the cache statistics."""
    from auditflow.cases.models import check_model_spec, make_models, new_stats

    cache_dir = defaults.cache_dir(args.cache_dir)
    check_model_spec(args.model, record_mode=args.record_mode, cache_dir=cache_dir)
    stats = new_stats()
    case_id = f"audit:{args.concept}@{args.period}" if args.concept else f"audit:{(args.question or args.finmr or '')[:80]}"
    return make_models(args.model, cache_dir=cache_dir, record_mode=args.record_mode, case_id=case_id,
                       stats=stats), stats


def _query(args, filing: str) -> AuditQuery:
    """One of the three query forms, exactly (docs/query-forms.md)."""
    given = [name for name, v in (("--concept/--period", args.concept or args.period), ("--question", args.question),
                                  ("--finmr", args.finmr)) if v]
    if len(given) != 1:
        raise QueryError("give one query: --concept and --period, or --question TEXT, or --finmr TEXT"
                         + (f" (got {', '.join(given)})" if given else ""))
    if args.question:
        return AuditQuery(filing, rule_hint=args.rule, form="text", text=args.question)
    if args.finmr:
        return AuditQuery(filing, rule_hint=args.rule, form="finmr", text=args.finmr)
    if not (args.concept and args.period):
        raise QueryError("a structured query needs both --concept and --period")
    return AuditQuery(filing, args.concept, args.period, parse_dims(args.dims or []), args.rule)


def run_audit_cmd(args) -> int:
    from auditflow.eval.defaults import find_project

    defaults = find_project([], cwd=Path.cwd())  # the ini pytest would use here: the plugin's cache and data root
    if not args.data_root:
        root = defaults.data_root(None)
        args.data_root = str(root) if root is not None else None
    models, stats = _models(args, defaults)
    data_root = resolve_data_root(args.data_root) if args.data_root else None
    if args.model != "policy":  # a line on stderr per live model call, as it returns (auditflow.llm.progress)
        import threading

        from auditflow.llm.progress import add_listener

        lock = threading.Lock()  # the roles call from their own threads: one whole line at a time

        def show(call) -> None:
            with lock:
                sys.stderr.write(f"auditflow: {call.line()}\n")
                sys.stderr.flush()

        remove = add_listener(show)
        try:
            return _audit(args, models, stats, data_root=data_root)
        finally:
            remove()
    return _audit(args, models, stats, data_root=data_root)


def _audit(args, models, stats, *, data_root) -> int:
    # the environment an audit case builds (auditflow.cases.filings): same tools, same prompts, so an audit
    # of a recorded case's query replays that case's calls
    env = shared_environment(locate_filing(args.filing, data_root))
    query = _query(args, env.filing.name)
    profile = load_profile(args.prompts, model=args.model, question=bool(args.question))  # the policy: natural
    result = run_audit(env, query, config=args.config, models=models, data_root=data_root, profile=profile,
                       shuffle=args.shuffle)
    if args.format == "json":
        sys.stdout.write(result.canonical_json() + "\n")
        return exit_code(result.decision)
    console = Console()
    render(console, result)
    if args.model != "policy":
        counts = stats_line(stats)
        console.print(f"model {args.model}, record mode {args.record_mode}: LLM cache {counts}")
    return exit_code(result.decision)


# decision -> exit code, as ``check`` does for findings (``auditflow audit --help``, README "Commands");
# errors exit 2 from auditflow.cli.main
EXIT_CODES = {"consistent": EXIT_OK, "violation": EXIT_FINDINGS, "unable_to_verify": EXIT_UNVERIFIED}


def exit_code(decision: str) -> int:
    """0 consistent, 1 violation, 3 unable to verify: a script can tell a violation from a fact no
    checker could decide, and neither from an error (2)."""
    return EXIT_CODES[decision]


def stats_line(stats) -> str:
    from auditflow.cases.models import stats_counts

    c = stats_counts(stats)
    return f"{c['hits']} hits, {c['misses']} misses, {c['writes']} writes"


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
    asked = q.get("text") or f"{q['concept']} @ {q['period']} {q['dimensions'] or ''}"
    if r.fact:
        head.add_row("audited fact", escape(f"{r.fact.get('concept')} @ {r.fact.get('period')} {r.fact.get('dimensions') or ''}"))
    console.print(Panel(head, title=escape(f"{asked} [{r.config}]")))
    path = Table(title="evidence path")
    for col in ("tool", "arguments", "summary", "facts"):
        path.add_column(col)
    for step in r.evidence_path:
        path.add_row(step.tool, escape(json.dumps(step.arguments, sort_keys=True)), escape(step.summary), ", ".join(step.facts))
    console.print(path)
    for rev in r.reviews:
        console.print(f"Senior round {rev.round}: {'accepted' if rev.accepted else 'conflict: ' + str(rev.conflict_source)} — {escape(rev.reason)}")
