"""Every registered DQC rule on every real filing, and its share of ``auditflow check`` on Apple FY2023.

    python benchmarks/bench_rules.py [--data-root DIR] [--filings a,b] [--repeat 5] [--json out.json]

Per filing the environment is built once (warm taxonomy graph from the disk cache, as the CLI does),
then each rule runs ``--repeat`` times; the median of each rule is reported, with the sum over all
rules. Then ``auditflow check aapl-10k-2023-09-30 --rules all --format json`` end to end as a
subprocess (one warm-up, then ``--repeat`` timed runs, median; as this environment runs it and, where
bytecode caching is off, also with .pyc files), so the rules' share of the command is measured, not
estimated. Goal from issue 19: the command under 1 s with all rules.
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
                     markdown_table, median, preload, warm_taxonomy)
from bench_check import APPLE, CLI_GOAL_S, bench_clis

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
    apple = rows.get(APPLE)
    for kind, res in cli.items():
        if "median" not in res:
            lines.append(f"- `auditflow check {APPLE}` ({kind}): {res.get('error', 'no result')}")
            continue
        share = f"; the rules' share {sum(median(apple[r]) for r in rules) / res['median']:.0%}" if apple else ""
        verdict = "MET" if res["median"] < CLI_GOAL_S else "MISSED"
        lines.append(f"- `auditflow check {APPLE} --rules all` ({kind}): median {res['median']:.3f} s "
                     f"(runs {', '.join(f'{s:.3f}' for s in res['runs'])}) — under {CLI_GOAL_S:.0f} s: {verdict}{share}")
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
        cli = bench_clis(APPLE, data_root, cache, args.repeat)
    finally:
        if not given:
            shutil.rmtree(cache, ignore_errors=True)
    print(render(rows, cli, machine_line()))
    if args.json:
        Path(args.json).write_text(json.dumps({"filings": rows, "cli": cli}, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
