"""The taxonomy graph's disk cache: a code-free file (builtins-only pickles) read lazily, by section.

:func:`load_taxonomy_graph` is how every caller gets the graph: from the cache when the taxonomy's
fingerprint matches, else built (:mod:`auditflow.graphs.taxonomy_build`) and written atomically.
"""
from __future__ import annotations

import io
import os
import pickle
import weakref
import zlib
from pathlib import Path

from auditflow.cache_dir import default_cache_dir
from auditflow.graphs.taxonomy_build import Progress, build_taxonomy_graph
from auditflow.graphs.taxonomy_graph import CODE_VERSION, LAZY_SECTIONS, TaxonomyGraph
from auditflow.xbrl.fingerprint import taxonomy_fingerprint
from auditflow.xbrl.packages import TaxonomySet

_MAGIC = b"AFTAXGRAPH\x02\n"


class _BuiltinsOnly(pickle.Unpickler):
    """The cache holds builtins only, so refusing every global makes a tampered file inert."""

    def find_class(self, module: str, name: str):
        raise pickle.UnpicklingError(f"the taxonomy cache may not reference {module}.{name}")


def cache_path(cache_dir: Path, fingerprint: str) -> Path:
    return Path(cache_dir) / f"taxonomy-graph-v{CODE_VERSION}-{fingerprint[:32]}.pickle"


# File layout: _MAGIC, CRC-32 of the head (4 bytes), head length (8 bytes), the head pickle, then each
# section's pickle. The head holds the node names and a table {section: (offset, length, CRC-32)}.
# The checksums only catch damage (a truncated or overwritten file) and are ~4x cheaper than sha256;
# safety against a tampered file comes from the builtins-only unpickler. A warm run reads the head
# (~2 of ~8 MB); a section is read and checked when a query first needs it.
_HEAD = len(_MAGIC) + 12


def _frame(head: bytes) -> bytes:
    """The file's start: magic, the head's checksum and length, the head."""
    return _MAGIC + zlib.crc32(head).to_bytes(4, "big") + len(head).to_bytes(8, "big") + head


class _Sections:
    """Reads sections from the cache file opened at load time. Reading through that open file, not
    the path, means a cache rewritten by another process meanwhile (os.replace) cannot mix files."""

    def __init__(self, fh, base: int, table: dict) -> None:
        self._fh, self._base, self._table = fh, base, table
        weakref.finalize(self, fh.close)

    def read(self, name: str):
        offset, length, crc = self._table[name]
        self._fh.seek(self._base + offset)
        raw = self._fh.read(length)
        if len(raw) != length or zlib.crc32(raw) != crc:
            raise ValueError("checksum mismatch")
        return _BuiltinsOnly(io.BytesIO(raw)).load()


def _read_cache(path: Path, fingerprint: str) -> tuple[dict, _Sections] | None:
    """The cached head and a reader for its sections, or None when missing, corrupt (checksum
    mismatch), stale or unreadable."""
    fh = None
    try:
        fh = open(path, "rb")  # noqa: SIM115 - kept open by _Sections for lazy reads
        start = fh.read(_HEAD)
        if len(start) != _HEAD or start[: len(_MAGIC)] != _MAGIC:
            raise ValueError("not a taxonomy graph cache")
        crc, length = int.from_bytes(start[len(_MAGIC):len(_MAGIC) + 4], "big"), int.from_bytes(start[len(_MAGIC) + 4:], "big")
        head = fh.read(length)
        if len(head) != length or zlib.crc32(head) != crc:
            raise ValueError("damaged head")
        data = _BuiltinsOnly(io.BytesIO(head)).load()
        size = os.fstat(fh.fileno()).st_size
        if not (isinstance(data, dict) and data.get("version") == CODE_VERSION and data.get("fingerprint") == fingerprint
                and _valid_table(data.get("sections"), size - _HEAD - length)):
            raise ValueError("stale or malformed")
        return data, _Sections(fh, _HEAD + length, data.pop("sections"))
    except Exception:  # noqa: BLE001 - any unreadable cache is simply rebuilt
        if fh is not None:
            fh.close()
        return None


def _valid_table(table, room: int) -> bool:
    """Every lazy section listed, each inside the file."""
    return (isinstance(table, dict) and all(
        isinstance(table.get(k), tuple) and len(table[k]) == 3 and all(isinstance(x, int) and x >= 0 for x in table[k])
        and table[k][0] + table[k][1] <= room for k in LAZY_SECTIONS))


def _write_cache(path: Path, data: dict) -> str | None:
    """Write atomically (temp file + os.replace); returns a warning instead of failing the run."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        blobs = [pickle.dumps(data[k], protocol=5) for k in LAZY_SECTIONS]
        table, offset = {}, 0
        for k, blob in zip(LAZY_SECTIONS, blobs):
            table[k] = (offset, len(blob), zlib.crc32(blob))
            offset += len(blob)
        head = pickle.dumps({**{k: v for k, v in data.items() if k not in LAZY_SECTIONS}, "sections": table}, protocol=5)
        import tempfile  # only to write an entry: a hit does not pay for its import (random, ...)

        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".taxonomy-graph-", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(_frame(head))
            for blob in blobs:
                fh.write(blob)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        return None
    except OSError as exc:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        return f"could not write the taxonomy graph cache {path}: {exc.strerror or exc}"


def load_taxonomy_graph(tset: TaxonomySet, *, cache_dir: Path | None = None, progress: Progress | None = None) -> TaxonomyGraph:
    """The taxonomy graph of ``tset``, from the disk cache when its fingerprint matches, else built
    (and cached). Default cache dir: ``$AUDITFLOW_CACHE_DIR`` or ``~/.cache/auditflow/taxonomy``."""
    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    fp = taxonomy_fingerprint(tset, directory)  # recalled, or computed once and remembered
    path = cache_path(directory, fp)

    def rebuild() -> dict:
        """Build from the packages and rewrite the cache: also what a damaged section found later costs."""
        graph = build_taxonomy_graph(tset, progress=progress)
        problem = _write_cache(path, graph._data)
        if problem:
            graph._data["warnings"] = [*graph._data["warnings"], problem]
        return graph._data

    cached = _read_cache(path, fp)
    if cached is not None:
        try:
            return TaxonomyGraph(cached[0], from_cache=True, cache_file=path, sections=cached[1], rebuild=rebuild)
        except Exception:  # noqa: BLE001 - a cache from a buggy writer: rebuild rather than crash
            pass
    return TaxonomyGraph(rebuild(), cache_file=path)

