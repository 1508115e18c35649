"""Issue 21, third round: ``read_regular_file`` reads a file with a buffer of the file's size.

``read(limit + 1)`` allocated the whole limit (128 MB) before reading a few hundred kilobytes; a
quarter of the time spent reading a filing's files. The limit and a file that grows while read are
handled as before.
"""
from __future__ import annotations

import os
import tracemalloc

import pytest

from auditflow.errors import UnsafeInputError
from auditflow.xbrl import safezip
from auditflow.xbrl.safezip import MAX_ENTRY_BYTES, read_regular_file


def test_a_small_file_is_read_without_allocating_the_limit(tmp_path):
    p = tmp_path / "a.xml"
    p.write_bytes(b"<a/>" * 1000)
    tracemalloc.start()
    try:
        data = read_regular_file(p)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert data == b"<a/>" * 1000
    assert peak < 1_000_000 < MAX_ENTRY_BYTES  # before: a 128 MB buffer for a 4 kB file


def _shrunk_fstat(real, by):
    def fstat(fd):
        st = real(fd)
        return os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid, st.st_gid,
                               max(st.st_size - by, 0), st.st_atime, st.st_mtime, st.st_ctime))
    return fstat


def test_a_file_that_grew_after_fstat_is_read_to_its_end(tmp_path, monkeypatch):
    p = tmp_path / "a.xml"
    p.write_bytes(b"x" * 5000)
    monkeypatch.setattr(safezip.os, "fstat", _shrunk_fstat(os.fstat, 4000))  # fstat saw 1000 bytes
    assert read_regular_file(p) == b"x" * 5000


def test_a_file_that_grew_past_the_limit_is_still_refused(tmp_path, monkeypatch):
    p = tmp_path / "a.xml"
    p.write_bytes(b"x" * 5000)
    monkeypatch.setattr(safezip.os, "fstat", _shrunk_fstat(os.fstat, 4990))  # 10 bytes at fstat
    with pytest.raises(UnsafeInputError, match="grew past"):
        read_regular_file(p, limit=100)
    monkeypatch.undo()
    with pytest.raises(UnsafeInputError, match="more than 100"):
        read_regular_file(p, limit=100)
    assert read_regular_file(p, limit=5000) == b"x" * 5000
