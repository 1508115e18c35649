"""``auditflow check``: run the DQC rules on filings and report as a table, JSON or a workpaper."""
from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from auditflow.batch.task import check_filing
from auditflow.cli.context import data_root_of, environment_factory
from auditflow.cli.exits import EXIT_FINDINGS, EXIT_OK
from auditflow.cli.gc_policy import set_aside
from auditflow.errors import InputError
from auditflow.rules import registry
from auditflow.rules.finding import dec_display
from auditflow.rules.runner import NOT_RUN, CheckReport, parse_rules

if TYPE_CHECKING:
    from rich.console import Console

NUMBER_COLS = ("reported", "expected", "difference")


def run_check(args) -> int:
    rules = parse_rules(args.rules)
    if getattr(args, "list_rules", False):
        if args.format not in ("table", "json"):
            raise InputError(f"--list-rules prints a table or --format json, not --format {args.format}")
        from auditflow.cli.rule_list import print_rules

        print_rules(rules, args.format, data_root_of(args))
        return EXIT_OK
    if args.xlsx and not Path(args.xlsx).expanduser().resolve().parent.is_dir():  # before minutes of checking
        raise InputError("cannot write the workpaper: its folder does not exist", path=args.xlsx)
    if getattr(args, "batch", False):
        return run_batch_cmd(args, rules)
    if args.format == "parquet" or getattr(args, "out", None):
        raise InputError("--out and --format parquet are for --batch runs; a single check prints its report "
                         "(--format json) or writes --xlsx / --html")
    factory = environment_factory(args, taxonomy_graph=False)
    targets = args.filings or [None]
    reports: list[CheckReport] = []
    facts: list[dict] = []  # for --html: what the page says about each loaded filing
    # rich (a tenth of a second to import) only where it shows something: a progress bar for
    # several filings, the table format (issue 21)
    if len(targets) > 1:
        from rich.console import Console
        from rich.progress import Progress

        progress = Progress(console=Console(stderr=True), transient=True)
    else:
        progress = contextlib.nullcontext(None)
    with progress as bar:
        task = bar.add_task("checking filings", total=len(targets)) if bar is not None else None
        for t in targets:
            # set aside: kept until the next filing, freed by reference counting: no pass need walk it
            env, report = check_filing(factory, t, rules, between=set_aside)
            reports.append(report)
            if getattr(args, "html", None):
                from auditflow.html.check_page import filing_facts

                facts.append(filing_facts(env))
            if bar is not None:
                bar.advance(task)
    if args.format == "log":
        from auditflow.cli.check_log import render_log

        for r in reports:
            sys.stdout.write(render_log(r))
    elif args.format == "json":
        doc = {"filings": [r.to_json() for r in reports]}  # one shape for one filing or several
        json.dump(doc, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
    else:
        from rich.console import Console

        console = Console(width=None if sys.stdout.isatty() else 200)
        for r in reports:
            render_table(console, r)
    if args.xlsx:
        from auditflow.cli.workpaper import write_workpaper

        write_workpaper(reports, args.xlsx)
    if getattr(args, "html", None):
        from auditflow.html.check_page import render_check
        from auditflow.html.render import write_html

        try:
            write_html(Path(args.html), render_check([r.to_json() for r in reports], facts, rules))
        except OSError as exc:  # checked before the run (auditflow.cli.outputs); a full disk still lands here
            from auditflow.cli.outputs import write_failed

            raise write_failed(exc, args.html, "--html") from None
    if getattr(args, "exit_zero", False):
        return EXIT_OK
    return EXIT_FINDINGS if any(r.findings for r in reports) else EXIT_OK


def run_batch_cmd(args, rules: tuple[str, ...]) -> int:
    """``--batch``: the filings of the sources on dask workers, one JSON line each (docs/batch.md)."""
    from auditflow.batch.run import BatchOptions, run_batch

    fmt = {"parquet": "parquet"}.get(args.format, "jsonl")
    if not args.out:
        raise InputError("--batch needs --out PATH: the results file it streams one JSON line per filing to "
                         "(e.g. --out results.jsonl)")
    if args.format not in ("json", "parquet", "table"):
        raise InputError(f"--batch writes JSON lines (or --format parquet), not --format {args.format}",
                         path=args.out)
    if args.xlsx or getattr(args, "html", None):
        raise InputError("--batch writes its results to --out only; --xlsx and --html are for a single check run",
                         path=args.xlsx or args.html)
    if args.workers is not None and args.workers < 1:
        raise InputError(f"--workers must be at least 1, got {args.workers}")
    if args.timeout_per_filing is not None and args.timeout_per_filing <= 0:
        raise InputError(f"--timeout-per-filing must be a positive number of seconds, got {args.timeout_per_filing:g}")
    opts = BatchOptions(
        sources=tuple(args.filings), out=Path(args.out).expanduser(), rules=tuple(rules), fmt=fmt,
        workers=args.workers, scheduler=args.scheduler, resume=args.resume, timeout=args.timeout_per_filing,
        data_root=data_root_of(args), explicit_data_root=args.data_root, taxonomies=tuple(args.taxonomy or ()),
        load_taxonomy=not args.no_taxonomy, progress=not args.no_progress)
    return run_batch(opts).exit_code(args.exit_zero)


def render_table(console: Console, report: CheckReport) -> None:
    from rich.markup import escape
    from rich.table import Table

    from auditflow.cli.check_log import where
    from auditflow.rules.registry import fix_for

    console.rule(f"[bold]{escape(report.filing)}")
    summary = Table(title="DQC rules", show_lines=False)
    for col in ("rule", "title", "findings", "consistent", "not applicable"):
        summary.add_column(col, justify="right" if col not in ("rule", "title") else "left")
    for rule, res in report.results.items():
        if rule in report.not_run:
            summary.add_row(f"DQC.US.{rule}", registry.get(rule).title, NOT_RUN, "", "")
            continue
        summary.add_row(f"DQC.US.{rule}", registry.get(rule).title, str(len(res.findings)), str(res.consistent),
                        str(res.not_applicable))
    console.print(summary)
    for rule, reason in report.not_run.items():
        console.print(f"[yellow]DQC.US.{rule} {NOT_RUN}:[/yellow] {escape(reason)}")
    for rule, res in report.results.items():
        if not res.findings:
            continue
        t = Table(title=f"DQC.US.{rule} {escape(registry.get(rule).title)}: {len(res.findings)} finding(s)")
        for col in ("code", "concept", "label", "period", "dimensions", "reported", "expected", "difference"):
            if col in NUMBER_COLS:  # never broken mid-digit: a narrow terminal folds the text columns instead
                t.add_column(col, no_wrap=True, justify="right")
            else:
                t.add_column(col, overflow="fold")
        for f in res.findings:
            diff = f.reported - f.expected if f.reported is not None and f.expected is not None else None
            dims = ", ".join(f"{a}={m}" for a, m in f.dimensions)
            t.add_row(f.code, str(f.concept), f.label or "", str(f.period), dims, _n(f.reported), _n(f.expected),
                      _n(diff))
        console.print(t)
        for f in res.findings:
            at = f" [dim]({escape(where(f.document, f.line, report.filing))})[/dim]" if f.document else ""
            console.print(f"[bold]\\[{escape(f.severity.upper())}] \\[{escape(f.code)}][/bold] {escape(f.message)}{at}")
            console.print(f"  [green]what to fix:[/green] {escape(fix_for(f.to_json()))}")
    for w in report.to_json()["warnings"]:
        console.print(f"[yellow]warning[/yellow] {escape(w)}")


def _n(d) -> str:
    return "" if d is None else dec_display(d)
