"""Replay seconds per case from the committed LLM recordings (issue 5: target under 0.2 s a case).

    python benchmarks/bench_replay.py [--data-root DIR] [--repeat 5] [--json out.json]

Every case listed in ``cases/llm-recordings.json`` (recorded with the local 1.5B model) is run
through ``run_case`` with record mode ``none`` from ``cases/llm-cache``, in one warm process: a
first pass builds (and memoises) each filing environment and checks that the replay matches the
recording's ``result_sha256``; then ``--repeat`` timed passes follow. Reported per case: median
seconds of the whole case (environment lookup, inject, protocol, fusion, labels) and of the
protocol alone (``AuditResult.timings["protocol_s"]``), and the recording's own seconds a case.
No model is loaded: the provider model is replaced by one that raises if it is ever called.
"""
from __future__ import annotations

import argparse
import gc
import hashlib
import json
import statistics
import sys
import time

from _common import REPO, common_args, data_root_of, machine_line, markdown_table

sys.path.insert(0, str(REPO))

from auditflow.cases.loader import load_case_file  # noqa: E402
from auditflow.cases.runner import run_case  # noqa: E402
from auditflow.cases.settings import RunSettings  # noqa: E402
from auditflow.llm import factory  # noqa: E402

RECORDINGS = REPO / "cases" / "llm-recordings.json"
CACHE = REPO / "cases" / "llm-cache"
GOAL_S = 0.2


class _NoModel:
    def __getattr__(self, name):
        raise RuntimeError(f"the replay reached the model ({name})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    common_args(ap)
    args = ap.parse_args()
    data_root = data_root_of(args)
    factory.inner_model = lambda spec: _NoModel()
    rows = [r for r in json.loads(RECORDINGS.read_text(encoding="utf-8"))["cases"] if r.get("result_sha256")]
    cases = {r["case_id"]: next(c for c in load_case_file(REPO / r["file"]) if c.id == r["case_id"]) for r in rows}
    out = []
    for r in rows:
        settings = RunSettings(model=r["model"], config=r["config"], record_mode="none", cache_dir=CACHE, data_root=data_root)
        first = run_case(cases[r["case_id"]], settings)
        same = hashlib.sha256(first.result.canonical_json().encode()).hexdigest() == r["result_sha256"]
        total, protocol = [], []
        for _ in range(args.repeat):
            gc.collect()
            t0 = time.perf_counter()
            o = run_case(cases[r["case_id"]], settings)
            total.append(time.perf_counter() - t0)
            protocol.append(o.result.timings["protocol_s"])
        out.append({"case": r["case_id"], "config": r["config"], "identical": same, "recorded_s": r["seconds"],
                    "replay_s": statistics.median(total), "protocol_s": statistics.median(protocol)})
    print(machine_line())
    print(markdown_table(["case", "config", "byte-identical", "recorded s (1.5B)", "replay s", "of which protocol s"],
                         [[o["case"], o["config"], "yes" if o["identical"] else "NO", f"{o['recorded_s']:.1f}",
                           f"{o['replay_s']:.3f}", f"{o['protocol_s']:.3f}"] for o in out]))
    rec = [o["recorded_s"] for o in out]
    rep = [o["replay_s"] for o in out]
    print(f"\nrecording: mean {statistics.mean(rec):.1f} s, median {statistics.median(rec):.1f} s a case; "
          f"replay: mean {statistics.mean(rep):.3f} s, max {max(rep):.3f} s a case (goal < {GOAL_S} s): "
          f"{'MET' if max(rep) < GOAL_S else 'MISSED'}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=1)
    return 0 if all(o["identical"] for o in out) else 1


if __name__ == "__main__":
    raise SystemExit(main())
