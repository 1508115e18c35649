"""Pause Python's cyclic garbage collector while a filing is loaded and while rules run over it.

A load makes tens of thousands of objects (facts, arcs, contexts, lxml proxies) and no reference
cycles, nor do the rules (tests/xbrl/test_gc_pause.py checks both on real filings), so the collector's
default policy (a young-generation pass every 700 new container objects, older ones in turn) walks
them again and again to free nothing: 2.2% of the Apple 10-K's first load and three rules, counted in
instructions (issue 21). Objects without cycles are freed by reference counting whether the collector
runs or not, so memory does not grow from the pause; a cycle a rule plugin might make is collected
once the pause ends.

The pause is process-wide, so it is counted: with loads running in several threads the collector
comes back when the last one ends, and only if it was enabled when the first one began (a program that
disabled it keeps it disabled).
"""
from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator

_lock = threading.Lock()
_active = 0  # loads running now
_restore = False  # whether the collector was enabled when the first of them began


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the body with automatic collection off; restore it when the last paused body ends."""
    global _active, _restore
    with _lock:
        if _active == 0:
            _restore = gc.isenabled()
            gc.disable()
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0 and _restore:
                gc.enable()
