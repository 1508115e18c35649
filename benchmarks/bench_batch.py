"""``auditflow check --batch`` on a 1,000-filing batch: 1 worker, 2 workers and the cluster recipe, in one run.

    python benchmarks/bench_batch.py [--count 1000] [--batch-dir DIR] [--seed 43] [--json out.json]

The batch is made by benchmarks/make_mutation_batch.py (the 29 real filings and seeded mutations of
them, by the project's mutation module) in a temporary folder, unless ``--batch-dir`` names one made
before. Then, one after another in this run, the same batch is checked by the command a user types:

1. ``--workers 1`` (a local cluster of one worker process);
2. ``--workers 2``;
3. the recipe of docs/batch.md: ``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1,
   then ``--scheduler``.

Every run parses every filing (``AUDITFLOW_FILING_CACHE=off``: a new filing is never in the cache, and
1,000 filings would only churn its 64 entries). Reported per run: wall seconds from the command's
start to its exit, filings per second, the seconds to the first result line (the cluster's start,
the client's hashing) and the rate after it, the mean of the per-filing seconds the workers report, the
CPU seconds of the worker processes, of the client and of the recipe's scheduler, and each worker process's peak resident memory (sampled every 0.2 s
with psutil). The 1-minute load average before and after each run says how much other work shared
the machine.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from _common import REPO, load_average, machine_line, markdown_table

import make_mutation_batch  # noqa: E402  (benchmarks/ is this script's folder)
from auditflow.dataroot import resolve_data_root  # noqa: E402
from auditflow.llm.serve import free_port  # noqa: E402

BIN = Path(sys.executable).parent


class PeakMemory:
    """The peak RSS of each worker process under ``roots`` (the processes and their descendants)."""

    def __init__(self, roots: list[int], out: Path) -> None:
        import psutil

        self.psutil, self.roots, self.out = psutil, roots, out
        self.t0 = time.perf_counter()
        self.first_record: float | None = None  # seconds from the start to the first line of the results
        self.peak: dict[int, int] = {}
        self.cpu: dict[int, float] = {}  # the last user + system seconds seen of each worker process
        self.root_cpu: dict[int, float] = {}  # the same of the client (and of the recipe's scheduler)
        self.names: dict[int, str] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            if self.first_record is None and self.out.exists() and self.out.stat().st_size:
                self.first_record = time.perf_counter() - self.t0
            for root in self.roots:
                try:
                    top = self.psutil.Process(root)
                    cpu = top.cpu_times()
                    self.root_cpu[root] = cpu.user + cpu.system
                    procs = top.children(recursive=True)
                except self.psutil.Error:
                    continue
                for p in procs:
                    try:
                        cmd = " ".join(p.cmdline())
                        rss = p.memory_info().rss
                        cpu = p.cpu_times()
                    except self.psutil.Error:
                        continue
                    if "multiprocessing" in cmd and "spawn_main" in cmd:  # a dask worker process
                        self.peak[p.pid] = max(self.peak.get(p.pid, 0), rss)
                        self.cpu[p.pid] = cpu.user + cpu.system
            self._stop.wait(0.2)

    def workers_mib(self) -> list[float]:
        return sorted((v / 2**20 for v in self.peak.values()), reverse=True)


def run_batch(batch: Path, out: Path, extra: list[str], env: dict, roots_extra: list[int] = ()) -> dict:
    cmd = [str(BIN / "auditflow"), "check", "--batch", str(batch), "--out", str(out), "--no-progress", *extra]
    load0 = load_average()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    with PeakMemory([proc.pid, *roots_extra], out) as mem:
        _, err = proc.communicate()
    wall = time.perf_counter() - t0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    ok = [r for r in rows if r["status"] == "ok"]
    return {
        "args": " ".join(extra), "exit": proc.returncode, "filings": len(rows), "errors": len(rows) - len(ok),
        "findings": sum(len(r["findings"]) for r in rows), "wall_s": round(wall, 2),
        "filings_per_s": round(len(rows) / wall, 2), "first_record_s": round(mem.first_record or 0, 2),
        "steady_filings_per_s": round((len(rows) - 1) / (wall - (mem.first_record or 0)), 2),
        "mean_task_s": round(sum(r["seconds"] for r in ok) / max(len(ok), 1), 4),
        "worker_cpu_s": round(sum(mem.cpu.values()), 1),  # sampled every 0.2 s: the last 0.2 s may be missing
        "client_cpu_s": round(mem.root_cpu.get(proc.pid, 0.0), 1),  # with a local cluster, its scheduler too
        "scheduler_cpu_s": round(mem.root_cpu.get(roots_extra[0], 0.0), 1) if roots_extra else None,
        "workers": sorted({r["worker"] for r in rows}), "peak_rss_mib": [round(x) for x in mem.workers_mib()],
        "load_before": load0, "load_after": load_average(), "summary": err.strip().splitlines()[-4:],
    }


def recipe_cluster(env: dict, cwd: Path) -> tuple[str, list[subprocess.Popen]]:
    """docs/batch.md's recipe: a scheduler and two single-threaded workers on 127.0.0.1."""
    from distributed import Client

    port = free_port()
    addr = f"tcp://127.0.0.1:{port}"
    senv = {**env, "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1"}
    procs = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--no-dashboard"], env=senv, cwd=cwd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)]
    for _ in range(2):
        procs.append(subprocess.Popen([str(BIN / "dask"), "worker", addr, "--host", "127.0.0.1", "--nworkers", "1",
                                       "--nthreads", "1", "--no-dashboard"], env=env, cwd=cwd,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
    with Client(addr, timeout="60s") as client:
        client.wait_for_workers(2, timeout=120)
    return addr, procs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=43)
    ap.add_argument("--batch-dir", type=Path, help="a batch made before by make_mutation_batch.py")
    ap.add_argument("--data-root")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = ap.parse_args(argv)
    data_root = resolve_data_root(args.data_root)
    env = {**os.environ, "AUDITFLOW_DATA_ROOT": str(data_root), "AUDITFLOW_FILING_CACHE": "off",
           "PYTHONPATH": str(REPO)}
    env = {k: v for k, v in env.items() if not k.startswith("DASK_")}
    print(machine_line())
    with tempfile.TemporaryDirectory(prefix="auditflow-batch-") as tmp:
        tmp = Path(tmp)
        batch = args.batch_dir
        if batch is None:
            batch = tmp / "batch"
            t = time.perf_counter()
            make_mutation_batch.make(batch, args.count, args.seed, data_root)
            print(f"- made {args.count} filings (seed {args.seed}) in {time.perf_counter() - t:.1f} s")
        results = {}
        for name, extra in (("1 worker", ["--workers", "1"]), ("2 workers", ["--workers", "2"])):
            results[name] = run_batch(batch, tmp / f"{name.replace(' ', '-')}.jsonl", extra, env)
            print(f"- {name}: {json.dumps(results[name])}", flush=True)
        addr, procs = recipe_cluster(env, tmp)
        try:
            results["recipe"] = run_batch(batch, tmp / "recipe.jsonl", ["--scheduler", addr], env,
                                          roots_extra=[p.pid for p in procs])
            print(f"- recipe: {json.dumps(results['recipe'])}", flush=True)
        finally:
            for p in reversed(procs):
                os.killpg(p.pid, signal.SIGTERM)
            for p in procs:
                p.wait(30)
        same = {n: _findings(tmp / f"{n.replace(' ', '-')}.jsonl") for n in results}
        one = results["1 worker"]["filings_per_s"]
        steady = results["1 worker"]["steady_filings_per_s"]
        rows = [[n, str(r["filings"]), str(r["errors"]), f"{r['wall_s']:.1f}", f"{r['filings_per_s']:.2f}",
                 f"{r['filings_per_s'] / one:.2f}x", f"{r['first_record_s']:.1f}", f"{r['steady_filings_per_s']:.2f}",
                 f"{r['steady_filings_per_s'] / steady:.2f}x", f"{r['mean_task_s']:.3f}", f"{r['worker_cpu_s']:.1f}", f"{r['client_cpu_s']:.1f}",
                 f"{r['scheduler_cpu_s']:.1f}" if r["scheduler_cpu_s"] is not None else "(in the client)",
                 ", ".join(map(str, r["peak_rss_mib"])), f"{r['load_before']} → {r['load_after']}"]
                for n, r in results.items()]
        print(markdown_table(["run", "filings", "errors", "wall s", "filings/s", "vs 1 worker", "first line s",
                              "filings/s after it", "vs 1 worker", "mean s per filing", "workers' CPU s", "client CPU s",
                              "scheduler CPU s",
                              "peak RSS per worker (MiB)", "load average"], rows))
        print(f"- findings identical across the three runs, filing for filing: "
              f"{same['1 worker'] == same['2 workers'] == same['recipe']}")
        if args.json:
            args.json.write_text(json.dumps(results, indent=2))
    return 0


def _findings(path: Path) -> dict:
    out = {}
    for line in path.read_text().splitlines():
        r = json.loads(line)
        out[r["sha256"]] = sorted(json.dumps(f, sort_keys=True) for f in r["findings"])
    return out


if __name__ == "__main__":
    sys.exit(main())
