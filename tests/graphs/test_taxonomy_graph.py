"""The static taxonomy graph: a tiny synthetic package for exact behaviour, the real shared
taxonomies for the facts rules rely on, and the disk cache's robustness."""
from __future__ import annotations

import pickle
import time
import zipfile
import zlib
from decimal import Decimal
from pathlib import Path

import pytest

from auditflow import cache_dir
from auditflow.graphs import taxonomy_build as tb
from auditflow.graphs import taxonomy_graph as tg
from auditflow.graphs import taxonomy_store as ts
from auditflow.graphs.taxonomy_build import build_taxonomy_graph
from auditflow.graphs.taxonomy_graph import TaxonomyGraph
from auditflow.graphs.taxonomy_store import load_taxonomy_graph
from auditflow.xbrl.model import DIMENSION_DEFAULT
from auditflow.xbrl.packages import TaxonomyPackage, TaxonomySet
from auditflow.xbrl.qname import QName

EX = "http://example.com/ex/2024"
GAAP24 = "http://fasb.org/us-gaap/2024"
SRT24 = "http://fasb.org/srt/2024"
SFP_CLS = "http://fasb.org/us-gaap/role/statement/StatementOfFinancialPositionClassified"
NS = ("xmlns:link='http://www.xbrl.org/2003/linkbase' xmlns:xlink='http://www.w3.org/1999/xlink' "
      "xmlns:xbrldt='http://xbrl.org/2005/xbrldt'")
ROLE = "http://example.com/role/bs"
GAAP_XSD = "https://xbrl.fasb.org/us-gaap/2024/elts/us-gaap-2024.xsd"


def _loc(name: str, href: str | None = None) -> str:
    return f"<link:loc xlink:type='locator' xlink:href='{href or 'ex-2024.xsd#ex_' + name}' xlink:label='{name}'/>"


def _calc(frm: str, to: str, weight: str, order: str, extra: str = "") -> str:
    return (f"<link:calculationArc xlink:type='arc' xlink:arcrole='http://www.xbrl.org/2003/arcrole/summation-item' "
            f"xlink:from='{frm}' xlink:to='{to}' weight='{weight}' order='{order}' {extra}/>")


def _linkbase(link: str, body: str) -> str:
    return f"<link:linkbase {NS}><link:{link} xlink:type='extended' xlink:role='{ROLE}'>{body}</link:{link}></link:linkbase>"


def ex_package_files() -> dict[str, str]:
    meta = {
        "ex/META-INF/taxonomyPackage.xml": (
            "<tp:taxonomyPackage xmlns:tp='http://xbrl.org/2016/taxonomy-package'>"
            "<tp:identifier>http://example.com/ex/2024</tp:identifier><tp:name>Ex</tp:name></tp:taxonomyPackage>"),
        "ex/META-INF/catalog.xml": (
            "<catalog xmlns='urn:oasis:names:tc:entity:xmlns:xml:catalog'>"
            "<rewriteURI uriStartString='https://example.com/ex/2024/' rewritePrefix='../'/></catalog>"),
    }
    elements = "".join(
        f"<xs:element id='ex_{n}' name='{n}' type='xbrli:monetaryItemType' substitutionGroup='xbrli:item' "
        f"xbrli:periodType='instant' xbrli:balance='debit'/>" for n in ("Total", "A", "B")
    )
    schema = (
        "<xs:schema xmlns:xs='http://www.w3.org/2001/XMLSchema' xmlns:xbrli='http://www.xbrl.org/2003/instance' "
        f"{NS} targetNamespace='{EX}'><xs:annotation><xs:appinfo>"
        f"<link:roleType roleURI='{ROLE}' id='bs'><link:definition>100 - Balance sheet</link:definition>"
        "<link:usedOn>link:calculationLink</link:usedOn></link:roleType></xs:appinfo></xs:annotation>"
        f"{elements}</xs:schema>"
    )
    locs = _loc("Total") + _loc("A") + _loc("B") + _loc("Assets", f"{GAAP_XSD}#us-gaap_Assets")
    cal = _calc("Total", "A", "1", "1") + _calc("Total", "B", "-1", "2") + _calc("Assets", "Total", "1", "1")
    prohibit = _loc("Total") + _loc("B") + _calc("Total", "B", "-1", "2", "use='prohibited' priority='1'")
    pre = (locs + "<link:presentationArc xlink:type='arc' xlink:arcrole='http://www.xbrl.org/2003/arcrole/parent-child' "
           "xlink:from='Total' xlink:to='A' order='1' preferredLabel='http://www.xbrl.org/2003/role/terseLabel'/>")
    lab = (_loc("Total") + "<link:label xlink:type='resource' xlink:label='l' xlink:role='http://www.xbrl.org/2003/role/label' "
           "xml:lang='en-US'>Grand total</link:label><link:labelArc xlink:type='arc' "
           "xlink:arcrole='http://www.xbrl.org/2003/arcrole/concept-label' xlink:from='Total' xlink:to='l'/>")
    return {
        **meta,
        "ex/elts/ex-2024.xsd": schema,
        "ex/elts/ex-cal-2024.xml": _linkbase("calculationLink", locs + cal),
        "ex/elts/ex-override-cal-2024.xml": _linkbase("calculationLink", prohibit),
        "ex/elts/ex-pre-2024.xml": _linkbase("presentationLink", pre),
        "ex/elts/ex-lab-2024.xml": f"<link:linkbase {NS}><link:labelLink xlink:type='extended' xlink:role='http://www.xbrl.org/2003/role/link'>{lab}</link:labelLink></link:linkbase>",
        "ex/elts/ex-ref-2024.xml": "<this is not even XML",  # reference linkbases are skipped, unread
    }


@pytest.fixture
def ex_set(tmp_path: Path) -> TaxonomySet:
    path = tmp_path / "ex.zip"
    with zipfile.ZipFile(path, "w") as z:
        for name, text in ex_package_files().items():
            z.writestr(name, text)
    return TaxonomySet([TaxonomyPackage.open(path)])


def ex(local: str) -> QName:
    return QName(EX, local, "ex")


# -- synthetic package ----------------------------------------------------------------------------------
def test_small_package_graph(ex_set: TaxonomySet) -> None:
    g = build_taxonomy_graph(ex_set)
    # the prohibiting arc in the second linkbase removes Total -> B (effective arcs per package)
    assert g.calc_children(ex("Total")) == [(ROLE, ex("A"), Decimal("1"), Decimal("1"))]
    assert g.calc_parents(ex("A")) == [(ROLE, ex("Total"), Decimal("1"), Decimal("1"))]
    assert g.calc_parents(ex("Total"))[0][1] == QName(GAAP24, "Assets")
    assert g.presentation_children(ex("Total")) == [(ROLE, ex("A"), Decimal("1"), "http://www.xbrl.org/2003/role/terseLabel")]
    assert g.labels(ex("Total")) == {"http://www.xbrl.org/2003/role/label": "Grand total"}
    assert g.concept(ex("Total")).balance == "debit" and g.concept(ex("Total")).source == "schema"
    assert g.concept(QName(GAAP24, "Assets")).source == "locator"
    assert g.roles()[ROLE].definition == "100 - Balance sheet"
    assert g.counts() == {"concepts": 4, "calc_arcs": 2, "def_arcs": 0, "pre_arcs": 1, "labels": 1}
    assert len(g) == 4 and g.search("grand")[0] == ex("Total")
    assert g.calc_children(ex("Total"), role="http://other/role") == []
    assert g.concept(QName("http://nowhere", "X")) is None and g.calc_children(QName("http://nowhere", "X")) == []


def test_networkx_view_is_lazy_and_complete(ex_set: TaxonomySet) -> None:
    g = build_taxonomy_graph(ex_set)
    assert g._nx is None  # nothing paid for until asked
    nx = g.nx
    assert nx.number_of_nodes() == 4 and nx.number_of_edges() == 3
    edges = nx.get_edge_data(ex("Total").clark(), ex("A").clark()).values()
    assert {e["kind"] for e in edges} == {"calculation", "presentation"}
    calc = next(e for e in edges if e["kind"] == "calculation")
    assert calc["weight"] == Decimal("1") and calc["role"] == ROLE
    assert nx.nodes[ex("Total").clark()]["concept"].period_type == "instant"


def test_progress_is_reported(ex_set: TaxonomySet) -> None:
    seen = []
    build_taxonomy_graph(ex_set, progress=lambda done, total, what: seen.append((done, total)))
    assert seen and seen[-1][0] == seen[-1][1]


# -- cache ------------------------------------------------------------------------------------------------
def test_cache_round_trip_and_corruption(ex_set: TaxonomySet, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold = load_taxonomy_graph(ex_set, cache_dir=cache)
    assert not cold.from_cache
    files = sorted(cache.glob("taxonomy-graph-*.pickle"))
    assert [f.name for f in files] == [ts.cache_path(cache, ex_set.fingerprint()).name]  # no temp files left
    warm = load_taxonomy_graph(ex_set, cache_dir=cache)
    assert warm.from_cache and warm.counts() == cold.counts()
    assert warm.calc_children(ex("Total")) == cold.calc_children(ex("Total"))
    for damage in (b"garbage", files[0].read_bytes()[:-100], b""):
        files[0].write_bytes(damage)
        rebuilt = load_taxonomy_graph(ex_set, cache_dir=cache)
        assert not rebuilt.from_cache and rebuilt.counts() == cold.counts()
        assert load_taxonomy_graph(ex_set, cache_dir=cache).from_cache  # and the cache was rewritten


def test_cache_with_code_is_refused(ex_set: TaxonomySet, tmp_path: Path) -> None:
    """A file with a valid checksum that smuggles a global (code) in is never executed."""
    cache = tmp_path / "cache"
    path = ts.cache_path(cache, ex_set.fingerprint())
    cache.mkdir()
    payload = pickle.dumps({"version": tg.CODE_VERSION, "x": print}, protocol=5)
    path.write_bytes(ts._frame(payload))  # a valid checksum: only the unpickler stands in the way
    assert not load_taxonomy_graph(ex_set, cache_dir=cache).from_cache


def _head_and_sections(path: Path) -> tuple[dict, bytes]:
    blob = path.read_bytes()
    length = int.from_bytes(blob[len(ts._MAGIC) + 4: ts._HEAD], "big")
    return pickle.loads(blob[ts._HEAD: ts._HEAD + length]), blob[ts._HEAD + length:]


def test_lazy_cache_section_with_code_is_rebuilt_not_run(ex_set: TaxonomySet, tmp_path: Path) -> None:
    """Sections are decoded on first use by the same builtins-only unpickler: a smuggled global with a
    valid checksum is a late cache miss (rebuilt, with a warning), never executed."""
    cache = tmp_path / "cache"
    cold = load_taxonomy_graph(ex_set, cache_dir=cache)
    path = ts.cache_path(cache, ex_set.fingerprint())
    head, sections = _head_and_sections(path)
    evil = pickle.dumps([print], protocol=5)
    head["sections"]["rows"] = (len(sections), len(evil), zlib.crc32(evil))
    path.write_bytes(ts._frame(pickle.dumps(head, protocol=5)) + sections + evil)
    warm = load_taxonomy_graph(ex_set, cache_dir=cache)
    assert warm.from_cache and warm.bridge(ex("Total"))[0] == ex("Total")  # bridging reads no section
    assert warm.concept(ex("Total")) == cold.concept(ex("Total"))
    assert not warm.from_cache and any("was damaged" in w for w in warm.warnings)
    again = load_taxonomy_graph(ex_set, cache_dir=cache)  # the rebuild rewrote a good cache
    assert again.from_cache and again.concept(ex("Total")) == cold.concept(ex("Total"))
    assert not any("damaged" in w for w in again.warnings)


def test_damaged_lazy_section_is_a_late_cache_miss(ex_set: TaxonomySet, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold = load_taxonomy_graph(ex_set, cache_dir=cache)
    path = ts.cache_path(cache, ex_set.fingerprint())
    blob = bytearray(path.read_bytes())
    blob[-3] ^= 0xFF  # inside the last section
    path.write_bytes(bytes(blob))
    warm = load_taxonomy_graph(ex_set, cache_dir=cache)
    assert warm.from_cache  # the head is intact
    assert warm.calc_children(ex("Total")) == cold.calc_children(ex("Total")) and warm.roles() == cold.roles()
    assert warm.labels(ex("Total")) == cold.labels(ex("Total"))
    assert any("was damaged" in w for w in warm.warnings)


def test_warm_graph_decodes_sections_only_when_queried(ex_set: TaxonomySet, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold = load_taxonomy_graph(ex_set, cache_dir=cache)
    warm = load_taxonomy_graph(ex_set, cache_dir=cache)
    assert warm.from_cache and not any(k in vars(warm) for k in ("_rows", "_labels", "_e", "_strings"))
    assert warm.bridge(ex("Total")) == cold.bridge(ex("Total"))
    assert not any(k in vars(warm) for k in ("_rows", "_labels", "_e", "_strings"))
    assert warm.calc_children(ex("Total")) == cold.calc_children(ex("Total"))
    assert warm.labels(ex("Total")) == cold.labels(ex("Total")) and warm.roles() == cold.roles()
    assert warm.concept(ex("Total")) == cold.concept(ex("Total"))


def test_unwritable_cache_dir_is_a_warning(ex_set: TaxonomySet, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache dir should be")
    g = load_taxonomy_graph(ex_set, cache_dir=blocker / "sub")
    assert g.counts()["calc_arcs"] == 2 and any("could not write" in w for w in g.warnings)


def test_default_cache_dir_from_environment(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AUDITFLOW_CACHE_DIR", str(tmp_path))
    assert cache_dir.default_cache_dir() == tmp_path
    monkeypatch.delenv("AUDITFLOW_CACHE_DIR")
    assert cache_dir.default_cache_dir() == Path("~/.cache/auditflow/taxonomy").expanduser()


# -- the real shared taxonomies ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def real(data_root: Path, tmp_path_factory) -> tuple[TaxonomySet, TaxonomyGraph, Path]:
    """Built once per module (a cold build reads ~45 MB of linkbases: several seconds)."""
    cache = tmp_path_factory.mktemp("taxonomy-cache")
    tset = TaxonomySet.discover(data_root)
    return tset, load_taxonomy_graph(tset, cache_dir=cache), cache


def test_real_assets_calculation(real) -> None:
    _, g, _ = real
    assets = QName(GAAP24, "Assets")
    children = {c.local: w for r, c, w, _ in g.calc_children(assets, role=SFP_CLS)}
    assert children == {"AssetsCurrent": Decimal("1"), "AssetsNoncurrent": Decimal("1")}
    assert any(r == SFP_CLS and p == assets for r, p, _, _ in g.calc_parents(QName(GAAP24, "AssetsCurrent")))
    assert "Statement" in g.roles()[SFP_CLS].definition


def test_real_concepts_schema_and_locator(real) -> None:
    _, g, _ = real
    axis = g.concept(QName(SRT24, "ProductOrServiceAxis"))
    assert axis.source == "schema" and axis.period_type == "duration" and axis.is_dimension
    assert g.labels(axis.qname)["http://www.xbrl.org/2003/role/label"] == "Product and Service [Axis]"
    defaults = g.definition_arcs(axis.qname, arcrole=DIMENSION_DEFAULT)
    assert defaults and {a.target.local for a in defaults} == {"ProductsAndServicesDomain"}
    gaap = g.concept(QName(GAAP24, "AssetsCurrent"))
    assert gaap.source == "locator" and gaap.period_type is None and gaap.balance is None
    assert g.presentation_children(QName(GAAP24, "AssetsAbstract"))


def test_real_bridging_by_local_name(real) -> None:
    _, g, _ = real
    q, note = g.bridge(QName("http://fasb.org/us-gaap/2023", "Assets"))
    assert q == QName(GAAP24, "Assets")
    assert note == "us-gaap 2023 concept bridged to the 2024 taxonomy by local name"
    assert g.bridge(QName(GAAP24, "Assets")) == (QName(GAAP24, "Assets"), None)
    assert g.bridge(QName("http://fasb.org/us-gaap/2023", "NoSuchConceptAnywhere")) == (None, None)
    assert g.concept(QName("http://fasb.org/us-gaap/2022", "AssetsCurrent")).qname.namespace == GAAP24
    assert g.calc_children(QName("http://fasb.org/us-gaap/2023", "Assets"), role=SFP_CLS)


def test_real_bridging_matches_a_scan_of_every_node(real) -> None:
    """``_nearest`` looks names up per namespace of the family; it must pick exactly what ranking
    every node of the same family and local name by (year distance, newer first, node order) picks."""
    from auditflow.xbrl.qname import namespace_family, namespace_year

    _, g, _ = real
    by_family: dict[tuple[str, str], list[int]] = {}
    for i, clark in enumerate(g._nodes):
        ns, local = tg._split_clark(clark)
        by_family.setdefault((namespace_family(ns), local), []).append(i)

    def scan(q: QName):
        cands = by_family.get((namespace_family(q.namespace), q.local))
        year = namespace_year(q.namespace) or 0
        key = lambda i: (abs((namespace_year(tg._split_clark(g._nodes[i])[0]) or 0) - year),  # noqa: E731
                         -(namespace_year(tg._split_clark(g._nodes[i])[0]) or 0))
        return min(cands, key=key) if cands else None

    spaces = ["http://fasb.org/us-gaap/2022", "http://fasb.org/us-gaap/2026", "http://fasb.org/srt/2023",
              "http://xbrl.sec.gov/dei/2023", "http://xbrl.sec.gov/dei/2019-01-31", "http://example.com/none/2023"]
    locals_ = sorted({tg._split_clark(c)[1] for c in g._nodes})[::7] + ["NoSuchConceptAnywhere"]
    checked = 0
    for ns in spaces:
        for local in locals_:
            q = QName(ns, local)
            assert g._nearest(q) == scan(q), q
            checked += 1
    assert checked > 10000
    assert all(g._qname(i).prefix == row[0] for i, row in enumerate(g._rows))  # prefixes kept outside the rows
    assert all(g._qname(i).clark() == clark for i, clark in enumerate(g._nodes))  # names kept per namespace
    assert g._groups is not None and len(g) == len(g._nodes)


def test_lookup_without_namespace_groups_is_the_same(real) -> None:
    """A namespace whose nodes are not contiguous (names without a namespace sort both before and
    after "{...}" names) makes the graph keep one sorted list; lookups then search it alike."""
    _, g, _ = real
    plain = TaxonomyGraph({**g._data, "nodes": g._nodes, "groups": None} if "nodes" not in g._data else {**g._data, "groups": None})
    names = [tg._split_clark(c) for c in g._nodes[::97]] + [("http://fasb.org/us-gaap/2024", "NoSuchName"), ("", "x")]
    assert [plain._find_in(ns, local) for ns, local in names] == [g._find_in(ns, local) for ns, local in names]
    assert tb._groups(["{a}x", "{a}y", "{b}x"]) == [("a", 0, "x\ny"), ("b", 2, "x")]
    assert tb._groups(sorted(["Abc", "{a}x", "\u00c9lan"])) is None  # "É" sorts after "{"


def test_real_counts_and_search(real) -> None:
    _, g, _ = real
    c = g.counts()
    assert c["concepts"] > 20000 and c["calc_arcs"] > 5000 and c["def_arcs"] > 30000 and c["pre_arcs"] > 30000
    assert c["labels"] > 1000 and len(g) == c["concepts"]
    assert g.search("AssetsCurrent")[0] == QName(GAAP24, "AssetsCurrent")
    assert QName(SRT24, "ProductOrServiceAxis") in g.search("product and service [axis]")
    assert QName(GAAP24, "Assets") in g.search("Asets")  # a typo still finds it


def test_real_warm_load_is_fast_and_equal(real) -> None:
    tset, cold, cache = real
    start = time.perf_counter()
    warm = load_taxonomy_graph(TaxonomySet.discover(tset.packages[0].path.parent.parent), cache_dir=cache)
    elapsed = time.perf_counter() - start
    assert warm.from_cache and warm.counts() == cold.counts()
    assert warm.calc_children(QName(GAAP24, "Assets")) == cold.calc_children(QName(GAAP24, "Assets"))
    assert elapsed < 1.0, f"warm load took {elapsed:.3f}s"  # measured ~0.13 s; generous for slow CI
