"""Generic builders for tiny in-memory filings used by the rule tests (0117, 0126, ...).

A :class:`FilingBuilder` collects contexts, units, facts, roleTypes and linkbase arcs (with the real
arcroles from :mod:`auditflow.xbrl.model`) and hands back a :class:`Filing` or a ready
:class:`AuditEnvironment`. Nothing is written to disk.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Iterable, Mapping, Sequence

from auditflow.graphs.environment import AuditEnvironment, build_environment
from auditflow.xbrl.filing import Filing
from auditflow.xbrl.model import (
    ALL, CALCULATION, DEFINITION, DIMENSION_DEFAULT, DIMENSION_DOMAIN, DOMAIN_MEMBER, HYPERCUBE_DIMENSION,
    PARENT_CHILD, PRESENTATION, SUMMATION_ITEM_2003, Arc, Context, Decimals, Fact, Member, Period, RoleType, Unit,
)
from auditflow.xbrl.qname import QName

ISO = "http://www.xbrl.org/2003/iso4217"
XBRLI = "http://www.xbrl.org/2003/instance"
GAAP_NS = "http://fasb.org/us-gaap/2024"
SRT_NS = "http://fasb.org/srt/2024"
DEI_NS = "http://xbrl.sec.gov/dei/2024"
EXT_NS = "http://example.com/20240930"
CIK = "http://www.sec.gov/CIK"


def gaap(local: str) -> QName:
    return QName(GAAP_NS, local, "us-gaap")


def srt(local: str) -> QName:
    return QName(SRT_NS, local, "srt")


def dei(local: str) -> QName:
    return QName(DEI_NS, local, "dei")


def ext(local: str) -> QName:
    return QName(EXT_NS, local, "ext")


def make_period(text: str) -> Period:
    """``"2024-09-30"`` (instant) or ``"2024-01-01..2024-09-30"`` (duration, end inclusive)."""
    start, sep, end = text.partition("..")
    if not sep:
        return Period(None, dt.date.fromisoformat(start))
    return Period(dt.date.fromisoformat(start), dt.date.fromisoformat(end))


def make_context(cid: str, period: str | Period, dims: Iterable[tuple[QName, Member]] = (),
                 entity: str = "0000000001") -> Context:
    p = make_period(period) if isinstance(period, str) else period
    ordered = tuple(sorted(dims, key=lambda am: am[0].clark()))
    return Context(cid, CIK, entity, p, ordered)


def make_unit(uid: str = "usd", measure: str = "USD", denominator: str | None = None) -> Unit:
    """An ISO 4217 unit (``measure``) or ``xbrli:shares`` when ``measure == "shares"``."""
    num = QName(XBRLI, "shares", "xbrli") if measure == "shares" else QName(ISO, measure, "iso4217")
    den = (QName(XBRLI, denominator, "xbrli"),) if denominator else ()
    return Unit(uid, (num,), den)


def make_fact(concept: QName, value, cid: str, *, unit: str | None = "usd", decimals: Decimals = -3,
              fid: str | None = None, index: int = 0, nil: bool = False) -> Fact:
    return Fact(concept, cid, None if nil else str(value), unit, decimals if unit else None,
                id=fid or f"f{index}", is_nil=nil, index=index)


@dataclass
class AxisSpec:
    """An axis of a cube: its domain and the members below it.

    ``members`` is either a flat list (all directly under the domain) or a ``{parent: [children]}``
    tree whose roots hang under the domain (a parent that is the domain itself is allowed too).
    """

    axis: QName
    domain: QName
    members: Sequence[QName] | Mapping[QName, Sequence[QName]] = ()
    default: bool = True


def _arc(kind: str, arcrole: str, role: str, source: QName, target: QName, order: int, **kw) -> Arc:
    return Arc(kind, arcrole, role, source, target, order=Decimal(order), **kw)


def cube_arcs(role: str, table: QName, line_items: Sequence[QName], axes: Sequence[AxisSpec], *,
              root: QName | None = None, arcrole: str = ALL) -> list[Arc]:
    """Definition arcs of one DRS: root -all-> table -> axes -> domain -> members; root -> line items."""
    root = root or ext(table.local.replace("Table", "LineItems"))
    arcs = [_arc(DEFINITION, arcrole, role, root, table, 1, closed=True, context_element="segment")]
    arcs += [_arc(DEFINITION, DOMAIN_MEMBER, role, root, li, n) for n, li in enumerate(line_items, 1)]
    for n, spec in enumerate(axes, 1):
        arcs.append(_arc(DEFINITION, HYPERCUBE_DIMENSION, role, table, spec.axis, n))
        arcs.append(_arc(DEFINITION, DIMENSION_DOMAIN, role, spec.axis, spec.domain, 1))
        if spec.default:
            arcs.append(_arc(DEFINITION, DIMENSION_DEFAULT, role, spec.axis, spec.domain, 1))
        tree = spec.members if isinstance(spec.members, Mapping) else {spec.domain: list(spec.members)}
        children = {c for kids in tree.values() for c in kids}
        for parent, kids in tree.items():
            if parent != spec.domain and parent not in children:
                arcs.append(_arc(DEFINITION, DOMAIN_MEMBER, role, spec.domain, parent, 100 + n))
            arcs += [_arc(DEFINITION, DOMAIN_MEMBER, role, parent, k, m) for m, k in enumerate(kids, 1)]
    return arcs


def calc_arcs(role: str, parent: QName, children: Sequence[tuple[QName, int]]) -> list[Arc]:
    return [_arc(CALCULATION, SUMMATION_ITEM_2003, role, parent, c, n, weight=Decimal(w))
            for n, (c, w) in enumerate(children, 1)]


def presentation_arcs(role: str, parent: QName, children: Sequence[QName]) -> list[Arc]:
    return [_arc(PRESENTATION, PARENT_CHILD, role, parent, c, n) for n, c in enumerate(children, 1)]


@dataclass
class FilingBuilder:
    """Accumulates the pieces of a filing; contexts are shared between facts with the same content."""

    entity: str = "0000000001"
    contexts: dict[str, Context] = field(default_factory=dict)
    units: dict[str, Unit] = field(default_factory=lambda: {"usd": make_unit(), "shares": make_unit("shares", "shares")})
    facts: list[Fact] = field(default_factory=list)
    arcs: list[Arc] = field(default_factory=list)
    roles: dict[str, RoleType] = field(default_factory=dict)

    def role(self, uri: str, definition: str) -> str:
        self.roles[uri] = RoleType(uri, definition, ("link:definitionLink", "link:presentationLink"))
        return uri

    def cube(self, uri: str, definition: str, table: QName, line_items: Sequence[QName],
             axes: Sequence[AxisSpec], **kw) -> str:
        self.role(uri, definition)
        self.arcs += cube_arcs(uri, table, line_items, axes, **kw)
        return uri

    def calc(self, role: str, parent: QName, children: Sequence[tuple[QName, int]]) -> None:
        self.arcs += calc_arcs(role, parent, children)

    def context(self, period: str, dims: Iterable[tuple[QName, Member]] = ()) -> str:
        probe = make_context("", period, dims, self.entity)
        for cid, c in self.contexts.items():
            if (c.period, c.dimensions, c.entity_id) == (probe.period, probe.dimensions, probe.entity_id):
                return cid
        cid = f"c{len(self.contexts)}"
        self.contexts[cid] = make_context(cid, period, dims, self.entity)
        return cid

    def fact(self, concept: QName, value, period: str, dims: Mapping[QName, Member] | Iterable = (), *,
             decimals: Decimals = -3, unit: str | None = "usd", fid: str | None = None, nil: bool = False) -> Fact:
        pairs = list(dims.items()) if isinstance(dims, Mapping) else list(dims)
        f = make_fact(concept, value, self.context(period, pairs), unit=unit, decimals=decimals, fid=fid,
                      index=len(self.facts), nil=nil)
        self.facts.append(f)
        return f

    def document_type(self, value: str, period: str) -> Fact:
        return self.fact(dei("DocumentType"), value, period, unit=None, decimals=None)

    def filing(self) -> Filing:
        return Filing(source="builder", facts=list(self.facts), contexts=dict(self.contexts), units=dict(self.units),
                      arcs=list(self.arcs), roles=dict(self.roles))

    def env(self) -> AuditEnvironment:
        return build_environment(self.filing())
