"""Load + build both graphs per filing, cold and warm, beside edgartools loading the same folder.

    python benchmarks/bench_load.py [--data-root DIR] [--filings a,b] [--repeat 3] [--json out.json]

All in one process:
  * taxonomy cold build: once, into a fresh empty cache dir (also fills that cache);
  * AuditFlow cold: the first load_filing + build_environment of each filing in this process,
    against the taxonomy graph just built;
  * AuditFlow warm: per filing and repeat, what a warm ``auditflow`` run does: TaxonomySet.discover +
    load_taxonomy_graph from the warm disk cache + load_filing + build_environment ("total"); the
    load_filing + build_environment part alone is "filing only";
  * edgartools: ``XBRL.from_directory`` on the same folder (first call = cold; then ``--repeat`` warm);
  * ratio = edgartools warm / AuditFlow warm total (> 1 means AuditFlow is faster).
Every timed call is preceded by gc.collect(); medians over ``--repeat`` are reported.
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from _common import (build, common_args, data_root_of, filing_dirs, fmt_s, fmt_x, load_average, machine_line,
                     markdown_table, median, preload, timed, warm_taxonomy)
from edgartools_load import EtResult, import_edgartools, load_with_edgartools

APPLE = "aapl-10k-2023-09-30"
APPLE_GOAL_S = 0.5


def af_warm_once(path: Path, data_root: Path, cache_dir: Path) -> tuple[float, float, int]:
    """(total, filing-only, facts) of one warm AuditFlow load: taxonomy from cache + filing."""
    holder: dict = {}

    def run():
        tset, graph = warm_taxonomy(data_root, cache_dir)
        assert graph.from_cache, "the warm pass must read the taxonomy graph from the disk cache"
        t = time.perf_counter()
        holder["env"] = build(path, tset, graph)
        holder["filing"] = time.perf_counter() - t

    total, _ = timed(run)
    return total, holder["filing"], len(holder["env"].filing.facts)


def cold_pass(dirs: list[Path], tset, graph, xbrl_cls) -> dict[str, dict]:
    """First load of each filing in this process, AuditFlow then edgartools."""
    rows: dict[str, dict] = {}
    for d in dirs:
        secs, env = timed(lambda: build(d, tset, graph))
        row = rows[d.name] = {"folder": d.parent.name, "af_cold": secs, "af_facts": len(env.filing.facts),
                              "af_total": [], "af_filing": [], "et": []}
        et = load_with_edgartools(xbrl_cls, d, timed) if xbrl_cls else EtResult(None, 0, "n/a (edgartools not importable)")
        row.update(et_cold=et.seconds, et_facts=et.facts, et_note=et.note)
    return rows


def warm_passes(dirs: list[Path], rows: dict, data_root: Path, cache_dir: Path, xbrl_cls, repeat: int) -> None:
    """``repeat`` rounds over every filing (interleaved, so drift hits both libraries alike)."""
    for _ in range(repeat):
        for d in dirs:
            row = rows[d.name]
            total, filing, _ = af_warm_once(d, data_root, cache_dir)
            row["af_total"].append(total)
            row["af_filing"].append(filing)
            if xbrl_cls and not row["et_note"]:
                et = load_with_edgartools(xbrl_cls, d, timed)
                if et.seconds is None:
                    row["et_note"] = et.note
                else:
                    row["et"].append(et.seconds)


def summarise(rows: dict) -> None:
    for row in rows.values():
        row["af_total_med"], row["af_filing_med"] = median(row["af_total"]), median(row["af_filing"])
        row["et_med"] = median(row["et"]) if not row["et_note"] else None
        et, af, aff = row["et_med"], row["af_total_med"], row["af_filing_med"]
        row["ratio"] = et / af if et and af else None
        row["ratio_filing"] = et / aff if et and aff else None


def render(rows: dict, head: dict) -> str:
    headers = ["filing", "facts (AF / ET)", "AF cold s", "AF warm total s", "AF warm filing-only s",
               "ET cold s", "ET warm s", "ET / AF warm total", "ET / AF filing-only"]
    body = []
    for name, r in rows.items():
        et_facts = str(r["et_facts"]) if not r["et_note"] else "-"
        et_warm = fmt_s(r["et_med"]) if not r["et_note"] else r["et_note"]
        body.append([name, f"{r['af_facts']} / {et_facts}", fmt_s(r["af_cold"]), fmt_s(r["af_total_med"]),
                     fmt_s(r["af_filing_med"]), fmt_s(r["et_cold"]), et_warm, fmt_x(r["ratio"]), fmt_x(r["ratio_filing"])])
    lines = [head["machine"], f"- taxonomy graph cold build (discover + build + write cache): **{head['taxonomy_cold_s']:.2f} s**",
             f"- taxonomy warm load (discover + fingerprint + read cache), median: {fmt_s(head['taxonomy_warm_s'])} s",
             f"- one-off imports: auditflow {head['af_import_s']:.2f} s, edgartools {fmt_s(head['et_import_s'])} s "
             "(not in any per-filing figure)", "", markdown_table(headers, body), "", *verdicts(rows)]
    lines.append(f"- load average at end: {load_average()}")
    return "\n".join(lines)


def verdicts(rows: dict) -> list[str]:
    compared = [(n, r) for n, r in rows.items() if r["ratio"] is not None]
    slower = [n for n, r in compared if r["ratio"] < 1]
    apple = rows.get(APPLE, {}).get("af_total_med")
    where = "all of them" if len(slower) == len(compared) else ", ".join(slower)
    out = [f"- faster than edgartools (warm total) on every comparable filing: "
           f"{'MET' if compared and not slower else 'MISSED'} ({len(compared) - len(slower)} of {len(compared)} faster"
           + (f"; slower on {where}" if slower else "") + ")"]
    na = [n for n, r in rows.items() if r["ratio"] is None]
    if na:
        out.append(f"- no edgartools figure for: {', '.join(na)}")
    if apple is not None:
        out.append(f"- {APPLE} warm load + build < {APPLE_GOAL_S} s: {'MET' if apple < APPLE_GOAL_S else 'MISSED'} ({apple:.3f} s)")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common_args(parser)
    args = parser.parse_args(argv)
    data_root, head = data_root_of(args), {"machine": machine_line()}
    dirs = filing_dirs(data_root, args.filings)
    head["af_import_s"], _ = timed(preload)
    head["et_import_s"], (xbrl_cls, why) = timed(import_edgartools)
    if xbrl_cls is None:
        print(f"warning: {why}")
        head["et_import_s"] = None
    with tempfile.TemporaryDirectory(prefix="auditflow-bench-cache-") as cache:
        head["taxonomy_cold_s"], (tset, graph) = timed(lambda: warm_taxonomy(data_root, Path(cache)))
        assert not graph.from_cache, "the cold build must start from an empty cache"
        rows = cold_pass(dirs, tset, graph, xbrl_cls)
        warm_passes(dirs, rows, data_root, Path(cache), xbrl_cls, args.repeat)
        head["taxonomy_warm_s"] = median([timed(lambda: warm_taxonomy(data_root, Path(cache)))[0] for _ in range(args.repeat)])
    summarise(rows)
    print(render(rows, head))
    if args.json:
        Path(args.json).write_text(json.dumps({"head": head, "filings": rows}, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
