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
from typing import Callable, Iterable, NamedTuple

from lxml import etree

from auditflow.xbrl.model import CALCULATION, DEFINITION, PRESENTATION, Arc, Label, make_arc, make_label
from auditflow.xbrl.numbers import number_problem
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


class RawArc(NamedTuple):
    """An arc as declared, before prohibition/override; ``priority``/``use`` decide its fate.
    (A named tuple: one is built per declared arc, and a tuple is the cheapest immutable record.)"""

    arc: Arc
    priority: int
    prohibited: bool


@dataclass
class LinkbaseContent:
    """What the linkbases of a DTS declare: raw arcs, labels, and locators that did not resolve."""

    arcs: list[RawArc] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)
    unresolved_locators: list[str] = field(default_factory=list)
    # label links left for later (``read_links(..., labels=False)``): each document's root with what its
    # locator hrefs resolved to; :func:`read_deferred_labels` reads them into Labels
    deferred_labels: list[tuple[etree._Element, dict[str, QName | None]]] = field(default_factory=list)


def _decimal(text: str | None, default: Decimal | None) -> Decimal | None:
    if text is None:
        return default
    try:
        d = Decimal(text.strip())
    except InvalidOperation:
        return default
    return d if number_problem(d) is None else default  # weight="-Infinity" or "sNaN" is no weight


# Attribute and tag names, spelled once: building them per element was a visible cost on big linkbases.
_XL_LABEL, _XL_HREF, _XL_ROLE = f"{{{XLINK}}}label", f"{{{XLINK}}}href", f"{{{XLINK}}}role"
_XL_FROM, _XL_TO, _XL_ARCROLE = f"{{{XLINK}}}from", f"{{{XLINK}}}to", f"{{{XLINK}}}arcrole"
_DT_CLOSED, _DT_USABLE = f"{{{XBRLDT}}}closed", f"{{{XBRLDT}}}usable"
_DT_TARGET_ROLE, _DT_CONTEXT = f"{{{XBRLDT}}}targetRole", f"{{{XBRLDT}}}contextElement"
_LOC, _LABEL, _LABEL_LINK = f"{{{LINK}}}loc", f"{{{LINK}}}label", f"{{{LINK}}}labelLink"
_LABEL_ARC = f"{{{LINK}}}labelArc"
_ANY_ARC = frozenset((*_ARC_TAGS, _LABEL_ARC))
_ONE = Decimal(1)
_MISSING = object()


def read_links(
    root: etree._Element,
    *,
    document: str,
    locate: Callable[[str], tuple[str, str]],
    resolve: LocatorResolver,
    into: LinkbaseContent | None = None,
    memo: dict[str, QName | None] | None = None,
    labels: bool = True,
) -> LinkbaseContent:
    """Collect every extended link under ``root`` (a linkbase or a schema with embedded linkbases).

    ``locate(href)`` turns a locator href into (schema location, fragment); ``resolve`` maps that to a
    concept. Locators that resolve nowhere are listed, not fatal: their arcs are dropped. Both are
    asked once per distinct href (a concept's locator is repeated in every link that uses it);
    ``memo`` (href -> concept) may be shared by documents in one folder, whose relative hrefs resolve
    alike; ``#fragment`` hrefs (into the document itself) are never taken from or put into it.
    ``labels=False`` resolves the label links' locators only and keeps the document for
    :func:`read_deferred_labels`: a filing's label linkbase is its biggest, and checks never read it.
    """
    out = into if into is not None else LinkbaseContent()
    shared = memo if memo is not None else {}
    own: dict[str, QName | None] = {}  # "#fragment" hrefs name this very document: never shared
    numbers: dict = {}
    unresolved = out.unresolved_locators
    label_hrefs: dict[str, QName | None] | None = None  # labels=False: every label locator href -> its concept
    for link in root.iter(*_LINK_KINDS, _LABEL_LINK):
        if not labels and link.tag == _LABEL_LINK:
            # Only the locators now: an unresolved one is warned about at load. The labels themselves
            # are read from the kept tree when first asked for (check never asks: issue 21).
            if label_hrefs is None:
                label_hrefs = {}
                out.deferred_labels.append((root, label_hrefs))
            for el in link.iterchildren(_LOC):
                href = el.get(_XL_HREF, "")
                q = _concept_at(href, own, shared, resolve, locate)
                if q is None:
                    unresolved.append(href)
                label_hrefs[href] = q
            continue
        locs, resources, arcs = _children(link, own, shared, resolve, locate, unresolved)
        if link.tag == _LABEL_LINK:
            _read_labels(arcs, locs, resources, out)
        else:
            _read_arcs(_LINK_KINDS[link.tag], link.get(_XL_ROLE, ""), arcs, locs, document, out, numbers)
    return out


def _concept_at(href: str, own: dict, shared: dict, resolve, locate):
    """The concept a locator's href names (None: none), looked up in ``own`` ("#fragment") or
    ``shared`` and resolved only the first time an href is seen."""
    concept_of = own if href.startswith("#") else shared
    q = concept_of.get(href, _MISSING)
    if q is _MISSING:
        q = concept_of[href] = resolve(*locate(href))
    return q


def _children(link: etree._Element, own: dict, shared: dict, resolve: LocatorResolver | None,
              locate: Callable[[str], tuple[str, str]] | None, unresolved: list[str]):
    """An extended link's locators (concepts by xlink:label; an href that names no concept is listed
    in ``unresolved`` and left out), label resources (by xlink:label) and arcs, in document order.
    An href is looked up in ``own`` ("#fragment") or ``shared`` and resolved only when missing there."""
    locs: dict[str, list[QName]] = defaultdict(list)
    resources: dict[str, list[etree._Element]] = defaultdict(list)
    arcs: list[etree._Element] = []
    for el in link:
        tag = el.tag
        if tag == _LOC:
            href = el.get(_XL_HREF, "")
            q = (own if href[:1] == "#" else shared).get(href, _MISSING)  # _concept_at's lookup, inline: 2k a filing
            if q is _MISSING:
                q = _concept_at(href, own, shared, resolve, locate)
            if q is None:
                unresolved.append(href)
                continue
            locs[el.get(_XL_LABEL) or ""].append(q)
        elif tag == _LABEL:
            resources[el.get(_XL_LABEL) or ""].append(el)
        elif tag in _ANY_ARC:
            arcs.append(el)
    return locs, resources, arcs


def read_deferred_labels(deferred: Iterable[tuple[etree._Element, dict[str, "QName | None"]]]) -> list[Label]:
    """The labels of the label links ``read_links(..., labels=False)`` left for later, in the order an
    eager read gives them (every locator href was resolved, and the unresolved ones recorded, back then)."""
    out = LinkbaseContent()
    for root, hrefs in deferred:
        for link in root.iter(_LABEL_LINK):
            locs, resources, arcs = _children(link, hrefs, hrefs, None, None, [])
            _read_labels(arcs, locs, resources, out)
    return out.labels


def _read_arcs(kind: str, role: str, arcs, locs, document: str, out: LinkbaseContent, numbers: dict | None = None) -> None:
    """One RawArc per declared (source, target) pair. The order, weight and priority texts are parsed
    once per linkbase (``numbers``: a few distinct texts recur thousands of times)."""
    numbers = {} if numbers is None else numbers
    orders = numbers.setdefault("order", {})
    weights = numbers.setdefault("weight", {})
    priorities = numbers.setdefault("priority", {})
    append = out.arcs.append
    raw_arc = tuple.__new__  # RawArc(arc, priority, prohibited) without the named tuple's Python __new__
    for a in arcs:
        attrs = dict(a.items())  # one call for all attributes: cheaper than a dozen get()s
        get = attrs.get
        sources = locs.get(get(_XL_FROM, ""))
        targets = locs.get(get(_XL_TO, ""))
        if not sources or not targets:
            continue
        text = get("order")
        order = orders.get(text, _MISSING)
        if order is _MISSING:
            order = orders[text] = _decimal(text, _ONE)
        text = get("weight")
        weight = weights.get(text, _MISSING)
        if weight is _MISSING:
            weight = weights[text] = _decimal(text, None)
        text = get("priority", "0")
        priority = priorities.get(text)
        if priority is None:
            try:
                priority = int(text)
            except ValueError:
                priority = 0
            priorities[text] = priority
        closed = get(_DT_CLOSED)
        closed = None if closed is None else closed in ("true", "1")
        arcrole = get(_XL_ARCROLE, "")
        preferred_label = get("preferredLabel")
        target_role = get(_DT_TARGET_ROLE)
        context_element = get(_DT_CONTEXT)
        usable = get(_DT_USABLE) not in ("false", "0")
        prohibited = get("use") == "prohibited"
        for s in sources:
            for t in targets:
                append(raw_arc(RawArc, (make_arc(kind, arcrole, role, s, t, order, weight, preferred_label, target_role,
                                                 closed, context_element, usable, document), priority, prohibited)))


def _read_labels(arcs, locs, resources, out: LinkbaseContent) -> None:
    append = out.labels.append
    texts: dict = {}  # resource element -> (role, lang, normalised text): built once per resource
    for a in arcs:
        attrs = dict(a.items())
        if attrs.get("use") == "prohibited":
            continue
        concepts = locs.get(attrs.get(_XL_FROM, ""))
        if not concepts:
            continue
        found = []
        for res in resources.get(attrs.get(_XL_TO, ""), ()):
            parts = texts.get(res)
            if parts is None:
                text = "".join(res.itertext()) if len(res) else (res.text or "")  # most labels are one text node
                parts = texts[res] = (res.get(_XL_ROLE, "http://www.xbrl.org/2003/role/label"), res.get(XML_LANG, ""),
                                      " ".join(text.split()))
            found.append(parts)
        for q in concepts:
            for role, lang, text in found:
                append(make_label(q, role, lang, text))


def effective_arcs(raw: Iterable[RawArc]) -> list[Arc]:
    """Apply prohibition and override: per relationship, the highest priority wins; a winning
    prohibition removes the relationship. Duplicated declarations collapse to one arc.

    One arc survives per relationship (kind, arcrole, role, source, target), in the order the
    relationships were first declared. (Equivalent arcs in the XBRL 2.1 sense always share that key,
    so no second de-duplication by equivalence is needed: it could never remove anything.)
    """
    best: dict[tuple, RawArc] = {}
    for r in raw:
        a = r.arc
        # Prohibiting arcs often omit weight/order details: match on the relationship itself.
        k = (a.kind, a.arcrole, a.role, a.source, a.target)
        cur = best.get(k)
        if cur is None or r.priority > cur.priority or (r.priority == cur.priority and r.prohibited and not cur.prohibited):
            best[k] = r  # a replaced key keeps its first position
    return [r.arc for r in best.values() if not r.prohibited]
