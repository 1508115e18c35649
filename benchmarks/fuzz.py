"""The fuzz run of issue 18: damaged filings through ``auditflow check`` (plus the filing graph).

    python benchmarks/fuzz.py [--count 1000] [--seed 18] [--jobs 2] [--sample-only] [--data-root DIR]
                              [--timeout 60] [--json out.json]

Makes ``--count`` damaged inputs (tests/fuzz/damage.py: bytes, values and attributes, linkbases, inline
markup, zip archives, XML attacks, the file system) from the bundled sample and, when the data root is
there, the real filings; checks each in a forked child with an address-space and a time limit
(tests/fuzz/harness.py) and prints the outcomes by class and family, the peak memory and the worst
inputs. ``--jobs N`` runs N shards in parallel processes. Exits 1 when any input crashed untyped, hung,
passed 500 MB or leaked (read the canary or touched the network). The last full run's figures are in
docs/reliability.md; CI runs a 200-input sample (tests/fuzz/test_fuzz_sample.py).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from auditflow.dataroot import data_root_or_none, resolve_data_root  # noqa: E402
from tests.fuzz.harness import CLASSES, SAMPLES, Outcome, Plan, Run, as_json, real_filings, run_plan  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--jobs", type=int, default=1, help="parallel shards (processes)")
    ap.add_argument("--sample-only", action="store_true", help="damage only the bundled sample")
    ap.add_argument("--data-root", help="default: $AUDITFLOW_DATA_ROOT, then ../shared/data")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per input before it counts as a hang")
    ap.add_argument("--json", metavar="PATH", help="write every outcome as JSON")
    ap.add_argument("--shard", help=argparse.SUPPRESS)  # i/N: this process runs inputs i, i+N, ...
    args = ap.parse_args(argv)

    data_root = resolve_data_root(args.data_root) if args.data_root else data_root_or_none()
    sources = list(SAMPLES) + ([] if args.sample_only else real_filings(data_root))
    plan = Plan(sources, args.count, seed=args.seed)
    if args.jobs > 1 and not args.shard:
        run = _parallel(args, argv or sys.argv[1:])
    else:
        shard = tuple(int(x) for x in args.shard.split("/")) if args.shard else (0, 1)
        run = run_plan(_Sharded(plan, *shard), data_root=data_root, timeout=args.timeout, progress=_progress)
    if args.json:
        Path(args.json).write_text(json.dumps(as_json(run), indent=1, sort_keys=True) + "\n")
    if args.shard:
        return 0
    print(report(run, sources=len(sources), data_root=data_root is not None and not args.sample_only,
                 seed=args.seed, jobs=args.jobs))
    return 1 if run.bad() else 0


class _Sharded:
    def __init__(self, plan: Plan, index: int, total: int) -> None:
        self.plan, self.index, self.total = plan, index, total

    def __iter__(self):
        return (item for item in self.plan if item[0] % self.total == self.index)


def _parallel(args, argv: list[str]) -> Run:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="auditflow-fuzz-shards-") as tmp:
        base = [a for a in argv if not a.startswith("--jobs") and a != str(args.jobs)]
        base = [a for i, a in enumerate(base) if not (a == "--json" or (i and base[i - 1] == "--json"))]
        procs = [subprocess.Popen([sys.executable, __file__, *base, "--shard", f"{i}/{args.jobs}",
                                   "--json", f"{tmp}/{i}.json"]) for i in range(args.jobs)]
        codes = [p.wait() for p in procs]
        if any(codes):
            raise SystemExit(f"a shard failed: exit codes {codes}")
        run = Run()
        for i in range(args.jobs):
            run.outcomes += [Outcome(**o) for o in json.loads(Path(f"{tmp}/{i}.json").read_text())["outcomes"]]
    run.outcomes.sort(key=lambda o: o.index)
    run.seconds = time.monotonic() - started
    return run


def _progress(o: Outcome) -> None:
    if o.outcome not in ("result", "typed error"):
        print(f"  #{o.index} {o.kind} on {Path(o.source).name}: {o.outcome}: {o.detail}", file=sys.stderr, flush=True)
    elif o.index % 100 == 99:
        print(f"  ... {o.index + 1} inputs", file=sys.stderr, flush=True)


def report(run: Run, *, sources: int, data_root: bool, seed: int, jobs: int) -> str:
    """The markdown that docs/reliability.md quotes."""
    s = run.summary()
    lines = [f"{s['inputs']} inputs (seed {seed}) from {sources} filings "
             f"({'the bundled sample and the real filings' if data_root else 'the bundled sample only'}; "
             f"{s['by_source'].get('sample', 0)} sample, {s['by_source'].get('real', 0)} real), "
             f"{s['seconds_total']} s with {jobs} job(s).", "",
             "| outcome | inputs |", "|---|---|"]
    lines += [f"| {c} | {s['by_outcome'][c]} |" for c in CLASSES]
    lines += ["", "| family | " + " | ".join(CLASSES) + " |", "|---|" + "---|" * len(CLASSES)]
    for fam, counts in s["by_family"].items():
        lines.append(f"| {fam} | " + " | ".join(str(counts.get(c, 0)) for c in CLASSES) + " |")
    worst = max(run.outcomes, key=lambda o: o.peak_mb, default=None)
    slow = max(run.outcomes, key=lambda o: o.seconds, default=None)
    lines += ["", f"Peak memory: {s['peak_mb_max']} MB (max over inputs"
              + (f"; {worst.kind} on {Path(worst.source).name}" if worst else "") + "). "
              f"Slowest input: {s['seconds_max']} s" + (f" ({slow.kind} on {Path(slow.source).name})" if slow else "")
              + f". Typed errors that name no file: {s['typed_errors_without_file']}."]
    bad = run.bad()
    if bad:
        lines += ["", "Inputs that failed the bar:"] + [f"- #{o.index} {o.kind} on {Path(o.source).name}: {o.outcome}: "
                                                     f"{o.detail}" for o in bad[:50]]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
