"""Issue 21: a filing's labels are read on first use, and they are exactly what an eager read gives.

The label linkbase is a filing's biggest document and no DQC rule reads it, so the loader resolves
its locators (an unresolved one is still warned about at load) and builds the labels only when
``filing.labels`` is first read.
"""
from __future__ import annotations

from pathlib import Path

from auditflow.xbrl import filing_cache
from auditflow.xbrl.linkbase import read_links
from auditflow.xbrl.loader import load_filing
from auditflow.xbrl.safexml import parse_xml

SAMPLE = Path(__file__).resolve().parents[2] / "auditflow" / "samples" / "acme-10k-2024" / "xml"
APPLE = "filings/aapl-10k-2023-09-30"

LAB = """<link:linkbase xmlns:link="http://www.xbrl.org/2003/linkbase" xmlns:xlink="http://www.w3.org/1999/xlink">
<link:labelLink xlink:type="extended" xlink:role="http://www.xbrl.org/2003/role/link">
<link:loc xlink:type="locator" xlink:href="t.xsd#t_A" xlink:label="a"/>
<link:loc xlink:type="locator" xlink:href="t.xsd#t_Missing" xlink:label="m"/>
<link:label xlink:type="resource" xlink:label="la" xlink:role="http://www.xbrl.org/2003/role/label" xml:lang="en">A  one</link:label>
<link:label xlink:type="resource" xlink:label="lm" xml:lang="en">Missing</link:label>
<link:labelArc xlink:type="arc" xlink:arcrole="http://www.xbrl.org/2003/arcrole/concept-label" xlink:from="a" xlink:to="la"/>
<link:labelArc xlink:type="arc" xlink:arcrole="http://www.xbrl.org/2003/arcrole/concept-label" xlink:from="m" xlink:to="lm"/>
</link:labelLink></link:linkbase>"""


def _read(labels: bool):
    from auditflow.xbrl.linkbase import read_deferred_labels
    from auditflow.xbrl.qname import QName

    root = parse_xml(LAB.encode(), name="t_lab.xml")
    content = read_links(root, document="t_lab.xml", locate=lambda h: ("t.xsd", h.split("#")[1]),
                         resolve=lambda _s, frag: QName("http://t", "A") if frag == "t_A" else None, labels=labels)
    return content.labels or read_deferred_labels(content.deferred_labels), content.unresolved_locators


def test_a_deferred_read_gives_the_eager_labels_and_warns_at_once():
    eager, eager_unresolved = _read(True)
    lazy, lazy_unresolved = _read(False)
    assert lazy == eager and [x.text for x in lazy] == ["A one"]
    assert lazy_unresolved == eager_unresolved == ["t.xsd#t_Missing"]


def test_the_labels_of_a_loaded_filing_are_read_on_first_use(data_root, monkeypatch):
    from auditflow.xbrl import dts, linkbase

    filing = load_filing(data_root / APPLE)
    assert "labels" not in vars(filing)  # nothing built yet
    labels = filing.labels
    assert "labels" in vars(filing) and filing.labels is labels and len(labels) > 1000
    monkeypatch.setattr(dts, "read_links", lambda root, **kw: linkbase.read_links(root, **{**kw, "labels": True}))
    eager = load_filing(data_root / APPLE)
    assert "labels" in vars(eager) and eager.labels == labels
    assert eager == filing


def test_a_filing_cache_hit_reads_its_labels_on_first_use_too(tmp_path):
    fresh = load_filing(SAMPLE)
    filing_cache.load_filing_cached(SAMPLE, cache_dir=tmp_path)  # stores (reads the labels to encode them)
    hit = filing_cache.load_filing_cached(SAMPLE, cache_dir=tmp_path)
    assert "labels" not in vars(hit)
    assert hit.labels == fresh.labels and hit.labels
    hit.source = fresh.source
    assert hit == fresh
