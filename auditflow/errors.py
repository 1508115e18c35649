"""One error hierarchy for AuditFlow.

Every message says what was expected, what was found and what to do, because the people who read
them are filers and auditors, not the authors of this code.
"""
from __future__ import annotations

import reprlib
from typing import Any

# A value from a user's file is quoted in messages at most about this long (strings and containers are
# cut, with "..."; the longest US-GAAP names still show whole): one 30,000-character value behind 2,000
# YAML aliases once made a 60 MB message (issue 44).
_QUOTE = reprlib.Repr()
_QUOTE.maxstring = _QUOTE.maxother = 240
_QUOTE.maxlist = _QUOTE.maxtuple = _QUOTE.maxdict = _QUOTE.maxset = 6
_QUOTE.maxlevel = 3


def quoted(value: Any) -> str:
    """``repr(value)``, cut to about 240 characters, without building the full repr first."""
    return _QUOTE.repr(value)


class AuditflowError(Exception):
    """Base of every error AuditFlow raises on purpose."""


class InputError(AuditflowError):
    """A file given to AuditFlow is missing, unreadable or not what it claims to be."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None) -> None:
        where = ""
        if path:
            where = f"{path}:{line}: " if line else f"{path}: "
        super().__init__(where + message)
        self.path = path
        self.line = line


class UnsafeInputError(InputError):
    """The input tries something hostile (external entities, entity expansion, zip path escape)."""


class MalformedXBRLError(InputError):
    """The XML parses but is not valid enough XBRL to load (missing context, truncated file...)."""


class UnresolvedReferenceError(AuditflowError):
    """A URL that a filing needs resolves to no local file and no taxonomy package."""

    def __init__(self, url: str, *, referenced_from: str | None = None) -> None:
        origin = f" (referenced from {referenced_from})" if referenced_from else ""
        super().__init__(
            f"cannot resolve {url}{origin}: no local file and no taxonomy package maps it. "
            "Pass the official taxonomy package that contains it with --taxonomy PATH "
            "(or put it under the data root's taxonomy/ folder); AuditFlow never downloads while loading."
        )
        self.url = url


class DataRootError(AuditflowError):
    """The data root (taxonomies, DQC resources, filings) cannot be found or lacks a resource."""


class ResourceError(AuditflowError):
    """A rule resource (DQC concept list, exclusions, form lookup) is missing or unreadable."""
