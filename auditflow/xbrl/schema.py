"""Read a taxonomy schema: element declarations, role types, imports and linkbase references."""
from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from auditflow.xbrl.model import Concept, RoleType
from auditflow.xbrl.qname import QName

XSD = "http://www.w3.org/2001/XMLSchema"
XBRLI = "http://www.xbrl.org/2003/instance"
LINK = "http://www.xbrl.org/2003/linkbase"
XLINK = "http://www.w3.org/1999/xlink"


@dataclass
class SchemaInfo:
    location: str
    target_namespace: str
    concepts: dict[str, Concept] = field(default_factory=dict)  # by element id
    by_name: dict[str, Concept] = field(default_factory=dict)  # by local name
    roles: dict[str, RoleType] = field(default_factory=dict)
    imports: list[tuple[str, str]] = field(default_factory=list)  # (namespace, schemaLocation)
    linkbase_refs: list[str] = field(default_factory=list)
    has_embedded_linkbases: bool = False


def _clark(text: str | None, el: etree._Element) -> str | None:
    if not text:
        return None
    try:
        return QName.parse(text, el.nsmap).clark()
    except ValueError:
        return text


def read_schema(root: etree._Element, *, location: str) -> SchemaInfo:
    """Summarise a schema document; embedded linkbases are read separately by the linkbase reader."""
    tns = root.get("targetNamespace", "")
    info = SchemaInfo(location=location, target_namespace=tns)
    prefix = next((p for p, ns in root.nsmap.items() if ns == tns and p), None)
    for el in root:
        if not isinstance(el.tag, str):
            continue
        if el.tag == f"{{{XSD}}}element":
            name = el.get("name")
            if not name:
                continue
            c = Concept(
                qname=QName(tns, name, prefix),
                id=el.get("id"),
                balance=el.get(f"{{{XBRLI}}}balance"),
                period_type=el.get(f"{{{XBRLI}}}periodType"),
                data_type=_clark(el.get("type"), el),
                abstract=el.get("abstract") in ("true", "1"),
                substitution_group=_clark(el.get("substitutionGroup"), el),
                nillable=el.get("nillable") in ("true", "1"),
            )
            info.by_name[name] = c
            if c.id:
                info.concepts[c.id] = c
        elif el.tag == f"{{{XSD}}}import":
            info.imports.append((el.get("namespace", ""), el.get("schemaLocation", "")))
        elif el.tag == f"{{{XSD}}}annotation":
            _read_appinfo(el, info)
    return info


def _read_appinfo(annotation: etree._Element, info: SchemaInfo) -> None:
    for app in annotation.iter(f"{{{XSD}}}appinfo"):
        for el in app:
            if not isinstance(el.tag, str):
                continue
            if el.tag == f"{{{LINK}}}linkbaseRef":
                info.linkbase_refs.append(el.get(f"{{{XLINK}}}href", ""))
            elif el.tag == f"{{{LINK}}}roleType":
                uri = el.get("roleURI", "")
                d = el.find(f"{{{LINK}}}definition")
                used = tuple(
                    (_clark(u.text.strip(), u) or "") for u in el.findall(f"{{{LINK}}}usedOn") if u.text
                )
                info.roles[uri] = RoleType(uri, " ".join((d.text or "").split()) if d is not None else "", used)
            elif el.tag == f"{{{LINK}}}linkbase":
                info.has_embedded_linkbases = True
