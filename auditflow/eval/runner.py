"""Run every configuration over every case: one thread pool, records in a fixed order.

All (configuration, case) pairs go to one bounded pool (:func:`auditflow.llm.concurrency.run_cases`)
ordered by filing, so the cases of one filing run close together and each filing is loaded once per
evaluation, not once per configuration (the per-process filing cache holds 16). Before a case runs,
its filing's environment is built under a lock per filing: two threads that start cases of the same
filing would otherwise both load it. Results are re-sorted by configuration and case key, so the
records never depend on which thread finished first.

A case the run cannot start here (it needs the data root and there is none) is skipped with the
plugin's reason and counted nowhere; a cache miss is a record labelled S, an input error of the case
(a typo in its query, a missing filing) a record in no rate (what the plugin counts); an exception from
the run is a bug, recorded as a ``crash`` with its traceback kept for the caller to print. A data root
that lacks what the cases read is one error before any case runs (auditflow.cases.root_parts).
"""
from __future__ import annotations

import threading
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Sequence

from auditflow.cases.errors import CaseInputError
from auditflow.cases.root_parts import check_case_root
from auditflow.cases.settings import RunSettings
from auditflow.eval.collect import KeyedCase
from auditflow.eval.plan import EvalConfig
from auditflow.eval.records import CaseRecord, CaseTiming, Redactor, crash_record, record_of

NEEDS_DATA_ROOT = ("needs the AuditFlow data root (DQC concept lists); pass --data-root DIR "
                   "or set AUDITFLOW_DATA_ROOT")


@dataclass(frozen=True, slots=True)
class SkippedCase:
    key: str
    reason: str


@dataclass
class EvalRun:
    """Records per configuration (in configuration order, cases sorted by key; a subset row has only its
    subset's), timings, skips, crashes."""

    records: dict[str, tuple[CaseRecord, ...]]
    timings: tuple[CaseTiming, ...] = ()
    skipped: tuple[SkippedCase, ...] = ()
    tracebacks: dict[tuple[str, str], str] = field(default_factory=dict)  # (config, key) -> traceback
    settings: dict[str, RunSettings] = field(default_factory=dict)  # config -> the settings its cases ran with


def missing_requirement(kc: KeyedCase, data_root: Path | None) -> str | None:
    """Why the case cannot run here (the plugin skips it for the same reason), or None."""
    return NEEDS_DATA_ROOT if "data_root" in kc.case.requires and data_root is None else None


class _FilingLoader:
    """Builds each filing's environment once, whatever the number of threads asking for it."""

    def __init__(self, data_root: Path | None, rootdir: Path | None = None) -> None:
        self.data_root, self.rootdir = data_root, rootdir
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def path_of(self, kc: KeyedCase) -> str:
        from auditflow.cases.filings import resolve_filing

        try:
            return str(resolve_filing(kc.case.filing, case_dir=kc.case.file.parent, data_root=self.data_root,
                                      rootdir=self.rootdir))
        except CaseInputError:
            return ""  # run_case reports it as the case's input error

    def warm(self, path: str) -> None:
        if not path:
            return
        from auditflow.graphs.factory import shared_environment

        with self._guard:
            lock = self._locks.setdefault(path, threading.Lock())
        with lock:
            try:
                shared_environment(Path(path))
            except Exception:  # noqa: BLE001 - run_case reports (or raises) it for the case itself
                pass


def subset_cases(cases: Sequence[KeyedCase], size: int | None, *, data_root: Path | None) -> list[KeyedCase]:
    """The cases runnable here (:func:`missing_requirement`), in their order, or the stratified subset of
    ``size`` drawn from them (``None``: all). An eval row with ``+subset=N`` and ``pytest --auditflow-subset N``
    both call this, so over the same case files they run the very same cases."""
    runnable = [kc for kc in cases if missing_requirement(kc, data_root) is None]
    if size is None:
        return runnable
    from auditflow.eval.subset import stratified_subset

    keep = stratified_subset(runnable, size)
    return [kc for kc in runnable if kc.key in keep]


def row_cases(cases: Sequence[KeyedCase], config: EvalConfig, *, data_root: Path | None) -> list[KeyedCase]:
    """The cases a row runs: every runnable case, or its stratified subset (drawn from the runnable cases)."""
    return subset_cases(cases, config.subset, data_root=data_root)


def run_eval(cases: Sequence[KeyedCase], configs: Sequence[EvalConfig], base: RunSettings, *, jobs: int,
             redact: Redactor, on_done: Callable[[str, CaseRecord], None] | None = None,
             run_one: Callable[..., object] | None = None) -> EvalRun:
    """Run each configuration over ``cases`` with ``base`` settings (its model and config replaced).

    ``on_done(config_name, record)`` is called from worker threads as cases finish (a progress bar);
    ``run_one`` replaces :func:`auditflow.cases.runner.run_case` (tests).
    """
    from auditflow.cases.runner import run_case
    from auditflow.llm.concurrency import run_cases

    run = run_one or run_case
    # a data root that lacks what these cases read would turn every case into a cache miss: one error instead
    check_case_root(base.data_root, how="auditflow eval", option="--data-root",
                    cases=[kc.case for kc in cases])
    skipped = tuple(SkippedCase(kc.key, why) for kc in cases if (why := missing_requirement(kc, base.data_root)))
    runnable = [kc for kc in cases if not missing_requirement(kc, base.data_root)]
    loader = _FilingLoader(base.data_root, base.rootdir)
    paths = {kc.key: loader.path_of(kc) for kc in runnable}
    settings = {c.name: replace(base, model=c.model, config=c.protocol,
                                prompts=c.prompts if c.prompts is not None else base.prompts,
                                shuffle=c.shuffle if c.shuffle is not None else base.shuffle) for c in configs}
    order = {c.name: i for i, c in enumerate(configs)}
    rows = {c.name: row_cases(cases, c, data_root=base.data_root) for c in configs}
    tasks = sorted(((c, kc) for c in configs for kc in rows[c.name]),
                   key=lambda t: (paths[t[1].key], t[1].key, order[t[0].name]))
    tracebacks: dict[tuple[str, str], str] = {}

    def one(task: tuple[EvalConfig, KeyedCase]) -> tuple[CaseRecord, CaseTiming | None]:
        config, kc = task
        timing = None
        try:
            loader.warm(paths[kc.key])
            outcome = run(kc.case, settings[config.name])
            rec = record_of(kc.key, outcome, redact)
            timing = CaseTiming(config.name, kc.key, round(outcome.seconds, 3), dict(outcome.cache),
                                outcome.cache_keys, getattr(outcome, "live", None))
        except Exception as exc:  # noqa: BLE001 - a bug in one case must not lose the others' results
            rec = crash_record(kc.key, kc.case.rule, kc.case.expect.decision, exc, redact)
            tracebacks[(config.name, kc.key)] = "".join(traceback.format_exception(exc))
        if on_done is not None:
            on_done(config.name, rec)
        return rec, timing

    done: dict[tuple[str, str], CaseRecord] = {}
    timings: list[CaseTiming] = []
    for out in run_cases(tasks, one, max_concurrency=max(1, jobs)):
        if out.error is not None:  # only a bug of this module (or on_done) gets here
            raise out.error
        rec, timing = out.result
        done[(out.case[0].name, rec.key)] = rec
        if timing is not None:
            timings.append(timing)
    records = {c.name: tuple(done[(c.name, kc.key)] for kc in rows[c.name]) for c in configs}
    timings.sort(key=lambda t: (order[t.config], t.key))
    return EvalRun(records, tuple(timings), skipped, tracebacks, settings)
