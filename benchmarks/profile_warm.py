"""cProfile of one filing's warm path: taxonomy from the disk cache + load_filing + build_environment
(+ the three rules with ``--rules``). Imports and the cache fill happen before profiling starts
(one unprofiled run first). The filing is parsed (no filing cache) unless ``--filing-cache`` is
given, which profiles a filing cache hit instead. ``--cpu`` times with process CPU time instead of
the wall clock: on a machine shared with other jobs, wall-clock profiles mostly measure waiting.

    python benchmarks/profile_warm.py [--filing aapl-10k-2023-09-30] [--rules] [--filing-cache] [--cpu]
                                      [--sort cumulative|tottime] [--top 25]
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import tempfile
import time
from pathlib import Path

from _common import build, data_root_of, filing_dirs, warm_taxonomy


def warm_path(path: Path, data_root: Path, cache: Path, rules: bool, filing_cache: bool = False) -> None:
    env = build(path, *warm_taxonomy(data_root, cache), filing_cache=filing_cache, cache_dir=cache)
    if rules:
        from auditflow.rules.runner import run_rules

        run_rules(env, data_root=data_root)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-root")
    parser.add_argument("--filing", default="aapl-10k-2023-09-30")
    parser.add_argument("--rules", action="store_true", help="also run DQC 0015, 0117 and 0126")
    parser.add_argument("--filing-cache", action="store_true", help="profile a filing cache hit instead of a parse")
    parser.add_argument("--cpu", action="store_true", help="time with process CPU time (robust to other jobs)")
    parser.add_argument("--sort", default="cumulative", help="pstats sort key, e.g. cumulative or tottime")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    data_root = data_root_of(args)
    path = filing_dirs(data_root, args.filing)[0]
    with tempfile.TemporaryDirectory(prefix="auditflow-profile-cache-") as cache:
        warm_path(path, data_root, Path(cache), args.rules, args.filing_cache)  # fills the caches, imports everything
        prof = cProfile.Profile(time.process_time) if args.cpu else cProfile.Profile()
        prof.runcall(warm_path, path, data_root, Path(cache), args.rules, args.filing_cache)
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats(args.sort).print_stats(args.top)
    print(out.getvalue())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
