"""Load a local filing folder with edgartools, offline, and say honestly when it cannot.

edgartools reads a folder with ``XBRL.from_directory``: every ``*.xsd``, the ``*_lab/_pre/_cal/_def.xml``
linkbases and every other ``*.xml`` as an instance. Its ``XBRL`` class does not read inline XBRL
(``.htm``; edgartools extracts iXBRL facts only in its separate HTML-document parser, without the
linkbases), so a filing shipped only as inline XBRL yields no facts there. Any socket connect or DNS lookup during a load is
refused and reported, so a figure never includes (or hides) a download.
"""
from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("EDGAR_IDENTITY", "AuditFlow Benchmark bench@example.invalid")
NEEDS_NETWORK = "edgartools needs network"


class NetworkRefused(OSError):
    pass


class NoNetwork:
    """Within the block every connect and DNS lookup fails; ``tried`` says whether one was attempted."""

    def __init__(self) -> None:
        self.tried: list[str] = []

    def _refuse(self, what: str):
        def refuse(*args, **kwargs):
            self.tried.append(f"{what}{args[1:2] if what == 'connect' else args[:2]}")
            raise NetworkRefused(f"benchmark refused network access ({what})")
        return refuse

    def __enter__(self) -> "NoNetwork":
        self._saved = (socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo, socket.create_connection)
        socket.socket.connect = self._refuse("connect")
        socket.socket.connect_ex = self._refuse("connect")
        socket.getaddrinfo = self._refuse("getaddrinfo")
        socket.create_connection = self._refuse("create_connection")
        return self

    def __exit__(self, *exc) -> None:
        socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo, socket.create_connection = self._saved


@dataclass
class EtResult:
    seconds: float | None
    facts: int
    note: str = ""


def import_edgartools():
    """The XBRL class, or None with the reason (imported once; its import time is reported apart)."""
    try:
        from edgar.xbrl import XBRL
    except Exception as exc:  # noqa: BLE001 - an unusable install is a result, not a crash
        return None, f"edgartools not importable: {type(exc).__name__}: {exc}"
    return XBRL, ""


def _no_facts_reason(path: Path) -> str:
    xml = [p for p in path.glob("*.xml") if not p.stem.endswith(("_lab", "_pre", "_cal", "_def"))]
    if not xml and any(path.glob("*.htm*")):
        return "n/a (edgartools read 0 facts: inline-only filing; its XBRL class reads instance .xml only)"
    return "n/a (edgartools read 0 facts)"


def load_with_edgartools(xbrl_cls, path: Path, clock) -> EtResult:
    """Time ``XBRL.from_directory(path)`` with ``clock`` (see ``_common.timed``), network refused."""
    with NoNetwork() as guard:
        try:
            seconds, x = clock(lambda: xbrl_cls.from_directory(path))
        except Exception as exc:  # noqa: BLE001 - report, don't crash the whole run
            if guard.tried:
                return EtResult(None, 0, f"n/a ({NEEDS_NETWORK}: {guard.tried[0]})")
            return EtResult(None, 0, f"n/a (edgartools failed: {type(exc).__name__}: {str(exc)[:120]})")
    if guard.tried:
        return EtResult(None, 0, f"n/a ({NEEDS_NETWORK}: {guard.tried[0]})")
    facts = len(x.parser.facts)
    if facts == 0:
        return EtResult(None, 0, _no_facts_reason(path))
    return EtResult(seconds, facts)
