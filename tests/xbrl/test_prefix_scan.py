"""Issue 21 (seventh round): the prefixes an inline document uses are read from its parsed tree (the
QName-valued attributes of inline and member elements, the text of members and measures), no longer
from a regular expression over its bytes. On the real documents the result is what the byte scan
found, and HTML ``name`` attributes or commented-out markup no longer count as uses."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from auditflow.xbrl.loader import load_filing
from auditflow.xbrl.prefix_repair import undeclared_prefixes, used_prefixes
from auditflow.xbrl.safexml import parse_xml

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "auditflow" / "samples" / "acme-10k-2024" / "inline" / "acme-20241231.htm"

# The byte scan this replaces, kept here as the reference for the real documents.
_BYTE_SCAN = re.compile(rb'(?:name|dimension|format|unitRef)="([A-Za-z_][\w.-]*):'
                        rb'|<(?:\w+:)?(?:measure|explicitMember)[^>]*>\s*([A-Za-z_][\w.-]*):')


def _byte_scan(data: bytes) -> set[str]:
    return {(m.group(1) or m.group(2)).decode() for m in _BYTE_SCAN.finditer(data)}


def test_the_real_documents_use_what_the_byte_scan_found(data_root: Path):
    for path in (data_root / "filings" / "aeon-10q-2023-09-30" / "aeon-20230930x10q.htm",
                 data_root / "filings" / "ibm-10k-2024-12-31" / "ibm-20241231.htm"):
        data = path.read_bytes()
        assert used_prefixes(parse_xml(data, name=path.name)) == _byte_scan(data), path.name
    ibm = data_root / "filings" / "ibm-10k-2024-12-31" / "ibm-20241231.htm"
    assert undeclared_prefixes(parse_xml(ibm.read_bytes(), name=ibm.name)) == {
        "country", "currency", "cyd", "dei", "ecd", "exch", "ibm", "iso4217", "ixt", "ixt-sec", "srt"}


def test_a_dimension_inside_a_member_tag_counts_too():
    """The byte scan skipped an attribute inside a member's start tag (its matches could not overlap):
    the sample's ``dimension="srt:..."`` is a use all the same."""
    data = SAMPLE.read_bytes()
    assert used_prefixes(parse_xml(data, name=SAMPLE.name)) == _byte_scan(data) | {"srt"}


def _doc(body: str, head: str = "") -> bytes:
    return f"""<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"
 xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:xbrldi="http://xbrl.org/2006/xbrldi"
 xmlns:us-gaap="http://fasb.org/us-gaap/2024"><head>{head}</head><body>{body}</body></html>""".encode()


@pytest.mark.parametrize("body, used", [
    ('<ix:nonFraction name="us-gaap:Revenues" format="ixt:num-dot-decimal" unitRef="u1">1</ix:nonFraction>',
     {"us-gaap", "ixt"}),
    ("<ix:nonNumeric name='dei:DocumentType'>10-K</ix:nonNumeric>", {"dei"}),  # single quotes
    ('<ix:nonNumeric name="d&#101;i:DocumentType">10-K</ix:nonNumeric>', {"dei"}),  # a character reference
    ('<xbrldi:explicitMember dimension="srt:Axis">\n  acme:Member</xbrldi:explicitMember>', {"srt", "acme"}),
    ('<xbrldi:typedMember dimension="acme:Axis"><us-gaap:v>x:y</us-gaap:v></xbrldi:typedMember>', {"acme"}),
    ("<xbrli:measure>iso4217:USD</xbrli:measure>", {"iso4217"}),
    ('<a name="og:title">not XBRL</a><!-- <ix:nonNumeric name="old:Fact">x</ix:nonNumeric> -->', set()),
    ('<ix:nonNumeric name="9x:Y">x</ix:nonNumeric><ix:nonNumeric name="Revenues">x</ix:nonNumeric>', set()),  # no prefix
])
def test_uses_are_the_qnames_inline_xbrl_reads(body: str, used: set[str]):
    assert used_prefixes(parse_xml(_doc(body), name="t.htm")) == used


def test_html_names_are_not_uses():
    """A ``<meta name="og:title">`` made the byte scan report an undeclared prefix 'og': a re-parse and
    a warning about facts that could not be read, for a document that was fine."""
    root = parse_xml(_doc('<ix:nonNumeric name="us-gaap:X" contextRef="c">x</ix:nonNumeric>',
                          head='<meta name="og:title" content="Annual report"/>'), name="t.htm")
    assert undeclared_prefixes(root) == set()


def test_an_undeclared_format_prefix_is_still_repaired(data_root: Path):
    filing = load_filing(data_root / "filings" / "ibm-10k-2024-12-31")
    repairs = [w for w in filing.warnings if w.code == "undeclared-prefix"]
    assert len(repairs) == 1 and "ixt, ixt-sec, srt" in repairs[0].message
    assert any(f.value for f in filing.facts if f.unit_id)  # formatted numbers read after the repair


def test_a_document_declaring_on_its_root_only_is_repaired_without_a_second_parse(monkeypatch, data_root: Path):
    """IBM's 10-K declares every namespace on its root: the missing declarations are handed to the inline
    reader, and what it reads is what a re-parse with them written into the root gives."""
    from auditflow.xbrl import loader
    from auditflow.xbrl.inline import parse_inline
    from auditflow.xbrl.prefix_repair import prefixes_from_schema, repair

    parses: list[str] = []
    real = loader.parse_xml
    monkeypatch.setattr(loader, "parse_xml", lambda data, *, name: parses.append(name) or real(data, name=name))
    folder = data_root / "filings" / "ibm-10k-2024-12-31"
    filing = load_filing(folder)
    assert parses.count("ibm-20241231.htm") == 1
    data = (folder / "ibm-20241231.htm").read_bytes()
    root = parse_xml(data, name="ibm-20241231.htm")
    known = prefixes_from_schema(parse_xml((folder / "ibm-20241231.xsd").read_bytes(), name="ibm-20241231.xsd"))
    repaired, warning = repair(data, undeclared_prefixes(root), known, name="ibm-20241231.htm")
    reparsed = parse_inline([("ibm-20241231.htm", repaired)])
    assert [w for w in filing.warnings if w.code == "undeclared-prefix"] == [warning]
    assert filing.namespaces == reparsed.namespaces and list(filing.namespaces) == list(reparsed.namespaces)
    assert filing.contexts == reparsed.contexts and filing.units == reparsed.units
    assert [(f.concept, f.context_id, f.unit_id, f.id, f.line) for f in filing.facts] == \
        [(f.concept, f.context_id, f.unit_id, f.id, f.line) for f in reparsed.facts if f.context_id in reparsed.contexts]


def test_a_document_declaring_below_its_root_is_still_re_parsed():
    from auditflow.xbrl import loader
    from auditflow.xbrl.source import PackageSource

    doc = _doc('<div xmlns:us-gaap="http://fasb.org/us-gaap/2024"><ix:nonFraction name="us-gaap:Revenues" contextRef="c"'
               ' unitRef="u" format="ixt:num-dot-decimal">1</ix:nonFraction></div>'
               ).replace(b' xmlns:us-gaap="http://fasb.org/us-gaap/2024">', b">", 1)
    assert b"xmlns:us-gaap" in doc  # declared below the root only
    src = PackageSource.open(REPO / "auditflow" / "samples" / "acme-10k-2024" / "inline")
    parsed = loader._parse_entry(src, "inline", ("t.htm",), (doc,))
    assert [w.code for w in parsed.warnings][:1] == ["undeclared-prefix"]
    assert "ixt" in parsed.namespaces  # declared on the re-parsed root
