"""Suite results as data: the results document (``--auditflow-json``) and the CI gates.

Rows are plain dicts (what a pytest item sends to the controller as ``user_properties``), so the
same functions serve a serial run, an xdist run and a results file read back as a baseline. Rows
are always sorted by node id: the document and the gates must not depend on which worker finished
first.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from auditflow.cases.errors import CaseInputError
from auditflow.cases.labels import INPUT, Tally, tally

RESULTS_FORMAT = 1
TIMINGS_FORMAT = 1
EPSILON = 1e-9
# Wall-clock fields of a row. They differ from run to run (and with --auditflow-concurrency), so they go
# to a timings file beside the results file: the results document itself is byte-identical on replay.
TIMING_FIELDS = ("seconds", "llm_seconds")


def sorted_rows(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return sorted((dict(r) for r in rows), key=lambda r: r["nodeid"])


def cache_totals(rows: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    out = {"hits": 0, "misses": 0, "writes": 0}
    for r in rows:
        for k in out:
            out[k] += int(r.get(f"cache_{k}", 0) or 0)
    return out


def results_document(rows: Iterable[Mapping[str, Any]], *, settings: Mapping[str, Any],
                     gates: Iterable["GateResult"] = ()) -> dict[str, Any]:
    """Per-case results and aggregates (per rule family and total), JSON-ready; timings left out
    (:func:`timings_document`)."""
    cases = [{k: v for k, v in r.items() if k not in TIMING_FIELDS} for r in sorted_rows(rows)]
    by_rule, total = tally(cases)
    return {
        "auditflow_results": RESULTS_FORMAT,
        "settings": dict(settings),
        "cases": cases,
        "aggregates": {"by_rule": {k: v.to_json() for k, v in by_rule.items()}, "total": total.to_json()},
        "cache": cache_totals(cases),
        "gates": [g.to_json() for g in gates],
    }


def timings_document(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The wall-clock fields of each row, by node id: what :func:`results_document` leaves out."""
    return {
        "auditflow_timings": TIMINGS_FORMAT,
        "cases": {r["nodeid"]: {k: r[k] for k in TIMING_FIELDS if r.get(k) is not None} for r in sorted_rows(rows)},
    }


def timings_path(results_path: Path) -> Path:
    """Where the timings of ``results.json`` go: ``results.timings.json`` beside it."""
    return results_path.with_name(results_path.stem + ".timings" + (results_path.suffix or ".json"))


def write_results(path: Path, document: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def load_baseline(path: Path) -> dict[str, dict[str, Any]]:
    """The cases of a results document, by node id.

    :raises CaseInputError: the file is missing or is not an AuditFlow results document.
    """
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CaseInputError(f"cannot read the baseline {path}: {exc}. Create one from a reviewed run with "
                             "--auditflow-json PATH and commit it.") from None
    if not isinstance(doc, dict) or doc.get("auditflow_results") != RESULTS_FORMAT:
        raise CaseInputError(f"{path} is not an AuditFlow results file (format {RESULTS_FORMAT}); write one "
                             "with --auditflow-json PATH.")
    return {c["nodeid"]: c for c in doc.get("cases", [])}


@dataclass(frozen=True)
class GateResult:
    name: str
    ok: bool
    message: str
    regressed: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "message": self.message, "regressed": list(self.regressed)}


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def min_joint_acc_gate(total: Tally, threshold: float) -> GateResult:
    """Fail when the suite's Joint ACC is below ``threshold`` (a fraction)."""
    acc = total.joint_acc
    ok = acc is None or acc + EPSILON >= threshold
    return GateResult("min-joint-acc", ok, f"Joint ACC {_pct(acc)} {'>=' if ok else '<'} required {_pct(threshold)}")


def a_rate(row: Mapping[str, Any]) -> float:
    """How often the case was labelled A: the share of its repeats (``--auditflow-repeats``), else 0 or 1."""
    labels = str(row.get("repeat_labels") or "").split(",") if row.get("repeat_labels") else [row["label"]]
    return sum(x == "A" for x in labels) / len(labels)


def _repeat_count(row: Mapping[str, Any]) -> int:
    return int(row.get("repeats") or 1)


def baseline_gate(rows: Iterable[Mapping[str, Any]], baseline: Mapping[str, Mapping[str, Any]],
                  max_drop: float, *, alpha: float | None = None, resamples: int = 10_000, seed: int = 0) -> GateResult:
    """Compare with a baseline on the cases both runs have; fail on a Joint ACC drop above ``max_drop``.

    Regressed cases (A before and not now, or passed before and failed now) are always named, so a
    run whose improvements hide a regression still shows it. A failing case the baseline does not
    hold is a new failure, i.e. a regression, and fails the gate whatever ``max_drop``: otherwise a
    broken new case, or a run whose node ids no longer match the baseline (a moved rootdir), would
    pass with nothing compared. Accept a known failure by writing it into a reviewed baseline.

    With ``alpha`` (the plugin's ``--auditflow-alpha``), a drop beyond ``max_drop`` fails the gate only
    when the paired bootstrap of the shared cases (:mod:`auditflow.bootstrap`, what ``auditflow
    eval`` compares configurations with) also gives p < ``alpha``: a noisy model's few flips pass, a real
    regression does not. Each case counts by its A rate over its repeats. Cases that flipped are listed
    both ways (regressed A->x and improved x->A).
    """
    current = {r["nodeid"]: r for r in rows}
    # a case with an input error (in either run) has no label to compare; it is still named below when it
    # passed before, and it fails the session on its own (the reporter never gates it away)
    both = sorted(set(current) & set(baseline))
    shared = [k for k in both if INPUT not in (current[k]["label"], baseline[k]["label"])]
    new_failures = tuple(sorted(k for k, r in current.items() if k not in baseline and not r.get("passed")))
    new_note = (f"; {len(new_failures)} new failing case(s), not in the baseline: {', '.join(new_failures)}"
                if new_failures else "")
    if not shared:
        what = ("no case of this run is in the baseline" if not both
                else f"the {len(both)} case(s) this run shares with the baseline have an input error")
        return GateResult("baseline", not new_failures, f"{what}; nothing to compare{new_note}", new_failures)
    def acc(src: Mapping[str, Mapping[str, Any]]) -> float:
        return sum(a_rate(src[k]) for k in shared) / len(shared)

    before, now = acc(baseline), acc(current)
    regressed = tuple(k for k in both if _worse(baseline[k], current[k]))
    improved = tuple(k for k in both if k not in regressed and _better(baseline[k], current[k]))
    dropped = now + EPSILON < before - max_drop
    significance = ""
    if alpha is not None:
        p = _p_value(shared, baseline, current, resamples=resamples, seed=seed)
        significance = f", paired bootstrap p = {p:.4f} (alpha {alpha:g})"
        dropped = dropped and p < alpha
    ok = not dropped and not new_failures
    detail = "; regressed: " + ", ".join(_describe(k, baseline[k], current[k]) for k in regressed) if regressed else ""
    if improved:
        detail += "; improved: " + ", ".join(_describe(k, baseline[k], current[k]) for k in improved)
    skipped = len(set(baseline) - set(current))
    note = f" ({skipped} baseline case(s) not run)" if skipped else ""
    if len(both) > len(shared):
        note += f" ({len(both) - len(shared)} with an input error, not compared)"
    return GateResult("baseline", ok, f"Joint ACC {_pct(now)} vs baseline {_pct(before)} on {len(shared)} shared "
                                      f"case(s){note}, allowed drop {_pct(max_drop)}{significance}{detail}{new_note}",
                      regressed + new_failures)


def _p_value(shared: list[str], baseline: Mapping[str, Mapping[str, Any]], current: Mapping[str, Mapping[str, Any]],
             *, resamples: int, seed: int) -> float:
    """The paired bootstrap's two-sided p-value of the A-rate difference. Each case is scored by its
    number of A over its repeats, both runs brought to a common number of repeats so the scores stay
    whole numbers (the bootstrap sums them as integers)."""
    from auditflow.bootstrap import paired_bootstrap

    def score(row: Mapping[str, Any], scale: int) -> int:
        return round(a_rate(row) * _repeat_count(row)) * scale

    kb = max(_repeat_count(baseline[k]) for k in shared)
    kc = max(_repeat_count(current[k]) for k in shared)
    before = [score(baseline[k], kc * kb // _repeat_count(baseline[k])) for k in shared]
    now = [score(current[k], kc * kb // _repeat_count(current[k])) for k in shared]
    return paired_bootstrap(before, now, resamples=resamples, seed=seed).p_value


def _worse(before: Mapping[str, Any], now: Mapping[str, Any]) -> bool:
    return (before["label"] == "A" and now["label"] != "A") or (bool(before.get("passed")) and not now.get("passed")) \
        or (INPUT not in (before["label"], now["label"]) and a_rate(now) < a_rate(before))


def _better(before: Mapping[str, Any], now: Mapping[str, Any]) -> bool:
    return (before["label"] != "A" and now["label"] == "A") or (
        INPUT not in (before["label"], now["label"]) and a_rate(now) > a_rate(before))


def _describe(nodeid: str, before: Mapping[str, Any], now: Mapping[str, Any]) -> str:
    status = lambda r: "passed" if r.get("passed") else "failed"  # noqa: E731
    rates = ""
    if before.get("repeat_labels") or now.get("repeat_labels"):
        rate = lambda r: f"{round(a_rate(r) * _repeat_count(r))}/{_repeat_count(r)} A"  # noqa: E731
        rates = f", {rate(before)}->{rate(now)}"
    return f"{nodeid} ({before['label']}->{now['label']}, {status(before)}->{status(now)}{rates})"
