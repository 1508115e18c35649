"""Cases an hour through ``auditflow model serve`` with 4 cases in flight against 1, in one run (issue 40).

    python benchmarks/bench_serve_concurrency.py [--cases cases/hard] [--configs full+subset=60]
        [--size 1.5b] [--rows 4:8084,1:8081] [--cache-dir DIR] [--timings FILE] [--json out.json]

Each row ``N:PORT`` starts ``auditflow model serve SIZE --port PORT --parallel N`` (N conversation
slots, decoded together; ``N:PORT:SLOTS`` serves SLOTS slots for N cases in flight instead, e.g. one
slot per auditor conversation), waits until it is ready, then runs the command a user types:
``auditflow eval CASES --configs CONFIGS --model openai-compatible:http://127.0.0.1:PORT/v1#... --jobs N
--record-mode new_episodes``, and stops the server. The rows run one after the other, in this process,
on the same cases.

The port is part of the model spec, so of the cache key: each row records its own calls, and neither
replays the other's. With ``--cache-dir`` naming the project's cache (``cases/llm-cache``) this run *is*
the recording of docs/hard/results.md's HTTP rows; without it, a temporary cache is used and every call
is live.

Reported per row: cases that made at least one live call, live calls, mean prompt and completion
tokens per live call and per live case, wall seconds of the eval command, and cases an hour (live cases over wall time).
A run that replays some cases (a recording resumed after an interruption) counts only its live cases
and its own wall time; every stretch is appended to ``--timings`` (JSON lines) so the stretches of one
recording can be added up (``--sum``). The 1-minute load average before and after each row says
whether anything else shared the two cores.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path

from _common import REPO, load_average, machine_line, markdown_table

LIVE_CALL = re.compile(r"^auditflow: live call \d+ of case (?P<case>\S+): .*?(?P<prompt>\d+) prompt \+ "
                       r"(?P<completion>\d+) completion tokens, (?P<seconds>[\d.]+)s")
CASE_DONE = re.compile(r"^\S+ (?P<done>\d+)/(?P<total>\d+) (?P<label>\S+) \S+::(?P<case>\S+) ")


@dataclass
class Stretch:
    """One row's eval command, as measured."""
    parallel: int
    port: int
    configs: str
    started: str
    wall_s: float
    cases_done: int
    live_cases: int  # cases finished in this stretch that made at least one live call
    live_calls: int
    prompt_tokens: int
    completion_tokens: int
    load_before: str
    load_after: str
    exit_code: int
    # the server's own counters at the end of the row (llama.cpp's /metrics, without the prefix): prompt
    # tokens read and taken from the prompt cache, tokens decoded, and the seconds spent on each
    server: dict[str, float] = field(default_factory=dict)
    slots: int = 0  # the server's slots when not one per case in flight (0: the same as ``parallel``)

    @property
    def cases_an_hour(self) -> float:
        return self.live_cases * 3600 / self.wall_s if self.wall_s else 0.0


def start_server(size: str, port: int, parallel: int) -> subprocess.Popen:
    """``auditflow model serve`` in the background, returned once it prints that it is ready."""
    proc = subprocess.Popen([sys.executable, "-m", "auditflow.cli.main", "model", "serve", size, "--port", str(port),
                             "--parallel", str(parallel)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, cwd=REPO)
    for line in proc.stdout:
        print(f"  serve: {line.rstrip()}", flush=True)
        if line.startswith("ready in"):
            return proc
    raise SystemExit(f"auditflow model serve exited with {proc.wait()} before it was ready")


SERVER_COUNTERS = ("prompt_tokens_total", "prompt_tokens_cached_total", "prompt_seconds_total",
                   "tokens_predicted_total", "tokens_predicted_seconds_total", "n_decode_total")


def server_counters(port: int) -> dict[str, float]:
    """llama.cpp's counters since the server started (``auditflow model serve`` turns /metrics on); {} if
    the server does not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
            text = resp.read().decode("utf-8", "replace")
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        name = name.removeprefix("llamacpp:")
        if name in SERVER_COUNTERS:
            out[name] = float(value)
    return out


def stop_server(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_row(args, parallel: int, port: int, slots: int, out_dir: Path) -> Stretch:
    spec = f"openai-compatible:http://127.0.0.1:{port}/v1#qwen2.5-coder-{args.size}"
    cmd = [sys.executable, "-m", "auditflow.cli.main", "eval", *args.cases, "--configs", args.configs, "--model", spec,
           "--record-mode", "new_episodes", "--jobs", str(parallel), "--cache-dir", str(args.cache_dir),
           "--out", str(out_dir), "--no-charts", "--bootstrap", "100"]
    server = start_server(args.size, port, slots or parallel)
    live_cases: set[str] = set()
    calls = prompt = completion = done = live_done = 0
    load_before, started, t0 = load_average(), time.strftime("%Y-%m-%d %H:%M:%S"), time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=REPO)
    try:
        for line in proc.stdout:
            print(f"  [{parallel}] {line.rstrip()}", flush=True)
            if m := LIVE_CALL.match(line):
                live_cases.add(m["case"])
                calls, prompt, completion = calls + 1, prompt + int(m["prompt"]), completion + int(m["completion"])
            elif m := CASE_DONE.match(line):
                done += 1
                live_done += m["case"] in live_cases
        code = proc.wait()
    except KeyboardInterrupt:
        # stopped by hand (a session ends): keep the stretch measured so far; the recording resumes later
        # with new_episodes, and --sum adds the stretches up. Cases still in flight are not counted.
        proc.terminate()
        code = proc.wait()
    finally:
        wall = time.perf_counter() - t0
        counters = server_counters(port)
        stop_server(server)
    return Stretch(parallel, port, args.configs, started, round(wall, 1), done, live_done, calls, prompt,
                   completion, load_before, load_average(), code, counters, slots)


def summed(stretches: list[Stretch]) -> dict[int, Stretch]:
    """The stretches of each row added up: one recording resumed is one row. Keyed by cases in flight,
    which :func:`parse_rows` keeps unique within a run."""
    rows: dict[int, Stretch] = {}
    for s in stretches:
        r = rows.get(s.parallel)
        if r is None:
            rows[s.parallel] = Stretch(**asdict(s))
            continue
        for f in ("wall_s", "cases_done", "live_cases", "live_calls", "prompt_tokens", "completion_tokens"):
            setattr(r, f, getattr(r, f) + getattr(s, f))
        r.server = {k: r.server.get(k, 0) + s.server.get(k, 0) for k in SERVER_COUNTERS if k in r.server or k in s.server}
        r.load_after, r.exit_code = s.load_after, max(r.exit_code, s.exit_code)
    return rows


def _slots(r: Stretch) -> str:
    return f", {r.slots} slots" if r.slots else ""


def parse_rows(text: str) -> list[tuple[int, int, int]]:
    """``4:8084,1:8081:2`` -> [(4, 8084, 0), (1, 8081, 2)]: cases in flight, port, server slots (0: as many
    as cases). Rows are reported and compared by cases in flight, so each number may appear once."""
    rows = []
    for item in text.split(","):
        parts = item.split(":")
        if not 2 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
            raise SystemExit(f"--rows: {item!r} is not N:PORT or N:PORT:SLOTS")
        parallel, port, slots = (int(p) for p in (*parts, "0")[:3])
        rows.append((parallel, port, slots))
    if len({r[0] for r in rows}) != len(rows):
        raise SystemExit(f"--rows {text}: each number of cases in flight may appear once (rows are compared by it)")
    return rows


def report(rows: dict[int, Stretch]) -> str:
    table = []
    for n in sorted(rows, reverse=True):
        r = rows[n]
        per_call = (f"{r.prompt_tokens / r.live_calls:,.0f} + {r.completion_tokens / r.live_calls:,.0f}"
                    if r.live_calls else "–")
        per_case = (f"{r.prompt_tokens / r.live_cases:,.0f} + {r.completion_tokens / r.live_cases:,.0f}"
                    if r.live_cases else "–")
        table.append([f"{n} in flight (port {r.port}{_slots(r)})", str(r.live_cases), str(r.live_calls), per_call, per_case,
                      f"{r.wall_s:,.0f}", f"{r.cases_an_hour:.1f}", f"{r.load_before} → {r.load_after}"])
    lines = [markdown_table(["row", "live cases", "live calls", "tokens a call (prompt + completion)",
                             "tokens a case", "wall s", "cases an hour", "load average"], table)]
    served = []
    for n in sorted(rows, reverse=True):
        m = rows[n].server
        if not m.get("prompt_tokens_total"):
            continue
        read, cached = m["prompt_tokens_total"], m.get("prompt_tokens_cached_total", 0)
        served.append([f"{n} in flight{_slots(rows[n])}", f"{read:,.0f}", f"{cached:,.0f} ({100 * cached / (read + cached):.1f} %)",
                       f"{read / m['prompt_seconds_total']:.1f}" if m.get("prompt_seconds_total") else "–",
                       f"{m.get('tokens_predicted_total', 0):,.0f}", f"{m.get('n_decode_total', 0):,.0f}",
                       f"{m['tokens_predicted_total'] / m['tokens_predicted_seconds_total']:.1f}"
                       if m.get("tokens_predicted_seconds_total") else "–"])
    if served:
        lines += ["", "The server's own counters (llama.cpp /metrics; a slot's seconds, summed over slots):", "",
                  markdown_table(["row", "prompt tokens read", "taken from the prompt cache", "read a second",
                                  "tokens decoded", "decode steps", "decoded a second (per slot)"], served)]
    if len(rows) == 2:
        hi, lo = (rows[k] for k in sorted(rows, reverse=True))
        if lo.cases_an_hour:
            lines.append(f"\n{hi.parallel} in flight against {lo.parallel}: "
                         f"**{hi.cases_an_hour / lo.cases_an_hour:.2f}×** cases an hour")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", nargs="+", default=["cases/hard"])
    ap.add_argument("--configs", default="full+subset=60")
    ap.add_argument("--size", default="1.5b")
    ap.add_argument("--rows", default="4:8084,1:8081",
                    help="N:PORT[:SLOTS],... (cases in flight : port [: server slots, default N])")
    ap.add_argument("--cache-dir", type=Path, default=None, help="LLM cache (default: a new temporary one)")
    ap.add_argument("--timings", type=Path, default=None, help="append each row's stretch here (JSON lines)")
    ap.add_argument("--sum", action="store_true", help="only report the stretches already in --timings")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    rows_wanted = parse_rows(args.rows)
    stretches: list[Stretch] = []
    if args.timings and args.timings.exists():
        stretches = [Stretch(**json.loads(line)) for line in args.timings.read_text().splitlines() if line.strip()]
    if not args.sum:
        print(machine_line(), flush=True)
        with tempfile.TemporaryDirectory(prefix="auditflow-serve-bench-") as tmp:
            args.cache_dir = args.cache_dir or Path(tmp) / "cache"
            for parallel, port, slots in rows_wanted:
                s = run_row(args, parallel, port, slots, Path(tmp) / f"eval-{parallel}")
                stretches.append(s)
                if args.timings:
                    with args.timings.open("a") as f:
                        f.write(json.dumps(asdict(s), sort_keys=True) + "\n")
    rows = summed([s for s in stretches if (s.parallel, s.port, s.slots) in rows_wanted])
    print(report(rows))
    if args.json:
        args.json.write_text(json.dumps({str(k): asdict(v) for k, v in rows.items()}, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
