"""Issue 21's side-by-side: per filing, in one process and interleaved round by round,

  * the **lxml floor**: ``lxml.etree.fromstring`` of every file AuditFlow reads for the filing (the
    bytes already in memory: parsing only, the least any XML-based loader can spend; for a filing
    whose taxonomy comes in a zip, every .xsd/.xml in it, unpacked beforehand);
  * **edgartools**: ``XBRL.from_directory(folder)`` (sockets and DNS refused, see edgartools_load.py);
  * **AF first load + 3 rules**: what ``auditflow check --rules 15,117,126`` does per filing, in the
    library: ``TaxonomySet.discover`` (warm), ``build_environment`` with the filing cache **off**
    (every document parsed), no taxonomy graph (check does not load it), then ``run_rules``;
  * **AF first load + all rules**: the same with every registered rule (check's default);
  * **AF cache hit + 3 rules**: the same as the first, the filing read from the filing cache.

Each call: ``gc.collect()`` first, then process CPU time (``time.process_time``) and the wall clock, up
to the moment the call returns what it made; freeing that (edgartools' XBRL object, AuditFlow's
environment and rule results) happens after the clock stops, for both tools alike.
The goals are judged on CPU time: on a shared, loaded machine the wall clock of a call mostly counts
the time it waited for a core. Ratios are AuditFlow / floor and edgartools / AuditFlow (above 1:
AuditFlow faster).

    python benchmarks/bench_floor.py [--data-root DIR] [--filings a,b] [--repeat 5] [--json out.json]
"""
from __future__ import annotations

import argparse
import io
import json
import statistics
import tempfile
import zipfile
from pathlib import Path

from _common import common_args, data_root_of, filing_dirs, fmt_s, fmt_x, load_average, machine_line, markdown_table
from bench_load import CpuClock as Clock  # (wall, result) of a call after gc.collect(); its CPU seconds in .cpu
from edgartools_load import import_edgartools, load_with_edgartools

APPLE = "aapl-10k-2023-09-30"
THREE = "15,117,126"


class Recorder:
    """The ``observe`` hook of a load: keeps the bytes of every file read."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def listed(self, _names) -> None:
        pass

    def read_file(self, path, data: bytes) -> None:
        self.files[str(path)] = data


def files_read(path: Path, tset) -> dict[str, bytes]:
    from auditflow.xbrl.loader import load_filing

    rec = Recorder()
    load_filing(path, external_resolver=tset.concept_for_locator, observe=rec)
    files: dict[str, bytes] = {}
    for name, data in rec.files.items():
        if data.startswith(b"PK"):  # the rolled filings' taxonomy zip: its schemas and linkbases, unpacked here
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                for member in z.namelist():
                    if member.lower().endswith((".xsd", ".xml")):
                        files[f"{name}/{member}"] = z.read(member)
        else:
            files[name] = data
    return files


def floor(files: dict[str, bytes]) -> None:
    from lxml import etree

    parser = etree.XMLParser(huge_tree=True, resolve_entities=False, no_network=True)
    for data in files.values():
        etree.fromstring(data.lstrip(), parser)  # a filer's blank line before <?xml: AuditFlow skips it too


def af_check(path: Path, data_root: Path, cache: Path, rules, filing_cache: bool):
    """One check of one filing as ``auditflow check`` runs it, in the library. Returns the environment
    and the rule results, so that a caller drops them after its clock has stopped: edgartools' loaded
    object is dropped after its clock stops too, and neither tool is billed for freeing what it hands
    back (before 2026-12-04 this returned the count of findings, and AuditFlow alone was billed: 1-2 %)."""
    from auditflow.graphs.environment import build_environment
    from auditflow.rules.runner import run_rules
    from auditflow.xbrl.packages import TaxonomySet

    tset = TaxonomySet.discover(data_root)
    env = build_environment(path, taxonomy_set=tset, taxonomy=None, filing_cache=filing_cache, cache_dir=cache,
                            eager_graph=False)  # as check: no networkx graph (named for older trees, where it was eager)
    return env, run_rules(env, rules, data_root=data_root)


KINDS = ("floor", "et", "af3", "afall", "hit3")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common_args(parser)
    args = parser.parse_args(argv)
    data_root = data_root_of(args)
    dirs = filing_dirs(data_root, args.filings)
    head = {"start": machine_line(), "load_start": load_average()}

    from auditflow.rules import registry
    from auditflow.rules.runner import parse_rules
    from auditflow.xbrl.packages import TaxonomySet

    three, every = parse_rules(THREE), parse_rules("all")
    xbrl_cls, why = import_edgartools()
    tset = TaxonomySet.discover(data_root)
    cache = Path(tempfile.mkdtemp(prefix="af-bench-floor-"))
    rows: dict[str, dict] = {}
    for d in dirs:  # untimed: the file list, one of every kind (imports, the filing cache entry, rule caches)
        files = files_read(d, tset)
        rows[d.name] = row = {k: [] for k in KINDS} | {k + "_cpu": [] for k in KINDS}
        row.update(files=len(files), bytes=sum(map(len, files.values())), et_note=why or "")
        row["_files"] = files
        af_check(d, data_root, cache, three, True)
        af_check(d, data_root, cache, every, False)
        if xbrl_cls is not None:
            et = load_with_edgartools(xbrl_cls, d, Clock())
            if et.seconds is None or not et.facts:
                row["et_note"] = et.note or "n/a (no facts: inline only)"
    clock = Clock()
    for _ in range(args.repeat):
        for d in dirs:
            row = rows[d.name]
            calls = {
                "floor": lambda: floor(row["_files"]),
                "af3": lambda: af_check(d, data_root, cache, three, False),
                "afall": lambda: af_check(d, data_root, cache, every, False),
                "hit3": lambda: af_check(d, data_root, cache, three, True),
            }
            for kind, fn in calls.items():
                wall, _ = clock(fn)
                row[kind].append(wall)
                row[kind + "_cpu"].append(clock.cpu)
            if xbrl_cls is not None and not row["et_note"]:
                et = load_with_edgartools(xbrl_cls, d, clock)
                row["et"].append(et.seconds)
                row["et_cpu"].append(clock.cpu)
    head["load_end"] = load_average()
    head["rules"] = len(every)
    del registry
    for row in rows.values():
        row.pop("_files")
        for k in list(row):
            if isinstance(row[k], list):
                row[k + "_median"] = statistics.median(row[k]) if row[k] else None
    print(render(rows, head))
    if args.json:
        Path(args.json).write_text(json.dumps({"head": head, "rows": rows}, indent=1, sort_keys=True))
    return 0


def _x(a, b):
    return a / b if a and b else None


def render(rows: dict, head: dict) -> str:
    out = [head["start"], f"- load average at end {head['load_end']}; {head['rules']} rules registered", ""]
    table = []
    faster = comparable = 0
    for name, r in rows.items():
        m = {k: r[k + "_cpu_median"] for k in KINDS}
        et_ratio = _x(m["et"], m["af3"])
        if m["et"] is not None:
            comparable += 1
            faster += m["af3"] < m["et"]
        table.append([name, str(r["files"]), f"{r['bytes'] / 1e6:.2f}", fmt_s(m["floor"]), fmt_s(m["et"]) if m["et"] else r["et_note"],
                      fmt_s(m["af3"]), fmt_s(m["afall"]), fmt_s(m["hit3"]), fmt_x(_x(m["af3"], m["floor"])),
                      fmt_x(_x(m["hit3"], m["floor"])), fmt_x(et_ratio)])
    out.append("CPU seconds, median of the rounds:")
    out.append("")
    out.append(markdown_table(["filing", "files", "MB", "lxml floor", "edgartools", "AF first + 3 rules",
                               "AF first + all rules", "AF hit + 3 rules", "first / floor", "hit / floor",
                               "ET / AF first"], table))
    out += ["", f"AF first load + 3 rules faster than edgartools (CPU): {faster} of {comparable} comparable filings"]
    wall = []
    for name, r in rows.items():
        m = {k: r[k + "_median"] for k in KINDS}
        wall.append([name, fmt_s(m["floor"]), fmt_s(m["et"]), fmt_s(m["af3"]), fmt_s(m["afall"]), fmt_s(m["hit3"]),
                     fmt_x(_x(m["et"], m["af3"]))])
    out += ["", "Wall-clock seconds, median (on a loaded machine, mostly waiting):", "",
            markdown_table(["filing", "lxml floor", "edgartools", "AF first + 3 rules", "AF first + all rules",
                            "AF hit + 3 rules", "ET / AF first"], wall)]
    return "\n".join(out)


if __name__ == "__main__":
    raise SystemExit(main())
