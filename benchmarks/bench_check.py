"""The three DQC rules per filing, beside the load alone; and ``auditflow check`` end to end.

    python benchmarks/bench_check.py [--data-root DIR] [--filings a,b] [--repeat 3] [--json out.json]

Per filing, warm (taxonomy graph from the disk cache), in one process and interleaved:
  * load alone: TaxonomySet.discover + load_taxonomy_graph + load_filing + build_environment;
  * load + rules: the same, then run_rules (0015, 0117, 0126); the rules part is timed on its own.
Goal: rules add less than the load itself (rules / load < 1).
The loads here parse the filing every time (no filing cache).
Then ``auditflow check aapl-10k-2023-09-30 --format json`` as a subprocess: one warm-up run, then
``--repeat`` timed runs (median), with AUDITFLOW_CACHE_DIR pointing at the same warm cache: as the
CLI runs by default (the warm-up run fills the filing cache, the timed runs hit it) and with
``AUDITFLOW_FILING_CACHE=off`` (every run parses). Goal: under 1 s.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import (REPO, build, common_args, data_root_of, filing_dirs, fmt_s, fmt_x, load_average,
                     machine_line, markdown_table, median, preload, timed, warm_taxonomy)

APPLE = "aapl-10k-2023-09-30"
CLI_GOAL_S = 1.0


def load_only(path: Path, data_root: Path, cache: Path) -> float:
    return timed(lambda: build(path, *warm_taxonomy(data_root, cache)))[0]


def load_and_rules(path: Path, data_root: Path, cache: Path) -> dict:
    """One warm run with the rules: total, load part, rules part and each rule's own time."""
    from auditflow.rules.runner import run_rules

    out: dict = {}

    def run():
        t = time.perf_counter()
        env = build(path, *warm_taxonomy(data_root, cache))
        out["load"] = time.perf_counter() - t
        t = time.perf_counter()
        out["per_rule"] = dict(run_rules(env, data_root=data_root).timings)
        out["rules"] = time.perf_counter() - t

    out["total"] = timed(run)[0]
    return out


def bench_filing(path: Path, data_root: Path, cache: Path, repeat: int) -> dict:
    row: dict = {"load_alone": [], "total": [], "load": [], "rules": [], "per_rule": {}}
    try:
        for _ in range(repeat):
            row["load_alone"].append(load_only(path, data_root, cache))
            run = load_and_rules(path, data_root, cache)
            for k in ("total", "load", "rules"):
                row[k].append(run[k])
            for rule, secs in run["per_rule"].items():
                row["per_rule"].setdefault(rule, []).append(secs)
    except Exception as exc:  # noqa: BLE001 - one broken filing or rule must not hide the others
        row["error"] = f"{type(exc).__name__}: {str(exc)[:160]}"
    return row


def cli_command(filing: str, data_root: Path) -> list[str]:
    exe = Path(sys.executable).with_name("auditflow")
    head = [str(exe)] if exe.exists() else [sys.executable, "-m", "auditflow.cli.main"]
    return [*head, "check", filing, "--format", "json", "--data-root", str(data_root)]


def cli_env(cache: Path, pyc_dir: str | None, filing_cache: bool = True) -> dict:
    """The CLI's environment: the shared warm cache; with ``pyc_dir``, bytecode caching switched on
    (this sandbox sets PYTHONDONTWRITEBYTECODE, so by default every run recompiles AuditFlow);
    ``filing_cache=False`` sets AUDITFLOW_FILING_CACHE=off."""
    env = {**os.environ, "AUDITFLOW_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO)}
    env["AUDITFLOW_FILING_CACHE"] = "on" if filing_cache else "off"
    if pyc_dir is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = pyc_dir
    return env


def bench_cli(filing: str, data_root: Path, env: dict, repeat: int) -> dict:
    """Warm-up run, then ``repeat`` timed runs of the CLI; exit 0 (clean) and 1 (findings) both count."""
    cmd = cli_command(filing, data_root)
    result: dict = {"command": " ".join(cmd), "runs": []}
    for i in range(repeat + 1):
        secs, proc = timed(lambda: subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True))
        if proc.returncode not in (0, 1):
            tail = (proc.stderr.strip().splitlines() or ["(no stderr)"])[-1]
            result["error"] = f"exit {proc.returncode}: {tail[:200]}"
            return result
        if i == 0:
            result["warmup"] = secs
        else:
            result["runs"].append(secs)
    result["median"] = median(result["runs"])
    return result


def bench_clis(filing: str, data_root: Path, cache: Path, repeat: int) -> dict:
    """The CLI as this environment runs it and, if that forbids bytecode caching, as an install with .pyc files."""
    out = {"as_is": bench_cli(filing, data_root, cli_env(cache, None), repeat),
           "as_is_no_filing_cache": bench_cli(filing, data_root, cli_env(cache, None, filing_cache=False), repeat)}
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        with tempfile.TemporaryDirectory(prefix="auditflow-bench-pyc-") as pyc:
            out["with_pyc"] = bench_cli(filing, data_root, cli_env(cache, pyc), repeat)
    return out


def render(rows: dict, cli: dict, head: dict) -> str:
    headers = ["filing", "load alone s", "load + rules s", "rules s", "0015 s", "0117 s", "0126 s", "rules / load", "rules < load"]
    body = []
    for name, r in rows.items():
        if "error" in r:
            body.append([name, *["error"] * 7, r["error"]])
            continue
        load, rules = median(r["load_alone"]), median(r["rules"])
        per = [fmt_s(median(r["per_rule"].get(k, []))) for k in ("0015", "0117", "0126")]
        body.append([name, fmt_s(load), fmt_s(median(r["total"])), fmt_s(rules), *per, fmt_x(rules / load),
                     "yes" if rules < load else "**no**"])
    state = f"built now in {head['cold_s']:.2f} s" if head["cold_s"] else "already warm"
    lines = [head["machine"], f"- taxonomy cache: {head['cache']} ({state})", "", markdown_table(headers, body), "", *verdicts(rows, cli)]
    lines.append(f"- load average at end: {load_average()}")
    return "\n".join(lines)


def verdicts(rows: dict, cli: dict) -> list[str]:
    ok = [n for n, r in rows.items() if "error" not in r]
    over = [n for n in ok if median(rows[n]["rules"]) >= median(rows[n]["load_alone"])]
    out = [f"- rules add less than the load on every filing: {'MET' if ok and not over else 'MISSED'} "
           f"({len(ok) - len(over)} of {len(rows)}" + (f"; not on {', '.join(over)}" if over else "") + ")"]
    errors = [n for n, r in rows.items() if "error" in r]
    if errors:
        out.append("- errors: " + ", ".join(f"{n} ({rows[n]['error']})" for n in errors))
    for kind, res in cli.items():
        out.append(cli_verdict(kind, res))
    return out


def cli_verdict(kind: str, res: dict) -> str:
    nopyc = " (PYTHONDONTWRITEBYTECODE set: AuditFlow is recompiled every run)" if os.environ.get("PYTHONDONTWRITEBYTECODE") else ""
    how = {"as_is": f"as this environment runs it{nopyc}, filing cache hit",
           "as_is_no_filing_cache": f"as this environment runs it{nopyc}, AUDITFLOW_FILING_CACHE=off (re-parse)",
           }.get(kind, "with bytecode caching (.pyc, as a pip install has), filing cache hit")
    head = f"- `auditflow check {APPLE} --format json` {how}, under {CLI_GOAL_S} s warm:"
    if "error" in res:
        return f"{head} NOT MEASURED (the command failed: {res['error']})"
    runs = ", ".join(f"{s:.3f}" for s in res["runs"])
    return (f"{head} {'MET' if res['median'] < CLI_GOAL_S else 'MISSED'} (median {res['median']:.3f} s; runs {runs}; "
            f"warm-up run {res['warmup']:.3f} s)\n  command: `{res['command']}`")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common_args(parser)
    parser.add_argument("--cache-dir", help="taxonomy cache dir (default: $AUDITFLOW_CACHE_DIR, else a temporary one)")
    args = parser.parse_args(argv)
    data_root, machine = data_root_of(args), machine_line()
    preload()
    dirs = filing_dirs(data_root, args.filings)
    given = args.cache_dir or os.environ.get("AUDITFLOW_CACHE_DIR")
    cache = Path(given) if given else Path(tempfile.mkdtemp(prefix="auditflow-bench-cache-"))
    try:
        secs, (_, graph) = timed(lambda: warm_taxonomy(data_root, cache))
        head = {"machine": machine, "cache": str(cache), "cold_s": None if graph.from_cache else secs}
        rows = {d.name: bench_filing(d, data_root, cache, args.repeat) for d in dirs}
        cli = bench_clis(APPLE, data_root, cache, args.repeat)
    finally:
        if not given:
            shutil.rmtree(cache, ignore_errors=True)
    print(render(rows, cli, head))
    if args.json:
        Path(args.json).write_text(json.dumps({"head": head, "filings": rows, "cli": cli}, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
