"""Issue 21: an inline document whose namespaces are all declared on its root has its fact names,
formats and explicit members read once per distinct text (``parse_inline(..., sources)``), instead of
through each element's ``nsmap``. The facts, contexts, units and warnings must be the same."""
from __future__ import annotations

from pathlib import Path

from auditflow.xbrl.inline import parse_inline
from auditflow.xbrl.qname import QName
from auditflow.xbrl.safexml import parse_xml

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "auditflow" / "samples" / "acme-10k-2024" / "inline" / "acme-20241231.htm"

DOC = """<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"
 xmlns:ixt="http://www.xbrl.org/inlineXBRL/transformation/2020-02-12"
 xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:iso4217="http://www.xbrl.org/2003/iso4217"
 xmlns:xbrldi="http://xbrl.org/2006/xbrldi" xmlns:us-gaap="http://fasb.org/us-gaap/2023"><body>
<ix:header><ix:resources>
 <xbrli:context id="FY"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">1</xbrli:identifier>
  <xbrli:segment><xbrldi:explicitMember dimension="us-gaap:StatementClassOfStockAxis">us-gaap:CommonStockMember</xbrldi:explicitMember></xbrli:segment>
 </xbrli:entity><xbrli:period><xbrli:instant>2023-12-31</xbrli:instant></xbrli:period></xbrli:context>
 <xbrli:unit id="USD"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
</ix:resources></ix:header>
<p><ix:nonFraction name="us-gaap:Revenues" contextRef="FY" unitRef="USD" decimals="0" format="ixt:num-dot-decimal">1,000</ix:nonFraction></p>
{more}
<p><ix:nonFraction name="us-gaap:Revenues" contextRef="FY" unitRef="USD" decimals="0" format="ixt:num-dot-decimal">2,000</ix:nonFraction></p>
<p><ix:nonFraction name="nope:Revenues" contextRef="FY" unitRef="USD" decimals="0">3</ix:nonFraction></p>
<p><ix:nonFraction name="nope:Revenues" contextRef="FY" unitRef="USD" decimals="0">4</ix:nonFraction></p>
</body></html>"""


def _both(data: bytes, name: str = "doc.htm"):
    root = parse_xml(data, name=name)
    return parse_inline([(name, root)]), parse_inline([(name, root)], {name: data})


def _same(a, b) -> None:
    assert (a.facts, a.contexts, a.units, a.warnings, a.namespaces) == (b.facts, b.contexts, b.units, b.warnings, b.namespaces)


def test_read_once_per_text_or_per_element_the_result_is_the_same():
    plain, memo = _both(DOC.format(more="").encode())
    _same(plain, memo)
    assert [f.value for f in memo.facts] == ["1000", "2000"]
    assert [w.code for w in memo.warnings] == ["ix-fact", "ix-fact"]  # an undeclared prefix, each time


def test_a_nested_declaration_is_honoured():
    """A prefix declared again below the root (here us-gaap, to another year) turns the memo off: the
    second us-gaap:Revenues is the 2024 concept."""
    more = '<div xmlns:us-gaap="http://fasb.org/us-gaap/2024"><ix:nonFraction name="us-gaap:Revenues" contextRef="FY" unitRef="USD" decimals="0">5</ix:nonFraction></div>'
    plain, memo = _both(DOC.format(more=more).encode())
    _same(plain, memo)
    assert [f.concept for f in memo.facts] == [QName("http://fasb.org/us-gaap/2023", "Revenues"),
                                               QName("http://fasb.org/us-gaap/2024", "Revenues"),
                                               QName("http://fasb.org/us-gaap/2023", "Revenues")]


def test_the_bundled_sample_and_the_data_roots_inline_filings(data_root: Path):
    docs = [SAMPLE, data_root / "filings" / "aeon-10q-2023-09-30" / "aeon-20230930x10q.htm"]
    for path in docs:
        data = path.read_bytes()
        plain, memo = _both(data, path.name)
        _same(plain, memo)
        assert len(memo.facts) > 10
