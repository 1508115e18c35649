"""Parse an XBRL 2.1 instance document into contexts, units and facts.

The instance and the inline parsers both produce a :class:`ParsedInstance`, so that everything
downstream (duplicates, graphs, rules) is blind to the syntax the filer used.
"""
from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass, field

from lxml import etree

from auditflow.errors import MalformedXBRLError
from auditflow.xbrl.model import (
    INF, Context, Decimals, Fact, Period, TypedMember, Unit, Warning_, make_context, make_fact, make_period,
)
from auditflow.xbrl.nsscope import root_only_namespaces
from auditflow.xbrl.numbers import short
from auditflow.xbrl.prefix_repair import WELL_KNOWN
from auditflow.xbrl.qname import QName, interned

XBRLI = "http://www.xbrl.org/2003/instance"
XBRLDI = "http://xbrl.org/2006/xbrldi"
LINK = "http://www.xbrl.org/2003/linkbase"
XLINK = "http://www.w3.org/1999/xlink"
XSI = "http://www.w3.org/2001/XMLSchema-instance"

_NON_FACT_NS = {XBRLI, LINK, XLINK}


@dataclass
class ParsedInstance:
    """What one instance (or one inline document set) reports, before any taxonomy is consulted."""

    document: str
    schema_refs: list[str] = field(default_factory=list)  # hrefs as written, resolved by the caller
    linkbase_refs: list[str] = field(default_factory=list)
    contexts: dict[str, Context] = field(default_factory=dict)
    units: dict[str, Unit] = field(default_factory=dict)
    facts: list[Fact] = field(default_factory=list)
    namespaces: dict[str, str] = field(default_factory=dict)  # prefix -> namespace, as declared
    warnings: list[Warning_] = field(default_factory=list)


def parse_date(text: str, *, end: bool, where: str, line: int | None) -> dt.date:
    """An XBRL date or dateTime as a date with inclusive-end semantics.

    A dateTime at midnight used as an end date means the end of the previous day (XBRL 2.1 4.7.2).
    """
    t = text.strip()
    try:
        return _date(t, end)
    except (ValueError, OverflowError):  # OverflowError: 0001-01-01T00:00:00 as an end date is day 0
        raise MalformedXBRLError(f"invalid date {short(t)} in a context period", path=where, line=line) from None


@functools.lru_cache(maxsize=1024)
def _date(t: str, end: bool) -> dt.date:
    """parse_date's work, memoised: a filing's contexts repeat a handful of dates (issue 21). Dates are
    immutable, so sharing one is safe; a failure raises, and lru_cache never stores it."""
    if "T" in t:
        stamp = dt.datetime.fromisoformat(t.replace("Z", "+00:00"))
        d = stamp.date()
        if end and stamp.time() == dt.time(0, 0):
            d -= dt.timedelta(days=1)
        return d
    return dt.date.fromisoformat(t[:10])


def parse_decimals(raw: str | None, *, where: str, line: int | None) -> Decimals:
    if raw is None:
        return None
    raw = raw.strip()
    if raw == INF:
        return INF
    try:
        return int(raw)
    except ValueError:
        raise MalformedXBRLError(f"invalid decimals {short(raw)}", path=where, line=line) from None


# Measure prefixes some filing tools use without declaring them (seen in a real IBM inline filing).
WELL_KNOWN_PREFIXES = {p: WELL_KNOWN[p] for p in ("iso4217", "xbrli")}


def _qname(text: str, el: etree._Element, where: str, warnings: list[Warning_] | None = None, *,
           nsmap: dict | None = None) -> QName:
    try:
        return QName.parse(text, el.nsmap if nsmap is None else nsmap)
    except ValueError as exc:
        prefix = text.strip().partition(":")[0]
        if warnings is not None and prefix in WELL_KNOWN_PREFIXES:
            warnings.append(Warning_(
                "undeclared-prefix",
                f"the measure {text.strip()!r} uses the undeclared prefix {prefix!r}; read as {WELL_KNOWN_PREFIXES[prefix]}",
                where, el.sourceline,
            ))
            return interned(WELL_KNOWN_PREFIXES[prefix], text.strip().partition(":")[2], prefix)
        raise MalformedXBRLError(str(exc), path=where, line=el.sourceline) from None


_ENTITY, _IDENTIFIER, _SEGMENT = f"{{{XBRLI}}}entity", f"{{{XBRLI}}}identifier", f"{{{XBRLI}}}segment"
_PERIOD, _SCENARIO = f"{{{XBRLI}}}period", f"{{{XBRLI}}}scenario"
_INSTANT, _START, _END, _FOREVER = (f"{{{XBRLI}}}{n}" for n in ("instant", "startDate", "endDate", "forever"))
_EXPLICIT, _TYPED = f"{{{XBRLDI}}}explicitMember", f"{{{XBRLDI}}}typedMember"


def _first_children(el: etree._Element, tags: tuple[str, ...]) -> list:
    """The first child with each tag (None if absent): ``el.find(tag)`` for several tags in one pass
    over the children. lxml's ``find`` runs its path engine in Python, a visible cost per context."""
    found: list = [None] * len(tags)
    for child in el:
        tag = child.tag
        if tag in tags:
            i = tags.index(tag)
            if found[i] is None:
                found[i] = child
    return found


def parse_context(el: etree._Element, where: str, members: "_MemberNames | None" = None) -> Context:
    """One ``xbrli:context``. ``members`` (see :class:`_MemberNames`) names its explicit members from
    a per-document memo; without it each member's names are resolved against its own ``nsmap``."""
    cid = el.get("id")
    if not cid:
        raise MalformedXBRLError("a context has no id", path=where, line=el.sourceline)
    ident = segment = period_el = scenario = None
    for child in el:  # entity/identifier and entity/segment: the first found under any entity, as find() does
        tag = child.tag
        if tag == _ENTITY:
            if ident is None or segment is None:
                i, s = _first_children(child, (_IDENTIFIER, _SEGMENT))
                ident = ident if ident is not None else i
                segment = segment if segment is not None else s
        elif tag == _PERIOD:
            period_el = child if period_el is None else period_el
        elif tag == _SCENARIO:
            scenario = child if scenario is None else scenario
    if ident is None:
        raise MalformedXBRLError(f"context {short(cid)} has no entity identifier", path=where, line=el.sourceline)
    if period_el is None:
        raise MalformedXBRLError(f"context {short(cid)} has no period", path=where, line=el.sourceline)
    period = _parse_period(period_el, cid, where)
    dims: dict[QName, object] = {}
    for container in (segment, scenario):
        if container is None:
            continue
        for m in container:
            tag = m.tag
            if tag == _EXPLICIT:
                if members is not None:
                    dim, member = members.names(m, where)
                    dims[dim] = member
                    continue
                nsmap = m.nsmap  # built by walking the ancestors: once for both names (issue 21)
                dims[_qname(m.get("dimension", ""), m, where, nsmap=nsmap)] = _qname(m.text or "", m, where, nsmap=nsmap)
            elif tag == _TYPED:
                text = "".join(m.itertext()).strip()
                children = [c for c in m if isinstance(c.tag, str)]
                if children:
                    text = f"{etree.QName(children[0]).localname}={text}"
                dims[_qname(m.get("dimension", ""), m, where, nsmap=members.nsmap if members is not None else None)] = \
                    TypedMember(text)
    # Context(id, entity_scheme, entity_id, period, dimensions, line), positionally (model.positional_maker)
    return make_context(cid, (ident.get("scheme") or "").strip(), (ident.text or "").strip(), period,
                        tuple(sorted(dims.items(), key=lambda kv: kv[0].clark())) if dims else (), el.sourceline)


def _parse_period(p: etree._Element, cid: str, where: str) -> Period:
    line = p.sourceline
    inst, start, end, forever = _first_children(p, (_INSTANT, _START, _END, _FOREVER))
    if inst is not None:
        return make_period(None, parse_date(inst.text or "", end=True, where=where, line=line), False)
    if start is not None and end is not None:
        period = make_period(
            parse_date(start.text or "", end=False, where=where, line=line),
            parse_date(end.text or "", end=True, where=where, line=line),
            False,
        )
        if period.start > period.end:  # XBRL 2.1 4.7.2: the end must be later than the start
            raise MalformedXBRLError(f"context {short(cid)} ends ({end.text.strip()}) before it starts "
                                     f"({start.text.strip()}); were the dates swapped?", path=where, line=line)
        return period
    if forever is not None:
        return Period(None, None, forever=True)
    raise MalformedXBRLError(f"context {short(cid)} has an incomplete period", path=where, line=line)


def parse_unit(el: etree._Element, where: str, warnings: list[Warning_] | None = None, nsmap: dict | None = None) -> Unit:
    """One ``xbrli:unit``; its measures are named against ``nsmap`` when given (the document's root-only
    namespaces), else against each measure's own."""
    uid = el.get("id")
    if not uid:
        raise MalformedXBRLError("a unit has no id", path=where, line=el.sourceline)
    div = el.find(f"{{{XBRLI}}}divide")
    if div is not None:
        num = div.findall(f"{{{XBRLI}}}unitNumerator/{{{XBRLI}}}measure")
        den = div.findall(f"{{{XBRLI}}}unitDenominator/{{{XBRLI}}}measure")
    else:
        num, den = el.findall(f"{{{XBRLI}}}measure"), []
    if not num:
        raise MalformedXBRLError(f"unit {short(uid)} has no measure", path=where, line=el.sourceline)
    return Unit(
        uid,
        tuple(sorted(_qname(m.text or "", m, where, warnings, nsmap=nsmap) for m in num)),
        tuple(sorted(_qname(m.text or "", m, where, warnings, nsmap=nsmap) for m in den)),
    )


_CONTEXT, _UNIT = f"{{{XBRLI}}}context", f"{{{XBRLI}}}unit"
_SCHEMA_REF, _LINKBASE_REF, _XL_HREF = f"{{{LINK}}}schemaRef", f"{{{LINK}}}linkbaseRef", f"{{{XLINK}}}href"
_XSI_NIL = f"{{{XSI}}}nil"


class _MemberNames:
    """The (dimension, member) QNames of explicit members, resolved once per distinct pair of texts.

    Only for a document whose namespaces are all declared on its root element, so that every
    element's in-scope namespaces are the root's: a filing repeats a few dozen pairs over hundreds of
    contexts, and ``el.nsmap`` (a walk up the ancestors and a fresh dict) plus two ``QName.parse``
    per member were a visible part of reading the contexts (issue 21)."""

    def __init__(self, nsmap: dict) -> None:
        self.nsmap = nsmap  # every element's in-scope namespaces (the root's)
        self._pairs: dict[tuple[str, str], tuple[QName, QName]] = {}

    @classmethod
    def for_document(cls, root: etree._Element, source: bytes | None, added: dict | None = None) -> "_MemberNames | None":
        """The memo when ``source`` (the bytes ``root`` was parsed from) declares namespaces on the
        root only (:func:`~auditflow.xbrl.nsscope.root_only_namespaces`), else None; ``added``:
        declarations the root lacks, read as if it held them."""
        nsmap = root_only_namespaces(root, source)
        if nsmap is None:
            return None
        return cls({**added, **nsmap} if added else nsmap)

    def names(self, m: etree._Element, where: str) -> tuple[QName, QName]:
        key = (m.get("dimension", ""), m.text or "")
        pair = self._pairs.get(key)
        if pair is None:  # an undeclared prefix raises here, located at this member, and is not remembered
            pair = self._pairs[key] = (_qname(key[0], m, where, nsmap=self.nsmap), _qname(key[1], m, where, nsmap=self.nsmap))
        return pair


def parse_instance(root: etree._Element, *, document: str, source: bytes | None = None) -> ParsedInstance:
    """Read an ``xbrli:xbrl`` root element. ``source``, the bytes it was parsed from, lets explicit
    members be named from a per-document memo (:class:`_MemberNames`); the result is the same.

    :raises MalformedXBRLError: when the root is not an XBRL instance or a fact is unusable.
    """
    if root.tag != f"{{{XBRLI}}}xbrl":
        raise MalformedXBRLError(f"root element is {root.tag!r}, not xbrli:xbrl", path=document, line=root.sourceline)
    out = ParsedInstance(document=document, namespaces={k or "": v for k, v in root.nsmap.items()})
    fact_els: list[etree._Element] = []
    members = _MemberNames.for_document(root, source)
    for el in root:
        tag = el.tag
        if not isinstance(tag, str):
            continue
        if tag == _CONTEXT:
            c = parse_context(el, document, members)
            out.contexts[c.id] = c
        elif tag == _UNIT:
            u = parse_unit(el, document, out.warnings)
            out.units[u.id] = u
        elif tag == _SCHEMA_REF:
            out.schema_refs.append(el.get(_XL_HREF, ""))
        elif tag == _LINKBASE_REF:
            out.linkbase_refs.append(el.get(_XL_HREF, ""))
        elif tag[1:].partition("}")[0] not in _NON_FACT_NS:
            fact_els.append(el)
    _FactReader(out, document).collect_all(fact_els)
    return out


class _FactReader:
    """Turns fact elements into :class:`Fact` objects. The concept QName of each (tag, prefix) and
    each decimals text are built once per document: a filing repeats a few hundred of each over
    thousands of facts."""

    def __init__(self, out: ParsedInstance, document: str) -> None:
        self.out, self.document = out, document
        self._concepts: dict[tuple[str, str | None], QName] = {}
        self._decimals: dict[str | None, Decimals] = {None: None}

    def collect_all(self, els) -> None:
        """Add the item facts of ``els`` in document order; tuples are flattened into their item facts
        (no tuple semantics needed). One loop with the tables in locals: a fact costs a few µs, and a
        method call and attribute loads per fact were a visible part of it (issue 21)."""
        concepts, decimals_of, document = self._concepts, self._decimals, self.document
        facts = self.out.facts
        append = facts.append
        for el in els:
            get = el.get
            ctx = get("contextRef")
            if ctx is None:
                self.collect_all([child for child in el if isinstance(child.tag, str)])
                continue
            key = (el.tag, el.prefix)
            concept = concepts.get(key)
            if concept is None:
                q = etree.QName(key[0])
                concept = concepts[key] = interned(q.namespace or "", q.localname, key[1])
            is_nil = get(_XSI_NIL) in ("true", "1")
            unit = get("unitRef")
            value: str | None
            if is_nil:
                value = None
            elif unit is not None:
                value = (el.text or "").strip()
            else:
                value = "".join(el.itertext()) if len(el) else (el.text or "")
            raw = get("decimals")
            line = el.sourceline
            decimals = decimals_of.get(raw, decimals_of)
            if decimals is decimals_of:
                decimals = decimals_of[raw] = parse_decimals(raw, where=document, line=line)
            append(make_fact(concept, ctx, value, unit, decimals, get("precision"), get("id"), is_nil, document, line,
                             len(facts)))
