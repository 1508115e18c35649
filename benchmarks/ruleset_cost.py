"""What the larger DQC ruleset costs: every registered rule against the 29 rules of before issue 42.

    python benchmarks/ruleset_cost.py [--data-root DIR] [--filings a,b] [--repeat 5] [--cli-repeat 5]
                                      [--cache-dir DIR] [--json out.json]

Issue 42 asks that ``auditflow check --rules all`` run at least 60 rule families on each of the 29
real filings without crashing, and that its cost be reported beside the ruleset of before (``TODAY``,
the 29 rules registered when the issue was opened). Two views, in one run:

1. **In process**, per filing: the environment is built once, as ``auditflow check`` builds it (an
   :class:`EnvironmentFactory` with the taxonomy set and no taxonomy graph, the check's default;
   the filing cache as the command uses it), and set aside from the collector as the command does
   (auditflow/cli/gc_policy.py). Then ``run_rules`` (the check's own runner: rules, not-run records,
   findings dressed) with ``TODAY`` and with ``all``, alternating, the order swapped every round
   (A B, B A, ...), after one warm-up round that is not counted (the environment's lazy indexes
   are built there, by whichever rule first asks). CPU seconds (process time) and wall seconds, median
   per filing, summed over the filings; the ratio all / today's of the sums. CPU time is the figure
   to read on a shared machine: waiting for a core does not count in it.
   Every ``all`` run must finish without raising and run at least ``MIN_FAMILIES`` rules (a rule
   registered with a ``cannot_run`` reason is reported "not run" and does not count); the script
   exits 2 when any filing misses either.
2. **The command**: ``auditflow check --rules all <the 29 names> --format json`` against
   ``--rules <TODAY>`` as whole processes, one warm-up each (it fills the filing cache), then
   ``--cli-repeat`` pairs, alternating; wall seconds and the child's CPU seconds (user + system).
   The warm-up of ``all`` is read back: it must exit 0 or 1 and report every filing with at least
   ``MIN_FAMILIES`` rules run.

Figures and commands are recorded in docs/benchmarks.md ("The larger ruleset's cost (issue 42)").
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from _common import (common_args, data_root_of, filing_dirs, load_average, machine_line, markdown_table,
                     median, preload, run_cli)

# The 29 rules registered before issue 42 (docs/benchmarks.md, "The registered DQC rules").
TODAY = ("0004", "0005", "0006", "0008", "0009", "0015", "0033", "0036", "0041", "0043", "0044", "0046",
         "0051", "0052", "0053", "0054", "0055", "0060", "0062", "0068", "0073", "0076", "0089", "0095",
         "0098", "0117", "0118", "0123", "0126")
MIN_FAMILIES = 60  # issue 42: "runs >= 60 rule families"


def clocks(fn):
    """(CPU seconds, wall seconds, result) of one call."""
    c, w = time.process_time(), time.perf_counter()
    out = fn()
    return time.process_time() - c, time.perf_counter() - w, out


def bench_filing(factory, name: str, rule_sets: dict[str, tuple[str, ...]], repeat: int) -> dict:
    """Both rule sets on one environment, alternating; the ``all`` runs' failures and rule counts."""
    from auditflow.cli.gc_policy import set_aside
    from auditflow.rules.runner import run_rules

    env = factory.build(name)
    set_aside()
    row: dict = {s: {"cpu": [], "wall": []} for s in rule_sets}
    row.update(errors=[], ran=None, not_run=None, per_rule={})
    order = list(rule_sets)
    for rnd in range(repeat + 1):
        for s in (order if rnd % 2 == 0 else order[::-1]):
            try:
                cpu, wall, report = clocks(lambda: run_rules(env, rule_sets[s], data_root=factory.data_root))
            except Exception as exc:  # noqa: BLE001 - recorded, and the script fails at the end
                row["errors"].append(f"{s}: {type(exc).__name__}: {str(exc)[:160]}")
                continue
            if s == "all":
                row["ran"] = len(report.results) - len(report.not_run)
                row["not_run"] = sorted(report.not_run)
                if rnd:
                    for rule, secs in report.timings.items():
                        row["per_rule"].setdefault(rule, []).append(secs)
            if rnd:  # round 0 warms the environment's lazy indexes
                row[s]["cpu"].append(cpu)
                row[s]["wall"].append(wall)
    return row


def families_per_filing(stdout: str) -> dict[str, int]:
    """Rules run per filing in a ``--format json`` report: every rule with a count, less the not run."""
    return {f["filing"]: len(f["checked"]) - len(f["not_run"]) for f in json.loads(stdout)["filings"]}


def bench_cli(names: list[str], rule_args: dict[str, str], data_root: Path, cache: Path, repeat: int) -> dict:
    from bench_check import cli_command, cli_env

    env = cli_env(cache, None)
    head = cli_command(names[0], data_root)  # [..., "check", first, "--format", "json", "--data-root", root]
    cmds = {s: [*head[:-5], *names, *head[-4:], "--rules", r] for s, r in rule_args.items()}
    out: dict = {s: {"wall": [], "cpu": []} for s in cmds}
    order = list(cmds)
    for rnd in range(repeat + 1):
        for s in (order if rnd % 2 == 0 else order[::-1]):
            wall, cpu, stdout = run_cli(cmds[s], env)
            if rnd == 0 and s == "all":
                out["families"] = families_per_filing(stdout)
            if rnd:
                out[s]["wall"].append(wall)
                out[s]["cpu"].append(cpu)
    return out


def ratio(a: float | None, b: float | None) -> str:
    return "n/a" if not a or not b else f"{a / b:.2f}x"


def render(rows: dict, cli: dict, n_rules: int) -> str:
    head = ["filing", "rules run (all)", "today's CPU ms", "all CPU ms", "all / today's CPU", "today's wall ms",
            "all wall ms", "all / today's wall"]
    body, sums = [], {k: 0.0 for k in ("tc", "ac", "tw", "aw")}
    for name, r in rows.items():
        tc, ac = median(r["today"]["cpu"]), median(r["all"]["cpu"])
        tw, aw = median(r["today"]["wall"]), median(r["all"]["wall"])
        for k, v in zip(sums, (tc, ac, tw, aw)):
            sums[k] += v or 0.0
        body.append([name, str(r["ran"]), *(f"{v * 1000:.1f}" if v is not None else "n/a" for v in (tc, ac)),
                     ratio(ac, tc), *(f"{v * 1000:.1f}" if v is not None else "n/a" for v in (tw, aw)), ratio(aw, tw)])
    body.append([f"**all {len(rows)} filings**", "", f"{sums['tc'] * 1000:.0f}", f"{sums['ac'] * 1000:.0f}",
                 f"**{ratio(sums['ac'], sums['tc'])}**", f"{sums['tw'] * 1000:.0f}", f"{sums['aw'] * 1000:.0f}",
                 f"**{ratio(sums['aw'], sums['tw'])}**"])
    lines = [f"- rules: today's {len(TODAY)}, all {n_rules} registered", "", markdown_table(head, body), ""]
    per_rule = {}
    for r in rows.values():
        for rule, secs in r["per_rule"].items():
            per_rule[rule] = per_rule.get(rule, 0.0) + median(secs)
    top = sorted(per_rule.items(), key=lambda kv: -kv[1])[:12]
    lines.append("- slowest rules in the `all` runs (sum over the filings of each rule's median wall ms; "
                 "* = not in today's set): " + ", ".join(f"{r}{'' if r in TODAY else '*'} {s * 1000:.0f}"
                                                          for r, s in top))
    new = sum(s for r, s in per_rule.items() if r not in TODAY)
    lines.append(f"- the rules not in today's set, together: {new * 1000:.0f} ms wall over the filings")
    if cli:
        for s, flag in (("today", "<today's 29>"), ("all", "all")):
            c = cli[s]
            lines.append(f"- `auditflow check --rules {flag}` on the {len(rows)} filings in one process: CPU median "
                         f"{median(c['cpu']):.3f} s (runs {', '.join(f'{v:.2f}' for v in c['cpu'])}), wall median "
                         f"{median(c['wall']):.3f} s (runs {', '.join(f'{v:.2f}' for v in c['wall'])})")
        pairs = [a / t for a, t in zip(cli["all"]["cpu"], cli["today"]["cpu"])]
        wpairs = [a / t for a, t in zip(cli["all"]["wall"], cli["today"]["wall"])]
        lines.append(f"- the command, all / today's, pair by pair: CPU median {median(pairs):.2f}x "
                     f"({min(pairs):.2f}-{max(pairs):.2f}), wall median {median(wpairs):.2f}x "
                     f"({min(wpairs):.2f}-{max(wpairs):.2f})")
        fam = cli["families"]
        lines.append(f"- the command's `all` report: {len(fam)} filings, rules run per filing "
                     f"{min(fam.values())}-{max(fam.values())}")
    lines.append(f"- load average at end: {load_average()}")
    return "\n".join(lines)


def failures(rows: dict, cli: dict, expected: int) -> list[str]:
    """What breaks issue 42's bar: an ``all`` run that raised, a filing with fewer than 60 rules run."""
    bad = [f"{n}: {e}" for n, r in rows.items() for e in r["errors"]]
    bad += [f"{n}: {r['ran']} rules ran" for n, r in rows.items() if (r["ran"] or 0) < MIN_FAMILIES]
    if cli:
        fam = cli["families"]
        if len(fam) != expected:
            bad.append(f"the command reported {len(fam)} filings, not {expected}")
        bad += [f"the command, {n}: {k} rules ran" for n, k in fam.items() if k < MIN_FAMILIES]
    return bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common_args(parser)
    parser.set_defaults(repeat=5)
    parser.add_argument("--cli-repeat", type=int, default=5, help="timed pairs of the command (0: skip it)")
    parser.add_argument("--cache-dir", help="AuditFlow's cache dir (default: $AUDITFLOW_CACHE_DIR, else a temporary one)")
    args = parser.parse_args(argv)
    data_root = data_root_of(args)
    preload()
    given = args.cache_dir or os.environ.get("AUDITFLOW_CACHE_DIR")
    cache = Path(given) if given else Path(tempfile.mkdtemp(prefix="auditflow-bench-cache-"))
    os.environ["AUDITFLOW_CACHE_DIR"] = str(cache)  # the in-process factory and the command share it
    from auditflow.graphs.factory import EnvironmentFactory
    from auditflow.rules import registry

    rule_sets = {"today": TODAY, "all": registry.parse_rules("all")}
    names = [d.name for d in filing_dirs(data_root, args.filings)]
    print(machine_line(), flush=True)
    try:
        factory = EnvironmentFactory(data_root, taxonomy_graph=False)  # as `auditflow check` makes it
        rows = {n: bench_filing(factory, n, rule_sets, args.repeat) for n in names}
        cli = (bench_cli(names, {"today": ",".join(TODAY), "all": "all"}, data_root, cache, args.cli_repeat)
               if args.cli_repeat else {})
    finally:
        if not given:
            shutil.rmtree(cache, ignore_errors=True)
    print(render(rows, cli, len(rule_sets["all"])))
    if args.json:
        Path(args.json).write_text(json.dumps({"filings": rows, "cli": cli}, indent=2, sort_keys=True) + "\n")
    bad = failures(rows, cli, len(names))
    for line in bad:
        print(f"FAILED: {line}")
    return 2 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
