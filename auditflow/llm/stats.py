"""Cache statistics: hits, misses, writes, corrupt entries, and the keys a run used.

Several threads (parallel auditors, concurrent cases) count into one object, and xdist workers send
theirs to the controller as plain JSON (``config.workeroutput``), where they are merged; the union of
used keys is what :func:`auditflow.llm.cache.prune` keeps.
"""
from __future__ import annotations

import threading
from typing import Any, Mapping

COUNTERS: tuple[str, ...] = ("hits", "misses", "writes", "corrupt")


class CacheStats:
    """Thread-safe counters plus the set of used keys; ``to_json`` / ``from_json`` / ``merge``."""

    def __init__(self, **counts: int) -> None:
        self._lock = threading.Lock()
        self.counts = {name: int(counts.get(name, 0)) for name in COUNTERS}
        self.used_keys: set[str] = set()

    def count(self, event: str, key: str | None = None) -> None:
        """Count one event; a key passed with it is marked used (hits, misses and writes pass one)."""
        if event not in self.counts:
            raise ValueError(f"unknown cache event {event!r}: expected one of {', '.join(COUNTERS)}")
        with self._lock:
            self.counts[event] += 1
            if key is not None:
                self.used_keys.add(key)

    @property
    def hits(self) -> int:
        return self.counts["hits"]

    @property
    def misses(self) -> int:
        return self.counts["misses"]

    @property
    def writes(self) -> int:
        return self.counts["writes"]

    @property
    def corrupt(self) -> int:
        return self.counts["corrupt"]

    def merge(self, other: CacheStats | Mapping[str, Any]) -> CacheStats:
        """Add another run's (or worker's) statistics into this one; returns self."""
        data = other.to_json() if isinstance(other, CacheStats) else other
        with self._lock:
            for name in COUNTERS:
                self.counts[name] += int(data.get(name, 0))
            self.used_keys.update(data.get("used_keys", ()))
        return self

    def to_json(self) -> dict[str, Any]:
        with self._lock:
            return {**self.counts, "used_keys": sorted(self.used_keys)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CacheStats:
        return cls().merge(data)

    def __repr__(self) -> str:
        return f"CacheStats({', '.join(f'{k}={v}' for k, v in self.counts.items())}, used_keys={len(self.used_keys)})"
