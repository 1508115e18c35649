"""The evaluation report as one value, and ``results.json``: what every rendering is made from.

:class:`EvalReport` holds the command that reproduces the run, the cases, the per-configuration
metrics and records, and the bootstrap comparisons: nothing measured by a clock, counted by the
cache, or named by an absolute path. ``results.md``, ``results.json`` and the charts are functions
of it alone, so re-running the same command on the same cache writes the same bytes.
"""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from auditflow.cases.labels import INPUT
from auditflow.eval.beside import BesideResults
from auditflow.bootstrap import Comparison, compare
from auditflow.eval.collect import CaseSet
from auditflow.eval.metrics import ConfigMetrics, config_metrics
from auditflow.eval.plan import EvalConfig, reference_config
from auditflow.eval.records import CaseRecord
from auditflow.eval.runner import EvalRun, SkippedCase

FORMAT = 1


@dataclass(frozen=True)
class CaseInfo:
    key: str
    rule: str
    expected_decision: str


@dataclass(frozen=True)
class EvalReport:
    command: str
    configs: tuple[EvalConfig, ...]
    reference: str
    seed: int
    resamples: int
    files: tuple[str, ...]
    cases: tuple[CaseInfo, ...]  # the cases that ran
    skipped: tuple[SkippedCase, ...]
    metrics: dict[str, ConfigMetrics]
    records: dict[str, tuple[CaseRecord, ...]]
    comparisons: tuple[Comparison, ...]
    notes: str = ""  # a reviewer's commentary (--notes FILE), reproduced verbatim in results.md
    beside: tuple[BesideResults, ...] = ()  # other evaluations summarised beside this one (--with-results)

    def problems(self) -> list[tuple[str, CaseRecord]]:
        """(configuration, record) of every case that did not run to a result, in table order."""
        return [(c.name, r) for c in self.configs for r in self.records[c.name] if r.error_kind]


def eval_command(case_args: Sequence[str], configs: Sequence[EvalConfig], *, model: str, seed: int, resamples: int,
                 cache_dir: str | None = None, extra: Sequence[str] = ()) -> str:
    """The command line that reproduces a report (from the project root): only what changes results.

    ``--out``, ``--jobs``, ``--data-root`` and ``--record-mode`` are left out: where the files go, how
    many cases run at once, where this machine keeps the data, and whether missing calls are recorded
    do not change a single number of a complete run.
    """
    parts = ["auditflow", "eval", *case_args, "--configs", ",".join(c.name for c in configs), "--model", model,
             "--seed", str(seed), "--bootstrap", str(resamples)]
    if cache_dir:
        parts += ["--cache-dir", cache_dir]
    return shlex.join([*parts, *extra])


def build_report(run: EvalRun, cases: CaseSet, configs: Sequence[EvalConfig], *, command: str, seed: int,
                 resamples: int, notes: str = "", beside: Sequence[BesideResults] = ()) -> EvalReport:
    """Metrics per configuration and the reference's bootstrap comparisons with every other one."""
    configs = tuple(configs)
    skipped = {s.key for s in run.skipped}
    infos = tuple(CaseInfo(kc.key, kc.case.rule, kc.case.expect.decision) for kc in cases.cases if kc.key not in skipped)
    metrics = {c.name: config_metrics(c.name, c.protocol, c.model, run.records[c.name]) for c in configs}
    reference = reference_config(configs)
    comparisons = tuple(comp for c in configs if c.name != reference and infos
                        if (comp := _paired(reference, c.name, run.records, resamples=resamples, seed=seed)))
    return EvalReport(command, configs, reference, seed, resamples, cases.files, infos, run.skipped, metrics,
                      dict(run.records), comparisons, notes, tuple(beside))


def _paired(reference: str, other: str, records: dict[str, tuple[CaseRecord, ...]], *, resamples: int,
            seed: int) -> Comparison | None:
    """The bootstrap of two rows on the cases both ran (all of them, unless one row ran a subset);
    None when they share no case."""
    ref = {r.key: r.label == "A" for r in records[reference] if r.label != INPUT}  # input errors: not scored
    oth = {r.key: r.label == "A" for r in records[other] if r.label != INPUT}
    both = [k for k in ref if k in oth]
    if not both:
        return None
    return compare(reference, other, [ref[k] for k in both], [oth[k] for k in both], resamples=resamples, seed=seed)


def results_document(report: EvalReport) -> dict[str, Any]:
    """``results.json``: settings, cases, metrics per configuration, comparisons, per-case records."""
    return {
        "auditflow_eval": FORMAT,
        "command": report.command,
        "configs": [{"name": c.name, "protocol": c.protocol, "model": c.model} for c in report.configs],
        "reference": report.reference,
        "seed": report.seed,
        "bootstrap_resamples": report.resamples,
        "files": list(report.files),
        "cases": [{"key": c.key, "rule": c.rule, "expected_decision": c.expected_decision} for c in report.cases],
        "skipped": [{"key": s.key, "reason": s.reason} for s in report.skipped],
        "metrics": {name: m.to_json() for name, m in report.metrics.items()},
        "comparisons": [c.to_json() for c in report.comparisons],
        "records": {name: [r.to_json() for r in recs] for name, recs in report.records.items()},
    }


def dump_json(document: Any) -> str:
    """The one serialisation of the JSON outputs: sorted keys, two-space indent, final newline."""
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_text(path: Path, text: str) -> None:
    """Write with ``\\n`` line ends on every platform: the bytes must not depend on the OS."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
