"""One filing in, one typed record out: the unit of work of a batch, and of ``auditflow check``.

:func:`check_filing` is the body of ``auditflow check``'s loop, so a batch and a serial check build
the environment and run the rules the same way and report the same findings (docs/batch.md).
:func:`check_task` is what a dask worker runs: it keeps one :class:`EnvironmentFactory` per data root
in the worker process, so the taxonomy set is read once per worker and not once per filing, and it
never raises for a bad filing: the error becomes the record, and the batch goes on.
"""
from __future__ import annotations

import os
import socket
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Callable

from auditflow.graphs.factory import EnvironmentFactory

if TYPE_CHECKING:
    from auditflow.graphs.environment import AuditEnvironment
    from auditflow.rules.runner import CheckReport

STATUS_OK, STATUS_ERROR = "ok", "error"
TIMEOUT = "Timeout"  # the error type of a filing that ran past --timeout-per-filing
WORKER_DIED = "WorkerDied"  # the error type of a filing whose workers died under it (dask gave up on it)


def check_filing(factory: EnvironmentFactory, target, rules, *,
                 between: Callable[[], None] = lambda: None) -> tuple[AuditEnvironment, CheckReport]:
    """The environment of ``target`` and the report of ``rules`` on it, as ``auditflow check`` makes it.

    ``between`` runs after the build and after the rules: the one-shot command sets its objects
    aside from the garbage collector there (auditflow/cli/gc_policy.py).
    """
    from auditflow.rules.runner import run_rules

    env = factory.build(target)
    between()
    report = run_rules(env, rules, data_root=factory.data_root)
    between()
    return env, report


@dataclass(frozen=True)
class TaskSpec:
    """What the client sends a worker: the filing as named, and how to build its environment there.

    ``data_root`` None means the worker's own (its ``AUDITFLOW_DATA_ROOT``, then the defaults).
    """

    filing: str  # as the sources named it: a path, or a name under the data root's filings/
    sha256: str  # the content hash the client computed (docs/batch.md, "Resume")
    rules: tuple[str, ...]
    data_root: str | None = None
    taxonomies: tuple[str, ...] = ()
    load_taxonomy: bool = True
    timeout: float | None = None  # seconds; None waits for ever


@dataclass
class FilingRecord:
    """One line of ``results.jsonl``: a checked filing, or a typed error for one that failed."""

    filing: str
    sha256: str
    status: str  # "ok" or "error"
    rules: list[str]
    findings: list[dict] = field(default_factory=list)  # exactly CheckReport.to_json()["findings"]
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    worker: str = ""
    path: str | None = None  # the filing as the worker found it
    error: dict | None = None  # {"type": ..., "message": ...} when status is "error"

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, row: dict) -> FilingRecord:
        return cls(**{k: row.get(k) for k in cls.__dataclass_fields__ if k in row})


def error_record(spec: TaskSpec, kind: str, message: str, *, seconds: float = 0.0, worker: str = "") -> FilingRecord:
    return FilingRecord(spec.filing, spec.sha256, STATUS_ERROR, list(spec.rules), seconds=round(seconds, 4),
                        worker=worker, error={"type": kind, "message": " ".join(str(message).split())})


# the worker process's factories, one per (data root, taxonomies, load): the taxonomy set is read
# once per worker and reused by every task it runs
_FACTORIES: dict[tuple, EnvironmentFactory] = {}
_LOCK = threading.Lock()


def worker_factory(spec: TaskSpec) -> EnvironmentFactory:
    """This process's factory for ``spec``'s data root, built on the first task that needs it."""
    from auditflow.dataroot import ENV_VAR, chosen_data_root

    key = (spec.data_root, spec.taxonomies, spec.load_taxonomy, os.environ.get(ENV_VAR))
    with _LOCK:
        if key not in _FACTORIES:
            _FACTORIES[key] = EnvironmentFactory(chosen_data_root(spec.data_root), taxonomies=spec.taxonomies,
                                                 load_taxonomy=spec.load_taxonomy, taxonomy_graph=False)
        return _FACTORIES[key]


def worker_name() -> str:
    """The dask worker's address when run by one, else this host and process."""
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return f"{socket.gethostname()}:{os.getpid()}"


def run_spec(spec: TaskSpec, worker: str) -> FilingRecord:
    """Check one filing in this thread; every failure becomes an error record."""
    from auditflow.errors import AuditflowError

    t0 = time.perf_counter()
    try:
        factory = worker_factory(spec)
        env, report = check_filing(factory, spec.filing, spec.rules)
        doc = report.to_json()
        return FilingRecord(spec.filing, spec.sha256, STATUS_OK, list(report.results), findings=doc["findings"],
                            warnings=doc["warnings"], seconds=round(time.perf_counter() - t0, 4), worker=worker,
                            path=str(env.filing.source))
    except AuditflowError as exc:
        return error_record(spec, type(exc).__name__, str(exc), seconds=time.perf_counter() - t0, worker=worker)
    # a bug on one filing must not stop the batch
    except (Exception, RecursionError, MemoryError) as exc:  # noqa: BLE001
        return error_record(spec, "InternalError", f"{type(exc).__name__}: {exc} (a bug in AuditFlow)",
                            seconds=time.perf_counter() - t0, worker=worker)


class Abandoned(BaseException):
    """Raised inside a check that ran past its timeout, to stop it (not an error of the filing: the
    record of a timed-out filing is written by :func:`check_task`)."""


def check_task(spec: TaskSpec) -> FilingRecord:
    """The dask task: :func:`run_spec`, given at most ``spec.timeout`` seconds.

    The check runs in a daemon thread and this one waits. Past the timeout the record is a
    ``Timeout`` error and :class:`Abandoned` is raised in the check's thread, which stops it at its
    next Python instruction (a long call into C, such as parsing one XML document, ends first), so an
    abandoned check does not keep a core busy and the worker takes the next filing at once.
    """
    worker = worker_name()
    if spec.timeout is None:
        return run_spec(spec, worker)
    prepare(spec)
    box: list[FilingRecord] = []

    def target() -> None:
        try:
            box.append(run_spec(spec, worker))
        except Abandoned:
            pass

    thread = threading.Thread(target=target, daemon=True, name=f"auditflow-check {spec.filing}")
    t0 = time.perf_counter()
    thread.start()
    thread.join(spec.timeout)
    if box:
        return box[0]
    _stop(thread)
    return error_record(spec, TIMEOUT, f"the check ran past --timeout-per-filing {spec.timeout:g} s and was "
                        "stopped", seconds=time.perf_counter() - t0, worker=worker)


def prepare(spec: TaskSpec) -> None:
    """Everything a check needs besides the filing, made ready in the worker's own thread: the
    modules the check imports and the data root's taxonomy set. Stopping a thread in the middle of an
    import would leave a half-initialised module behind for every later task of the worker, and the
    taxonomy set is the worker's, not the filing's: neither belongs inside the filing's timeout."""
    from auditflow.rules import registry
    from auditflow.rules.runner import run_rules  # noqa: F401
    from auditflow.xbrl import filing_cache, inline, loader  # noqa: F401

    for rule in spec.rules:
        registry.get(rule)
    try:
        worker_factory(spec)
    except Exception:  # noqa: BLE001 - a data root problem is the filing's error record, made by run_spec
        pass


def _stop(thread: threading.Thread) -> None:
    """Raise :class:`Abandoned` in ``thread`` (CPython's asynchronous exception)."""
    import ctypes

    if thread.ident is not None and thread.is_alive():
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(Abandoned))
