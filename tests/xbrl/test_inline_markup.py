"""Issue 21: escaped text blocks are marked up with their XHTML elements renamed once, in the document
(text blocks nest: a node renamed for the outer block is not renamed again for the inner one). The
markup must be what the former reader gave: compared here with it, kept below as the reference."""
from __future__ import annotations

import copy
from pathlib import Path

from lxml import etree

from auditflow.xbrl import inline
from auditflow.xbrl.inline import parse_inline
from auditflow.xbrl.safexml import parse_xml

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "auditflow" / "samples" / "acme-10k-2024" / "inline" / "acme-20241231.htm"
XHTML = "{http://www.w3.org/1999/xhtml}"


def _reference_markup(el) -> str:
    """The former ``inline._markup``: every node of a deep copy renamed, one tag read per node."""
    work = copy.deepcopy(el)
    work.tail = None
    etree.strip_elements(work, inline._EXCLUDE, with_tail=False)
    etree.strip_tags(work, f"{{{inline.IX}}}*")
    for node in work.iter():
        tag = node.tag
        if not isinstance(tag, str):
            continue
        if tag.startswith(XHTML):
            tag = node.tag = tag[len(XHTML):]
        if node.text is None and tag not in inline._VOID and not len(node):
            node.text = ""
    wrap = etree.Element("wrap")
    wrap.text = work.text
    wrap.extend(list(work))
    etree.cleanup_namespaces(wrap)
    serial = etree.tostring(wrap, encoding="unicode")
    return "" if serial == "<wrap/>" else serial[len("<wrap>"):-len("</wrap>")]


DOC = """<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"
 xmlns:h="http://www.w3.org/1999/xhtml" xmlns:xbrli="http://www.xbrl.org/2003/instance"
 xmlns:us-gaap="http://fasb.org/us-gaap/2023"><body>
<ix:header><ix:resources><xbrli:context id="FY"><xbrli:entity><xbrli:identifier scheme="s">1</xbrli:identifier></xbrli:entity>
 <xbrli:period><xbrli:instant>2023-12-31</xbrli:instant></xbrli:period></xbrli:context></ix:resources></ix:header>
<ix:nonNumeric name="us-gaap:NotesTextBlock" contextRef="FY" escape="true" continuedAt="c1"><div class="n">Note
 <ix:nonNumeric name="us-gaap:PolicyTextBlock" contextRef="FY" escape="true"><p>Policy <b>bold</b><br/>x<td></td>
  <svg xmlns="http://www.w3.org/2000/svg"><rect/><g><circle r="1"/></g></svg><h:span>prefixed</h:span>
  <ix:exclude><p>page 3</p></ix:exclude>tail</p><hr/></ix:nonNumeric>
 <table><tr><td/><td>1 &amp; 2 &lt; 3</td></tr></table></div></ix:nonNumeric>
<p>between</p>
<ix:continuation id="c1"><p>continued <i></i></p><img src="a.png"/></ix:continuation>
</body></html>"""


def _blocks(root) -> list:
    return [el for el in root.iter(inline._NON_NUMERIC, inline._CONTINUATION)]


def _compare(data: bytes, name: str) -> int:
    """Marks every block up the former way on one parse and the new way on another; returns how many.
    The new way leaves the blocks' XHTML elements renamed in the document itself."""
    expected = [_reference_markup(el) for el in _blocks(parse_xml(data, name=name))]
    blocks = _blocks(parse_xml(data, name=name))
    got = [inline._markup(el) for el in blocks]
    assert got == expected
    assert all(next(el.iter(f"{XHTML}*"), None) is None for el in blocks)
    return len(got)


def test_nested_blocks_svg_prefixes_excludes_and_empty_elements_mark_up_as_before():
    assert _compare(DOC.encode(), "doc.htm") == 3
    facts = {f.concept.local: f.value for f in parse_inline([("doc.htm", parse_xml(DOC.encode(), name="doc.htm"))]).facts}
    assert facts["PolicyTextBlock"].startswith("<p>Policy <b>bold</b><br/>x<td></td>")
    assert '<svg xmlns="http://www.w3.org/2000/svg">' in facts["PolicyTextBlock"] and "<span>prefixed</span>" in facts["PolicyTextBlock"]
    assert "page 3" not in facts["NotesTextBlock"] and "<img src=\"a.png\"/>" in facts["NotesTextBlock"]


def test_the_bundled_sample_and_aeon_mark_up_as_before(data_root: Path):
    for path in (SAMPLE, data_root / "filings" / "aeon-10q-2023-09-30" / "aeon-20230930x10q.htm"):
        assert _compare(path.read_bytes(), path.name) > 5


def test_a_text_blocks_xhtml_elements_are_renamed_once_in_the_document():
    root = parse_xml(DOC.encode(), name="doc.htm")
    parse_inline([("doc.htm", root)])
    (notes,) = [el for el in root.iter(inline._NON_NUMERIC) if el.get("name") == "us-gaap:NotesTextBlock"]
    assert not [el.tag for el in notes.iter(f"{XHTML}*")]  # renamed by the outer block: the inner one finds none
    assert root.tag == f"{XHTML}html" and root.find(f"{XHTML}body") is not None  # outside the blocks: untouched
