"""Qualified names: the identity of every concept, axis, member and measure."""
from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass, field

# Standard taxonomies get their conventional prefix whatever the document declared, so that output
# reads "us-gaap:Assets" in every filing.
_STANDARD_PREFIXES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^http://fasb\.org/us-gaap/\d{4}(-\d\d-\d\d)?$"), "us-gaap"),
    (re.compile(r"^http://fasb\.org/srt/\d{4}(-\d\d-\d\d)?$"), "srt"),
    (re.compile(r"^http://fasb\.org/us-gaap-ebp/\d{4}(-\d\d-\d\d)?$"), "us-gaap-ebp"),
    (re.compile(r"^http://xbrl\.sec\.gov/dei/\d{4}(-\d\d-\d\d)?$"), "dei"),
    (re.compile(r"^http://xbrl\.sec\.gov/ecd/\d{4}(-\d\d-\d\d)?$"), "ecd"),
    (re.compile(r"^http://xbrl\.sec\.gov/(country|currency|exch|stpr|naics|sic|invest|cyd|ffd|sro|spac|oef|rxp)/\d{4}(-\d\d-\d\d)?$"), ""),
    (re.compile(r"^http://www\.xbrl\.org/2003/iso4217$"), "iso4217"),
    (re.compile(r"^http://www\.xbrl\.org/2003/instance$"), "xbrli"),
)

_YEAR = re.compile(r"/(\d{4})(?:-\d\d-\d\d)?$")


@lru_cache(maxsize=4096)
def standard_prefix(namespace: str) -> str | None:
    """The conventional prefix of a standard taxonomy namespace, or None for filer namespaces."""
    for pattern, prefix in _STANDARD_PREFIXES:
        if pattern.match(namespace):
            if prefix:
                return prefix
            return namespace.split("/")[3]
    return None


@lru_cache(maxsize=4096)
def namespace_year(namespace: str) -> int | None:
    """The taxonomy year a standard namespace carries (``http://fasb.org/us-gaap/2023`` -> 2023)."""
    m = _YEAR.search(namespace)
    return int(m.group(1)) if m else None


@lru_cache(maxsize=4096)
def namespace_family(namespace: str) -> str:
    """A namespace without its year, so that us-gaap 2023 and 2024 compare as one family."""
    return _YEAR.sub("", namespace)


@dataclass(frozen=True, order=True, slots=True)
class QName:
    """An expanded XML name. Equality ignores the prefix, as XML does."""

    namespace: str
    local: str
    prefix: str | None = field(default=None, compare=False, hash=False)

    def clark(self) -> str:
        return f"{{{self.namespace}}}{self.local}" if self.namespace else self.local

    def __str__(self) -> str:
        p = standard_prefix(self.namespace) or self.prefix
        return f"{p}:{self.local}" if p else self.clark()

    @classmethod
    def from_clark(cls, text: str, prefix: str | None = None) -> "QName":
        if text.startswith("{"):
            ns, _, local = text[1:].partition("}")
            return cls(ns, local, prefix)
        return cls("", text, prefix)

    @classmethod
    def parse(cls, text: str, nsmap: dict[str | None, str]) -> "QName":
        """Resolve ``prefix:local`` against an element's in-scope namespaces.

        :raises ValueError: when the prefix is not declared (the caller turns it into a located error).
        """
        text = text.strip()
        prefix, sep, local = text.partition(":")
        if not sep:
            prefix, local = None, text
        ns = nsmap.get(prefix)
        if ns is None:
            if prefix is None:
                return cls("", local)
            raise ValueError(f"undeclared namespace prefix {prefix!r} in QName {text!r}")
        return cls(ns, local, prefix)
