"""Shared helpers for the benchmark scripts: filing discovery, timing, the taxonomy, tables.

Run the scripts from anywhere: the repository root is put on ``sys.path`` so an uninstalled
checkout benchmarks its own code.
"""
from __future__ import annotations

import gc
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from auditflow.dataroot import resolve_data_root  # noqa: E402

FILING_FOLDERS = ("filings", "filings-rolled")


def filing_dirs(data_root: Path, only: str | None) -> list[Path]:
    """Every filing folder under the data root (filings/ first), optionally only the named ones."""
    found = [d for folder in FILING_FOLDERS for d in sorted((data_root / folder).glob("*/")) if d.is_dir()]
    if not only:
        return found
    wanted = [n.strip() for n in only.split(",") if n.strip()]
    by_name = {d.name: d for d in found}
    missing = [n for n in wanted if n not in by_name]
    if missing:
        raise SystemExit(f"unknown filing(s): {', '.join(missing)}; choose from {', '.join(by_name)}")
    return [by_name[n] for n in wanted]


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    """(seconds, result) of one call, after a full garbage collection so no earlier garbage is billed."""
    gc.collect()
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def preload() -> None:
    """Import everything a load and the rules use, so no measurement pays a first import."""
    import auditflow.graphs.environment  # noqa: F401
    import auditflow.graphs.taxonomy_graph  # noqa: F401
    import auditflow.rules.runner  # noqa: F401
    import auditflow.xbrl.packages  # noqa: F401


def warm_taxonomy(data_root: Path, cache_dir: Path):
    """What every CLI run does before its first filing: discover the packages, load the graph cache."""
    from auditflow.graphs.taxonomy_store import load_taxonomy_graph
    from auditflow.xbrl.packages import TaxonomySet

    tset = TaxonomySet.discover(data_root)
    return tset, load_taxonomy_graph(tset, cache_dir=cache_dir)


def build(path: Path, tset, graph, *, filing_cache: bool = False, cache_dir: Path | None = None):
    """load_filing + build_environment (both graphs). ``filing_cache=False`` (the default here) parses
    the filing every time: the honest re-parse figure; ``True`` reads the on-disk filing cache in
    ``cache_dir`` (filled by an earlier call) and is reported apart, labelled as a cache hit."""
    from auditflow.graphs.environment import build_environment

    return build_environment(path, taxonomy_set=tset, taxonomy=graph, filing_cache=filing_cache, cache_dir=cache_dir)


def run_cli(cmd: list[str], env: dict) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the child, stdout) of one CLI run; exit 0 (clean) or 1 (findings)
    both count, any other exit is an error that names the command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd[:4])} ...: exit {proc.returncode}: {proc.stderr.strip()[-300:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc.stdout


def load_average() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def machine_line() -> str:
    """What the figures depend on; a 1-minute load average well above 1 (this run's own core) means
    another job shared the two cores and the figures are pessimistic."""
    return f"- machine: {os.cpu_count()} cores, Python {platform.python_version()}, load average at start {load_average()}"


def fmt_s(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.3f}"


def fmt_x(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.2f}x"


def markdown_table(headers: list[str], rows: list[list[str]]) -> str:
    right = ["---:" if i else "---" for i in range(len(headers))]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(right) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def common_args(parser) -> None:
    parser.add_argument("--data-root", help="folder with taxonomy/ and filings*/ (default: AuditFlow's data-root search)")
    parser.add_argument("--filings", help="comma-separated folder names to restrict to (default: every filing)")
    parser.add_argument("--repeat", type=int, default=3, help="warm repetitions per filing; the median is reported")
    parser.add_argument("--json", metavar="PATH", help="also write the raw figures as JSON")


def data_root_of(args) -> Path:
    return resolve_data_root(args.data_root)
