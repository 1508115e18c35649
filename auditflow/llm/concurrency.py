"""Run several audit cases at once: asyncio over threads, a bounded number in flight.

An audit case is blocking work (graph walk, checkers, model calls), so each runs in a worker thread
and a semaphore bounds how many are in flight (default 8). The threads come from a pool of exactly
that size: ``asyncio.to_thread``'s default pool has min(32, CPUs + 4) threads, 6 on a 2-core runner. Remote providers
overlap their network waits; the local llama.cpp server batches up to its number of conversation
slots (:mod:`auditflow.llm.local`), a Transformers model serves one call at a time (the lock in
:mod:`auditflow.llm.factory`), and the cases' tool work runs around them. Results come back
in input order, and one case's exception is captured in its outcome instead of cancelling the others.
"""
from __future__ import annotations

import asyncio
import contextvars
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Generic, Iterable, TypeVar

from auditflow.errors import AuditflowError

C = TypeVar("C")
R = TypeVar("R")
DEFAULT_MAX_CONCURRENCY = 8


@dataclass(frozen=True)
class CaseOutcome(Generic[C, R]):
    """One case's result, or the exception it raised."""

    case: C
    result: R | None = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


async def arun_cases(cases: Iterable[C], run_one: Callable[[C], R], *,
                     max_concurrency: int = DEFAULT_MAX_CONCURRENCY) -> list[CaseOutcome[C, R]]:
    """Run ``run_one(case)`` for every case in threads, at most ``max_concurrency`` at a time."""
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
    gate = asyncio.Semaphore(max_concurrency)
    loop = asyncio.get_running_loop()

    async def one(pool: ThreadPoolExecutor, case: C) -> CaseOutcome[C, R]:
        async with gate:
            ctx = contextvars.copy_context()  # as asyncio.to_thread does
            try:
                return CaseOutcome(case, await loop.run_in_executor(pool, ctx.run, run_one, case))
            except Exception as exc:  # noqa: BLE001 - captured per case, reported by the caller
                return CaseOutcome(case, error=exc)

    with ThreadPoolExecutor(max_workers=max_concurrency, thread_name_prefix="auditflow-case") as pool:
        return list(await asyncio.gather(*(one(pool, c) for c in cases)))


def run_cases(cases: Iterable[C], run_one: Callable[[C], R], *,
              max_concurrency: int = DEFAULT_MAX_CONCURRENCY) -> list[CaseOutcome[C, R]]:
    """Blocking front of :func:`arun_cases` for the CLI and the pytest plugin."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(arun_cases(cases, run_one, max_concurrency=max_concurrency))
    raise AuditflowError("run_cases was called inside a running event loop: await arun_cases(...) there instead")


def results_or_raise(outcomes: Iterable[CaseOutcome[Any, R]]) -> list[R]:
    """The results, or the first case's exception (for callers that want all-or-nothing)."""
    outcomes = list(outcomes)
    for o in outcomes:
        if o.error is not None:
            raise o.error
    return [o.result for o in outcomes]  # type: ignore[misc]
