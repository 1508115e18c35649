"""Taxonomy packages, mirrors and the TaxonomySet: offline URL resolution and its safety."""
from __future__ import annotations

import re
import shutil
import socket
import urllib.request
import zipfile
from pathlib import Path

import pytest

from auditflow.errors import InputError, UnresolvedReferenceError, UnsafeInputError
from auditflow.xbrl.packages import (
    MirrorFolder, TaxonomyPackage, TaxonomySet, canonical_url, standard_namespace_for_url,
)
from auditflow.xbrl.qname import QName

TP_XML = """<?xml version="1.0" encoding="UTF-8"?>
<tp:taxonomyPackage xmlns:tp="http://xbrl.org/2016/taxonomy-package" xml:lang="en">
  <tp:identifier>http://example.com/ex/2024</tp:identifier>
  <tp:name>Example taxonomy</tp:name>
  <tp:version>2024</tp:version>
  <tp:entryPoints><tp:entryPoint>
    <tp:name>All</tp:name>
    <tp:entryPointDocument href="https://example.com/ex/2024/elts/ex-2024.xsd"/>
  </tp:entryPoint></tp:entryPoints>
</tp:taxonomyPackage>"""

CATALOG_XML = """<?xml version="1.0" encoding="UTF-8"?>
<catalog xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog">
  <rewriteURI uriStartString="https://example.com/ex/2024/" rewritePrefix="../"/>
  <rewriteURI uriStartString="https://xbrl.fasb.org/ex/2024/" rewritePrefix="../"/>
  <rewriteSystem systemIdStartString="http://example.org/sys/" rewritePrefix="../sys/"/>
</catalog>"""

SCHEMA_XSD = """<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xbrli="http://www.xbrl.org/2003/instance"
    xmlns:ex="http://example.com/ex/2024" targetNamespace="http://example.com/ex/2024">
  <xs:element id="ex_Total" name="Total" type="xbrli:monetaryItemType" substitutionGroup="xbrli:item"
      xbrli:periodType="instant" xbrli:balance="debit"/>
  <xs:element id="odd-id" name="Part" type="xbrli:monetaryItemType" substitutionGroup="xbrli:item"
      xbrli:periodType="instant"/>
</xs:schema>"""

EX_URL = "https://example.com/ex/2024/elts/ex-2024.xsd"


def package_files(top: str = "ex/", catalog: str = CATALOG_XML) -> dict[str, str]:
    return {
        f"{top}META-INF/taxonomyPackage.xml": TP_XML,
        f"{top}META-INF/catalog.xml": catalog,
        f"{top}elts/ex-2024.xsd": SCHEMA_XSD,
        f"{top}sys/a.xsd": "<xs:schema xmlns:xs='http://www.w3.org/2001/XMLSchema'/>",
    }


def write_zip(path: Path, files: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return path


def write_dir(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


@pytest.fixture
def ex_zip(tmp_path: Path) -> Path:
    return write_zip(tmp_path / "ex-2024.zip", package_files())


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a socket or a URL fails the test."""

    def boom(*a, **k):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "socket", boom)
    monkeypatch.setattr(socket, "create_connection", boom)
    monkeypatch.setattr(urllib.request, "urlopen", boom)


# -- packages -----------------------------------------------------------------------------------------
def test_zip_package_metadata(ex_zip: Path) -> None:
    pkg = TaxonomyPackage.open(ex_zip)
    assert pkg.identifier == "http://example.com/ex/2024"
    assert pkg.name == "Example taxonomy" and pkg.version == "2024"
    assert pkg.entry_points[0].documents == (EX_URL,)
    assert "elts/ex-2024.xsd" in pkg.files() and "META-INF/catalog.xml" in pkg.files()


def test_catalog_rewrite_uri_and_system(ex_zip: Path) -> None:
    ts = TaxonomySet([TaxonomyPackage.open(ex_zip)])
    assert ts.resolve(EX_URL) == f"{ex_zip.resolve()}!ex/elts/ex-2024.xsd"
    assert ts.read(EX_URL).startswith(b"<?xml")
    assert ts.exists("http://example.org/sys/a.xsd")
    assert ts.resolve("https://example.com/ex/2024/elts/missing.xsd") is None
    # a URL that climbs out of the rewrite target never reaches files outside the package
    assert ts.resolve("https://example.com/ex/2024/../../../etc/passwd") is None


def test_http_https_equivalent_only_for_standard_hosts(ex_zip: Path) -> None:
    ts = TaxonomySet([TaxonomyPackage.open(ex_zip)])
    assert ts.exists("https://xbrl.fasb.org/ex/2024/elts/ex-2024.xsd")
    assert ts.exists("http://xbrl.fasb.org/ex/2024/elts/ex-2024.xsd")
    assert ts.exists("HTTP://XBRL.FASB.ORG/ex/2024/elts/ex-2024.xsd#frag")
    assert not ts.exists("http://example.com/ex/2024/elts/ex-2024.xsd")  # not a standard host
    assert canonical_url("http://xbrl.sec.gov/dei/2024/dei-2024.xsd#x") == "https://xbrl.sec.gov/dei/2024/dei-2024.xsd"


def test_directory_package_and_its_parent_folder(tmp_path: Path) -> None:
    root = write_dir(tmp_path / "unzipped", package_files())
    for path in (root / "ex", root):  # the package folder, or a folder holding just that package
        ts = TaxonomySet([TaxonomyPackage.open(path)])
        assert ts.resolve(EX_URL) == str((root / "ex/elts/ex-2024.xsd").resolve())


def test_zip_entry_escaping_its_folder_is_refused(tmp_path: Path) -> None:
    evil = write_zip(tmp_path / "evil.zip", {**package_files(), "../evil.xsd": "<x/>"})
    with pytest.raises(UnsafeInputError, match="escapes its folder"):
        TaxonomyPackage.open(evil)
    absolute = write_zip(tmp_path / "abs.zip", {**package_files(), "/etc/evil.xsd": "<x/>"})
    with pytest.raises(UnsafeInputError):
        TaxonomyPackage.open(absolute)


def test_catalog_rewrite_leaving_the_package_is_refused(tmp_path: Path) -> None:
    bad = CATALOG_XML.replace('rewritePrefix="../"', 'rewritePrefix="../../../"', 1)
    with pytest.raises(UnsafeInputError, match="leaves the package"):
        TaxonomyPackage.open(write_zip(tmp_path / "p.zip", package_files(catalog=bad)))


def test_missing_or_bad_meta_inf_says_what_is_expected(tmp_path: Path) -> None:
    no_meta = write_zip(tmp_path / "nometa.zip", {"ex/elts/ex-2024.xsd": SCHEMA_XSD})
    with pytest.raises(InputError) as exc:
        TaxonomyPackage.open(no_meta)
    assert "nometa.zip" in str(exc.value) and "META-INF/taxonomyPackage.xml" in str(exc.value)
    with pytest.raises(InputError, match="META-INF/taxonomyPackage.xml"):
        TaxonomyPackage.open(write_dir(tmp_path / "d", {"x.xsd": SCHEMA_XSD}))
    broken = write_zip(tmp_path / "broken.zip", package_files(catalog="<catalog><unclosed>"))
    with pytest.raises(InputError, match="expected a well-formed META-INF/catalog.xml"):
        TaxonomyPackage.open(broken)
    (tmp_path / "notzip.zip").write_bytes(b"not a zip")
    with pytest.raises(InputError, match="zip"):
        TaxonomyPackage.open(tmp_path / "notzip.zip")
    with pytest.raises(InputError, match="no such taxonomy package"):
        TaxonomyPackage.open(tmp_path / "absent.zip")


def test_unresolvable_url_names_the_url_and_the_fix(ex_zip: Path) -> None:
    ts = TaxonomySet([TaxonomyPackage.open(ex_zip)])
    url = "https://xbrl.fasb.org/us-gaap/2024/elts/us-gaap-2024.xsd"
    with pytest.raises(UnresolvedReferenceError) as exc:
        ts.read(url, referenced_from="aapl-20230930.xsd")
    msg = str(exc.value)
    assert url in msg and "aapl-20230930.xsd" in msg and "--taxonomy" in msg
    assert exc.value.url == url


# -- mirrors and discovery ----------------------------------------------------------------------------
def make_mirror(root: Path) -> Path:
    return write_dir(root, {
        "xbrl.sec.gov/dei/2019/dei-2019-01-31.xsd": SCHEMA_XSD.replace("http://example.com/ex/2024", "http://xbrl.sec.gov/dei/2019-01-31"),
        "www.xbrl.org/dtr/type/types.xsd": "<xs:schema xmlns:xs='http://www.w3.org/2001/XMLSchema'/>",
    })


def test_mirror_folder_maps_http_and_https(tmp_path: Path) -> None:
    m = MirrorFolder(make_mirror(tmp_path / "mirror"))
    ts = TaxonomySet(mirrors=[m])
    for scheme in ("http", "https"):
        assert ts.exists(f"{scheme}://xbrl.sec.gov/dei/2019/dei-2019-01-31.xsd")
        assert ts.exists(f"{scheme}://www.xbrl.org/dtr/type/types.xsd")
    assert not ts.exists("https://other.example/dei/2019/dei-2019-01-31.xsd")
    assert not ts.exists("https://xbrl.sec.gov/../../etc/passwd")
    with pytest.raises(InputError, match="host-named subfolders"):
        MirrorFolder(write_dir(tmp_path / "plain", {"a/b.xsd": "<x/>"}))


def test_discover_finds_packages_and_mirrors(tmp_path: Path, ex_zip: Path) -> None:
    tax = tmp_path / "root" / "taxonomy"
    tax.mkdir(parents=True)
    shutil.copy(ex_zip, tax / "ex-2024.zip")
    make_mirror(tax / "misc")
    (tax / "README.txt").write_text("not a package")
    ts = TaxonomySet.discover(tmp_path / "root")
    assert len(ts.packages) == 1 and len(ts.mirrors) == 1
    assert ts.exists(EX_URL) and ts.exists("http://xbrl.sec.gov/dei/2019/dei-2019-01-31.xsd")
    # an explicit extra package wins over the shared data for the URLs both map
    extra = write_dir(tmp_path / "extra", package_files())
    ts2 = TaxonomySet.discover(tmp_path / "root", extra=[extra / "ex"])
    assert ts2.resolve(EX_URL) == str((extra / "ex/elts/ex-2024.xsd").resolve())
    with pytest.raises(InputError):
        TaxonomySet.discover(tmp_path / "root", extra_packages=[tmp_path / "nothing-here"])
    assert len(TaxonomySet.discover(tmp_path / "no-such-root").sources) == 0


def test_fingerprint_follows_content(tmp_path: Path) -> None:
    root = write_dir(tmp_path / "p", package_files())
    fp1 = TaxonomySet([TaxonomyPackage.open(root / "ex")]).fingerprint()
    assert re.fullmatch(r"[0-9a-f]{64}", fp1)
    assert TaxonomySet([TaxonomyPackage.open(root / "ex")]).fingerprint() == fp1
    (root / "ex/elts/ex-2024.xsd").write_text(SCHEMA_XSD.replace("debit", "credit"))  # same size
    assert TaxonomySet([TaxonomyPackage.open(root / "ex")]).fingerprint() != fp1


# -- schemas and locators -----------------------------------------------------------------------------
@pytest.mark.parametrize("url, ns", [
    ("https://xbrl.fasb.org/us-gaap/2024/elts/us-gaap-2024.xsd", "http://fasb.org/us-gaap/2024"),
    ("http://xbrl.fasb.org/us-gaap/2019/elts/us-gaap-2019-01-31.xsd", "http://fasb.org/us-gaap/2019-01-31"),
    ("https://xbrl.fasb.org/srt/2024/elts/srt-2024.xsd", "http://fasb.org/srt/2024"),
    ("https://xbrl.fasb.org/us-gaap/2024/ebp/elts/us-gaap-ebp-2024.xsd", "http://fasb.org/us-gaap-ebp/2024"),
    ("https://xbrl.sec.gov/dei/2024/dei-2024.xsd", "http://xbrl.sec.gov/dei/2024"),
    ("https://xbrl.sec.gov/dei/2019/dei-2019-01-31.xsd", "http://xbrl.sec.gov/dei/2019-01-31"),
    ("https://xbrl.sec.gov/ecd/2024/ecd-2024.xsd", "http://xbrl.sec.gov/ecd/2024"),
    ("https://xbrl.sec.gov/dei/2021/dei-2021_lab.xsd", None),
    ("https://xbrl.fasb.org/us-gaap/2024/elts/us-roles-2024.xsd", None),
    ("https://www.apple.com/20230930/aapl-20230930.xsd", None),
])
def test_standard_namespace_for_url(url: str, ns: str | None) -> None:
    assert standard_namespace_for_url(url) == ns


def test_concept_for_locator_exact_then_by_convention(ex_zip: Path) -> None:
    ts = TaxonomySet([TaxonomyPackage.open(ex_zip)])
    assert ts.concept_for_locator(EX_URL, "odd-id") == QName("http://example.com/ex/2024", "Part")
    assert ts.concept_for_locator(EX_URL, "ex_Total") == QName("http://example.com/ex/2024", "Total")
    assert ts.concept_for_locator(EX_URL, "ex_Nope") is None  # the schema is there and lacks it
    assert ts.schema(EX_URL).by_name["Total"].balance == "debit"
    assert ts.schema(EX_URL) is ts.schema(EX_URL.replace("example.com", "EXAMPLE.com") + "#ex_Total")
    gaap = ts.concept_for_locator("https://xbrl.fasb.org/us-gaap/2024/elts/us-gaap-2024.xsd", "us-gaap_Assets")
    assert gaap == QName("http://fasb.org/us-gaap/2024", "Assets") and str(gaap) == "us-gaap:Assets"
    assert ts.concept_for_locator("https://other.example/x.xsd", "x_Y") is None
    assert ts.schema("https://other.example/x.xsd") is None


# -- the real shared taxonomies -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def real_set(data_root: Path) -> TaxonomySet:
    return TaxonomySet.discover(data_root)


def test_real_packages_resolve_what_we_have(real_set: TaxonomySet, no_network) -> None:
    assert {p.identifier for p in real_set.packages} >= {"http://xbrl.fasb.org/us-gaap/2024", "http://xbrl.fasb.org/srt/2024"}
    cal = "https://xbrl.fasb.org/us-gaap/2024/stm/us-gaap-stm-sfp-cls-cal-2024.xml"
    assert real_set.resolve(cal).endswith("us-gaap-2024/stm/us-gaap-stm-sfp-cls-cal-2024.xml")
    assert real_set.exists(cal.replace("https:", "http:"))
    assert real_set.resolve("https://xbrl.fasb.org/srt/2024/elts/srt-2024.xsd").endswith("srt-2024/elts/srt-2024.xsd")
    assert real_set.exists("http://xbrl.sec.gov/dei/2019/dei-2019-01-31.xsd")  # the mirror
    missing = "https://xbrl.fasb.org/us-gaap/2024/elts/us-gaap-2024.xsd"  # not in our copy
    assert real_set.resolve(missing) is None
    with pytest.raises(UnresolvedReferenceError, match=re.escape(missing)):
        real_set.read(missing)


def test_real_locators(real_set: TaxonomySet, no_network) -> None:
    axis = real_set.concept_for_locator("https://xbrl.fasb.org/srt/2024/elts/srt-2024.xsd", "srt_ProductOrServiceAxis")
    assert axis == QName("http://fasb.org/srt/2024", "ProductOrServiceAxis")
    assert real_set.schema("https://xbrl.fasb.org/srt/2024/elts/srt-2024.xsd").by_name["ProductOrServiceAxis"].period_type == "duration"
    dei = real_set.concept_for_locator("http://xbrl.sec.gov/dei/2019/dei-2019-01-31.xsd", "dei_EntityRegistrantName")
    assert dei == QName("http://xbrl.sec.gov/dei/2019-01-31", "EntityRegistrantName")
    assert real_set.fingerprint() == TaxonomySet.discover(real_set.packages[0].path.parent.parent).fingerprint()


def test_discover_skips_a_broken_zip_in_the_shared_folder(tmp_path: Path, ex_zip: Path) -> None:
    tax = tmp_path / "taxonomy"
    tax.mkdir()
    shutil.copy(ex_zip, tax / "ex-2024.zip")
    write_zip(tax / "evil.zip", {**package_files(), "../evil.xsd": "<x/>"})
    ts = TaxonomySet.discover(tmp_path)
    assert len(ts.packages) == 1 and ts.exists(EX_URL)
    assert "escapes its folder" in ts.problems[str(tax / "evil.zip")]
    with pytest.raises(UnsafeInputError):  # but the user's own --taxonomy argument is never skipped
        TaxonomySet.discover(tmp_path, extra_packages=[tax / "evil.zip"])
