"""Read calculation, definition, presentation and label linkbases into effective relationships.

Linkbases can be separate files or embedded in a schema's ``xsd:appinfo``; either way an extended
link is handed to :func:`read_links`. Prohibition and override (XBRL 2.1 section 3.5.3.9) are applied
over the whole DTS by :func:`effective_arcs`, because a filer may prohibit a relationship declared in
another document.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Callable, Iterable

from lxml import etree

from auditflow.xbrl.model import CALCULATION, DEFINITION, PRESENTATION, Arc, Label
from auditflow.xbrl.qname import QName

LINK = "http://www.xbrl.org/2003/linkbase"
XLINK = "http://www.w3.org/1999/xlink"
XBRLDT = "http://xbrl.org/2005/xbrldt"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"

_LINK_KINDS = {
    f"{{{LINK}}}calculationLink": CALCULATION,
    f"{{{LINK}}}definitionLink": DEFINITION,
    f"{{{LINK}}}presentationLink": PRESENTATION,
}
_ARC_TAGS = {f"{{{LINK}}}calculationArc", f"{{{LINK}}}definitionArc", f"{{{LINK}}}presentationArc"}

# (location of the schema, fragment id) -> the concept it names, or None when unknown
LocatorResolver = Callable[[str, str], "QName | None"]


@dataclass(frozen=True, slots=True)
class RawArc:
    """An arc as declared, before prohibition/override; ``priority``/``use`` decide its fate."""

    arc: Arc
    priority: int
    prohibited: bool


@dataclass
class LinkbaseContent:
    arcs: list[RawArc] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)
    unresolved_locators: list[str] = field(default_factory=list)


def _decimal(text: str | None, default: Decimal | None) -> Decimal | None:
    if text is None:
        return default
    try:
        return Decimal(text.strip())
    except InvalidOperation:
        return default


def read_links(
    root: etree._Element,
    *,
    document: str,
    locate: Callable[[str], tuple[str, str]],
    resolve: LocatorResolver,
    into: LinkbaseContent | None = None,
) -> LinkbaseContent:
    """Collect every extended link under ``root`` (a linkbase or a schema with embedded linkbases).

    ``locate(href)`` turns a locator href into (schema location, fragment); ``resolve`` maps that to a
    concept. Locators that resolve nowhere are listed, not fatal: their arcs are dropped.
    """
    out = into if into is not None else LinkbaseContent()
    for link in root.iter(*_LINK_KINDS, f"{{{LINK}}}labelLink"):
        locs: dict[str, list[QName]] = defaultdict(list)
        resources: dict[str, list[etree._Element]] = defaultdict(list)
        arcs: list[etree._Element] = []
        for el in link:
            if not isinstance(el.tag, str):
                continue
            xl = el.get(f"{{{XLINK}}}label")
            if el.tag == f"{{{LINK}}}loc":
                href = el.get(f"{{{XLINK}}}href", "")
                schema_loc, frag = locate(href)
                q = resolve(schema_loc, frag)
                if q is None:
                    out.unresolved_locators.append(href)
                    continue
                locs[xl or ""].append(q)
            elif el.tag == f"{{{LINK}}}label":
                resources[xl or ""].append(el)
            elif el.tag in _ARC_TAGS or el.tag == f"{{{LINK}}}labelArc":
                arcs.append(el)
        role = link.get(f"{{{XLINK}}}role", "")
        if link.tag == f"{{{LINK}}}labelLink":
            _read_labels(arcs, locs, resources, out)
        else:
            _read_arcs(_LINK_KINDS[link.tag], role, arcs, locs, document, out)
    return out


def _read_arcs(kind: str, role: str, arcs, locs, document: str, out: LinkbaseContent) -> None:
    for a in arcs:
        sources = locs.get(a.get(f"{{{XLINK}}}from", ""), [])
        targets = locs.get(a.get(f"{{{XLINK}}}to", ""), [])
        if not sources or not targets:
            continue
        arcrole = a.get(f"{{{XLINK}}}arcrole", "")
        closed = a.get(f"{{{XBRLDT}}}closed")
        usable = a.get(f"{{{XBRLDT}}}usable")
        common = dict(
            kind=kind,
            arcrole=arcrole,
            role=role,
            order=_decimal(a.get("order"), Decimal(1)),
            weight=_decimal(a.get("weight"), None),
            preferred_label=a.get("preferredLabel"),
            target_role=a.get(f"{{{XBRLDT}}}targetRole"),
            closed=None if closed is None else closed in ("true", "1"),
            context_element=a.get(f"{{{XBRLDT}}}contextElement"),
            usable=usable not in ("false", "0"),
            document=document,
        )
        try:
            priority = int(a.get("priority", "0"))
        except ValueError:
            priority = 0
        prohibited = a.get("use") == "prohibited"
        for s in sources:
            for t in targets:
                out.arcs.append(RawArc(Arc(source=s, target=t, **common), priority, prohibited))


def _read_labels(arcs, locs, resources, out: LinkbaseContent) -> None:
    for a in arcs:
        if a.get("use") == "prohibited":
            continue
        for q in locs.get(a.get(f"{{{XLINK}}}from", ""), []):
            for res in resources.get(a.get(f"{{{XLINK}}}to", ""), []):
                out.labels.append(
                    Label(
                        concept=q,
                        role=res.get(f"{{{XLINK}}}role", "http://www.xbrl.org/2003/role/label"),
                        lang=res.get(XML_LANG, ""),
                        text=" ".join("".join(res.itertext()).split()),
                    )
                )


def _equivalence_key(arc: Arc) -> tuple:
    """Arcs are equivalent when they join the same concepts in the same network with the same
    non-exempt attributes; order, weight and the dimension attributes are among those attributes."""
    return (
        arc.kind, arc.arcrole, arc.role, arc.source, arc.target, arc.order, arc.weight,
        arc.preferred_label, arc.target_role, arc.closed, arc.context_element, arc.usable,
    )


def _prohibition_key(arc: Arc) -> tuple:
    # Prohibiting arcs often omit weight/order details; match on the relationship itself.
    return (arc.kind, arc.arcrole, arc.role, arc.source, arc.target)


def effective_arcs(raw: Iterable[RawArc]) -> list[Arc]:
    """Apply prohibition and override: per relationship, the highest priority wins; a winning
    prohibition removes the relationship. Duplicated declarations collapse to one arc."""
    best: dict[tuple, tuple[int, bool, Arc]] = {}
    order: list[tuple] = []
    for r in raw:
        k = _prohibition_key(r.arc)
        cur = best.get(k)
        if cur is None:
            order.append(k)
        if cur is None or r.priority > cur[0] or (r.priority == cur[0] and r.prohibited and not cur[1]):
            best[k] = (r.priority, r.prohibited, r.arc)
    seen: set[tuple] = set()
    out: list[Arc] = []
    for k in order:
        _, prohibited, arc = best[k]
        if prohibited:
            continue
        ek = _equivalence_key(arc)
        if ek in seen:
            continue
        seen.add(ek)
        out.append(arc)
    return out
