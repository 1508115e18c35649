"""Read a taxonomy schema: element declarations, role types, imports and linkbase references."""
from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from auditflow.xbrl.model import Concept, RoleType, make_concept
from auditflow.xbrl.nsscope import RootNames, root_only_namespaces
from auditflow.xbrl.qname import QName, interned

XSD = "http://www.w3.org/2001/XMLSchema"
XBRLI = "http://www.xbrl.org/2003/instance"
LINK = "http://www.xbrl.org/2003/linkbase"
XLINK = "http://www.w3.org/1999/xlink"
_ELEMENT, _IMPORT, _ANNOTATION, _APPINFO = (f"{{{XSD}}}{n}" for n in ("element", "import", "annotation", "appinfo"))
_LINKBASE_REF, _ROLE_TYPE, _DEFINITION, _USED_ON, _LINKBASE = (
    f"{{{LINK}}}{n}" for n in ("linkbaseRef", "roleType", "definition", "usedOn", "linkbase"))
_XL_HREF = f"{{{XLINK}}}href"
_BALANCE, _PERIOD_TYPE = f"{{{XBRLI}}}balance", f"{{{XBRLI}}}periodType"


@dataclass
class SchemaInfo:
    """What one schema declares: concepts, roles, imports and linkbase references."""

    location: str
    target_namespace: str
    concepts: dict[str, Concept] = field(default_factory=dict)  # by element id
    by_name: dict[str, Concept] = field(default_factory=dict)  # by local name
    roles: dict[str, RoleType] = field(default_factory=dict)
    imports: list[tuple[str, str]] = field(default_factory=list)  # (namespace, schemaLocation)
    linkbase_refs: list[str] = field(default_factory=list)
    has_embedded_linkbases: bool = False


def _clark(text: str | None, nsmap: dict | None, names: RootNames) -> str | None:
    """``text`` (a QName) in clark notation, resolved against ``nsmap`` (the namespaces in scope where it
    stands, ``names.nsmap(el)``); a name whose prefix is not declared is kept as written."""
    if not text:
        return None
    try:
        return names.qname(text, nsmap).clark()
    except ValueError:
        return text


def read_schema(root: etree._Element, *, location: str, source: bytes | None = None) -> SchemaInfo:
    """Summarise a schema document; embedded linkbases are read separately by the linkbase reader.
    ``source``, the bytes ``root`` was parsed from, lets names be resolved once per distinct text
    (:class:`~auditflow.xbrl.nsscope.RootNames`); the result is the same."""
    tns = root.get("targetNamespace", "")
    info = SchemaInfo(location=location, target_namespace=tns)
    prefix = next((p for p, ns in root.nsmap.items() if ns == tns and p), None)
    names = RootNames(root_only_namespaces(root, source))
    for el in root:
        tag = el.tag
        if tag == _ELEMENT:
            name = el.get("name")
            if not name:
                continue
            dtype, group = el.get("type"), el.get("substitutionGroup")
            nsmap = names.nsmap(el) if dtype or group else None
            data_type, substitution_group = _clark(dtype, nsmap, names), _clark(group, nsmap, names)
            # Concept(qname, id, balance, period_type, data_type, abstract, substitution_group, nillable,
            # source), positionally (model.positional_maker: hundreds of declarations a schema)
            c = make_concept(interned(tns, name, prefix), el.get("id"), el.get(_BALANCE), el.get(_PERIOD_TYPE), data_type,
                             el.get("abstract") in ("true", "1"), substitution_group, el.get("nillable") in ("true", "1"),
                             "schema")
            info.by_name[name] = c
            if c.id:
                info.concepts[c.id] = c
        elif tag == _IMPORT:
            info.imports.append((el.get("namespace", ""), el.get("schemaLocation", "")))
        elif tag == _ANNOTATION:
            _read_appinfo(el, info, names)
    return info


def _read_appinfo(annotation: etree._Element, info: SchemaInfo, names: RootNames) -> None:
    for app in annotation.iter(_APPINFO):
        for el in app:
            tag = el.tag
            if tag == _LINKBASE_REF:
                info.linkbase_refs.append(el.get(_XL_HREF, ""))
            elif tag == _ROLE_TYPE:
                uri = el.get("roleURI", "")
                d, used = None, []
                for c in el:  # one pass instead of find()/findall(), whose path engine runs in Python
                    if c.tag == _DEFINITION:
                        d = c if d is None else d
                    elif c.tag == _USED_ON and c.text:
                        used.append(_clark(c.text.strip(), names.nsmap(c), names) or "")
                info.roles[uri] = RoleType(uri, " ".join((d.text or "").split()) if d is not None else "", tuple(used))
            elif tag == _LINKBASE:
                info.has_embedded_linkbases = True
