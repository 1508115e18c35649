"""Driving a batch: the sources, the results file, a dask cluster (or this process), progress, summary.

``--workers N`` starts a :class:`distributed.LocalCluster` of N single-threaded worker processes on
127.0.0.1; ``--scheduler ADDRESS`` sends the tasks to a running cluster instead. Without dask the
same tasks run here, one after another, after a one-line notice. Faults (docs/batch.md, "Faults"):

* a worker that dies mid-task: the scheduler runs its filing once more elsewhere
  (``distributed.scheduler.allowed-failures`` = 1, set here for a local cluster, in the recipe's
  environment for a remote one); a second death is the filing's ``WorkerDied`` error record;
* a filing past ``--timeout-per-filing``: a ``Timeout`` error record; its check is stopped inside the
  worker (auditflow/batch/task.py), which goes on with the next filing;
* any other failure of one filing is its own typed error record; the batch goes on;
* a failure of the cluster itself (the scheduler lost, a worker that cannot run the task) stops the
  batch with one line; the records written so far stay, and ``--resume`` checks the rest.

The client keeps only a window of tasks submitted (a few per worker thread), so a killed client loses
at most those, and of each result only what the summary needs (auditflow/batch/output.py, ``light``).
"""
from __future__ import annotations

import contextlib
import itertools
import logging
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Iterable, Iterator

from auditflow.batch.output import ResultsFile, read_records, write_parquet
from auditflow.batch.sources import content_hash, expand_sources
from auditflow.batch.task import (
    STATUS_ERROR, WORKER_DIED, FilingRecord, TaskSpec, check_task, error_record,
)
from auditflow.errors import AuditflowError, InputError

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
WINDOW_PER_THREAD = 4
SERIAL_NOTICE = ("auditflow: dask is not installed (pip install 'pytest-auditflow[batch]'): checking the {n} "
                 "filing(s) serially in this process")  # n: the batch's filings, recorded ones included


@dataclass(frozen=True)
class BatchOptions:
    """What ``auditflow check --batch`` was asked for (auditflow/cli/main.py's check flags)."""

    sources: tuple[str, ...]
    out: Path
    rules: tuple[str, ...]
    fmt: str = "jsonl"  # or "parquet"
    workers: int | None = None  # None: the number of cores
    scheduler: str | None = None
    resume: bool = False
    timeout: float | None = None
    data_root: Path | None = None  # the client's, to find named filings and hash them
    explicit_data_root: str | None = None  # --data-root as given: sent to the workers; None, their own
    taxonomies: tuple[str, ...] = ()
    load_taxonomy: bool = True
    progress: bool = True


@dataclass
class BatchSummary:
    """What the batch did: this run's records, the ones it skipped, and the exit code they make."""

    records: list[FilingRecord] = field(default_factory=list)  # this batch's filings, earlier runs' included
    ran: int = 0  # checked by this run
    skipped: int = 0  # already in the results file (--resume)
    seconds: float = 0.0
    engine: str = ""

    def exit_code(self, exit_zero: bool = False) -> int:
        """2 if any filing errored, else 1 if any has findings (0 with --exit-zero), else 0."""
        if any(r.status == STATUS_ERROR for r in self.records):
            return EXIT_ERROR
        if not exit_zero and any(r.findings for r in self.records):
            return EXIT_FINDINGS
        return EXIT_OK


def results_path(opts: BatchOptions) -> Path:
    """The JSON lines file the batch streams to: ``--out`` itself, or beside a parquet ``--out``."""
    return opts.out if opts.fmt != "parquet" else Path(str(opts.out) + ".jsonl")


def run_batch(opts: BatchOptions, *, err=None) -> BatchSummary:
    """Check every filing of ``opts.sources`` not yet recorded, streaming each record to the results file."""
    err = err or sys.stderr
    if opts.fmt == "parquet":
        try:
            import pyarrow  # noqa: F401 - before minutes of checking
        except ImportError:
            raise InputError("--format parquet needs pyarrow: pip install 'pytest-auditflow[parquet]'",
                             path=str(opts.out)) from None
    filings = expand_sources(list(opts.sources), opts.data_root)
    t0 = time.perf_counter()
    with ResultsFile.open(results_path(opts), resume=opts.resume) as results:
        if results.torn_bytes:
            print(f"auditflow: {results.path}: cut a torn last line ({results.torn_bytes} bytes) left by an "
                  "interrupted run; its filing is checked again", file=err)
        done = results.done()
        summary = BatchSummary()
        wanted: set[str] = set()
        with _Progress(len(filings), enabled=opts.progress) as bar:

            def pending() -> Iterator[TaskSpec]:
                """The filings not recorded yet, each hashed just before it is submitted."""
                for f in filings:
                    sha = content_hash(f.path)
                    if sha in wanted:  # a copy of a filing already in this batch: the same record
                        continue
                    wanted.add(sha)
                    if sha in done:
                        summary.skipped += 1
                        bar.skip()
                        continue
                    yield TaskSpec(f.name, sha, tuple(opts.rules), opts.explicit_data_root, tuple(opts.taxonomies),
                                   opts.load_taxonomy, opts.timeout)

            engine, stream = _engine(opts, pending(), len(filings), err)
            summary.engine = engine
            with contextlib.closing(stream):  # the cluster is stopped on Ctrl-C as well as at the end
                for record in stream:
                    results.append(record)
                    summary.ran += 1
                    bar.advance(record)
        summary.records = _latest(r for r in results.records if r.sha256 in wanted)
    summary.seconds = time.perf_counter() - t0
    if opts.fmt == "parquet":
        keep = {r.sha256 for r in summary.records}
        write_parquet(_latest(r for r in read_records(results_path(opts)) if r.sha256 in keep), opts.out)
    print_summary(summary, err)
    return summary


def _latest(records: Iterable[FilingRecord]) -> list[FilingRecord]:
    by_hash: dict[str, FilingRecord] = {}
    for r in records:
        by_hash.setdefault(r.sha256, r)
    return list(by_hash.values())


# -- engines ---------------------------------------------------------------------------------------

def _engine(opts: BatchOptions, specs: Iterator[TaskSpec], total: int, err) -> tuple[str, Iterator[FilingRecord]]:
    try:
        import distributed  # noqa: F401
    except ImportError:
        if opts.scheduler:
            raise InputError("--scheduler needs dask.distributed: pip install 'pytest-auditflow[batch]'",
                             path=opts.scheduler) from None
        print(SERIAL_NOTICE.format(n=total), file=err)
        return "serial (this process)", (check_task(s) for s in specs)
    first = next(specs, None)
    if first is None:  # everything recorded already: no cluster to start
        return "", (r for r in ())
    return _dask_stream(opts, itertools.chain([first], specs))


def _dask_stream(opts: BatchOptions, specs: Iterator[TaskSpec]) -> tuple[str, Iterator[FilingRecord]]:
    import os

    import dask
    from distributed import Client, LocalCluster

    dask.config.set({"distributed.scheduler.allowed-failures": 1})  # a dying worker's filing: one more try
    # dask logs a lost connection with its traceback; the batch says what happened in one line
    for name in ["distributed", *(n for n in logging.Logger.manager.loggerDict if n.startswith("distributed."))]:
        logging.getLogger(name).setLevel(logging.CRITICAL)
    cluster = None
    try:
        if opts.scheduler:
            client = Client(opts.scheduler, timeout="10s")
            engine = f"scheduler {opts.scheduler}"
        else:
            n = opts.workers or os.cpu_count() or 1
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                                   dashboard_address=None, silence_logs=logging.ERROR)
            client = Client(cluster)
            engine = f"local cluster of {n} worker process(es)"
    except (OSError, TimeoutError) as exc:
        if cluster is not None:
            cluster.close()
        where = opts.scheduler or "a local cluster"
        raise InputError(f"cannot reach the dask scheduler: {exc}; start it (docs/batch.md, 'A cluster') or "
                         "check the address", path=where) from None
    return engine, _drive(client, cluster, specs)


def _drive(client, cluster, specs: Iterator[TaskSpec]) -> Iterator[FilingRecord]:
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    run = uuid.uuid4().hex[:8]
    try:
        threads = max(1, sum(client.nthreads().values()))
        pending = iter(enumerate(specs))
        by_key: dict[str, TaskSpec] = {}
        queue = as_completed()

        def submit(items) -> None:
            for i, spec in items:
                fut = client.submit(check_task, spec, key=f"auditflow-check-{run}-{i}", pure=False)
                by_key[fut.key] = spec
                queue.add(fut)

        submit(islice(pending, threads * WINDOW_PER_THREAD))
        for fut in queue:
            spec = by_key.pop(fut.key)
            try:
                record = fut.result()
            except KilledWorker as exc:
                record = error_record(spec, WORKER_DIED, f"each worker that took it died ({exc})")
            except Exception as exc:  # noqa: BLE001 - the task records its own failures: this is the cluster's
                text = " ".join(str(exc).split()).rstrip(".")
                raise AuditflowError(
                    f"the dask cluster failed while checking {spec.filing}: {type(exc).__name__}: {text}. The "
                    "results written so far are kept; once the cluster works (every worker running this "
                    "AuditFlow version), run the same command with --resume to check the rest") from None
            fut.release()
            yield record
            submit(islice(pending, 1))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# -- progress and summary --------------------------------------------------------------------------

class _Progress:
    """A rich progress bar on stderr: filings/s, ETA, findings and errors so far."""

    def __init__(self, total: int, *, enabled: bool) -> None:
        self.total, self.enabled = total, enabled and total > 0
        self.findings = self.errors = self.count = 0
        self.t0 = time.perf_counter()
        self._bar = self._task = None

    def __enter__(self) -> _Progress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._bar = Progress(TextColumn("checking"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[rate]:.1f} filings/s"), TextColumn("ETA"),
                                 TimeRemainingColumn(), TextColumn("{task.fields[findings]} findings"),
                                 TextColumn("{task.fields[errors]} errors"), console=Console(stderr=True))
            self._bar.__enter__()
            self._task = self._bar.add_task("batch", total=self.total, rate=0.0, findings=0, errors=0)
        return self

    def skip(self) -> None:
        """A filing already recorded (--resume): done, but not counted in the rate."""
        if self._bar is not None:
            self._bar.update(self._task, advance=1)

    def advance(self, record: FilingRecord) -> None:
        self.count += 1
        self.findings += len(record.findings)
        self.errors += record.status == STATUS_ERROR
        if self._bar is not None:
            rate = self.count / max(time.perf_counter() - self.t0, 1e-9)
            self._bar.update(self._task, advance=1, rate=rate, findings=self.findings, errors=self.errors)

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)


def print_summary(summary: BatchSummary, err, *, slowest: int = 5) -> None:
    """Filings, findings by rule, errors by type and the slowest filings, on ``err``."""
    recs = summary.records
    findings = Counter(f.get("rule", "?") for r in recs for f in r.findings)
    errors = Counter(r.error["type"] for r in recs if r.error)
    rate = summary.ran / summary.seconds if summary.seconds else 0.0
    print(f"batch: {len(recs)} filing(s): {summary.ran} checked now, {summary.skipped} already recorded; "
          f"{sum(1 for r in recs if r.findings)} with findings, {sum(errors.values())} errored"
          + (f"; {rate:.1f} filings/s on {summary.engine}" if summary.ran else ""), file=err)
    print("findings by rule: " + (", ".join(f"{k}: {v}" for k, v in sorted(findings.items())) or "none"), file=err)
    print("errors by type: " + (", ".join(f"{k}: {v}" for k, v in sorted(errors.items())) or "none"), file=err)
    slow = sorted((r for r in recs if r.status != STATUS_ERROR), key=lambda r: -r.seconds)[:slowest]
    if slow:
        print("slowest: " + ", ".join(f"{r.filing} {r.seconds:.2f} s" for r in slow), file=err)

