"""XBRL Dimensions over the filer's definition linkbase: cubes, axes, domains, members, defaults.

A *cube* here is one has-hypercube relationship in one DRS role, as the DQC rules see it (their
``@cube.drs-role``). Following ``targetRole`` hops matters: filers often put the hypercube's
dimensions in the same role, but the spec allows them elsewhere.
"""
from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import dataclass, field

from auditflow.xbrl.model import (
    ALL, DEFINITION, DIMENSION_DEFAULT, DIMENSION_DOMAIN, DOMAIN_MEMBER, HYPERCUBE_DIMENSION, NOT_ALL, Arc, Context,
    TypedMember,
)
from auditflow.xbrl.qname import QName


@dataclass
class Axis:
    """One axis of a cube: its domains, usable members, member hierarchy and default."""

    qname: QName
    domains: set[QName] = field(default_factory=set)
    members: set[QName] = field(default_factory=set)  # every usable node below the axis, domains included
    parents: dict[QName, QName] = field(default_factory=dict)  # member -> its domain-member parent
    default: QName | None = None

    def ancestors(self, member: QName) -> list[QName]:
        out, seen = [], {member}
        cur = self.parents.get(member)
        while cur is not None and cur not in seen:
            out.append(cur)
            seen.add(cur)
            cur = self.parents.get(cur)
        return out


@dataclass
class Cube:
    """One hypercube of one role: its primary items and its axes."""

    role: str
    hypercube: QName
    arcrole: str  # all | notAll
    closed: bool
    context_element: str | None
    primary_items: set[QName] = field(default_factory=set)
    axes: dict[QName, Axis] = field(default_factory=dict)

    def is_valid(self, concept: QName, ctx: Context) -> bool:
        """XBRL Dimensions validity of a fact against this single cube (DQC's D3)."""
        if concept not in self.primary_items:
            return False
        dims = ctx.dimensions
        for axis_q, member in dims:
            axis = self.axes.get(axis_q)
            if axis is None:
                return False
            if isinstance(member, TypedMember):
                continue
            if member not in axis.members:
                return False
            if axis.default is not None and member == axis.default:
                return False  # a default member never appears explicitly in a valid context
        present = {a for a, _ in dims}
        return all(a in present or ax.default is not None for a, ax in self.axes.items())


class DimensionIndex:
    """All cubes of a filing's definition linkbase, plus the global dimension defaults."""

    def __init__(self, arcs: list[Arc]) -> None:
        # Built on first use (issue 21): an audit whose tools never ask about cubes, and most corpus
        # cases are such, no longer pays for the closure of every hypercube of the filing.
        self._arcs: list[Arc] | None = arcs
        self._lock = threading.Lock()

    @property
    def defaults(self) -> dict[QName, QName]:
        self._arcs is None or self._build()
        return self._defaults

    @property
    def cubes(self) -> list[Cube]:
        self._arcs is None or self._build()
        return self._cubes

    @property
    def by_role(self) -> dict[str, list[Cube]]:
        self._arcs is None or self._build()
        return self._by_role

    def _build(self) -> None:
        with self._lock:  # tools may run in threads: one build, seen whole
            arcs = self._arcs
            if arcs is None:
                return
            self._by: dict[tuple[str, str, QName], list[Arc]] = defaultdict(list)
            self._defaults: dict[QName, QName] = {}
            has_hc: list[Arc] = []
            for a in arcs:
                if a.kind != DEFINITION:
                    continue
                if a.arcrole == DIMENSION_DEFAULT:
                    self._defaults[a.source] = a.target
                    continue
                self._by[(a.arcrole, a.role, a.source)].append(a)
                if a.arcrole in (ALL, NOT_ALL):
                    has_hc.append(a)
            self._cubes: list[Cube] = [self._cube(a) for a in has_hc]
            self._by_role: dict[str, list[Cube]] = defaultdict(list)
            for c in self._cubes:
                self._by_role[c.role].append(c)
            self._arcs = None

    def _children(self, arcrole: str, role: str, source: QName) -> list[Arc]:
        return sorted(self._by.get((arcrole, role, source), []), key=lambda a: a.order)

    def _cube(self, hc_arc: Arc) -> Cube:
        cube = Cube(hc_arc.role, hc_arc.target, hc_arc.arcrole, bool(hc_arc.closed), hc_arc.context_element)
        cube.primary_items = {hc_arc.source} | self._descendants(hc_arc.source, hc_arc.role, {})
        hc_role = hc_arc.target_role or hc_arc.role
        for hd in self._children(HYPERCUBE_DIMENSION, hc_role, hc_arc.target):
            axis = Axis(hd.target, default=self._defaults.get(hd.target))
            dd_role = hd.target_role or hc_role
            for dd in self._children(DIMENSION_DOMAIN, dd_role, hd.target):
                axis.domains.add(dd.target)
                if dd.usable:
                    axis.members.add(dd.target)
                self._descendants(dd.target, dd.target_role or dd_role, axis.parents, axis.members)
            cube.axes[hd.target] = axis
        return cube

    def _descendants(self, node: QName, role: str, parents: dict, into: set | None = None) -> set[QName]:
        """Domain-member closure from ``node``, following targetRole, recording each member's parent."""
        out = into if into is not None else set()
        stack, seen = [(node, role)], set()
        while stack:
            cur, r = stack.pop()
            if (cur, r) in seen:
                continue
            seen.add((cur, r))
            for a in self._children(DOMAIN_MEMBER, r, cur):
                parents.setdefault(a.target, cur)
                if a.usable:
                    out.add(a.target)
                stack.append((a.target, a.target_role or r))
        return out

    def cubes_for(self, concept: QName) -> list[Cube]:
        return [c for c in self.cubes if concept in c.primary_items]
