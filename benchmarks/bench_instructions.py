"""Issue 21's side-by-side in instructions: per filing, the CPU instructions (valgrind's callgrind
``Ir``) of the lxml floor, of edgartools' load and of AuditFlow's first load + 3 rules, each counted
in one process around exactly that call.

Why a second measure beside ``bench_floor.py``: on this 2-core machine the CPU time of the same call
moves by 10-30 % between passes and between days (the same code was ahead of edgartools on 19 of 28
filings one day and on 6 the next), while most filings sit within 15 % of edgartools. An instruction
count is the same in every run (hash randomisation is fixed, nothing else varies), so it says which
side of edgartools each filing is on without the machine's noise. It is a proxy: a count is not a
time (C code retires more instructions per cycle than the interpreter), and the issue's goal stays
judged in CPU seconds by ``bench_floor.py``.

How: the script runs itself again under ``valgrind --tool=callgrind`` with collection only inside
``operator.call`` (``--toggle-collect``) and a dump after each such call; each measured call goes
through ``operator.call``, nothing else does. The calls are made after one untimed call of each kind
per filing (imports, caches), after ``gc.collect()``, in the order floor, AuditFlow, edgartools, as
in ``bench_floor.py``. About 10 minutes for the 29 filings.

``--cache-sim`` also simulates the caches and branch predictor (about twice as slow) and reports
callgrind's cycle estimate beside the count, ``Ir + 10 x (L1 misses + mispredicted branches) + 100 x
last-level misses``: the same work can cost more time when it misses the caches more, which a count
of instructions does not show.

    python benchmarks/bench_instructions.py [--data-root DIR] [--filings a,b] [--cache-sim] [--json out.json]
"""
from __future__ import annotations

import argparse
import gc
import json
import operator
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import data_root_of, filing_dirs, machine_line, markdown_table

_INNER = "AUDITFLOW_BENCH_INSTRUCTIONS_INNER"  # set in the run under valgrind: it measures, the outer reports


def inner(args) -> int:
    """Under callgrind: make the measured calls, each through operator.call, and list them in order."""
    from bench_floor import THREE, af_check, files_read, floor
    from edgartools_load import import_edgartools, load_with_edgartools

    from auditflow.rules.runner import parse_rules
    from auditflow.xbrl.packages import TaxonomySet

    data_root = data_root_of(args)
    three = parse_rules(THREE)
    xbrl_cls, why = import_edgartools()
    tset = TaxonomySet.discover(data_root)
    cache = Path(tempfile.mkdtemp(prefix="af-bench-instructions-"))
    order: list[list[str]] = []  # [filing, kind] of each dump, in dump order
    notes: dict[str, str] = {}

    for d in filing_dirs(data_root, args.filings):
        files = files_read(d, tset)
        af_check(d, data_root, cache, three, False)  # untimed: imports, rule caches
        et_ok = False
        if xbrl_cls is not None:
            et = load_with_edgartools(xbrl_cls, d, lambda fn: (0.0, fn()))  # untimed
            et_ok = et.seconds is not None and et.facts > 0
            if not et_ok:
                notes[d.name] = et.note
        else:
            notes[d.name] = why
        gc.collect()
        operator.call(floor, files)
        order.append([d.name, "floor"])
        gc.collect()
        operator.call(af_check, d, data_root, cache, three, False)
        order.append([d.name, "af3"])
        if et_ok:
            gc.collect()
            load_with_edgartools(xbrl_cls, d, lambda fn: (0.0, operator.call(fn)))
            order.append([d.name, "et"])
    shutil.rmtree(cache, ignore_errors=True)
    Path(os.environ[_INNER]).write_text(json.dumps({"order": order, "notes": notes}))
    return 0


def outer(args, argv: list[str]) -> int:
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is needed (Debian: apt install valgrind)")
    sim = ["--cache-sim=yes", "--branch-sim=yes"] if args.cache_sim else []
    meta, counts = callgrind_run(Path(__file__), argv, _INNER,
                                 [*sim, "--toggle-collect=_operator_call", "--dump-after=_operator_call"])
    if len(counts) != len(meta["order"]):  # something else called operator.call: the counts would be misattributed
        raise SystemExit(f"{len(counts)} callgrind dumps for {len(meta['order'])} measured calls")
    rows: dict[str, dict] = {}
    for (filing, kind), events in zip(meta["order"], counts):
        rows.setdefault(filing, {})[kind] = events["Ir"]
        if args.cache_sim:
            rows[filing][kind + "_cycles"] = _cycle_estimate(events)
    for filing, note in meta["notes"].items():
        rows.setdefault(filing, {})["et_note"] = note
    print(render(rows))
    if args.json:
        Path(args.json).write_text(json.dumps({"head": machine_line(), "rows": rows}, indent=1, sort_keys=True))
    return 0


def callgrind_run(script: Path, argv: list[str], inner_var: str, options: list[str]) -> tuple[object, list[dict[str, int]]]:
    """Run ``script argv`` again under callgrind with ``options``, hash randomisation fixed. The inner run
    sees ``$inner_var`` set to a path and writes a JSON manifest of what it measured there. Returns the
    manifest and the totals of each dump, in dump order."""
    work = Path(tempfile.mkdtemp(prefix="af-callgrind-"))
    manifest = work / "manifest.json"
    env = {**os.environ, inner_var: str(manifest), "PYTHONHASHSEED": "0"}
    cmd = ["valgrind", "--tool=callgrind", *options, f"--callgrind-out-file={work}/cg.out",
           sys.executable, str(script.resolve()), *argv]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0 or not manifest.exists():
        sys.stderr.write(done.stderr[-4000:])
        raise SystemExit(f"the run under valgrind failed (exit {done.returncode})")
    meta = json.loads(manifest.read_text())
    dumps = len(list(work.glob("cg.out.*")))
    counts = [_totals(work / f"cg.out.{i}") for i in range(1, dumps + 1)]
    shutil.rmtree(work, ignore_errors=True)
    return meta, counts


def _totals(path: Path) -> dict[str, int]:
    """The dump's totals by event name (Ir; with --cache-sim also the cache and branch events)."""
    text = path.read_text()
    names = re.search(r"^events: (.+)$", text, re.MULTILINE)
    totals = re.search(r"^totals: ([\d ]+)$", text, re.MULTILINE)
    if names is None or totals is None:
        raise SystemExit(f"{path.name}: no events or totals line; is this callgrind's output?")
    return dict(zip(names.group(1).split(), map(int, totals.group(1).split())))


def _cycle_estimate(e: dict[str, int]) -> int:
    """callgrind_annotate's and KCachegrind's estimate: 10 cycles per L1 miss and per mispredicted
    branch, 100 per last-level miss, one per instruction."""
    l1 = e.get("I1mr", 0) + e.get("D1mr", 0) + e.get("D1mw", 0)
    ll = e.get("ILmr", 0) + e.get("DLmr", 0) + e.get("DLmw", 0)
    return e["Ir"] + 10 * (l1 + e.get("Bcm", 0) + e.get("Bim", 0)) + 100 * ll


def render(rows: dict) -> str:
    out = [_table(rows, "", "instructions", "M instr.")]
    if any("af3_cycles" in r for r in rows.values()):
        out.append(_table(rows, "_cycles", "estimated cycles (callgrind's cache and branch simulation)", "M cycles"))
    return "\n\n".join(out)


def _table(rows: dict, suffix: str, what: str, unit: str) -> str:
    table, fewer, comparable = [], 0, 0
    for name, r in rows.items():
        floor_n, af, et = r.get("floor" + suffix), r.get("af3" + suffix), r.get("et" + suffix)
        if et:
            comparable += 1
            fewer += af < et
        table.append([name, f"{floor_n / 1e6:.1f}", f"{et / 1e6:.1f}" if et else r.get("et_note", "n/a"),
                      f"{af / 1e6:.1f}", f"{af / floor_n:.2f}x", f"{et / af:.2f}x" if et else "n/a"])
    head = ["filing", f"lxml floor ({unit})", "edgartools", "AF first + 3 rules", "AF / floor", "ET / AF"]
    return "\n".join([markdown_table(head, table), "",
                      f"AF first load + 3 rules in fewer {what} than edgartools' load: {fewer} of {comparable}"])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-root", help="folder with taxonomy/ and filings*/ (default: AuditFlow's data-root search)")
    parser.add_argument("--filings", help="comma-separated folder names to restrict to (default: every filing)")
    parser.add_argument("--cache-sim", action="store_true", help="also simulate caches and branches: estimated cycles")
    parser.add_argument("--json", metavar="PATH", help="also write the counts as JSON")
    args = parser.parse_args(argv)
    return inner(args) if os.environ.get(_INNER) else outer(args, argv)


if __name__ == "__main__":
    raise SystemExit(main())
