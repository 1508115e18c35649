"""What a taxonomy package's META-INF says, remembered between runs by the bytes it was read from.

Every ``auditflow check`` discovers the data root's taxonomy packages, and opening a package reads its
``META-INF/taxonomyPackage.xml`` and ``catalog.xml``. Parsing those two small files is cheap, but it
needs lxml, and importing lxml was about 4% of a check whose filing comes from the filing cache (which
reads no XML otherwise; issue 21). So the result of reading them (identifier, name, version, entry
points, catalog rewrites) is kept in the cache directory under the sha256 of their bytes and of
``FORMAT``: the same bytes always give the same result, so a remembered one is used without parsing.

Only successful reads are remembered: a META-INF that is malformed, of the wrong kind, or with a
rewrite that leaves its package raises every time, as before. A memo file is data, never trusted
blindly: anything but the expected JSON shape, or a rewrite target that leaves the package, is
ignored and the files are parsed again. A memo that cannot be written only costs the parse next time.
"""
from __future__ import annotations

import hashlib
import json
import os
import posixpath
from pathlib import Path
from typing import Callable, NamedTuple

from auditflow.cache_dir import default_cache_dir

FORMAT = "1"  # bump whenever what the reader below returns changes


class PackageMeta(NamedTuple):
    """What META-INF says: ``entry_points`` as (name, documents, description, version) tuples and
    ``rewrites`` as (canonical URL prefix, package-relative prefix), longest prefix first."""

    identifier: str
    name: str
    version: str
    entry_points: tuple[tuple[str, tuple[str, ...], str, str], ...]
    rewrites: tuple[tuple[str, str], ...]


def remembered(package_xml: bytes, catalog_xml: bytes | None, read: Callable[[], PackageMeta],
               directory: Path | None = None) -> PackageMeta:
    """``read()``'s result for these META-INF bytes: from the memo when one is there and well-formed,
    else ``read()`` (whose exceptions pass through, not remembered), stored for the next run."""
    h = hashlib.sha256(f"auditflow package-meta {FORMAT}\0".encode())
    for data in (package_xml, catalog_xml):
        h.update(b"-" if data is None else b"%d\0" % len(data) + data)
    entry = (default_cache_dir() if directory is None else Path(directory)) / "package-meta" / f"{h.hexdigest()[:32]}.json"
    try:
        meta = _decode(json.loads(entry.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        meta = None
    if meta is not None:
        return meta
    meta = read()
    _write(entry, meta)
    return meta


def _decode(raw: object) -> PackageMeta | None:
    """The memo's PackageMeta, or None when it is not exactly what :func:`_write` stores."""
    if not (isinstance(raw, list) and len(raw) == 5 and all(isinstance(x, str) for x in raw[:3])):
        return None
    eps, rewrites = raw[3], raw[4]
    if not (isinstance(eps, list) and isinstance(rewrites, list)):
        return None
    entry_points = []
    for ep in eps:
        if not (isinstance(ep, list) and len(ep) == 4 and isinstance(ep[0], str) and isinstance(ep[1], list)
                and all(isinstance(d, str) for d in ep[1]) and isinstance(ep[2], str) and isinstance(ep[3], str)):
            return None
        entry_points.append((ep[0], tuple(ep[1]), ep[2], ep[3]))
    rules = []
    for rule in rewrites:
        if not (isinstance(rule, list) and len(rule) == 2 and all(isinstance(x, str) for x in rule)):
            return None
        target = rule[1]
        if target and not (target.endswith("/") and _stays_inside(target[:-1])):
            return None  # the reader never gives a target outside its package
        rules.append((rule[0], target))
    return PackageMeta(raw[0], raw[1], raw[2], tuple(entry_points), tuple(rules))


def _stays_inside(rel: str) -> bool:
    """``rel`` is a normalised path inside the package (as the catalog reader requires of a target)."""
    if not rel or rel.startswith("/") or "\\" in rel:
        return False
    norm = posixpath.normpath(rel)
    return norm == rel and norm not in (".", "..") and not norm.startswith("../")


def _write(entry: Path, meta: PackageMeta) -> None:
    tmp = entry.with_name(f".{entry.stem}-{os.getpid()}.tmp")
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps([meta.identifier, meta.name, meta.version,
                                   [[n, list(d), desc, v] for n, d, desc, v in meta.entry_points],
                                   [list(r) for r in meta.rewrites]]), encoding="utf-8")
        os.replace(tmp, entry)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
