"""The on-disk filing cache: a hit is exactly the Filing a fresh load gives, and anything doubtful
(changed files, other code, other taxonomy, a damaged or tampered entry) is a miss, never an error."""
from __future__ import annotations

import os
import pickle
import shutil
import zlib
from pathlib import Path

import pytest

from auditflow.errors import InputError
from auditflow.graphs.environment import build_environment
from auditflow.xbrl import filing_cache as fc
from auditflow.xbrl.loader import load_filing

SAMPLE = Path(__file__).resolve().parents[2] / "auditflow" / "samples" / "acme-10k-2024"


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("filing-v*.bin"))


@pytest.fixture
def no_parse(monkeypatch):
    """Make any parse fail, to prove an answer came from the cache."""
    def refuse():
        def fail(*_a, **_k):
            raise AssertionError("parsed although the cache should have answered")
        monkeypatch.setattr(fc, "load_filing", fail)
    return refuse


def _copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    for p in dst.rglob("*"):
        p.chmod(0o644 if p.is_file() else 0o755)
    return dst


# -- exactness ---------------------------------------------------------------------------------------
@pytest.mark.slow
def test_every_real_filing_round_trips_exactly(data_root, taxonomy, tmp_path):
    """repr compares every field, QName prefixes and Decimal spellings included."""
    tset, _ = taxonomy
    folders = [p for sub in ("filings", "filings-rolled") for p in sorted((data_root / sub).iterdir()) if p.is_dir()]
    assert len(folders) == 29
    for folder in [*folders, SAMPLE / "xml", SAMPLE / "inline"]:
        cache = tmp_path / folder.name
        fresh = load_filing(folder, external_resolver=tset.concept_for_locator)
        first = fc.load_filing_cached(folder, taxonomy_set=tset, cache_dir=cache)  # miss: loads and stores
        assert len(_entries(cache)) == 1, folder
        hit = fc.load_filing_cached(folder, taxonomy_set=tset, cache_dir=cache)
        assert hit is not first
        assert repr(first) == repr(fresh), folder
        assert repr(hit) == repr(fresh), folder


def test_record_round_trip_keeps_decimal_spellings_and_prefixes():
    filing = load_filing(SAMPLE / "xml")
    again = fc.decode(fc.encode(filing), source=filing.source)
    assert repr(again) == repr(filing)
    assert [str(a.order) for a in again.arcs] == [str(a.order) for a in filing.arcs]


def test_results_identical_with_and_without_the_cache(data_root, taxonomy, tmp_path):
    """Environment and DQC results from a cache hit equal those of a parse (both with the taxonomy)."""
    from auditflow.rules.runner import RULES, run_rules

    tset, graph = taxonomy
    for name in ("filings/aapl-10k-2023-09-30", "filings/aeon-10q-2023-09-30", "filings-rolled/tol-10k-2023-10-31"):
        path = data_root / name
        plain = build_environment(path, taxonomy_set=tset, taxonomy=graph, filing_cache=False)
        build_environment(path, taxonomy_set=tset, taxonomy=graph, filing_cache=True, cache_dir=tmp_path)  # fills
        cached = build_environment(path, taxonomy_set=tset, taxonomy=graph, filing_cache=True, cache_dir=tmp_path)
        assert repr(cached.filing) == repr(plain.filing)
        assert cached.counts() == plain.counts() and cached.bridges == plain.bridges
        assert [str(w) for w in cached.warnings] == [str(w) for w in plain.warnings]
        assert sorted(map(repr, cached.filing_graph.edges(keys=True, data=True))) == \
            sorted(map(repr, plain.filing_graph.edges(keys=True, data=True)))
        a, b = run_rules(plain, RULES, data_root=data_root), run_rules(cached, RULES, data_root=data_root)
        assert [repr(f) for f in a.findings] == [repr(f) for f in b.findings]
        assert {r: (x.checked, x.not_applicable) for r, x in a.results.items()} == \
            {r: (x.checked, x.not_applicable) for r, x in b.results.items()}


def test_shared_environments_read_filings_through_the_cache(data_root, tmp_path, monkeypatch, no_parse):
    """The environment every case on a filing shares (graphs.factory) is loaded through the filing cache."""
    from auditflow.graphs import factory

    monkeypatch.setenv("AUDITFLOW_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(fc.ENV, raising=False)
    path = (data_root / "filings" / "nflx-10q-2024-03-31").resolve()
    factory._shared.cache_clear()
    first = factory.shared_environment(path).filing
    assert len(_entries(tmp_path)) == 1
    factory._shared.cache_clear()  # a new process, as far as the per-process cache knows
    no_parse()
    again = factory.shared_environment(path).filing
    factory._shared.cache_clear()
    assert repr(again) == repr(first)


# -- validity ----------------------------------------------------------------------------------------
def test_a_changed_file_is_a_miss(tmp_path, no_parse):
    folder, cache = _copy(SAMPLE / "xml", tmp_path), tmp_path / "cache"
    before = fc.load_filing_cached(folder, cache_dir=cache)
    instance = next(p for p in folder.iterdir() if p.name.endswith(".xml") and "_" not in p.stem)
    instance.write_bytes(instance.read_bytes().replace(b">45000000<", b">45000001<", 1))
    after = fc.load_filing_cached(folder, cache_dir=cache)
    assert repr(after) == repr(load_filing(folder)) and repr(after) != repr(before)
    no_parse()
    assert repr(fc.load_filing_cached(folder, cache_dir=cache)) == repr(after)  # and re-stored


def test_a_new_file_in_the_folder_is_a_miss(tmp_path):
    """The folder listing decides the entry documents, so it is part of an entry's validity."""
    folder, cache = _copy(SAMPLE / "xml", tmp_path), tmp_path / "cache"
    fc.load_filing_cached(folder, cache_dir=cache)
    instance = next(p for p in folder.iterdir() if p.name.endswith(".xml") and "_" not in p.stem)
    shutil.copy(instance, folder / "second-instance.xml")
    with pytest.raises(InputError, match="several XBRL instances"):
        fc.load_filing_cached(folder, cache_dir=cache)


def test_entries_depend_on_the_taxonomy_and_the_code(tmp_path, monkeypatch, taxonomy):
    tset, _ = taxonomy
    cache = tmp_path / "cache"
    fc.load_filing_cached(SAMPLE / "xml", cache_dir=cache)
    fc.load_filing_cached(SAMPLE / "xml", taxonomy_set=tset, cache_dir=cache)
    assert len(_entries(cache)) == 2
    monkeypatch.setattr(fc, "_code_signature", lambda: "another loader")
    fc.load_filing_cached(SAMPLE / "xml", cache_dir=cache)
    assert len(_entries(cache)) == 3


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty", "flipped"])
def test_a_damaged_entry_is_a_miss(tmp_path, damage):
    cache = tmp_path / "cache"
    good = fc.load_filing_cached(SAMPLE / "inline", cache_dir=cache)
    entry = _entries(cache)[0]
    blob = entry.read_bytes()
    entry.write_bytes({"garbage": b"not a cache", "truncated": blob[:-100], "empty": b"",
                       "flipped": blob[:-50] + bytes([blob[-50] ^ 0xFF]) + blob[-49:]}[damage])
    assert repr(fc.load_filing_cached(SAMPLE / "inline", cache_dir=cache)) == repr(good)
    assert fc._read(entry, (SAMPLE / "inline").resolve()) is not None  # rewritten


class _Evil:
    def __reduce__(self):
        return (print, ("tampered entry executed",))


def test_a_tampered_entry_never_runs_code(tmp_path, capsys):
    """A valid checksum around a pickle that calls a global: refused by the unpickler, a miss."""
    cache = tmp_path / "cache"
    fc.load_filing_cached(SAMPLE / "xml", cache_dir=cache)
    entry = _entries(cache)[0]
    evil = pickle.dumps({"format": fc.FORMAT, "root": str((SAMPLE / "xml").resolve()), "listing": None, "files": [],
                         "x": _Evil()}, protocol=5)
    entry.write_bytes(fc._MAGIC + zlib.crc32(evil).to_bytes(4, "big") + evil)
    assert repr(fc.load_filing_cached(SAMPLE / "xml", cache_dir=cache)) == repr(load_filing(SAMPLE / "xml"))
    assert "tampered entry executed" not in capsys.readouterr().out


def test_failed_loads_are_not_cached(tmp_path):
    folder, cache = _copy(SAMPLE / "xml", tmp_path), tmp_path / "cache"
    next(p for p in folder.iterdir() if p.name.endswith("_cal.xml")).unlink()
    for _ in range(2):
        with pytest.raises(InputError, match="missing"):
            fc.load_filing_cached(folder, cache_dir=cache)
    assert not _entries(cache)


def test_an_unwritable_cache_dir_only_costs_the_parse(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache dir should be")
    filing = fc.load_filing_cached(SAMPLE / "xml", cache_dir=blocker / "sub")
    assert repr(filing) == repr(load_filing(SAMPLE / "xml"))


def test_opt_out(tmp_path, monkeypatch):
    monkeypatch.setenv("AUDITFLOW_CACHE_DIR", str(tmp_path))
    build_environment(SAMPLE / "xml", filing_cache=False)
    assert not _entries(tmp_path)
    monkeypatch.setenv(fc.ENV, "off")
    build_environment(SAMPLE / "xml")
    assert not _entries(tmp_path)
    monkeypatch.delenv(fc.ENV)
    build_environment(SAMPLE / "xml")
    assert len(_entries(tmp_path)) == 1


def test_old_entries_are_pruned(tmp_path, monkeypatch):
    monkeypatch.setattr(fc, "MAX_ENTRIES", 2)
    cache = tmp_path / "cache"
    for i in range(4):
        monkeypatch.setattr(fc, "_code_signature", lambda i=i: f"code {i}")
        fc.load_filing_cached(SAMPLE / "xml", cache_dir=cache)
    assert len(_entries(cache)) == 2


def test_source_is_the_path_as_given(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    fc.load_filing_cached(SAMPLE / "xml", cache_dir=cache)
    monkeypatch.chdir(SAMPLE)
    hit = fc.load_filing_cached("xml", cache_dir=cache)
    assert hit.source == "xml" and len(_entries(cache)) == 1
