"""Issue 21, third round: the loader's memos give what resolving every mention gave.

* explicit members are named from a per-document memo when every namespace is declared on the
  instance's root (``instance._MemberNames``), and from each member's own ``nsmap`` otherwise;
* the DTS walker resolves a locator href's schema part once per (base, linkbase).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from auditflow.errors import MalformedXBRLError, UnsafeInputError
from auditflow.xbrl import instance
from auditflow.xbrl.dts import DTSWalker
from auditflow.xbrl.instance import _MemberNames, parse_instance
from auditflow.xbrl.qname import QName
from auditflow.xbrl.safexml import parse_xml
from auditflow.xbrl.source import PackageSource

XBRLI = "http://www.xbrl.org/2003/instance"
HEAD = (b'<xbrli:xbrl xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:xbrldi="http://xbrl.org/2006/xbrldi" '
        b'xmlns:a="http://a"%s>')
CONTEXT = (b'<xbrli:context id="%s"><xbrli:entity><xbrli:identifier scheme="s">1</xbrli:identifier>'
           b'<xbrli:segment%s><xbrldi:explicitMember dimension="a:Axis">%s</xbrldi:explicitMember></xbrli:segment>'
           b'</xbrli:entity><xbrli:period><xbrli:instant>2024-12-31</xbrli:instant></xbrli:period></xbrli:context>')


def _doc(*contexts: bytes, root_extra: bytes = b"") -> bytes:
    return HEAD % root_extra + b"".join(contexts) + b"</xbrli:xbrl>"


def _dims(data: bytes, *, memo: bool) -> dict[str, tuple]:
    root = parse_xml(data, name="i.xml")
    parsed = parse_instance(root, document="i.xml", source=data if memo else None)
    return {cid: c.dimensions for cid, c in parsed.contexts.items()}


def test_a_document_declaring_namespaces_on_its_root_only_is_read_through_the_memo():
    data = _doc(CONTEXT % (b"c1", b"", b"a:One"), CONTEXT % (b"c2", b"", b"a:One"), CONTEXT % (b"c3", b"", b"a:Two"))
    root = parse_xml(data, name="i.xml")
    assert _MemberNames.for_document(root, data) is not None
    got = _dims(data, memo=True)
    assert got == _dims(data, memo=False)
    assert got["c1"] == ((QName("http://a", "Axis"), QName("http://a", "One")),)
    assert got["c1"][0][1] is got["c2"][0][1]  # one member QName for both mentions


def test_a_namespace_declared_below_the_root_turns_the_memo_off_and_is_honoured():
    # the segment of c2 redeclares prefix a: its member must be read in that scope, not the root's
    data = _doc(CONTEXT % (b"c1", b"", b"a:One"), CONTEXT % (b"c2", b' xmlns:a="http://other"', b"a:One"))
    root = parse_xml(data, name="i.xml")
    assert _MemberNames.for_document(root, data) is None
    got = _dims(data, memo=True)
    assert got["c1"] == ((QName("http://a", "Axis"), QName("http://a", "One")),)
    assert got["c2"] == ((QName("http://other", "Axis"), QName("http://other", "One")),)


def test_xmlns_anywhere_else_in_the_bytes_also_turns_it_off():
    data = _doc(CONTEXT % (b"c1", b"", b"a:One")).replace(b"</xbrli:xbrl>", b"<!-- xmlns --></xbrli:xbrl>")
    assert _MemberNames.for_document(parse_xml(data, name="i.xml"), data) is None
    utf16 = _doc(CONTEXT % (b"c1", b"", b"a:One")).decode().encode("utf-16")
    assert _MemberNames.for_document(parse_xml(utf16, name="i.xml"), utf16) is None


def test_an_undeclared_member_prefix_still_fails_with_file_and_line_through_the_memo():
    data = _doc(CONTEXT % (b"c1", b"", b"a:One"), b"\n\n" + CONTEXT % (b"c2", b"", b"nope:One"))
    with pytest.raises(MalformedXBRLError) as info:
        _dims(data, memo=True)
    assert info.value.path == "i.xml" and info.value.line == 3 and "nope" in str(info.value)


def test_real_instances_give_the_same_contexts_with_and_without_the_memo(data_root):
    used = 0
    for folder in sorted((data_root / "filings").iterdir()):
        for p in sorted(folder.glob("*.xml")):
            data = p.read_bytes()
            root = parse_xml(data, name=p.name)
            if root.tag != f"{{{XBRLI}}}xbrl":
                continue
            used += _MemberNames.for_document(root, data) is not None
            fast = parse_instance(root, document=p.name, source=data)
            slow = parse_instance(root, document=p.name)
            assert fast.contexts == slow.contexts, p
    assert used >= 10  # the memo is what real filings get


def test_the_walker_resolves_each_schema_href_once_per_linkbase(data_root, monkeypatch):
    folder = data_root / "filings" / "aapl-10k-2023-09-30"
    calls: list[tuple[str, str]] = []
    real = PackageSource.resolve

    def counting(self, href, relative_to):
        calls.append((href, relative_to))
        return real(self, href, relative_to)

    monkeypatch.setattr(PackageSource, "resolve", counting)
    src = PackageSource.open(folder)
    walker = DTSWalker(src)
    walker.walk([("aapl-20230930.xsd", "schema")], referenced_from="aapl-20230930_htm.xml")
    located = [c for c in calls if c[1].endswith(("_cal.xml", "_def.xml", "_pre.xml", "_lab.xml"))]
    assert located and len(located) == len(set(located))  # hundreds of locators, one resolve per distinct pair
    assert walker._locate("aapl-20230930.xsd#aapl_X", "aapl-20230930_cal.xml") == ("aapl-20230930.xsd", "aapl_X")


def test_a_refused_locator_href_is_refused_every_time(tmp_path):
    (tmp_path / "lb.xml").write_text("<x/>")
    walker = DTSWalker(PackageSource.open(tmp_path))
    for _ in range(2):
        with pytest.raises(UnsafeInputError):
            walker._locate("../../outside.xsd#c", "lb.xml")


class _Reads:
    """An ``observe`` hook counting the reads of each file."""

    def __init__(self) -> None:
        self.count: dict[str, int] = {}

    def listed(self, _names) -> None:
        pass

    def read_file(self, path, data=None) -> None:
        self.count[str(path)] = self.count.get(str(path), 0) + 1


@pytest.mark.parametrize("name", ["filings/aapl-10k-2023-09-30", "filings/aeon-10q-2023-09-30"])
def test_an_entry_document_is_read_once_sniffed_and_parsed_from_the_same_bytes(data_root, name):
    from auditflow.xbrl.discovery import find_entry_documents
    from auditflow.xbrl.loader import load_filing

    reads = _Reads()
    filing = load_filing(data_root / name, observe=reads)
    assert filing.facts and set(reads.count.values()) == {1}  # before: the entry document was read twice
    src = PackageSource.open(data_root / name)
    entry = find_entry_documents(src)
    assert entry.contents == tuple(src.read(loc) for loc in entry.locations)
    assert "contents" not in repr(entry)


def test_a_single_instance_file_given_as_the_path_is_read_once(data_root):
    from auditflow.xbrl.loader import load_filing

    reads = _Reads()
    path = data_root / "filings" / "aapl-10k-2023-09-30" / "aapl-20230930_htm.xml"
    assert load_filing(path, observe=reads).facts
    assert reads.count[str(path)] == 1


def _locator_as_it_was(tset, url: str, fragment: str):
    """TaxonomySet.concept_for_locator before the per-URL plan (the reference)."""
    from auditflow.xbrl.packages import _convention_local, standard_namespace_for_url
    from auditflow.xbrl.qname import interned
    from auditflow.xbrl.qname import standard_prefix

    conv = _convention_local(fragment)
    info = tset.schema(url)
    if info is not None:
        c = info.concepts.get(fragment) or (info.by_name.get(conv[1]) if conv else None)
        return c.qname if c is not None else None
    if conv is not None:
        ns = standard_namespace_for_url(url)
        if ns:
            return interned(ns, conv[1], standard_prefix(ns) or conv[0])
    return None


@pytest.mark.parametrize("name", ["filings/aapl-10k-2023-09-30", "filings-rolled/bxp-10q-2025-06-30",
                                  "filings/tsla-10q-2024-06-30"])
def test_locators_name_the_concepts_they_named_before_the_per_url_plan(data_root, name):
    from auditflow.xbrl.loader import load_filing
    from auditflow.xbrl.packages import TaxonomySet

    asked: list[tuple[str, str]] = []
    probe = TaxonomySet.discover(data_root)
    load_filing(data_root / name, external_resolver=lambda u, f: asked.append((u, f)) or probe.concept_for_locator(u, f))
    asked += [(u, "us-gaap_Assets") for u, _ in asked[:3]] + [(u, "no-convention") for u, _ in asked[:3]]
    fresh, reference = TaxonomySet.discover(data_root), TaxonomySet.discover(data_root)
    got = [fresh.concept_for_locator(u, f) for u, f in asked]
    want = [_locator_as_it_was(reference, u, f) for u, f in asked]
    assert got == want and [q.prefix if q else None for q in got] == [q.prefix if q else None for q in want]
    assert len(fresh._url_plans) == len({u for u, _ in asked}) < len(asked)


def test_tuples_are_flattened_in_document_order_by_the_single_fact_loop():
    data = (b'<xbrli:xbrl xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:a="http://a" xmlns:b="http://a">'
            b'<xbrli:context id="c"><xbrli:entity><xbrli:identifier scheme="s">1</xbrli:identifier></xbrli:entity>'
            b'<xbrli:period><xbrli:instant>2024-12-31</xbrli:instant></xbrli:period></xbrli:context>'
            b'<a:One contextRef="c" id="f1">x</a:One>'
            b'<a:Tuple><a:Two contextRef="c">y</a:Two><a:Inner><b:Three contextRef="c" decimals="INF" unitRef="u">3'
            b'</b:Three></a:Inner></a:Tuple><a:Four contextRef="c">z</a:Four></xbrli:xbrl>')
    facts = parse_instance(parse_xml(data, name="i.xml"), document="i.xml", source=data).facts
    assert [(f.concept.local, f.concept.prefix, f.index, f.value) for f in facts] == [
        ("One", "a", 0, "x"), ("Two", "a", 1, "y"), ("Three", "b", 2, "3"), ("Four", "a", 3, "z")]
    assert facts[2].decimals == "INF" and [f.line for f in facts] == [1, 1, 1, 1]
