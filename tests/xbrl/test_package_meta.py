"""Issue 21: a taxonomy package's META-INF is parsed once per content and then read from a memo in the
cache directory (auditflow.xbrl.package_meta), so a warm ``auditflow check`` imports no lxml. The memo
must give what the parse gives, and never what the parse would refuse."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditflow.errors import InputError, UnsafeInputError
from auditflow.cache_dir import default_cache_dir
from auditflow.xbrl import package_meta
from auditflow.xbrl.packages import TaxonomyPackage, TaxonomySet
from tests.xbrl.test_packages import package_files, write_dir, write_zip

FIELDS = ("identifier", "name", "version", "label", "entry_points", "rewrites")


def _seen(pkg: TaxonomyPackage) -> tuple:
    return tuple(getattr(pkg, f) for f in FIELDS)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("AUDITFLOW_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "package-meta"


def _no_parse(monkeypatch) -> None:
    def refuse(self, *a, **k):
        raise AssertionError("META-INF parsed although its memo is there")

    monkeypatch.setattr(TaxonomyPackage, "_parse_meta_files", refuse)


def test_the_second_open_reads_the_memo_and_sees_the_same(tmp_path: Path, cache: Path, monkeypatch):
    paths = [write_zip(tmp_path / "ex.zip", package_files()), write_dir(tmp_path / "dir", package_files(top=""))]
    first = [_seen(TaxonomyPackage.open(p)) for p in paths]
    assert len(list(cache.glob("*.json"))) == 1  # the same META-INF bytes in both: one memo
    _no_parse(monkeypatch)
    assert [_seen(TaxonomyPackage.open(p)) for p in paths] == first
    assert first[0][4][0].name == "All" and first[0][5]  # entry points and rewrites came through


def test_the_data_roots_packages_alike_from_the_memo(data_root: Path, cache: Path, monkeypatch):
    first = TaxonomySet.discover(data_root)
    seen = [_seen(p) for p in first.packages]
    assert seen and len(list(cache.glob("*.json"))) == len(seen)
    _no_parse(monkeypatch)
    again = TaxonomySet.discover(data_root)
    assert [_seen(p) for p in again.packages] == seen
    assert again.problems == first.problems


def test_a_memo_with_a_rewrite_out_of_the_package_is_ignored(tmp_path: Path, cache: Path):
    path = write_zip(tmp_path / "ex.zip", package_files())
    expected = _seen(TaxonomyPackage.open(path))
    (memo,) = cache.glob("*.json")
    raw = json.loads(memo.read_text())
    for target in ("../../", "/etc/", "a/../../", "x"):
        raw[4] = [["https://example.com/ex/2024/", target]]
        memo.write_text(json.dumps(raw))
        assert _seen(TaxonomyPackage.open(path)) == expected  # parsed again, and remembered again
    memo.write_text("not json")
    assert _seen(TaxonomyPackage.open(path)) == expected


def test_refused_meta_inf_is_refused_every_time(tmp_path: Path, cache: Path):
    bad = package_files(catalog="""<catalog xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog">
  <rewriteURI uriStartString="https://example.com/ex/2024/" rewritePrefix="../../../"/></catalog>""")
    broken = package_files(catalog="<catalog><unclosed>")
    for _ in range(2):
        with pytest.raises(UnsafeInputError):
            TaxonomyPackage.open(write_zip(tmp_path / "bad.zip", bad))
        with pytest.raises(InputError, match="well-formed"):
            TaxonomyPackage.open(write_zip(tmp_path / "broken.zip", broken))
    assert not list(cache.glob("*.json")) if cache.exists() else True


def test_the_memo_lives_in_the_taxonomy_cache_directory(cache: Path):
    assert package_meta.default_cache_dir() == default_cache_dir() == cache.parent  # one definition: auditflow.cache_dir
