"""Qualified names: the identity of every concept, axis, member and measure."""
from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass, field
from typing import Callable

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


@dataclass(frozen=True, slots=True, init=False)
class QName:
    """An expanded XML name. Equality ignores the prefix, as XML does."""

    namespace: str
    local: str
    prefix: str | None = field(default=None, compare=False, hash=False)
    # The hash, computed once, as a C callable that returns it; __hash__ is this slot's descriptor (see
    # _C_LEVEL_HASH below). Not part of the name: left out of repr, equality and the constructor's arguments.
    _hash: Callable[[], int] = field(default=None, init=False, repr=False, compare=False, hash=False)

    def __init__(self, namespace: str, local: str, prefix: str | None = None) -> None:
        # The frozen dataclass __init__ (object.__setattr__ per field, then a __post_init__ for the
        # hash) written out with the slots' own setters: a fresh process makes thousands of QNames,
        # e.g. from the filing cache (issue 21). The fields stay frozen to everyone else.
        _set_namespace(self, namespace)
        _set_local(self, local)
        _set_prefix(self, prefix)
        _set_hash(self, hash(local).__int__)

    # Ordering by (namespace, local), as dataclass(order=True) did, without its two tuples per
    # comparison: sorting the names of a filing made millions of these calls in a corpus run.
    def __lt__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        ns, ons = self.namespace, other.namespace
        return self.local < other.local if ns == ons else ns < ons

    def __le__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        ns, ons = self.namespace, other.namespace
        return self.local <= other.local if ns == ons else ns < ons

    def __gt__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        ns, ons = self.namespace, other.namespace
        return self.local > other.local if ns == ons else ns > ons

    def __ge__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        ns, ons = self.namespace, other.namespace
        return self.local >= other.local if ns == ons else ns > ons

    def __reduce__(self):
        # pickle and copy: the name, not the slot's callable (which neither can copy)
        return (QName, (self.namespace, self.local, self.prefix))

    def clark(self) -> str:
        return f"{{{self.namespace}}}{self.local}" if self.namespace else self.local

    def __str__(self) -> str:
        p = standard_prefix(self.namespace) or self.prefix
        return f"{p}:{self.local}" if p else self.clark()

    @classmethod
    def from_clark(cls, text: str, prefix: str | None = None) -> "QName":
        if text.startswith("{"):
            ns, _, local = text[1:].partition("}")
            return interned(ns, local, prefix) if cls is QName else cls(ns, local, prefix)
        return interned("", text, prefix) if cls is QName else cls("", text, prefix)

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
                return interned("", local) if cls is QName else cls("", local)
            raise ValueError(f"undeclared namespace prefix {prefix!r} in QName {text!r}")
        return interned(ns, local, prefix) if cls is QName else cls(ns, local, prefix)


_set_namespace, _set_local, _set_prefix, _set_hash = (QName.__dict__[n].__set__ for n in ("namespace", "local", "prefix", "_hash"))

# _C_LEVEL_HASH. Every dict and set of a load and of the rules is keyed by QName (20k-26k hashes per
# check): a __hash__ written in Python runs an interpreter frame for each, about 480 instructions
# more than a C-level hash (issue 21, callgrind). So the hash is the local name's hash (equal QNames
# share it), kept in the _hash slot as that int's bound ``__int__``, and ``__hash__`` *is* the slot's
# descriptor: for a non-function ``__hash__`` CPython binds it through its ``__get__`` (the slot's
# value) and calls the result with no arguments, all in C: hash(q) == q._hash() == hash(q.local).
QName.__hash__ = QName.__dict__["_hash"]


# Interned QNames: the loader, the DTS walker, the taxonomy packages and the filing cache get their
# QNames here, so that one name mentioned by a thousand facts, locators and arcs is one object. A
# dict lookup of the very object stored as key never calls __eq__ (identity is tried first), and a
# loaded filing holds one QName per distinct name instead of one per mention. QNames are immutable,
# so sharing them between filings changes nothing but identity. The table is emptied when it holds
# _INTERN_LIMIT names (hostile input with millions of names must not grow it without bound);
# emptying it only loses sharing.
_INTERNED: dict[tuple[str, str, str | None], QName] = {}
_INTERN_LIMIT = 200_000


def interned(namespace: str, local: str, prefix: str | None = None) -> QName:
    """``QName(namespace, local, prefix)``, the same object for the same three strings."""
    key = (namespace, local, prefix)
    q = _INTERNED.get(key)
    if q is None:
        if len(_INTERNED) >= _INTERN_LIMIT:
            _INTERNED.clear()
        q = _INTERNED.setdefault(key, QName(namespace, local, prefix))
    return q
