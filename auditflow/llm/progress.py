"""Live model calls as they happen: one event per call that reached a model (never for a replay).

A live run against a server can take minutes a case; without a sign of life a user cannot tell a slow
model from a hung one (issue 40). :class:`~auditflow.llm.cache.CachedChatModel` reports every call it
sends to the model here, with what it cost: the case, the role, the round (the role's turn in its
conversation), the call's number within the case, the prompt and completion tokens the provider
counted, and the seconds it took. Listeners (the pytest plugin's terminal line, ``auditflow audit``'s
stderr line) are called from the thread that made the call, so they must be quick and thread-safe.

A replayed call sends no event and adds nothing to a case's totals, so every replayed artifact stays
byte-identical to what it was before this module existed (docs/pytest-plugin-notes.md).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable

Listener = Callable[["LiveCall"], None]

_LOCK = threading.Lock()
_LISTENERS: list[Listener] = []


@dataclass(frozen=True)
class LiveCall:
    """One call that reached the model."""

    case_id: str | None
    role: str
    round: int
    number: int  # 1, 2, ... within the case (its roles and its judge together)
    prompt_tokens: int | None
    completion_tokens: int | None
    seconds: float

    def line(self) -> str:
        """The one line shown on a terminal."""
        tokens = (f"{self.prompt_tokens if self.prompt_tokens is not None else '?'} prompt + "
                  f"{self.completion_tokens if self.completion_tokens is not None else '?'} completion tokens")
        return (f"live call {self.number} of case {self.case_id or '(no case)'}: {self.role} round {self.round}, "
                f"{tokens}, {self.seconds:.1f}s")


@dataclass
class LiveTotals:
    """What the live calls of one case cost, summed (thread-safe: the roles of a case call in parallel)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def add(self, *, case_id: str | None, role: str, round: int, prompt_tokens: int | None,
            completion_tokens: int | None, seconds: float) -> LiveCall:
        with self._lock:
            self.calls += 1
            self.prompt_tokens += prompt_tokens or 0
            self.completion_tokens += completion_tokens or 0
            self.seconds += seconds
            return LiveCall(case_id, role, round, self.calls, prompt_tokens, completion_tokens, seconds)

    def to_json(self) -> dict[str, Any]:
        with self._lock:
            return {"calls": self.calls, "prompt_tokens": self.prompt_tokens,
                    "completion_tokens": self.completion_tokens, "seconds": round(self.seconds, 3)}


def add_listener(listener: Listener) -> Callable[[], None]:
    """Call ``listener`` for every live call from now on; returns the function that removes it."""
    with _LOCK:
        _LISTENERS.append(listener)

    def remove() -> None:
        with _LOCK:
            if listener in _LISTENERS:
                _LISTENERS.remove(listener)

    return remove


def emit(call: LiveCall) -> None:
    """Tell every listener; a listener that fails never fails the call that was made."""
    with _LOCK:
        listeners = list(_LISTENERS)
    for listener in listeners:
        try:
            listener(call)
        except Exception:  # noqa: BLE001 - a progress line is not worth a failed case
            pass


def usage_of(message: Any) -> tuple[int | None, int | None]:
    """(prompt tokens, completion tokens) as the provider counted them, from langchain's
    ``usage_metadata`` (or the OpenAI-style ``token_usage`` of the response metadata); None when not given."""
    usage = getattr(message, "usage_metadata", None) or {}
    if usage:
        return usage.get("input_tokens"), usage.get("output_tokens")
    meta = (getattr(message, "response_metadata", None) or {}).get("token_usage") or {}
    return meta.get("prompt_tokens"), meta.get("completion_tokens")


def live_totals(stats: Any) -> LiveTotals | None:
    """The live-call totals a case's statistics object carries (created on first use), or None."""
    if stats is None:
        return None
    totals = getattr(stats, "live", None)
    if totals is None:
        with _LOCK:
            totals = getattr(stats, "live", None)
            if totals is None:
                try:
                    stats.live = totals = LiveTotals()
                except AttributeError:  # an object of a plugin's own that takes no attribute
                    return None
    return totals
