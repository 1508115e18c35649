"""``auditflow eval CASES --configs ...``: every configuration over a case corpus, reported as the paper does.

Defaults match ``pytest --auditflow`` (model spec, LLM cache folder and data root from the same
pytest ini file, see :mod:`auditflow.eval.defaults`), so an eval replays what the plugin recorded;
the record mode defaults to ``none`` (replay only) whatever the ini says, because an evaluation
should never call a model unless asked to. Writes ``results.md``, ``results.json`` (reproducible
byte for byte), ``results.xlsx``, ``run.json`` (timings, cache counts) and the PNG charts into
``--out``. Exit status: 0 when every case ran, 1 when some ended without an audit result (cache
miss, input error, crash; the reports are still written and list them), 2 on a usage error.
"""
from __future__ import annotations

import argparse
import threading
import time
from pathlib import Path

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)
from rich.table import Table

from auditflow.errors import AuditflowError

# The parser is built for every ``auditflow`` command, so it names these values instead of importing the
# case engine (a third of a second); tests/eval/test_eval_cli.py keeps them equal to their sources.
CONFIG_NAMES = ("full", "single-agent", "direct-llm", "policy", "no-checks", "no-gating", "no-fusion",
                "vanilla-rag", "graphrag", "treerag", "herculean")  # eval.plan
BASELINE_NAMES = ("vanilla-rag", "graphrag", "treerag", "herculean")  # docs/baselines.md: run only when named
RECORD_MODES = ("none", "once", "new_episodes", "all")  # auditflow.cases.models.RECORD_MODES
POLICY = "policy"  # auditflow.cases.models.POLICY
DEFAULT_RESAMPLES = 10_000  # auditflow.bootstrap.DEFAULT_RESAMPLES
DEFAULT_JOBS = 8  # auditflow.llm.concurrency.DEFAULT_MAX_CONCURRENCY
# The in-process model keeps 4 conversation slots (auditflow.llm.local.LocalChatModel.n_slots): two cases'
# juniors. More cases in flight evict each other's prompt caches, so every call re-reads its whole
# conversation: recording cases/natural with 8 in flight took 200-600 s a call, with 2 about 25 s.
LOCAL_JOBS = 2
DEFAULT_CONFIGS = ",".join(n for n in CONFIG_NAMES if n not in BASELINE_NAMES)
DEFAULT_OUT = "eval-results"
EXIT_OK, EXIT_INCOMPLETE, EXIT_USAGE = 0, 1, 2


def default_jobs(configs) -> int:
    """Cases in flight when ``--jobs`` is not given: two when a row runs the in-process local model (its
    four prompt-cache slots hold two cases' auditors), else :data:`DEFAULT_JOBS`."""
    from auditflow.llm.specs import ModelSpec

    local = any(ModelSpec.parse(c.model).provider == "local" for c in configs if c.model != POLICY)
    return LOCAL_JOBS if local else DEFAULT_JOBS


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
    return value


def add_eval_parser(sub) -> None:
    p = sub.add_parser("eval", help="run configurations over audit cases and report the paper's metrics",
                       description="Run each configuration over the cases (LLM calls cached) and write a "
                                   "paper-style report: results.md, results.json, results.xlsx, run.json, charts.")
    p.add_argument("cases", nargs="+", metavar="CASES", help="case files (*.case.yaml) or folders holding them")
    p.add_argument("--configs", default=DEFAULT_CONFIGS,
                   help=f"comma-separated configurations: {', '.join(CONFIG_NAMES)} (policy = the full protocol "
                        f"with the deterministic policy backend, whatever --model says); default: all but the "
                        f"baselines ({', '.join(BASELINE_NAMES)}), which run when named")
    p.add_argument("--model", metavar="SPEC", help="model spec of the LLM configurations (default: the pytest ini's "
                                                   f"auditflow_model, else {POLICY}, as the plugin)")
    p.add_argument("--record-mode", choices=RECORD_MODES, default="none",
                   help="LLM cache: none (replay only, default), new_episodes (record what is missing), all; "
                        "once records a case only while it has no entries, and its entries are per case id, "
                        "shared by the configurations: record an eval with new_episodes")
    p.add_argument("--cache-dir", metavar="DIR", help="LLM cache folder (default: the plugin's, "
                                                      "<rootdir>/.auditflow-cache or the ini's auditflow_cache_dir)")
    p.add_argument("--data-root", metavar="DIR", help="data root with filings/ and dqc/ (default: the ini's "
                                                      "auditflow_data_root, $AUDITFLOW_DATA_ROOT, ../shared/data)")
    p.add_argument("--out", metavar="DIR", default=DEFAULT_OUT, help=f"output folder (default: {DEFAULT_OUT})")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--bootstrap", type=_positive, default=DEFAULT_RESAMPLES, metavar="N",
                   help=f"bootstrap resamples (default {DEFAULT_RESAMPLES})")
    p.add_argument("--jobs", "--concurrency", dest="jobs", type=_positive, default=None, metavar="N",
                   help=f"cases in flight at once against the model (default {DEFAULT_JOBS}, or {LOCAL_JOBS} when a row "
                        "runs the in-process local model: it decodes 4 conversations together, two cases' auditors, "
                        "and more cases in flight evict each other's prompt caches; a Transformers model serves one "
                        "call at a time); the reports are the same whatever N is")
    p.add_argument("--no-charts", action="store_true", help="do not draw the PNG charts (results.md still links "
                                                           "them, e.g. charts drawn by an earlier run)")
    p.add_argument("--used-keys", metavar="FILE", help="write the LLM cache keys the run used to this JSON file "
                                                      "(keep them: auditflow cache prune DIR --used FILE)")
    p.add_argument("--html", metavar="PATH", help="also write a self-contained HTML report of every case (summary, "
                                                  "case list, each case's evidence, transcripts, fusion and drawing)")
    p.add_argument("--prompts", metavar="PROFILE", help="prompt profile of every row (guided, plain or a YAML file; "
                                                        "default: each model's own); a row may set its own with +prompts=")
    p.add_argument("--shuffle", type=int, metavar="SEED", help="present every list in an observation in a seeded "
                                                               "permutation (a row may set its own with +shuffle=)")
    p.add_argument("--notes", metavar="FILE", help="Markdown appended verbatim to results.md (what the numbers mean); "
                                                  "part of the reproducing command")
    p.add_argument("--behaviour", action="store_true",
                   help="add the auditors' behaviour (tool kinds per role, evidence first or checks first) to "
                        "results.md and draw behaviour.png; part of the reproducing command")
    p.add_argument("--with-results", metavar="FILE", action="append", default=[],
                   help="the results.json of another eval (other cases, other rows) to summarise beside this one, "
                        "with every row's Joint ACC on every case set; repeatable, part of the reproducing command")


def _read_notes(path: str | None) -> str:
    if not path:
        return ""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise AuditflowError(f"{path}: cannot read the notes file ({exc.strerror}); give a Markdown file or leave out --notes") from None


def _read_beside(paths, project) -> tuple:
    """The other evaluations' results to show beside this one, read before anything runs."""
    from auditflow.eval.beside import load_beside

    return tuple(load_beside(Path(p), project.display(Path(p))) for p in paths)


def _check_model(model: str) -> None:
    """A bad model spec is a usage error before anything runs, not an S label on every case."""
    if model != POLICY:
        from auditflow.llm.specs import ModelSpec

        ModelSpec.parse(model)


def run_eval_cmd(args) -> int:
    from auditflow.cases.settings import RunSettings
    from auditflow.eval.collect import collect_cases
    from auditflow.eval.defaults import find_project
    from auditflow.eval.plan import parse_configs
    from auditflow.eval.records import Redactor
    from auditflow.eval.report import build_report, eval_command
    from auditflow.eval.runner import row_cases, run_eval

    err = Console(stderr=True)
    project = find_project([Path(c) for c in args.cases])
    model = project.model(args.model)
    configs = parse_configs(args.configs, model=model)
    for row_model in dict.fromkeys(c.model for c in configs if c.model != POLICY):
        _check_model(row_model)
    args.jobs = args.jobs or default_jobs(configs)  # run.json records the number used
    cache_dir, data_root = project.cache_dir(args.cache_dir), project.data_root(args.data_root)
    case_set = collect_cases([Path(c) for c in args.cases], display=project.display)
    notes = _read_notes(args.notes)
    beside = _read_beside(args.with_results, project)
    command = eval_command([project.display(Path(c)) for c in args.cases], configs, model=model, seed=args.seed,
                           resamples=args.bootstrap, cache_dir=project.display(cache_dir) if args.cache_dir else None,
                           extra=[*(["--prompts", args.prompts] if args.prompts else []),
                                  *(["--shuffle", str(args.shuffle)] if args.shuffle is not None else []),
                                  *(["--notes", project.display(Path(args.notes))] if args.notes else []),
                                  *(["--behaviour"] if getattr(args, "behaviour", False) else []),
                                  *(x for b in beside for x in ("--with-results", b.path))])
    base = RunSettings(model=model, record_mode=args.record_mode, cache_dir=cache_dir, data_root=data_root,
                       prompts=args.prompts, shuffle=args.shuffle, rootdir=project.rootdir)
    base.profile()  # a bad profile file is one error before anything runs
    redact = Redactor.of(cache_dir=cache_dir, data_root=data_root, rootdir=project.rootdir)
    per_row = {c.name: len(row_cases(case_set.cases, c, data_root=data_root)) for c in configs}  # +subset: fewer

    started = time.perf_counter()
    with Progress(TextColumn("[bold]{task.description:<14}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[bad]}"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                  console=err) as bar:
        tasks = {c.name: bar.add_task(c.name, total=per_row[c.name], bad="") for c in configs}
        bad: dict[str, int] = dict.fromkeys(tasks, 0)
        done: dict[str, int] = dict.fromkeys(tasks, 0)
        lock = threading.Lock()

        def on_done(config: str, record) -> None:  # called from the worker threads
            with lock:
                bad[config] += bool(record.error_kind)
                done[config] += 1
                note = f"[red]{bad[config]} without result[/red]" if bad[config] else ""
                if not err.is_terminal:
                    _log_case(err, config, done[config], per_row[config], record, time.perf_counter() - started)
            bar.update(tasks[config], advance=1, bad=note)

        collector = _html_collector(args, redact)
        watcher = _behaviour_collector(args, collector)
        from auditflow.llm.progress import add_listener  # a line per live model call, above the bars

        stop_lines = add_listener(lambda call: bar.console.print(f"auditflow: {escape(call.line())}", soft_wrap=True))
        try:
            run = run_eval(case_set.cases, configs, base, jobs=args.jobs, redact=redact, on_done=on_done,
                           run_one=watcher or collector)
        finally:
            stop_lines()
    wall = time.perf_counter() - started
    with err.status(f"paired bootstrap, {args.bootstrap} resamples ..."):
        report = build_report(run, case_set, configs, command=command, seed=args.seed, resamples=args.bootstrap,
                              notes=notes, beside=beside)
    behaviour = watcher.rows(run.settings, [c.name for c in configs]) if watcher is not None else None
    written, timings = _write_outputs(report, run, Path(args.out), args, wall, err, behaviour)
    if args.used_keys:
        written.append(_write_used_keys(Path(args.used_keys), run.timings))
    if collector is not None:
        written.append(_write_html(Path(args.html), report, run, case_set, collector))
    _print_summary(Console(), report, written, run, timings)
    for (config, key), tb in run.tracebacks.items():
        err.print(f"[red]crash[/red] in {escape(config)} {escape(key)}:\n{escape(tb)}", soft_wrap=True)
    return EXIT_INCOMPLETE if report.problems() else EXIT_OK


def _log_case(err: Console, config: str, done: int, total: int, record, elapsed: float) -> None:
    """One plain line per finished case when stderr is not a terminal (a log file, CI).

    A bar is only drawn on a terminal, and recording a corpus with a local model takes hours: a log
    that stays empty that long cannot be told from a hung run.
    """
    outcome = record.error_kind or record.label
    minutes, seconds = divmod(int(elapsed), 60)
    err.print(f"{config} {done}/{total} {outcome} {record.key} ({minutes}m{seconds:02d}s)", markup=False,
              highlight=False, soft_wrap=True)


def _behaviour_collector(args, inner):
    """With --behaviour, runs cases keeping each transcript's tool kinds (auditflow.eval.behaviour)."""
    if not getattr(args, "behaviour", False):
        return None
    from auditflow.eval.behaviour import BehaviourCollector

    return BehaviourCollector(run=inner)


def _write_outputs(report, run, out: Path, args, wall: float, err: Console, behaviour=None) -> tuple[list[Path], list]:
    from auditflow.eval.charts import ChartsUnavailable, write_charts
    from auditflow.eval.markdown import RUN_FILE, render_markdown
    from auditflow.eval.report import dump_json, results_document, write_text
    from auditflow.eval.timings import config_timings, run_document
    from auditflow.eval.workbook import write_workbook

    out.mkdir(parents=True, exist_ok=True)
    charts: list[Path] = []
    not_drawn = None  # why the charts could not be drawn: results.md then says so instead of linking them
    if not args.no_charts:
        try:
            charts = write_charts(report, out)
        except ChartsUnavailable as exc:
            not_drawn = str(exc)
            err.print(f"[yellow]{escape(not_drawn)}[/yellow]")
    per_config = config_timings(report.configs, run.timings)
    files = {"results.md": render_markdown(report, charts_not_drawn=not_drawn),
             "results.json": dump_json(results_document(report)),
             RUN_FILE: dump_json(run_document(command=report.command, out=str(out), record_mode=args.record_mode,
                                              jobs=args.jobs, wall_seconds=wall, per_config=per_config,
                                              timings=run.timings))}
    if behaviour is not None:  # --behaviour: its table after the rest, its rows and chart beside
        from auditflow.eval.behaviour import CHART, behaviour_chart, behaviour_markdown

        files["results.md"] += "\n" + behaviour_markdown(behaviour)
        files["behaviour.json"] = dump_json({"rows": [r.to_json() for r in behaviour]})
        if not args.no_charts and not_drawn is None:
            charts.append(behaviour_chart(behaviour, out / CHART))
    for name, text in files.items():
        write_text(out / name, text)
    written = [out / name for name in files]
    write_workbook(report, out / "results.xlsx")
    written.append(out / "results.xlsx")
    return written + charts, per_config


def _html_collector(args, redact):
    """With --html, runs cases keeping what the HTML report shows of each (None: run_eval's own runner)."""
    if not getattr(args, "html", None):
        return None
    from auditflow.html.payload import PayloadCollector

    return PayloadCollector(redact)


def _write_html(path: Path, report, run, case_set, collector) -> Path:
    from auditflow.html.payload import eval_entries
    from auditflow.html.render import write_html
    from auditflow.html.suite_page import render_suite

    models = ", ".join(dict.fromkeys(c.model for c in report.configs))
    entries = eval_entries(report, run, case_set.cases, collector)
    return write_html(path, render_suite(entries, title=f"AuditFlow eval: {len(report.cases)} case(s)",
                                         settings={"model": models, "skipped cases": len(report.skipped) or None},
                                         configs=[c.name for c in report.configs], command=report.command))


def _write_used_keys(path: Path, timings) -> Path:
    """The union of the cache keys every case of the run read or wrote (several such files together,
    the plugin's --auditflow-used-keys among them, are what a prune keeps)."""
    from auditflow.llm.cache_cmd import write_used_keys

    write_used_keys(path, (k for t in timings for k in t.cache_keys))
    return path


def _pct1(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _print_summary(console: Console, report, written: list[Path], run, timings) -> None:
    from auditflow.eval.markdown import pp, rerecord_command

    models = ", ".join(dict.fromkeys(c.model for c in report.configs))
    t = Table(title=f"AuditFlow eval: {len(report.cases)} case(s), model {escape(models)}", title_justify="left",
              box=box.SIMPLE_HEAVY, pad_edge=False)
    for col in ("config", "Joint ACC", "VAcc", "cons.VAcc", "SER", "EER", "CER", "invalid"):
        t.add_column(col, justify="left" if col == "config" else "right", no_wrap=True)
    for c in report.configs:
        m = report.metrics[c.name]
        cons = m.by_decision["consistent"]
        t.add_row(c.name, *(_pct1(x) for x in (m.joint_acc, m.total.vacc, cons.vacc, m.rate("S"), m.rate("E"),
                                               m.rate("C"), m.invalid_rate)))
    console.print(t)
    for comp in report.comparisons:
        r = comp.result
        console.print(f"{escape(comp.reference)} vs {escape(comp.other)}: {pp(r.difference)} pp "
                      f"[{pp(r.low)}, {pp(r.high)}], p = {r.p_value:.4f}")
    per_case = ", ".join(f"{escape(t.config)} {t.seconds_mean:.2f}" for t in timings if t.seconds_mean is not None)
    if per_case:
        console.print(f"seconds per case (wall clock of this run, in run.json): {per_case}")
    live = "; ".join(f"{escape(t.config)} {m['calls']:g} calls, {m['prompt_tokens']:g} prompt + "
                     f"{m['completion_tokens']:g} completion tokens, {m['seconds']:.2f}s"
                     for t in timings if (m := t.live_mean) is not None)
    if live:  # only a run that called a model
        console.print(f"live model calls, mean per case (in run.json): {live}")
    if problems := report.problems():
        inputs = sum(r.error_kind == "input" for _, r in problems)  # an input error of the case: in no rate
        how = ("counted as S" if not inputs else "input errors of the cases, in no rate" if inputs == len(problems)
               else f"{inputs} input error(s) of the cases, in no rate; the rest counted as S")
        console.print(f"[red]{len(problems)} run(s) without an audit result[/red] ({how}; listed in results.md)")
    if run.skipped:
        console.print(f"[yellow]{len(run.skipped)} case(s) skipped[/yellow]: {escape(run.skipped[0].reason)}")
    missed = list(dict.fromkeys(c for c, r in report.problems() if r.error_kind == "cache_miss"))
    if missed:
        console.print(f"[red]LLM cache misses[/red] in {', '.join(missed)}; record them with:\n  "
                      f"{escape(rerecord_command(report, missed))}", soft_wrap=True)
    console.print("wrote " + ", ".join(escape(str(p)) for p in written), soft_wrap=True)
