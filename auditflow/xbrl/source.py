"""Where the files of a filing live: a directory, a zip, or a zip inside a directory.

Filings name their own files with relative hrefs (schemaRef, linkbaseRef, import). Some point *into*
a zip next to the instance (``./X_taxonomy.zip/X_taxonomy/X.xsd``), as XBRL US's roll tool does, so a
location is a path that may pass through one zip archive. Every read checks that it stays inside the
package: hrefs and zip entries that climb out are refused.
"""
from __future__ import annotations

import os
import posixpath
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from auditflow.errors import InputError, UnsafeInputError
from auditflow.xbrl.safezip import MAX_ENTRY_BYTES, open_zip, read_member, read_regular_file  # noqa: F401 - re-exported

MAX_ARCHIVE_BYTES = 1024 * 1024 * 1024  # a filing archive on disk larger than this is refused
MAX_NESTED_ZIPS = 2  # a.zip/b.zip/c.xsd is a rolled filing; deeper nesting is refused


@dataclass
class PackageSource:
    """A read-only view of one filing package (directory or zip file)."""

    root: Path
    _zips: dict[str, zipfile.ZipFile] = field(default_factory=dict, repr=False)
    _names: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)  # checked once per archive
    # Told of every real file read and of the folder listing: the filing cache keys its entries by them.
    observe: object | None = field(default=None, repr=False)

    @classmethod
    def open(cls, path: str | Path) -> "PackageSource":
        p = Path(path)
        if not p.exists():
            raise InputError("no such file or directory; give a filing directory, zip, instance or inline document", path=str(p))
        return cls(p.resolve())

    # -- locations are posix paths relative to the package base directory ------------------------------
    @property
    def base_dir(self) -> Path:
        return self.root if self.root.is_dir() else self.root.parent

    def list(self) -> list[str]:
        """All file locations in the package, zip members included, sorted."""
        out: list[str] = []
        if self.root.is_file() and zipfile.is_zipfile(self.root):
            z = self._zip(self.root.name)
            out = [f"{self.root.name}/{n}" for n in self._safe_names(z, self.root.name)]
            return sorted(out)
        base = self.base_dir
        if self.root.is_dir():
            out = self._walk(base)
        elif self.root.is_file():
            out = [self.root.relative_to(base).as_posix()]
        out.sort()
        if self.observe is not None:
            self.observe.listed(out)
        return out

    @staticmethod
    def _walk(base: Path) -> list[str]:
        """Regular files under ``base``; symlinks are listed only when they stay inside it, and a
        symlinked folder is never descended (``ext -> /etc`` must not list /etc)."""
        out: list[str] = []
        for folder, dirs, files in os.walk(base, followlinks=False):
            rel = Path(folder).relative_to(base)
            for name in files:
                f = Path(folder) / name
                if f.is_symlink() and not _inside(f, base):
                    continue
                if f.is_file():
                    out.append((rel / name).as_posix())
        return out

    def _local(self, loc: str) -> Path:
        """The path of a location on disk, refusing one whose real path (symlinks followed) leaves the
        filing's folder."""
        p = self.base_dir / loc
        if not _inside(p, self.base_dir):
            raise UnsafeInputError("the file is a symlink (or under one) that leads outside the filing's folder; refused",
                                   path=str(p))
        return p

    def resolve(self, href: str, relative_to: str) -> str:
        """Join an href found in ``relative_to`` into a package location, refusing escapes."""
        if "://" in href:
            return href
        href = href.split("#", 1)[0]
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(relative_to), href))
        if joined.startswith("../") or joined == ".." or joined.startswith("/"):
            # A sibling file of a single-document input is fine only within the same folder tree.
            raise UnsafeInputError(f"reference {href!r} leaves the filing package", path=relative_to)
        return joined

    def exists(self, loc: str) -> bool:
        try:
            self.read(loc)
            return True
        except InputError:
            return False

    def read(self, loc: str) -> bytes:
        """The bytes at a location; a location may pass through archives (``a.zip/b.zip/c.xsd``)."""
        parts = loc.split("/")
        for i, part in enumerate(parts[:-1]):
            if part.lower().endswith(".zip"):
                zip_loc = "/".join(parts[: i + 1])
                return self._read_in_zip(self._zip(zip_loc), zip_loc, "/".join(parts[i + 1 :]))
        p = self._local(loc)
        try:
            data = read_regular_file(p)
            if self.observe is not None:
                self.observe.read_file(p, data)
            return data
        except FileNotFoundError:
            raise InputError("file not found (referenced by the filing)", path=str(p)) from None
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", path=str(p)) from None

    def _read_in_zip(self, z: zipfile.ZipFile, zip_loc: str, inner: str) -> bytes:
        names = self._names.get(zip_loc)
        if names is None:
            names = self._names[zip_loc] = frozenset(self._safe_names(z, zip_loc))
        parts = inner.split("/")
        for i, part in enumerate(parts[:-1]):
            member = "/".join(parts[: i + 1])
            if part.lower().endswith(".zip") and member in names:
                nested_loc = f"{zip_loc}/{member}"
                nested = self._zips.get(nested_loc)
                if nested is None:
                    if nested_loc.lower().count(".zip/") >= MAX_NESTED_ZIPS:
                        raise UnsafeInputError(f"archives nested deeper than {MAX_NESTED_ZIPS}; refused", path=nested_loc)
                    nested = open_zip(self._member(z, zip_loc, member), where=nested_loc)
                    self._zips[nested_loc] = nested
                return self._read_in_zip(nested, nested_loc, "/".join(parts[i + 1 :]))
        if inner not in names:
            raise InputError(f"{inner!r} is not in the archive", path=zip_loc)
        return self._member(z, zip_loc, inner)

    @staticmethod
    def _member(z: zipfile.ZipFile, zip_loc: str, inner: str) -> bytes:
        return read_member(z, inner, where=zip_loc)  # sizes counted as inflated, damage typed

    def _zip(self, zip_loc: str) -> zipfile.ZipFile:
        z = self._zips.get(zip_loc)
        if z is None:
            path = self.root if (self.root.is_file() and zip_loc == self.root.name) else self._local(zip_loc)
            try:
                if self.observe is not None:  # hashed as read, so the record matches what the load saw
                    data = read_regular_file(path, limit=MAX_ARCHIVE_BYTES)
                    self.observe.read_file(path, data)
                    z = open_zip(data, where=str(path))
                else:
                    if not path.is_file():  # a FIFO or device is refused; a missing archive said so below
                        read_regular_file(path, limit=0)
                    z = open_zip(path, where=str(path))
            except FileNotFoundError:
                raise InputError("archive not found (referenced by the filing)", path=str(path)) from None
            self._zips[zip_loc] = z
        return z

    @staticmethod
    def _safe_names(z: zipfile.ZipFile, zip_loc: str) -> list[str]:
        names = []
        for n in z.namelist():
            if n.endswith("/"):
                continue
            norm = posixpath.normpath(n)
            if n.startswith("/") or norm.startswith("../") or norm == ".." or "\\" in n or ":" in n.split("/")[0]:
                raise UnsafeInputError(f"zip entry {n!r} escapes its folder; the archive is refused", path=zip_loc)
            names.append(n)
        return names

    def close(self) -> None:
        for z in self._zips.values():
            z.close()
        self._zips.clear()


def _inside(p: Path, base: Path) -> bool:
    """Whether ``p``'s real path (symlinks followed) is ``base`` or under it."""
    try:
        return p.resolve().is_relative_to(base.resolve())
    except (OSError, RuntimeError):  # a symlink loop
        return False
