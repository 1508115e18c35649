"""Where AuditFlow's first load + 3 rules spends its time, phase by phase: the CPU milliseconds of each
phase beside its instruction count, and the nanoseconds per instruction that follow.

Why: issue 21 judges the first load in CPU seconds against edgartools, and since its sixth round also
counts instructions (``bench_instructions.py``). AuditFlow runs fewer instructions than edgartools on
27 of 28 filings, but its CPU time trails its count by 6-25 %: an instruction of AuditFlow's costs more
time. A ratio per phase says which phases pay for that (walks over large, freshly built trees and
records wait on memory; lxml's parser retires several instructions per nanosecond), so that the next
change is aimed at time rather than at a count.

A phase is a function of the loader, the environment or the runner (``PHASES``), replaced for the run
by a wrapper; its figures are *self* figures: the time or count inside it minus that of the phases it
calls. "the rest of the check" is ``af_check`` (``bench_floor.py``) minus every phase.

* **CPU**: per filing, one untimed check, then ``--repeat`` checks (``gc.collect()`` before each); the
  median of each phase's self time (``time.process_time_ns``) over the rounds, and the median total.
  edgartools' load (``XBRL.from_directory``) is timed in the same rounds. As in ``bench_floor.py``, what
  either tool hands back is freed after its clock stops.
* **Instructions** (``--instructions``, needs valgrind): the script runs itself again under callgrind,
  which dumps its count at each phase boundary (each boundary calls ``operator.call``, nothing else
  does); one check per filing after an untimed one, hash randomisation fixed.

    python benchmarks/bench_phases.py [--data-root DIR] [--filings a,b] [--repeat 15] [--instructions] [--json out.json]
"""
from __future__ import annotations

import argparse
import gc
import importlib
import json
import operator
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import common_args, data_root_of, filing_dirs, machine_line, markdown_table

# (module, attribute, label): the functions timed. Two entries may share a label (lxml parses in two modules).
PHASES = (
    ("auditflow.xbrl.packages", "TaxonomySet.discover", "taxonomy packages listed"),
    ("auditflow.xbrl.loader", "find_entry_documents", "entry documents found"),
    ("auditflow.xbrl.source", "PackageSource.read", "files read"),
    ("auditflow.xbrl.loader", "parse_xml", "lxml parse"),
    ("auditflow.xbrl.dts", "parse_xml", "lxml parse"),
    ("auditflow.xbrl.loader", "undeclared_prefixes", "inline: undeclared-prefix scan"),
    ("auditflow.xbrl.loader", "parse_instance", "instance: facts, contexts, units"),
    ("auditflow.xbrl.inline", "parse_inline", "inline: facts, contexts, units"),
    ("auditflow.xbrl.inline", "_markup", "inline: text-block markup"),
    ("auditflow.xbrl.loader", "_parse_entry", "entry parse: the rest (its tree freed)"),
    ("auditflow.xbrl.loader", "_take_instance", "facts checked and normalised"),
    ("auditflow.xbrl.dts", "read_schema", "schemas read"),
    ("auditflow.xbrl.dts", "read_links", "linkbases: links and arcs"),
    ("auditflow.xbrl.loader", "effective_arcs", "prohibition and override"),
    ("auditflow.xbrl.loader", "_fill_concepts", "concepts filled in"),
    ("auditflow.xbrl.loader", "find_duplicates", "duplicate facts"),
    ("auditflow.xbrl.loader", "load_filing", "load: the rest (DTS walk, trees freed)"),
    ("auditflow.graphs.environment", "FilingIndex", "filing index"),
    ("auditflow.graphs.environment", "DimensionIndex", "dimension index"),
    ("auditflow.rules.runner", "run_rules", "3 rules"),
)
REST = "the rest of the check"
_INNER = "AUDITFLOW_BENCH_PHASES_INNER"  # set in the run under valgrind: it counts, the outer reports


class Phases:
    """Wraps every phase; ``mode`` 'cpu' keeps self times, 'count' lists boundaries for callgrind."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.on = False
        self.self_ns: dict[str, int] = {}
        self.events: list[list[str]] = []  # [enter|exit, label] per boundary, in callgrind's dump order
        self._stack: list[list] = []

    def install(self) -> None:
        for module, attribute, label in PHASES:
            owner = importlib.import_module(module)
            *path, name = attribute.split(".")
            for part in path:
                owner = getattr(owner, part)
            current = owner.__dict__[name] if path else getattr(owner, name)
            if isinstance(current, classmethod):
                setattr(owner, name, classmethod(self._wrap(current.__func__, label)))
            else:
                setattr(owner, name, self._wrap(current, label))

    def _wrap(self, fn, label: str):
        if self.mode == "count":
            def counted(*args, **kwargs):
                if not self.on:
                    return fn(*args, **kwargs)
                self.events.append(["enter", label])
                operator.call(int)  # a boundary: callgrind dumps the count since the last one
                try:
                    return fn(*args, **kwargs)
                finally:
                    self.events.append(["exit", label])
                    operator.call(int)
            return counted

        def timed(*args, **kwargs):
            if not self.on:
                return fn(*args, **kwargs)
            frame = [0]  # the time of the phases this one calls
            self._stack.append(frame)
            start = time.process_time_ns()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = time.process_time_ns() - start
                self._stack.pop()
                self.self_ns[label] = self.self_ns.get(label, 0) + spent - frame[0]
                if self._stack:
                    self._stack[-1][0] += spent
        return timed


def _check_once(d: Path, data_root: Path, cache: Path, three):
    """``bench_floor.af_check``: what it returns is dropped by the caller after its clock stops."""
    from bench_floor import af_check

    return af_check(d, data_root, cache, three, False)


def _edgartools():
    """``load(path, around)``, which loads a folder with edgartools, ``around(fn)`` making the call (the
    clock or the boundaries go there: the loaded object is freed after it, as in ``bench_floor.py``),
    and says whether facts were read; None without edgartools."""
    from edgartools_load import import_edgartools, load_with_edgartools

    xbrl_cls, _why = import_edgartools()
    if xbrl_cls is None:
        return None

    def load(d: Path, around=lambda fn: fn()) -> bool:
        result = load_with_edgartools(xbrl_cls, d, lambda fn: (0.0, around(fn)))
        return result.seconds is not None and result.facts > 0
    return load


def _setup(args, mode: str):
    """(data root, the 3 rules, a cache folder, the installed phases, edgartools' load or None)."""
    from bench_floor import THREE
    from auditflow.rules.runner import parse_rules

    phases = Phases(mode)
    phases.install()
    et_load = None if args.without_edgartools else _edgartools()
    return data_root_of(args), parse_rules(THREE), Path(tempfile.mkdtemp(prefix="af-bench-phases-")), phases, et_load


def _timed(fn, into: list[int]):
    start = time.process_time_ns()
    out = fn()
    into.append(time.process_time_ns() - start)
    return out


def _between_boundaries(phases: Phases, label: str, fn):
    phases.events.append(["enter", label])
    operator.call(int)
    out = fn()
    phases.events.append(["exit", label])
    operator.call(int)
    return out


def cpu_figures(args) -> dict[str, dict]:
    data_root, three, cache, phases, et_load = _setup(args, "cpu")
    rows: dict[str, dict] = {}
    for d in filing_dirs(data_root, args.filings):
        _check_once(d, data_root, cache, three)  # untimed: imports, rule caches
        et_ok = et_load is not None and et_load(d)
        rounds: dict[str, list[int]] = {}
        totals: list[int] = []
        et_ns: list[int] = []
        for _ in range(args.repeat):
            if et_ok:  # edgartools' load in the same rounds, for its nanoseconds per instruction
                gc.collect()
                et_load(d, lambda fn: _timed(fn, et_ns))
            gc.collect()
            phases.self_ns = {}
            phases.on = True
            start = time.process_time_ns()
            made = _check_once(d, data_root, cache, three)
            total = time.process_time_ns() - start
            phases.on = False
            del made  # freed after the clock, as in bench_floor.py
            phases.self_ns[REST] = total - sum(phases.self_ns.values())
            for label, ns in phases.self_ns.items():
                rounds.setdefault(label, []).append(ns)
            totals.append(total)
        rows[d.name] = {"cpu_ms": {k: statistics.median(v) / 1e6 for k, v in rounds.items()},
                        "cpu_total_ms": statistics.median(totals) / 1e6}
        if et_ns:
            rows[d.name]["et_cpu_ms"] = statistics.median(et_ns) / 1e6
    shutil.rmtree(cache, ignore_errors=True)
    return rows


def inner(args) -> int:
    """Under callgrind: one counted check per filing after an untimed one; the boundaries listed."""
    data_root, three, cache, phases, et_load = _setup(args, "count")
    for d in filing_dirs(data_root, args.filings):
        _check_once(d, data_root, cache, three)
        if et_load is not None and et_load(d):
            gc.collect()
            et_load(d, lambda fn: _between_boundaries(phases, "edgartools " + d.name, fn))
        gc.collect()
        phases.on = True
        made = _between_boundaries(phases, "check " + d.name, lambda: _check_once(d, data_root, cache, three))
        phases.on = False
        del made
    shutil.rmtree(cache, ignore_errors=True)
    Path(os.environ[_INNER]).write_text(json.dumps(phases.events))
    return 0


def instruction_figures(argv: list[str]) -> dict[str, dict]:
    from bench_instructions import callgrind_run

    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is needed for --instructions (Debian: apt install valgrind)")
    events, totals = callgrind_run(Path(__file__), argv, _INNER, ["--dump-before=_operator_call"])
    if len(totals) != len(events):  # something else called operator.call: counts would be misattributed
        raise SystemExit(f"{len(totals)} callgrind dumps for {len(events)} phase boundaries")
    counts = [t["Ir"] for t in totals]
    rows: dict[str, dict] = {}
    stack: list[str] = []
    filing = None
    for (kind, label), count in zip(events, counts):
        if stack and stack[-1].startswith("edgartools "):
            rows.setdefault(stack[-1][len("edgartools "):], {"instr": {}})["et_instr"] = count
        elif stack and filing is not None:  # the count since the last boundary belongs to the phase on top
            top = REST if stack[-1].startswith("check ") else stack[-1]
            rows[filing]["instr"][top] = rows[filing]["instr"].get(top, 0) + count
        if kind == "enter":
            if label.startswith("check "):
                filing = label[len("check "):]
                rows.setdefault(filing, {"instr": {}})
            stack.append(label)
        else:
            stack.pop()
    for row in rows.values():
        row["instr_total"] = sum(row["instr"].values())
    return rows


def render(rows: dict[str, dict]) -> str:
    out = []
    for filing, r in rows.items():
        cpu, instr = r.get("cpu_ms", {}), r.get("instr", {})
        labels = sorted(set(cpu) | set(instr), key=lambda k: -(cpu.get(k) or instr.get(k, 0) / 1e7))
        total_ms, total_i = r.get("cpu_total_ms"), r.get("instr_total")
        table = []
        for label in labels:
            ms, n = cpu.get(label), instr.get(label)
            table.append([label, f"{ms:.2f}" if ms is not None else "", f"{ms / total_ms:.0%}" if ms is not None else "",
                          f"{n / 1e6:.1f}" if n else "", f"{ms * 1e6 / n:.3f}" if ms is not None and n else ""])
        table.append(["**the whole check**", f"{total_ms:.2f}" if total_ms else "", "100%" if total_ms else "",
                      f"{total_i / 1e6:.1f}" if total_i else "",
                      f"{total_ms * 1e6 / total_i:.3f}" if total_ms and total_i else ""])
        et_ms, et_i = r.get("et_cpu_ms"), r.get("et_instr")
        if et_ms or et_i:
            table.append(["edgartools' load, for comparison", f"{et_ms:.2f}" if et_ms else "", "",
                          f"{et_i / 1e6:.1f}" if et_i else "", f"{et_ms * 1e6 / et_i:.3f}" if et_ms and et_i else ""])
        out.append(f"{filing}:\n\n" + markdown_table(["phase", "CPU ms", "share", "M instr.", "ns / instr."], table))
    return "\n\n".join(out)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common_args(parser)
    parser.add_argument("--instructions", action="store_true", help="also count each phase's instructions (valgrind)")
    parser.add_argument("--without-edgartools", action="store_true",
                        help="measure AuditFlow alone: edgartools neither imported nor run in the process")
    args = parser.parse_args(argv)
    if os.environ.get(_INNER):
        return inner(args)
    rows = cpu_figures(args)
    if args.instructions:
        for filing, r in instruction_figures([a for a in argv if a != "--instructions"]).items():
            rows.setdefault(filing, {}).update(r)
    print(f"{machine_line()}\n- {args.repeat} rounds per filing (CPU); one counted check per filing\n")
    print(render(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
