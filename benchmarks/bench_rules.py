"""Every registered DQC rule on every real filing, and its share of ``auditflow check`` on Apple FY2023.

    python benchmarks/bench_rules.py [--data-root DIR] [--filings a,b] [--repeat 5] [--json out.json]

Per filing the environment is built once (warm taxonomy graph from the disk cache, as the CLI does),
then each rule runs ``--repeat`` times; the median of each rule is reported, with the sum over all
rules. Then ``auditflow check aapl-10k-2023-09-30 --format json`` end to end as a subprocess, with
``--rules all`` and with the first three rules only (``--rules 15,117,126``), interleaved (one warm-up
each, then ``--repeat`` timed pairs; medians of wall-clock and of CPU time, user + system, of the child),
so the rules' share of the command is measured, not estimated, and a busy machine slows both alike.
Goal from issue 19: the command under 1 s with all rules.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from _common import (build, common_args, data_root_of, filing_dirs, fmt_s, load_average, machine_line,
                     markdown_table, median, preload, run_cli, warm_taxonomy)
from bench_check import APPLE, CLI_GOAL_S, cli_command, cli_env

from auditflow.rules import registry
from auditflow.rules.resources import Resources


def bench_filing(path: Path, data_root: Path, cache: Path, repeat: int) -> dict[str, list[float]]:
    env = build(path, *warm_taxonomy(data_root, cache))
    resources = Resources(data_root)
    times: dict[str, list[float]] = {}
    for _ in range(repeat):
        for rule, spec in registry.rules().items():
            t = time.perf_counter()
            spec.run(env, resources)
            times.setdefault(rule, []).append(time.perf_counter() - t)
    return times


RULE_SETS = {"all rules": "all", "first three (0015, 0117, 0126)": "15,117,126"}


def bench_cli_pairs(data_root: Path, cache: Path, repeat: int) -> dict:
    env = cli_env(cache, None)
    cmds = {name: [*cli_command(APPLE, data_root), "--rules", rules] for name, rules in RULE_SETS.items()}
    out = {name: {"wall": [], "cpu": []} for name in cmds}
    for i in range(repeat + 1):
        for name, cmd in cmds.items():
            wall, cpu, _ = run_cli(cmd, env)
            if i:  # the first round warms the filing cache
                out[name]["wall"].append(wall)
                out[name]["cpu"].append(cpu)
    return out


def render(rows: dict, cli: dict, head: str) -> str:
    rules = list(registry.rule_ids())
    headers = ["filing", "all rules s", *[f"{r} ms" for r in rules]]
    body = []
    for name, times in rows.items():
        per = {r: median(times[r]) for r in rules}
        body.append([name, fmt_s(sum(per.values())), *[f"{per[r] * 1000:.1f}" for r in rules]])
    totals = {r: sum(median(rows[n][r]) for n in rows) for r in rules}
    body.append(["**all filings**", fmt_s(sum(totals.values())), *[f"{totals[r] * 1000:.0f}" for r in rules]])
    lines = [head, "", markdown_table(headers, body), ""]
    for name, res in cli.items():
        wall, cpu = median(res["wall"]), median(res["cpu"])
        verdict = "MET" if wall < CLI_GOAL_S else "MISSED"
        lines.append(f"- `auditflow check {APPLE}` with {name}: wall median {wall:.3f} s "
                     f"(runs {', '.join(f'{s:.3f}' for s in res['wall'])}), CPU median {cpu:.3f} s — under "
                     f"{CLI_GOAL_S:.0f} s: {verdict}")
    names = list(cli)
    if len(names) == 2:
        extra_wall = median(cli[names[0]]["wall"]) - median(cli[names[1]]["wall"])
        extra_cpu = median(cli[names[0]]["cpu"]) - median(cli[names[1]]["cpu"])
        lines.append(f"- the rules added since the first three cost {extra_wall * 1000:+.0f} ms wall, "
                     f"{extra_cpu * 1000:+.0f} ms CPU (median difference)")
    lines.append(f"- load average at end: {load_average()}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common_args(parser)
    parser.add_argument("--cache-dir", help="taxonomy cache dir (default: $AUDITFLOW_CACHE_DIR, else a temporary one)")
    args = parser.parse_args(argv)
    data_root = data_root_of(args)
    preload()
    given = args.cache_dir or os.environ.get("AUDITFLOW_CACHE_DIR")
    cache = Path(given) if given else Path(tempfile.mkdtemp(prefix="auditflow-bench-cache-"))
    try:
        warm_taxonomy(data_root, cache)
        rows = {d.name: bench_filing(d, data_root, cache, args.repeat) for d in filing_dirs(data_root, args.filings)}
        cli = bench_cli_pairs(data_root, cache, args.repeat)
    finally:
        if not given:
            shutil.rmtree(cache, ignore_errors=True)
    print(render(rows, cli, machine_line()))
    if args.json:
        Path(args.json).write_text(json.dumps({"filings": rows, "cli": cli}, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
