"""What a live run shows while it runs: a line per model call, and a progress bar with rate and ETA.

A replayed run shows neither (it makes no model call), so nothing here changes a replay's output.
The call lines come from :mod:`auditflow.llm.progress`, called from the case's thread as each call
returns; they are written at once (never held until the case ends), so a live audit shows its first
line seconds after its first call. Under xdist a worker's terminal is not the user's: a worker writes
its lines to its standard error, which xdist leaves attached to the terminal.

The bar is printed as a line after each case a live run finishes (pytest owns the terminal, so a bar
redrawn in place would fight its own output): done/total, cases a minute, and the time left at that
rate, drawn by rich (docs/pytest-plugin-notes.md).
"""
from __future__ import annotations

import io
import os
import threading
import time
from typing import Any, Callable

from auditflow.llm.progress import LiveCall, add_listener


class LiveLines:
    """Writes one line per live model call through ``write``, with pytest's output capture suspended (a
    call is made while its item runs, when pytest would keep the line for the item's report); ``close``
    stops listening."""

    def __init__(self, write: Callable[[str], None], config: Any = None) -> None:
        self._write = write
        self._capture = config.pluginmanager.getplugin("capturemanager") if config is not None else None
        self._lock = threading.Lock()
        self._remove = add_listener(self._on_call)

    def _on_call(self, call: LiveCall) -> None:
        with self._lock:
            if self._capture is None:
                self._write(f"auditflow: {call.line()}")
                return
            with self._capture.global_and_fixture_disabled():
                self._write(f"auditflow: {call.line()}")

    def close(self) -> None:
        self._remove()


def stderr_writer(line: str) -> None:
    """A worker's line, straight to file descriptor 2 (pytest captures ``sys.stderr``, not the descriptor
    while no test captures it; xdist leaves a worker's descriptor 2 on the terminal)."""
    try:
        os.write(2, (line + "\n").encode("utf-8", "replace"))
    except OSError:
        pass


class Bar:
    """Cases done out of the total, with the rate and the time left, rendered as one line of text."""

    def __init__(self, total: int | None = None) -> None:
        self.total = total
        self.done = 0
        self.started = time.monotonic()

    def advance(self) -> None:
        self.done += 1

    def line(self, width: int = 100) -> str:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        elapsed = max(time.monotonic() - self.started, 1e-6)
        rate = self.done / elapsed * 60
        total = max(self.total or 0, self.done)
        left = (total - self.done) / (self.done / elapsed) if self.done else None
        eta = "ETA ?" if left is None else f"ETA {_clock(left)}"
        buffer = io.StringIO()
        console = Console(file=buffer, width=width, color_system=None, force_terminal=False, legacy_windows=False)
        progress = Progress(BarColumn(bar_width=30), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                            TextColumn("{task.fields[eta]}"), console=console, auto_refresh=False)
        progress.add_task("cases", total=total or None, completed=self.done, rate=f"cases, {rate:.1f} a minute",
                          eta=f"{eta}, {_clock(elapsed)} so far")
        console.print(progress.make_tasks_table(progress.tasks))
        return buffer.getvalue().rstrip()


def _clock(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"
