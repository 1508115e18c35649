"""An on-disk cache of loaded filings, so that re-auditing the same filing skips the XML.

The pytest plugin and the case runner audit one filing for many cases, often in fresh processes,
and a warm ``auditflow`` run re-reads a filing it read a minute ago. Parsing is most of that cost;
rebuilding the :class:`Filing` from a compact, code-free record takes a fraction of it.

What makes an entry valid, so a hit is always what a fresh load would return:

* **content**: the entry lists every file the load read (the instance, schemas, linkbases, zips)
  with its sha256, and a folder's file listing (which decides the entry documents). A lookup
  re-hashes those files; any difference is a miss. Nothing is trusted from paths or mtimes.
* **code**: the key includes ``FORMAT``, AuditFlow's version and a hash of the loader's own source
  (``auditflow/xbrl/*.py``), so a changed loader never reads an older loader's result.
* **taxonomy**: locators into standard taxonomies resolve through the taxonomy packages given, so
  the key includes their content fingerprint (or says that none were given).

Entries live in the taxonomy graph's cache directory (``$AUDITFLOW_CACHE_DIR`` or
``~/.cache/auditflow/taxonomy``) as ``filing-v<FORMAT>-<key>.bin``, written atomically; at most
``MAX_ENTRIES`` are kept. A missing, damaged, stale or unreadable entry is a miss, never an error,
and a cache that cannot be written costs only the next parse. ``AUDITFLOW_FILING_CACHE=off`` (or
``filing_cache=False`` where offered) switches it off. Loads that fail are not cached.

The record holds builtins only (tuples, strings, numbers) and is read with an unpickler that
refuses every global, so a tampered file cannot run code; objects are rebuilt from it here.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import io
import os
import pickle
import zlib
from dataclasses import fields
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from auditflow.xbrl.filing import Filing
from auditflow.xbrl.model import (
    Context, DuplicateSet, Period, RoleType, TypedMember, Unit, Warning_, make_arc, make_concept, make_fact, make_label,
)
from auditflow.xbrl.qname import QName, interned
from auditflow.xbrl.source import PackageSource

if TYPE_CHECKING:
    from auditflow.xbrl.packages import TaxonomySet

FORMAT = "2"  # bump whenever the record layout below changes
ENV = "AUDITFLOW_FILING_CACHE"
MAX_ENTRIES = 64
_MAGIC = b"AFFILING\x01\n"
_OFF = {"0", "off", "no", "false"}
# The Filing fields the record carries; a Filing with other fields is never cached (see encode).
_FILING_FIELDS = ("source", "documents", "facts", "contexts", "units", "namespaces", "concepts", "arcs", "labels",
                  "roles", "imported_urls", "duplicates", "warnings", "is_inline")


def enabled(flag: bool | None = None) -> bool:
    """``flag`` when given, else on unless ``AUDITFLOW_FILING_CACHE`` says off."""
    if flag is not None:
        return flag
    return os.environ.get(ENV, "").strip().lower() not in _OFF


def load_filing(path: str | Path, **kwargs) -> Filing:
    """:func:`auditflow.xbrl.loader.load_filing`, imported on a miss only: a hit reads no XML, so it
    need not import the parser's modules (issue 21: about a seventh of ``auditflow check``'s imports)."""
    from auditflow.xbrl.loader import load_filing as load

    return load(path, **kwargs)


# ---------------------------------------------------------------------------------------------------
# loading through the cache
# ---------------------------------------------------------------------------------------------------
def load_filing_cached(path: str | Path, *, taxonomy_set: "TaxonomySet | None" = None,
                       cache_dir: Path | None = None) -> Filing:
    """:func:`load_filing` (with ``taxonomy_set.concept_for_locator`` as the resolver), answered from
    the cache when an entry for the same path, files, code and taxonomy exists; else loaded and stored.

    Raises exactly what :func:`load_filing` raises (failed loads are not cached).
    """
    from auditflow.cache_dir import default_cache_dir
    from auditflow.xbrl.fingerprint import taxonomy_fingerprint as fingerprint_of

    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    resolver = taxonomy_set.concept_for_locator if taxonomy_set is not None else None
    try:
        root = Path(path).resolve()
        tax = "none" if taxonomy_set is None else fingerprint_of(taxonomy_set, directory)
        entry = directory / f"filing-v{FORMAT}-{_key(str(root), tax)}.bin"
    except Exception:  # noqa: BLE001 - no usable key (unreadable path...): load as if there were no cache
        return load_filing(path, external_resolver=resolver)
    hit = _read(entry, root)
    if hit is not None:
        hit.source = str(path)
        return hit
    recorder = _Recorder()
    filing = load_filing(path, external_resolver=resolver, observe=recorder)
    _write(entry, root, recorder, filing)
    return filing


@lru_cache(maxsize=1)
def _code_signature() -> str:
    """AuditFlow's version, FORMAT and the loader's source: a changed loader means new entries."""
    import auditflow

    h = hashlib.sha256(f"auditflow {auditflow.__version__} filing-cache {FORMAT}\0".encode())
    here = Path(__file__).parent
    for p in sorted(here.glob("*.py")):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def _key(root: str, taxonomy: str) -> str:
    return hashlib.sha256(f"{_code_signature()}\0{root}\0{taxonomy}".encode()).hexdigest()[:32]


class _Recorder:
    """Told by :class:`PackageSource` which files a load read and which folder it listed."""

    def __init__(self) -> None:
        self.files: dict[str, bytes | None] = {}  # real path -> its bytes, when the source had them at hand
        self.listing: list[str] | None = None

    def read_file(self, path: Path, data: bytes | None = None) -> None:
        self.files.setdefault(str(path), data)

    def listed(self, names: list[str]) -> None:
        self.listing = list(names)


def _digest(path: str, data: bytes | None = None) -> str:
    if data is None:
        with open(path, "rb") as fh:
            data = fh.read()
    return hashlib.sha256(data).hexdigest()


def _read(entry: Path, root: Path) -> Filing | None:
    """The cached filing, or None (missing, damaged, stale, or its files changed)."""
    try:
        blob = entry.read_bytes()
        n = len(_MAGIC)
        if blob[:n] != _MAGIC or zlib.crc32(memoryview(blob)[n + 4:]) != int.from_bytes(blob[n:n + 4], "big"):
            return None
        stream = io.BytesIO(blob)
        stream.seek(n + 4)
        head = _BuiltinsOnly(stream).load()  # the manifest first: a stale entry costs no decoding
        if not (isinstance(head, dict) and head.get("format") == FORMAT and head.get("root") == str(root)):
            return None
        for path, digest in head["files"]:
            if _digest(path) != digest:
                return None
        if head["listing"] is not None and PackageSource.open(root).list() != head["listing"]:
            return None
        return decode(_BuiltinsOnly(stream).load())  # a new unpickler: each pickle has its own memo
    except Exception:  # noqa: BLE001 - any unreadable entry is a miss
        return None


def _write(entry: Path, root: Path, recorder: _Recorder, filing: Filing) -> None:
    """Store atomically; a failure (read-only dir, a Filing we cannot encode) only skips the cache."""
    tmp = None
    try:
        record = encode(filing)
        head = {"format": FORMAT, "root": str(root), "listing": recorder.listing,
                "files": [(p, _digest(p, data)) for p, data in sorted(recorder.files.items())]}
        payload = pickle.dumps(head, protocol=5) + pickle.dumps(record, protocol=5)
        entry.parent.mkdir(parents=True, exist_ok=True)
        import tempfile  # only to write an entry: a hit does not pay for its import (random, ...)

        fd, tmp = tempfile.mkstemp(dir=entry.parent, prefix=".filing-", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC + zlib.crc32(payload).to_bytes(4, "big") + payload)
        os.replace(tmp, entry)
        tmp = None
        _prune(entry.parent)
    except Exception:  # noqa: BLE001 - the cache is an optimisation; the load itself succeeded
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _prune(directory: Path) -> None:
    entries = sorted(directory.glob("filing-v*-*.bin"), key=lambda p: p.stat().st_mtime)
    for old in entries[:-MAX_ENTRIES]:
        old.unlink(missing_ok=True)


class _BuiltinsOnly(pickle.Unpickler):
    """The record holds builtins only, so refusing every global makes a tampered file inert."""

    def find_class(self, module: str, name: str):
        raise pickle.UnpicklingError(f"the filing cache may not reference {module}.{name}")


# ---------------------------------------------------------------------------------------------------
# the record: a Filing as tuples of builtins, and back
# ---------------------------------------------------------------------------------------------------
def encode(f: Filing) -> dict:
    """The filing as builtins. QNames, periods and decimals go into tables and are referenced by
    number. Raises ``TypeError`` for a Filing this encoder does not know all of (never cached)."""
    names = tuple(x.name for x in fields(Filing))
    if names != _FILING_FIELDS:
        raise TypeError(f"Filing has fields {names}; the filing cache knows {_FILING_FIELDS}")
    qnames: dict[tuple, int] = {}
    periods: dict[Period, int] = {}
    numbers: dict[str, int] = {}  # by spelling: Decimal("1") == Decimal("1.0"), but they print differently

    def q(x: QName | None) -> int:
        if x is None:
            return -1
        return qnames.setdefault((x.namespace, x.local, x.prefix), len(qnames))

    def p(x: Period) -> int:
        return periods.setdefault(x, len(periods))

    def d(x: Decimal | None) -> int:
        return -1 if x is None else numbers.setdefault(str(x), len(numbers))

    def member(m) -> tuple:
        return ("q", q(m)) if isinstance(m, QName) else ("t", m.value)

    contexts = [(c.id, c.entity_scheme, c.entity_id, p(c.period), tuple((q(a), member(m)) for a, m in c.dimensions), c.line)
                for c in f.contexts.values()]
    units = [(u.id, tuple(q(x) for x in u.numerators), tuple(q(x) for x in u.denominators)) for u in f.units.values()]
    facts = [(q(x.concept), x.context_id, x.value, x.unit_id, x.decimals, x.precision, x.id, x.is_nil, x.document, x.line,
              x.index) for x in f.facts]
    concepts = [(q(k), q(c.qname), c.id, c.balance, c.period_type, c.data_type, c.abstract, c.substitution_group,
                 c.nillable, c.source) for k, c in f.concepts.items()]
    arcs = [(a.kind, a.arcrole, a.role, q(a.source), q(a.target), d(a.order), d(a.weight), a.preferred_label, a.target_role,
             a.closed, a.context_element, a.usable, a.document) for a in f.arcs]
    labels = [(q(x.concept), x.role, x.lang, x.text) for x in f.labels]
    roles = [(k, r.uri, r.definition, r.used_on) for k, r in f.roles.items()]
    duplicates = [(s.kind, s.facts, q(s.concept)) for s in f.duplicates]
    warnings = [(w.code, w.message, w.document, w.line) for w in f.warnings]
    facts, concepts, arcs, labels = map(_columns, (facts, concepts, arcs, labels))
    return {
        "qnames": _columns(list(qnames)), "numbers": list(numbers),
        "periods": [(None if x.start is None else x.start.toordinal(), None if x.end is None else x.end.toordinal(), x.forever)
                    for x in periods],
        "documents": list(f.documents), "contexts": contexts, "units": units, "namespaces": dict(f.namespaces),
        "facts": facts, "concepts": concepts, "arcs": arcs, "labels": labels, "roles": roles,
        "imported_urls": list(f.imported_urls), "duplicates": duplicates, "warnings": warnings, "is_inline": f.is_inline,
    }


def _columns(rows: list[tuple]) -> list[list]:
    """Rows as one list per field: thousands of row tuples cost more to unpickle (and to collect)
    than a dozen lists; ``decode`` zips them back."""
    return [list(col) for col in zip(*rows)]


def decode(r: dict, source: str = "") -> Filing:
    """The Filing ``encode`` was given (with ``source`` for its source path)."""
    qs = [interned(ns, local, prefix) for ns, local, prefix in zip(*r["qnames"])]
    qs.append(None)  # index -1
    nums = [Decimal(x) for x in r["numbers"]]
    nums.append(None)
    day = dt.date.fromordinal
    periods = [Period(None if s is None else day(s), None if e is None else day(e), fv) for s, e, fv in r["periods"]]

    def dims(pairs) -> tuple:
        return tuple((qs[a], qs[v] if kind == "q" else TypedMember(v)) for a, (kind, v) in pairs)

    filing = Filing(source=source, documents=list(r["documents"]), is_inline=r["is_inline"])
    filing.contexts = {c[0]: Context(c[0], c[1], c[2], periods[c[3]], dims(c[4]) if c[4] else (), c[5]) for c in r["contexts"]}
    filing.units = {u[0]: Unit(u[0], tuple(qs[x] for x in u[1]), tuple(qs[x] for x in u[2])) for u in r["units"]}
    filing.namespaces = dict(r["namespaces"])
    filing.facts = [make_fact(qs[c], cid, v, u, d, p, i, nil, doc, line, idx)
                    for c, cid, v, u, d, p, i, nil, doc, line, idx in zip(*r["facts"])]
    filing.concepts = {qs[k]: make_concept(qs[c], cid, bal, pt, dtype, ab, sg, nl, src)  # Concept(...), positionally
                       for k, c, cid, bal, pt, dtype, ab, sg, nl, src in zip(*r["concepts"])}
    filing.arcs = [make_arc(kind, arcrole, role, qs[s], qs[t], nums[o], nums[w], pref, trole, closed, ctx, usable, doc)
                   for kind, arcrole, role, s, t, o, w, pref, trole, closed, ctx, usable, doc in zip(*r["arcs"])]
    labels = r["labels"]  # built on first use, as a fresh load reads them (Filing.defer_labels)
    filing.defer_labels(lambda: [make_label(qs[c], role, lang, text) for c, role, lang, text in zip(*labels)])
    filing.roles = {k: RoleType(uri, definition, tuple(used)) for k, uri, definition, used in r["roles"]}
    filing.imported_urls = list(r["imported_urls"])
    filing.duplicates = [DuplicateSet(kind, tuple(keys), qs[c]) for kind, keys, c in r["duplicates"]]
    filing.warnings = [Warning_(code, message, document, line) for code, message, document, line in r["warnings"]]
    return filing
