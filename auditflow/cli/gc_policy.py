"""The garbage-collection policy of the one-shot commands (``check``, ``inspect``).

A one-shot run imports, loads a bounded amount, reports and exits. Python's default policy (a
young-generation pass every 700 new container objects) walks the tens of thousands of facts, arcs and
QNames a load creates again and again, 15-25 ms of a 0.1 s run, to find almost no cycles. So:

* what is loaded before the command starts (modules, classes) is frozen out of every collection, and
  a young pass comes every 50,000 allocations instead of 700 (:func:`one_shot_gc`). Collection stays
  on, so memory stays bounded when many filings are checked in one run;
* what a command keeps until it moves on (a filing's environment, then its report) is set aside the
  same way (:func:`set_aside`). Neither the loader nor the rules make reference cycles
  (tests/xbrl/test_gc_pause.py), so reference counting frees those objects when the next filing replaces
  them; a collection pass over them would free nothing. Without this, the first pass after the rules
  walked the whole loaded filing (7-13 ms of a 0.2 s ``check``, issue 21), and the interpreter's last
  collection at exit did so again (about 3 ms).

``one_shot_gc`` does not run a full collection before freezing: the garbage of the few modules
imported by then is a few hundred objects, and that collection cost 2 ms of every run.
"""
from __future__ import annotations

import gc

# Commands that load a bounded amount and exit.
ONE_SHOT = frozenset({"check", "inspect"})


def one_shot_gc() -> None:
    """Freeze what is loaded now out of every collection; a young pass every 50,000 allocations."""
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)


def set_aside() -> None:
    """Move every object alive now out of the collector's reach (see the module docstring); the count
    of new objects starts again from zero, so no pass walks them. They are still freed by reference
    counting when no longer used."""
    gc.freeze()
