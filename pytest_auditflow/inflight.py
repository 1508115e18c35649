"""Up to N audit cases in flight inside one pytest process (``--auditflow-concurrency N``).

pytest runs items one after the other, and an audit case spends most of its time waiting for a model
server. So when an item's turn comes, this module starts that case and the next runnable cases of the
same process in a pool of N threads, up to N started and not yet reported; each item then waits for
its own case. pytest still reports the items in their usual order, with their usual properties, so
the results JSON, the HTML report and the gates are the same whatever N is (docs/pytest-plugin-notes.md).

Which items come next: ``session.items`` in a plain run; under xdist, the worker's own queue (the item
xdist announced as next and the indices it has been sent), so each worker keeps N of *its* cases in
flight (N per worker). A case started ahead that this process never reports (``-x`` stopped the run,
or xdist's work stealing moved the item) is cancelled if it has not started, and its result dropped.
Items with a skip or xfail marker are never started ahead: pytest decides about them at their turn.
"""
from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable, Iterable

import pytest

if TYPE_CHECKING:
    from auditflow.cases.runner import CaseOutcome


class InFlight:
    """A bounded pool of case runs keyed by pytest node id."""

    def __init__(self, size: int, run: Callable[[Any], "list[CaseOutcome]"]) -> None:
        self.size = size
        self._run = run
        self._pool: ThreadPoolExecutor | None = None
        self._futures: dict[str, Future] = {}
        self._lock = threading.Lock()

    def outcome(self, item: pytest.Item, upcoming: Iterable[pytest.Item]) -> "list[CaseOutcome]":
        """The outcomes (one per repeat) of ``item``'s case, after starting it and the ``upcoming`` runnable items (up to
        :attr:`size` started and not yet taken). Re-raises what the case run raised."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.size, thread_name_prefix="auditflow-case")
            self._start(item)
            for nxt in upcoming:
                if len(self._futures) >= self.size:
                    break
                if startable(nxt):
                    self._start(nxt)
            future = self._futures.pop(item.nodeid)
        return future.result()

    def _start(self, item: pytest.Item) -> None:
        if item.nodeid not in self._futures:
            self._futures[item.nodeid] = self._pool.submit(self._run, item.case)  # type: ignore[union-attr]

    def close(self) -> None:
        """Cancel what has not started and wait for what has (a case thread must not outlive the session)."""
        with self._lock:
            pool, self._pool = self._pool, None
            self._futures.clear()
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def startable(item: pytest.Item) -> bool:
    """An audit case pytest will surely run: no skip, skipif or xfail marker to evaluate first. An audit
    case item is known by the case it carries (``AuditCaseItem.case``): this module is imported by the
    session, which the items module imports, so it does not import the items back."""
    from auditflow.cases.model import AuditCase

    return isinstance(getattr(item, "case", None), AuditCase) and not any(
        item.get_closest_marker(m) for m in ("skip", "skipif", "xfail"))


# Each item's place in session.items, made once per session (and again if the list changed length): the
# plain run asks for every item's place, and list.index there made a long run quadratic.
_PLACES = pytest.StashKey[tuple[int, dict[int, int]]]()


def _place(session: pytest.Session, item: pytest.Item) -> int | None:
    items = session.items
    known = session.stash.get(_PLACES, None)
    if known is None or known[0] != len(items):
        known = (len(items), {id(it): i for i, it in enumerate(items)})
        session.stash[_PLACES] = known
    at = known[1].get(id(item))
    return at if at is not None and items[at] is item else None


def upcoming_items(item: pytest.Item) -> Iterable[pytest.Item]:
    """The items this process will run after ``item``, in order, as far as it knows them (lazily: the
    caller stops once N cases are in flight)."""
    session = item.session
    worker = _xdist_worker(item.config)
    if worker is not None:
        items = session.items
        nxt = getattr(worker, "nextitem_index", None)
        queue = getattr(worker, "torun", None)
        indices = [nxt] if isinstance(nxt, int) else []
        if queue is not None and indices:  # SHUTDOWN next: nothing more for this worker
            try:
                with queue.lock() as pending:
                    indices += [i for i in pending if isinstance(i, int)]
            except Exception:  # noqa: BLE001 - another xdist version: the announced next item only
                pass
        return [items[i] for i in indices if 0 <= i < len(items)]
    at = _place(session, item)
    if at is None:
        return []
    items = session.items
    return (items[i] for i in range(at + 1, len(items)))


def _xdist_worker(config: pytest.Config) -> Any:
    """xdist's worker interactor in a worker process (it holds the worker's queue), else None."""
    if not hasattr(config, "workerinput"):
        return None
    for plugin in config.pluginmanager.get_plugins():
        if hasattr(plugin, "torun") and hasattr(plugin, "nextitem_index"):
            return plugin
    return None
