"""Per-environment memo: what every session on one filing would otherwise recompute.

Rule results, fact indexes and name tables depend only on the (immutable) environment, and up to
eight audit cases on the same filing run concurrently. Each value is built once per environment,
under a lock per key so that two threads never run the same rule twice, and dropped with the
environment (a weak reference, so a cache entry never keeps a filing alive).
"""
from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, Hashable

_LOCK = threading.Lock()
_STORES: dict[int, tuple[weakref.ref, dict, dict]] = {}


def _store(env: object) -> tuple[dict, dict]:
    with _LOCK:
        entry = _STORES.get(id(env))
        if entry is not None and entry[0]() is env:
            return entry[1], entry[2]
        key = id(env)
        ref = weakref.ref(env, lambda _r, k=key: _STORES.pop(k, None))
        values: dict = {}
        locks: dict = {}
        _STORES[key] = (ref, values, locks)
        return values, locks


def memo(env: object, key: Hashable, build: Callable[[], Any]) -> Any:
    """``build()`` once per (environment, key); later calls return the same object."""
    values, locks = _store(env)
    if key in values:
        return values[key]
    with _LOCK:
        lock = locks.setdefault(key, threading.Lock())
    with lock:
        if key not in values:
            values[key] = build()
        return values[key]
