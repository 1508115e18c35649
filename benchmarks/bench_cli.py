"""``auditflow check aapl-10k-2023-09-30 --format json`` end to end, beside Arelle's command line.

    python benchmarks/bench_cli.py [--data-root DIR] [--repeat 7] [--arelle PATH/TO/arelleCmdLine]
                                   [--compare OTHER_CHECKOUT] [--json out.json]

Each command runs as a child process, interleaved round by round; per run the wall clock, the
child's CPU time (user + system) and its peak resident memory (``os.wait4``'s rusage). Medians are
reported. AuditFlow runs with a warm cache directory of its own (one untimed run first):

  * **as installed**: bytecode cached (``PYTHONDONTWRITEBYTECODE`` unset, ``PYTHONPYCACHEPREFIX`` in a
    temp dir), as a ``pip install`` has it; the filing cache on (the default: a hit after the first run);
  * **filing cache off**: the same with ``AUDITFLOW_FILING_CACHE=off`` (every run parses the filing).

Arelle (``arelle-release`` from PyPI, in a virtual environment of its own) loads the same instance
with ``--internetConnectivity offline``: it reads the filer's DTS, cannot fetch the standard
taxonomies, and runs no DQC rules (the DQC rules for Arelle are a separate plugin, not on PyPI); so
it is a load of the filing, not the same work as the check.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import common_args, data_root_of, load_average, machine_line, markdown_table

APPLE = "aapl-10k-2023-09-30"


def run(cmd: list[str], env: dict) -> dict:
    t = time.perf_counter()
    # from the tree under test: ``python -m`` puts the working folder first on sys.path
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=env.get("PYTHONPATH"))
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "peak_mb": ru.ru_maxrss / 1024, "rc": proc.returncode}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common_args(parser)
    parser.add_argument("--arelle", help="arelleCmdLine to measure beside (default: none)")
    parser.add_argument("--compare", metavar="DIR", help="another checkout (e.g. a git worktree of an older commit): "
                                                         "its auditflow check is run beside, as python -m from DIR")
    args = parser.parse_args(argv)
    data_root = data_root_of(args)
    repeat = args.repeat
    exe = Path(sys.executable).with_name("auditflow")
    head_cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "auditflow.cli.main"]
    check = [*head_cmd, "check", APPLE, "--format", "json", "--data-root", str(data_root)]
    tmp = Path(tempfile.mkdtemp(prefix="af-bench-cli-"))
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "AUDITFLOW_FILING_CACHE")}
    base["AUDITFLOW_CACHE_DIR"] = str(tmp / "cache")
    installed = base | {"PYTHONPYCACHEPREFIX": str(tmp / "pyc")}
    commands = {
        "auditflow check, as installed": (check, installed),
        "auditflow check, filing cache off": (check, installed | {"AUDITFLOW_FILING_CACHE": "off"}),
    }
    if args.compare:
        other = Path(args.compare).resolve()
        old = [sys.executable, "-m", "auditflow.cli.main", *check[len(head_cmd):]]
        tree = {"PYTHONPATH": str(other), "AUDITFLOW_CACHE_DIR": str(tmp / "cache-compare")}
        commands[f"auditflow check at {other.name}/, as installed"] = (old, installed | tree)
        commands[f"auditflow check at {other.name}/, filing cache off"] = (old, installed | tree | {"AUDITFLOW_FILING_CACHE": "off"})
    if args.arelle:
        instance = data_root / "filings" / APPLE / "aapl-20230930_htm.xml"
        commands["Arelle load (offline)"] = ([args.arelle, "--file", str(instance), "--internetConnectivity", "offline",
                                               "--logLevel", "error", "--logFile", str(tmp / "arelle.log")], dict(os.environ))
    head = {"start": machine_line()}
    for cmd, env in commands.values():  # warm-up: fills the caches
        run(cmd, env)
    results: dict[str, list[dict]] = {k: [] for k in commands}
    for _ in range(repeat):
        for name, (cmd, env) in commands.items():
            results[name].append(run(cmd, env))
    head["load_end"] = load_average()
    rows = []
    for name, rs in results.items():
        med = {k: statistics.median(r[k] for r in rs) for k in ("wall", "cpu", "peak_mb")}
        rows.append([name, f"{med['wall']:.3f}", f"{med['cpu']:.3f}", f"{med['peak_mb']:.0f}",
                     f"{min(r['cpu'] for r in rs):.3f}-{max(r['cpu'] for r in rs):.3f}", ",".join(sorted({str(r['rc']) for r in rs}))])
    print(head["start"])
    print(f"- load average at end {head['load_end']}; {repeat} timed runs each, interleaved, after one warm-up")
    print()
    print(markdown_table(["command", "wall s (median)", "CPU s (median)", "peak MB (median)", "CPU s range", "exit"], rows))
    if args.json:
        Path(args.json).write_text(json.dumps({"head": head, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
