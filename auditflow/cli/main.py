"""The ``auditflow`` command: argument parsing and dispatch only; each command lives in its module."""
from __future__ import annotations

import argparse
import importlib
import sys

from auditflow import __version__
from auditflow.cli.exits import EXIT_ERROR
from auditflow.cli.gc_policy import ONE_SHOT, one_shot_gc
from auditflow.errors import AuditflowError


# The exit codes each command documents in its --help (and the README's "Commands" section).
CHECK_EPILOG = """exit codes:
  0  no findings (or --exit-zero)
  1  findings: at least one rule reported one
  2  an error: bad input, an unwritable output path, or a bug (one line; --debug adds the traceback)
with --batch: 2 if any filing errored (or a source is bad), else 1 if any has findings, else 0"""
AUDIT_EPILOG = """exit codes:
  0  consistent: the audited fact passed its checks
  1  violation: the auditors found the fact inconsistent
  2  an error: bad input or query, an unknown model, an LLM cache miss in replay, or a bug
     (one line; --debug adds the traceback)
  3  unable to verify: no checker applied to the fact, so neither consistent nor a violation"""


def _common(p: argparse.ArgumentParser, formats: tuple[str, ...] = ("table", "json")) -> None:
    p.add_argument("--data-root", metavar="DIR", help="folder with taxonomy/, dqc/ and filings/ (default: $AUDITFLOW_DATA_ROOT, then ../shared/data)")
    p.add_argument("--taxonomy", metavar="PATH", action="append", default=[], help="an extra taxonomy package (folder or zip); repeatable")
    p.add_argument("--no-taxonomy", action="store_true", help="do not load the taxonomy graph (faster; concepts known from the filing only)")
    p.add_argument("--format", choices=formats, default="table")


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser for ``argv`` (default ``sys.argv[1:]``): only the command being run gets its full
    parser from its own module."""
    command = _command_of(argv)
    parser = argparse.ArgumentParser(prog="auditflow", description="Verify XBRL filings the way an auditor would.")
    parser.add_argument("--version", action="version", version=f"auditflow {__version__}")
    parser.add_argument("--debug", action="store_true", help="on an error, also print the traceback")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("inspect", help="show what was loaded from a filing")
    p.add_argument("filing", nargs="?", help="filing folder, zip, instance .xml or inline .htm, or a name under the data root's filings/ (default: the bundled sample)")
    p.add_argument("--facts", action="store_true", help="add every fact (JSON)")
    p.add_argument("--graph", metavar="PATH", help="also write the networkx filing graph (facts, contexts, units, "
                                                   "concepts, the filer's relationships, bridges) as GraphML")
    _common(p)

    p = sub.add_parser("check", help="run the DQC rules (all registered ones by default) on one or more filings",
                       epilog=CHECK_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("filings", nargs="*", help="filing paths or names (default: the bundled sample)")
    p.add_argument("--rules", default="all", help="comma-separated rule ids and ranges, or all: e.g. 4,0015,43-118 (default: all)")
    p.add_argument("--xlsx", metavar="PATH", help="also write an Excel workpaper (a summary and one sheet per rule with findings)")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings (errors still exit 2)")
    p.add_argument("--list-rules", action="store_true", help="list the registered rules (id, title, version, forms, "
                                                              "what each reads, level, whether it runs here, the "
                                                              "auditors' tool) and exit; --rules narrows the list")
    p.add_argument("--html", metavar="PATH", help="also write a self-contained HTML report: findings by rule, each "
                                                  "drawn (calculation tree, member table, signed fact) with what to fix")
    g = p.add_argument_group("batch (docs/batch.md)")
    g.add_argument("--batch", action="store_true", help="check the filings of the sources (folders, zips, list "
                   "files, globs) on dask workers, one JSON line per filing to --out")
    g.add_argument("--out", metavar="PATH", help="with --batch: the results file (JSON lines; with --format "
                   "parquet, the parquet file, streamed to PATH.jsonl)")
    g.add_argument("--workers", type=int, metavar="N", help="with --batch: a local cluster of N worker processes "
                   "(default: the number of cores)")
    g.add_argument("--scheduler", metavar="ADDRESS", help="with --batch: a running dask scheduler instead, e.g. "
                   "tcp://127.0.0.1:8786")
    g.add_argument("--resume", action="store_true", help="with --batch: skip the filings whose content hash "
                   "--out already records")
    g.add_argument("--timeout-per-filing", type=float, metavar="SECONDS", help="with --batch: record a filing "
                   "still running after this long as a Timeout error")
    g.add_argument("--no-progress", action="store_true", help="with --batch: no progress bar (the summary stays)")
    _common(p, formats=("table", "json", "log", "parquet"))

    p = sub.add_parser("audit", help="run the three-auditor protocol on one fact", epilog=AUDIT_EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("filing", nargs="?", help="filing path or name (default: the bundled sample)")
    p.add_argument("--concept", help="e.g. us-gaap:Assets (a structured query: with --period)")
    p.add_argument("--period", help="YYYY-MM-DD (instant) or YYYY-MM-DD..YYYY-MM-DD")
    p.add_argument("--question", metavar="TEXT", help="plain words instead, e.g. \"Total net sales, fiscal year ended "
                                                      "September 30, 2023\": the auditors find the fact")
    p.add_argument("--finmr", metavar="TEXT", help="a FinMR question, e.g. \"What's the reported value of us-gaap:Assets "
                                                   "in the Instance document for the period 2023-09-30?\"")
    p.add_argument("--prompts", metavar="PROFILE", help="prompt profile: guided, plain or a YAML file (default: the model's)")
    p.add_argument("--shuffle", type=int, metavar="SEED", help="present every list in an observation in a seeded permutation")
    p.add_argument("--dims", nargs="*", metavar="AXIS=MEMBER", help="e.g. srt:ProductOrServiceAxis=acme:WidgetsMember")
    p.add_argument("--rule", help="rule family hint (0015, 0117, 0126): a hint, not the answer")
    p.add_argument("--config", default="full", help="full, single-agent, direct-llm, no-checks, no-gating, no-fusion; baselines: vanilla-rag, graphrag, treerag, herculean")
    p.add_argument("--model", "--backend", dest="model", default="policy", metavar="SPEC",
                   help="policy (default: the deterministic planner, not an LLM) or a model spec, e.g. "
                        "local:qwen2.5-coder-1.5b, openai:gpt-4o")
    p.add_argument("--record-mode", choices=("none", "once", "new_episodes", "all"), default="once",
                   help="LLM cache: once (default: the first audit of a query calls the model and records, later "
                        "ones replay), none (replay only), new_episodes (call the model for what is not recorded), all")
    p.add_argument("--cache-dir", metavar="DIR", help="LLM cache folder (default: the pytest plugin's, from the "
                                                      "ini's auditflow_cache_dir, else <rootdir>/.auditflow-cache)")
    _common(p)

    # The other commands' parsers live in their modules, some of which import rich, langchain or the
    # case generator: a module is imported only when its command is the one being run (issue 21);
    # any other command gets a stub that carries its one-line help for ``auditflow --help``.
    for name, (module, adder) in _LAZY_COMMANDS.items():
        if command == name:
            getattr(importlib.import_module(module), adder)(sub)
        else:
            sub.add_parser(name, help=_LAZY_HELP[name])
    return parser


# command -> (module, function adding its parser); the help lines are the ones those functions give
_LAZY_COMMANDS = {
    "model": ("auditflow.cli.model_cmd", "add_model_parser"),
    "cases": ("auditflow.cli.cases_cmd", "add_cases_parser"),
    "eval": ("auditflow.cli.eval_cmd", "add_eval_parser"),
    "cache": ("auditflow.llm.cache_cmd", "add_cache_parser"),
}
_LAZY_HELP = {
    "model": "install or show the optional local model (Qwen2.5-Coder GGUF)",
    "cases": "audit cases: generate a FinMR-style corpus from real filings",
    "eval": "run configurations over audit cases and report the paper's metrics",
    "cache": "LLM call cache: statistics, and pruning of entries no run used",
}


def _command_of(argv: list[str] | None) -> str | None:
    """The subcommand named on the command line: the first argument that is not an option (the
    top-level options take no value)."""
    for a in sys.argv[1:] if argv is None else argv:
        if not a.startswith("-"):
            return a
    return None


def main(argv: list[str] | None = None) -> int:
    args = build_parser(argv).parse_args(argv)
    if args.command in ONE_SHOT:
        one_shot_gc()
    try:
        from auditflow.cli.outputs import check_outputs

        check_outputs(args)  # an unwritable --html/--xlsx/--out is an error now, not after minutes of work
        if args.command == "inspect":
            from auditflow.cli.inspect_cmd import run_inspect

            return run_inspect(args)
        if args.command == "audit":
            from auditflow.cli.audit_cmd import run_audit_cmd

            return run_audit_cmd(args)
        if args.command == "check":
            from auditflow.cli.check_cmd import run_check

            return run_check(args)
        if args.command == "model":
            from auditflow.cli.model_cmd import run_model

            return run_model(args)
        if args.command == "cases":
            from auditflow.cli.cases_cmd import run_cases

            return run_cases(args)
        if args.command == "eval":
            from auditflow.cli.eval_cmd import run_eval_cmd

            return run_eval_cmd(args)
        if args.command == "cache":
            from auditflow.llm.cache_cmd import run_cache

            return run_cache(args)
    except AuditflowError as exc:
        print(f"auditflow: error: {exc}", file=sys.stderr)
        _traceback(args)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("auditflow: interrupted", file=sys.stderr)
        return EXIT_ERROR
    except (Exception, RecursionError, MemoryError) as exc:  # noqa: BLE001 - a bug must not read as "findings" (exit 1)
        text = " ".join(str(exc).split())
        text = text if len(text) <= 300 else text[:300] + "..."
        print(f"auditflow: internal error: {type(exc).__name__}: {text} (a bug in AuditFlow; "
              "rerun with --debug for the traceback)", file=sys.stderr)
        _traceback(args)
        return EXIT_ERROR
    return EXIT_ERROR


def _traceback(args: argparse.Namespace) -> None:
    if getattr(args, "debug", False):
        import traceback

        traceback.print_exc(file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
