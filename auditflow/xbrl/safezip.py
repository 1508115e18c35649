"""Read zip archives and files that may be hostile: every read guarded, sizes checked as read.

A zip's size headers are written by whoever made it, so they can lie: a member that claims 1 kB may
inflate to gigabytes. :func:`read_member` counts the bytes actually inflated and stops one chunk past
the limit. Encrypted, corrupt or unsupported members, and archives that are not zips at all, become an
:class:`~auditflow.errors.InputError` naming the archive and member instead of a ``RuntimeError``,
``zlib.error`` or ``BadZipFile``. :func:`read_regular_file` refuses what is not a regular file (a FIFO
or a device behind a symlink would block or never end). See docs/reliability.md.
"""
from __future__ import annotations

import io
import os
import stat
import zipfile
import zlib
from pathlib import Path

from auditflow.errors import InputError, UnsafeInputError

# No document of a filing or a taxonomy comes near this (the largest real one is about 20 MB); it
# keeps a zip bomb's inflated bytes, and so the memory of a load, bounded.
MAX_ENTRY_BYTES = 128 * 1024 * 1024
MAX_ENTRIES = 100_000  # an archive listing more members than this is refused
_CHUNK = 1024 * 1024
# What a damaged archive raises while it is opened or read.
_ZIP_FAULTS = (zipfile.BadZipFile, zipfile.LargeZipFile, RuntimeError, NotImplementedError, zlib.error, EOFError,
               OSError, ValueError, KeyError, OverflowError, MemoryError)


def open_zip(source: str | Path | bytes, *, where: str) -> zipfile.ZipFile:
    """A :class:`zipfile.ZipFile` over a path or bytes, or an InputError saying the archive is unreadable."""
    try:
        z = zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source)
    except FileNotFoundError:
        raise InputError("archive not found (referenced by the filing)", path=where) from None
    except _ZIP_FAULTS as exc:
        raise InputError(f"not a readable zip archive ({type(exc).__name__})", path=where) from None
    if len(z.infolist()) > MAX_ENTRIES:
        z.close()
        raise UnsafeInputError(f"the archive lists {len(z.infolist()):,} members (more than {MAX_ENTRIES:,}); refused",
                               path=where)
    return z


def read_member(z: zipfile.ZipFile, name: str, *, where: str, limit: int = MAX_ENTRY_BYTES) -> bytes:
    """The inflated bytes of one member, counted as they are read, never more than ``limit``.

    :raises UnsafeInputError: when the header or the inflated bytes pass the limit (a zip bomb).
    :raises InputError: when the member is missing, encrypted, corrupt or uses an unknown method.
    """
    try:
        info = z.getinfo(name)
    except KeyError:
        raise InputError(f"{name!r} is not in the archive", path=where) from None
    if info.file_size > limit:
        raise UnsafeInputError(f"zip entry {name!r} is {info.file_size} bytes; refused", path=where)
    chunks: list[bytes] = []
    total = 0
    try:
        with z.open(info) as fh:
            while True:
                chunk = fh.read(_CHUNK)
                if not chunk:
                    break
                total += len(chunk)
                if total > limit:
                    raise UnsafeInputError(f"zip entry {name!r} inflates past {limit} bytes although its header says "
                                           f"{info.file_size}; refused", path=where)
                chunks.append(chunk)
    except InputError:
        raise
    except _ZIP_FAULTS as exc:
        raise InputError(f"cannot read zip entry {name!r}: {_reason(exc)}", path=where) from None
    return b"".join(chunks)


def _reason(exc: BaseException) -> str:
    text = str(exc)
    if "encrypted" in text or "password" in text:
        return "it is encrypted"
    return f"the archive is damaged ({type(exc).__name__}: {text[:120]})"


def read_regular_file(path: Path, *, limit: int = MAX_ENTRY_BYTES) -> bytes:
    """The bytes of a regular file, refusing FIFOs, devices and files over ``limit`` (counted as read)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=str(path)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeInputError("not a regular file (a device, FIFO or socket); refused", path=str(path))
        if st.st_size > limit:
            raise UnsafeInputError(f"the file is {st.st_size} bytes (more than {limit}); refused", path=str(path))
        with os.fdopen(fd, "rb", closefd=False) as fh:
            # Sized to the file: read(n) allocates n bytes before reading, and n = limit + 1 (128 MB)
            # cost a quarter of the reading. A file that grew since fstat is read on, up to the limit.
            data = fh.read(min(st.st_size, limit) + 1)
            if len(data) > st.st_size:
                data += fh.read(limit + 1 - len(data))
        if len(data) > limit:
            raise UnsafeInputError(f"the file grew past {limit} bytes while read; refused", path=str(path))
        return data
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=str(path)) from None
    finally:
        os.close(fd)
