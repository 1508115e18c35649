"""What ``auditflow check --batch SOURCES...`` checks: folders, zips, list files and globs, as filings.

A source is read as (docs/batch.md, "Sources"):

* a **glob** (``*``, ``?`` or ``[`` in it): every match, each read as below; no match is an error;
* a **list file** (``.txt``, ``.lst``, ``.list``): one filing path (relative to the list's folder) or
  data-root name per line; blank lines and ``#`` comments are skipped; a line naming nothing is an
  error naming the list and the line;
* a **folder of filings**: a folder with no instance or inline document of its own; each sub-folder
  and zip in it is one filing (hidden ones, named ``.*``, are left out);
* anything else :func:`auditflow.graphs.factory.locate_filing` accepts is one filing: a filing folder,
  a zip, an instance or inline document, or a name under the data root's ``filings/``.

:func:`content_hash` is each filing's identity in the results file; the client computes it just
before the filing is submitted (auditflow/batch/run.py), so ``--resume`` can skip it before any worker
sees it, and hashing a large batch overlaps the checking instead of delaying its start. A filing
named twice is checked once.
"""
from __future__ import annotations

import glob
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from auditflow.errors import InputError
from auditflow.graphs.factory import locate_filing

LIST_SUFFIXES = (".txt", ".lst", ".list")
DOCUMENT_SUFFIXES = (".xml", ".xbrl", ".htm", ".html", ".xhtml")
GLOB_CHARS = "*?["
_CHUNK = 1 << 20


@dataclass(frozen=True)
class BatchFiling:
    """One filing of a batch: as named (what the worker locates) and where it is here."""

    name: str
    path: Path


def expand_sources(sources: list[str], data_root: Path | None) -> list[BatchFiling]:
    """The filings ``sources`` name, in the order given, each once.

    :raises InputError: a source that names nothing, a list line that names nothing (with its line),
        or a glob with no match.
    """
    if not sources:
        raise InputError("--batch needs at least one source: a folder, zip, list file or glob of filings")
    named: list[tuple[str, Path]] = []
    for source in sources:
        named.extend(_expand(source, data_root))
    seen: set[Path] = set()
    out: list[BatchFiling] = []
    for name, path in named:
        key = path.resolve()
        if key in seen:
            continue
        seen.add(key)
        out.append(BatchFiling(name, path))
    return out


def _expand(source: str, data_root: Path | None, *, origin: tuple[str, int] | None = None) -> list[tuple[str, Path]]:
    path = Path(source).expanduser()
    if any(c in source for c in GLOB_CHARS) and not path.exists():
        matches = sorted(glob.glob(str(path)))
        if not matches:
            raise _error("the glob matches nothing", source, origin)
        return [item for m in matches for item in _expand(m, data_root, origin=origin)]
    if path.is_file() and path.suffix.lower() in LIST_SUFFIXES and origin is None:
        return _read_list(path, data_root)
    if path.is_dir() and _is_collection(path):
        return [(str(p), p) for p in sorted(path.iterdir())
                if not p.name.startswith(".") and (p.is_dir() or p.suffix.lower() == ".zip")]
    try:
        return [(source, locate_filing(source, data_root))]
    except InputError:
        raise _error("no such filing or source; give a folder (of filings, or one filing), a zip, a list file "
                     f"({', '.join(LIST_SUFFIXES)}), a glob, or the name of a folder under the data root's "
                     "filings/", source, origin) from None


def _read_list(path: Path, data_root: Path | None) -> list[tuple[str, Path]]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the list file: {exc}", path=str(path)) from None
    out: list[tuple[str, Path]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        relative = path.parent / Path(line).expanduser()
        entry = str(relative) if not Path(line).is_absolute() and relative.exists() else line
        out.extend(_expand(entry, data_root, origin=(str(path), number)))
    return out


def _is_collection(folder: Path) -> bool:
    """A folder that holds filings rather than being one: no document of its own, some sub-folder or zip."""
    entries = [e for e in folder.iterdir() if not e.name.startswith(".")]
    if any(e.is_file() and e.suffix.lower() in DOCUMENT_SUFFIXES for e in entries):
        return False
    return any(e.is_dir() or e.suffix.lower() == ".zip" for e in entries)


def _error(message: str, source: str, origin: tuple[str, int] | None) -> InputError:
    if origin is not None:
        return InputError(f"{message}: {source}", path=origin[0], line=origin[1])
    return InputError(message, path=source)


def content_hash(path: Path) -> str:
    """sha256 of a filing's content: a file's bytes; a folder's regular files in name order, each with
    its relative name and size, so a renamed, added or changed file changes the hash and nothing
    else does (not mtimes, not the folder's own path)."""
    h = hashlib.sha256()
    try:
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    file = Path(root) / name
                    if not stat.S_ISREG(file.stat().st_mode):
                        continue  # the loader refuses devices and FIFOs itself; hashing must not block on one
                    rel = file.relative_to(path).as_posix()
                    h.update(f"{rel}\0{file.stat().st_size}\0".encode())
                    _feed(h, file)
        elif not stat.S_ISREG(path.stat().st_mode):
            raise InputError("not a regular file (a device, FIFO or socket); give a filing file or folder",
                             path=str(path))
        else:
            _feed(h, path)
    except OSError as exc:
        raise InputError(f"cannot read the filing to hash it: {exc.strerror or exc}", path=str(path)) from None
    return h.hexdigest()


def _feed(h, file: Path) -> None:
    with open(file, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
