"""A taxonomy set's content fingerprint, remembered between runs.

Every cache derived from the taxonomy (its graph, the filing cache's entries) is keyed on the
packages' content. Hashing ~50 MB of taxonomy on every run costs more than loading the cached graph
itself, so the fingerprint is remembered in the cache folder under the files' stat signature
(paths, sizes, mtimes) and recalled while they are unchanged.
"""
from __future__ import annotations

import os
from pathlib import Path

from auditflow.cache_dir import default_cache_dir
from auditflow.xbrl.packages import TaxonomySet


def taxonomy_fingerprint(tset: TaxonomySet, cache_dir: Path | None = None) -> str:
    """``tset``'s content fingerprint, recalled from the memo in ``cache_dir`` when its files are
    unchanged (stat signature), else computed once and remembered."""
    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    if not tset.fingerprint_known:
        recall_fingerprint(tset, directory)
        if not tset.fingerprint_known:
            tset.fingerprint()
            remember_fingerprint(tset, directory)
    return tset.fingerprint()


def _memo_path(directory: Path, tset: TaxonomySet) -> Path:
    return directory / f"fingerprint-{tset.stat_signature()[:32]}.txt"


def recall_fingerprint(tset: TaxonomySet, directory: Path) -> None:
    """Reuse the content fingerprint recorded for the same files (paths, sizes, mtimes): hashing
    ~50 MB of taxonomy on every run costs more than loading the cached graph itself."""
    try:
        fp = _memo_path(directory, tset).read_text().strip()
    except OSError:
        return
    if len(fp) == 64 and all(c in "0123456789abcdef" for c in fp):
        tset.adopt_fingerprint(fp)


def remember_fingerprint(tset: TaxonomySet, directory: Path) -> None:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tmp = _memo_path(directory, tset).with_suffix(".tmp")
        tmp.write_text(tset.fingerprint())
        os.replace(tmp, _memo_path(directory, tset))
    except OSError:
        pass  # a read-only cache directory only costs the re-hash next time
