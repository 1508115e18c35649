"""Issue 21 (sixth round): a schema whose namespaces are all declared on its root has its type and
substitution-group names resolved once per text; the summary is the one the per-element reading gives."""
from __future__ import annotations

import zipfile

from auditflow.xbrl.nsscope import root_only_namespaces
from auditflow.xbrl.safexml import parse_xml
from auditflow.xbrl.schema import read_schema

INNER = b"""<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xbrli="http://www.xbrl.org/2003/instance"
  xmlns:t="http://t" targetNamespace="http://t">
  <xs:element name="A" id="t_A" type="xbrli:monetaryItemType" substitutionGroup="xbrli:item" xbrli:periodType="instant"/>
  <xs:element xmlns:x2="http://www.xbrl.org/2003/instance" name="B" id="t_B" type="x2:stringItemType"
    substitutionGroup="x2:item" xbrli:periodType="duration"/>
  <xs:element name="C" id="t_C" type="undeclared:oddType" substitutionGroup="xbrli:item"/>
</xs:schema>"""


def _schemas(data_root):
    """The filers' schemas of the data root: loose .xsd files and those inside taxonomy zips."""
    for path in sorted(data_root.glob("filings*/*/*.xsd")):
        yield path.name, path.read_bytes()
    for path in sorted(data_root.glob("filings-rolled/*/*.zip")):
        with zipfile.ZipFile(path) as z:
            for member in z.namelist():
                if member.endswith(".xsd"):
                    yield member, z.read(member)


def test_root_only_names_give_the_summary_the_per_element_reading_gives(data_root):
    fast = 0
    for name, data in _schemas(data_root):
        root = parse_xml(data, name=name)
        fast += root_only_namespaces(root, data) is not None
        assert read_schema(root, location=name, source=data) == read_schema(root, location=name), name
    assert fast >= 20  # most filers declare every namespace on the root: the memo is what runs


def test_an_inner_declaration_keeps_the_per_element_reading():
    root = parse_xml(INNER, name="inner.xsd")
    assert root_only_namespaces(root, INNER) is None  # x2 is declared on an element, not the root
    info = read_schema(root, location="inner.xsd", source=INNER)
    assert info.by_name["B"].data_type == "{http://www.xbrl.org/2003/instance}stringItemType"
    assert info.by_name["C"].data_type == "undeclared:oddType"  # an undeclared prefix stays as written
    assert info == read_schema(root, location="inner.xsd")
    flat = INNER.replace(b' xmlns:x2="http://www.xbrl.org/2003/instance"', b"").replace(b"x2:", b"xbrli:")
    root = parse_xml(flat, name="flat.xsd")
    assert root_only_namespaces(root, flat) is not None
    info = read_schema(root, location="flat.xsd", source=flat)
    assert info.by_name["B"].data_type == "{http://www.xbrl.org/2003/instance}stringItemType"
    assert info.by_name["C"].data_type == "undeclared:oddType"
    assert info == read_schema(root, location="flat.xsd")
