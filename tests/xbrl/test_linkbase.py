"""Linkbase semantics a checker depends on: both summation-item arcroles, unions, prohibition."""
from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from auditflow.graphs.dimensions import DimensionIndex
from auditflow.xbrl.linkbase import effective_arcs, read_links
from auditflow.xbrl.loader import load_filing
from auditflow.xbrl.model import SUMMATION_ITEM_11, SUMMATION_ITEM_2003
from auditflow.xbrl.qname import QName
from auditflow.xbrl.safexml import parse_xml

NS = "http://example.com/t"
HEAD = ('<link:linkbase xmlns:link="http://www.xbrl.org/2003/linkbase" xmlns:xlink="http://www.w3.org/1999/xlink" '
        'xmlns:xbrldt="http://xbrl.org/2005/xbrldt">')


def loc(label: str) -> str:
    return f'<link:loc xlink:type="locator" xlink:href="t.xsd#t_{label}" xlink:label="{label}"/>'


def calc_link(role: str, arcs: str, locs: str = "ABC") -> str:
    return (f'<link:calculationLink xlink:type="extended" xlink:role="{role}">'
            + "".join(loc(x) for x in locs) + arcs + "</link:calculationLink>")


def arc(frm: str, to: str, weight: str = "1", arcrole: str = SUMMATION_ITEM_2003, extra: str = "") -> str:
    return (f'<link:calculationArc xlink:type="arc" xlink:arcrole="{arcrole}" xlink:from="{frm}" xlink:to="{to}" '
            f'weight="{weight}" order="1" {extra}/>')


def read(xml: str):
    root = parse_xml((HEAD + xml + "</link:linkbase>").encode(), name="t_cal.xml")
    content = read_links(root, document="t_cal.xml", locate=lambda h: ("t.xsd", h.split("#")[1]),
                         resolve=lambda _s, frag: QName(NS, frag.split("_", 1)[1]))
    return effective_arcs(content.arcs)


def test_both_summation_item_arcroles_are_read():
    arcs = read(calc_link("r1", arc("A", "B") + arc("A", "C", "-1", SUMMATION_ITEM_11)))
    assert {(a.arcrole, a.target.local, a.weight) for a in arcs} == {
        (SUMMATION_ITEM_2003, "B", Decimal(1)), (SUMMATION_ITEM_11, "C", Decimal(-1))}


def test_one_role_spread_over_several_links_is_their_union():
    arcs = read(calc_link("r1", arc("A", "B")) + calc_link("r1", arc("A", "C")))
    assert sorted(a.target.local for a in arcs if a.role == "r1") == ["B", "C"]


def test_prohibition_removes_and_higher_priority_overrides():
    prohibited = read(calc_link("r1", arc("A", "B") + arc("A", "C")) +
                      calc_link("r1", arc("A", "B", extra='use="prohibited" priority="1"')))
    assert [a.target.local for a in prohibited] == ["C"]
    overridden = read(calc_link("r1", arc("A", "B", "1")) + calc_link("r1", arc("A", "B", "-1", extra='priority="2"')))
    assert [(a.target.local, a.weight) for a in overridden] == [("B", Decimal(-1))]
    lower = read(calc_link("r1", arc("A", "B")) + calc_link("r1", arc("A", "B", extra='use="prohibited" priority="-1"')))
    assert [a.target.local for a in lower] == ["B"]  # a lower-priority prohibition has no effect


def test_duplicate_declarations_collapse_to_one_relationship():
    arcs = read(calc_link("r1", arc("A", "B")) + calc_link("r1", arc("A", "B")))
    assert len(arcs) == 1


SCHEMA_WITH_EMBEDDED = """<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:link="http://www.xbrl.org/2003/linkbase"
  xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:xbrli="http://www.xbrl.org/2003/instance"
  xmlns:xbrldt="http://xbrl.org/2005/xbrldt" xmlns:t="http://example.com/t" targetNamespace="http://example.com/t">
  <xs:annotation><xs:appinfo>
    <link:roleType roleURI="http://example.com/role/IS" id="IS"><link:definition>0002 - Statement - Income</link:definition>
      <link:usedOn>link:definitionLink</link:usedOn></link:roleType>
    <link:linkbase>
      <link:definitionLink xlink:type="extended" xlink:role="http://example.com/role/IS">
        <link:loc xlink:type="locator" xlink:href="#t_Items" xlink:label="items"/>
        <link:loc xlink:type="locator" xlink:href="#t_Table" xlink:label="table"/>
        <link:loc xlink:type="locator" xlink:href="#t_Revenue" xlink:label="rev"/>
        <link:definitionArc xlink:type="arc" xlink:arcrole="http://xbrl.org/int/dim/arcrole/all" xlink:from="items" xlink:to="table"
          xbrldt:closed="true" xbrldt:contextElement="segment" xbrldt:targetRole="http://example.com/role/Dims" order="1"/>
        <link:definitionArc xlink:type="arc" xlink:arcrole="http://xbrl.org/int/dim/arcrole/domain-member" xlink:from="items" xlink:to="rev" order="1"/>
      </link:definitionLink>
      <link:definitionLink xlink:type="extended" xlink:role="http://example.com/role/Dims">
        <link:loc xlink:type="locator" xlink:href="#t_Table" xlink:label="table"/>
        <link:loc xlink:type="locator" xlink:href="#t_Axis" xlink:label="axis"/>
        <link:loc xlink:type="locator" xlink:href="#t_Domain" xlink:label="dom"/>
        <link:loc xlink:type="locator" xlink:href="#t_Widgets" xlink:label="w"/>
        <link:definitionArc xlink:type="arc" xlink:arcrole="http://xbrl.org/int/dim/arcrole/hypercube-dimension" xlink:from="table" xlink:to="axis" order="1"/>
        <link:definitionArc xlink:type="arc" xlink:arcrole="http://xbrl.org/int/dim/arcrole/dimension-domain" xlink:from="axis" xlink:to="dom" order="1"/>
        <link:definitionArc xlink:type="arc" xlink:arcrole="http://xbrl.org/int/dim/arcrole/domain-member" xlink:from="dom" xlink:to="w" order="1"/>
        <link:definitionArc xlink:type="arc" xlink:arcrole="http://xbrl.org/int/dim/arcrole/dimension-default" xlink:from="axis" xlink:to="dom" order="1"/>
      </link:definitionLink>
      <link:labelLink xlink:type="extended" xlink:role="http://www.xbrl.org/2003/role/link">
        <link:loc xlink:type="locator" xlink:href="#t_Revenue" xlink:label="rev"/>
        <link:label xlink:type="resource" xlink:label="rev_lbl" xlink:role="http://www.xbrl.org/2003/role/label" xml:lang="en">Revenue</link:label>
        <link:labelArc xlink:type="arc" xlink:arcrole="http://www.xbrl.org/2003/arcrole/concept-label" xlink:from="rev" xlink:to="rev_lbl"/>
      </link:labelLink>
    </link:linkbase>
  </xs:appinfo></xs:annotation>
  {elements}
</xs:schema>
"""
ELEMENTS = "".join(
    f'<xs:element id="t_{n}" name="{n}" substitutionGroup="{sg}" type="xbrli:{typ}" xbrli:periodType="duration" abstract="{ab}"/>'
    for n, sg, typ, ab in [
        ("Revenue", "xbrli:item", "monetaryItemType", "false"), ("Items", "xbrli:item", "stringItemType", "true"),
        ("Table", "xbrldt:hypercubeItem", "stringItemType", "true"), ("Axis", "xbrldt:dimensionItem", "stringItemType", "true"),
        ("Domain", "xbrli:item", "stringItemType", "true"), ("Widgets", "xbrli:item", "stringItemType", "true")]
)
INSTANCE = """<?xml version="1.0"?>
<xbrli:xbrl xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:link="http://www.xbrl.org/2003/linkbase"
  xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:iso4217="http://www.xbrl.org/2003/iso4217"
  xmlns:xbrldi="http://xbrl.org/2006/xbrldi" xmlns:t="http://example.com/t">
  <link:schemaRef xlink:type="simple" xlink:href="t.xsd"/>
  <xbrli:context id="d"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">1</xbrli:identifier></xbrli:entity>
    <xbrli:period><xbrli:startDate>2024-01-01</xbrli:startDate><xbrli:endDate>2024-12-31</xbrli:endDate></xbrli:period></xbrli:context>
  <xbrli:context id="w"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">1</xbrli:identifier>
    <xbrli:segment><xbrldi:explicitMember dimension="t:Axis">t:Widgets</xbrldi:explicitMember></xbrli:segment></xbrli:entity>
    <xbrli:period><xbrli:startDate>2024-01-01</xbrli:startDate><xbrli:endDate>2024-12-31</xbrli:endDate></xbrli:period></xbrli:context>
  <xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
  <t:Revenue contextRef="d" unitRef="usd" decimals="-3" id="total">1000</t:Revenue>
  <t:Revenue contextRef="w" unitRef="usd" decimals="-3" id="w1">1000</t:Revenue>
  <t:Revenue contextRef="d" unitRef="usd" decimals="-3" id="dup">1000</t:Revenue>
</xbrli:xbrl>
"""


def test_embedded_linkbases_target_role_and_dimension_defaults(tmp_path: Path):
    (tmp_path / "t.xsd").write_text(SCHEMA_WITH_EMBEDDED.format(elements=ELEMENTS))
    (tmp_path / "t.xml").write_text(INSTANCE)
    filing = load_filing(tmp_path)
    assert filing.roles["http://example.com/role/IS"].definition == "0002 - Statement - Income"
    assert [l.text for l in filing.labels] == ["Revenue"]
    rev = filing.concepts[QName(NS, "Revenue")]
    assert rev.balance is None and rev.period_type == "duration" and rev.abstract is False
    cube = DimensionIndex(filing.arcs).cubes[0]
    axis = cube.axes[QName(NS, "Axis")]
    assert cube.closed and cube.role == "http://example.com/role/IS"
    assert axis.domains == {QName(NS, "Domain")} and QName(NS, "Widgets") in axis.members
    assert axis.default == QName(NS, "Domain")
    ctx = filing.contexts
    assert cube.is_valid(QName(NS, "Revenue"), ctx["d"]) and cube.is_valid(QName(NS, "Revenue"), ctx["w"])
    assert not cube.is_valid(QName(NS, "Widgets"), ctx["d"])
    assert [d.kind for d in filing.duplicates] == ["identical"]
