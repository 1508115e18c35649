"""The STATIC taxonomy graph: what the standard taxonomies say, independent of any filing.

Rules compare a filing with the published taxonomies (calculation parents, dimension defaults,
presentation groups), so every calculation/definition/presentation/label linkbase of every package
is read once into one graph of concepts (:mod:`auditflow.graphs.taxonomy_build`). Reading ~45 MB of
XML takes seconds, but a verifier runs often, so the result is cached on disk in a compact,
code-free form (string table + int arrays: :mod:`auditflow.graphs.taxonomy_store`) that loads in
milliseconds. This module is the query API, which runs on those arrays; the networkx view is built
only when asked for.
"""
from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from decimal import Decimal
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Protocol

from auditflow.errors import InputError
from auditflow.xbrl.model import CALCULATION, DEFINITION, PRESENTATION, Arc, Concept, RoleType
from auditflow.xbrl.qname import QName, namespace_family, namespace_year, standard_prefix

class SectionReader(Protocol):
    """Reads one lazily decoded part of the packed graph (the disk cache's reader)."""

    def read(self, name: str) -> Any: ...


# The packed layout, shared by the builder, the disk cache and this query API.
CODE_VERSION = "3"  # bump whenever the packed layout or the build rules change
STANDARD_LABEL = "http://www.xbrl.org/2003/role/label"
KINDS = (CALCULATION, DEFINITION, PRESENTATION)
EDGE_COLS = ("src", "tgt", "kind", "arcrole", "role", "order", "weight", "pref", "trole", "closed", "ctx", "usable", "doc")
# Parts of the cache a warm run decodes only when a query needs them (see taxonomy_store._write_cache).
LAZY_SECTIONS = ("nodes", "rows", "strings", "edges", "out_start", "in_perm", "in_start", "labels", "roles")
_LAZY_ATTRS = ("_nodes", "_rows", "_strings", "_labels", "_e", "_out_start", "_in_perm", "_in_start")


def _split_clark(clark: str) -> tuple[str, str]:
    """(namespace, local name) of a clark string; ``("", name)`` without a namespace."""
    if clark.startswith("{"):
        ns, _, local = clark[1:].partition("}")
        return ns, local
    return "", clark


def _ints(b: bytes) -> array:
    a = array("i")
    a.frombytes(b)
    return a


def _bridge_note(src_ns: str, dst_ns: str) -> str:
    name = standard_prefix(src_ns) or namespace_family(src_ns)
    return f"{name} {src_ns.rsplit('/', 1)[-1]} concept bridged to the {dst_ns.rsplit('/', 1)[-1]} taxonomy by local name"


class TaxonomyGraph:
    """Concepts and effective relationships of the standard taxonomies.

    Queries accept filing QNames: a concept of another year of the same taxonomy (us-gaap 2023) is
    bridged by local name to the taxonomy's node (us-gaap 2024); results are taxonomy QNames.
    """

    def __init__(self, data: dict, *, from_cache: bool = False, cache_file: Path | None = None,
                 sections: SectionReader | None = None, rebuild: Callable[[], dict] | None = None) -> None:
        self.from_cache, self.cache_file = from_cache, cache_file
        self._sections, self._rebuild = sections, rebuild
        self._adopt(data)

    def _adopt(self, data: dict) -> None:
        """(Re)set every field from ``data``; lazily decoded parts are dropped so they decode again."""
        for name in _LAZY_ATTRS:
            self.__dict__.pop(name, None)
        self._data = data
        self.fingerprint: str = data["fingerprint"]
        self.warnings: list[str] = list(data["warnings"])
        # Node numbers are positions in the sorted clark names (``_nodes``, decoded only when a query
        # needs them all); name lookups go through ``_groups``, split per namespace on first use.
        self._size: int = data["counts"]["concepts"]
        self._groups: list[tuple[str, int, str]] | None = data["groups"]
        self._group_at = {ns: (start, joined) for ns, start, joined in self._groups or ()}
        self._starts = [start for _, start, _ in self._groups or ()]
        self._group_locals: dict[str, list[str]] = {}
        self._namespaces: list[str] = data["namespaces"]
        self._namespace_set = frozenset(self._namespaces)
        self._ns_prefixes: dict[str, str | None] = data["ns_prefixes"]
        self._odd_prefixes: dict[int, str | None] = data["odd_prefixes"]
        self._qnames: list[QName | None] = [None] * self._size
        self._concepts: dict[int, Concept] = {}
        self._decimals: dict[int, Decimal] = {}
        self._preference: dict[str, tuple[str, ...]] = {}  # filing namespace -> taxonomy namespaces to try
        self._search: list[tuple[int, str, str]] | None = None
        self._roles: dict[str, RoleType] | None = None
        self._nx = None

    # -- lazily decoded parts ------------------------------------------------------------------------
    # A warm run only bridges the filing's concepts (node names); the concept rows, edges, labels
    # and roles are read from the cache file on the first query that needs them.
    def _section(self, name: str):
        if name in self._data:  # a freshly built (or rebuilt) graph holds everything decoded
            return self._data[name]
        try:
            return self._sections.read(name)
        except Exception as exc:  # noqa: BLE001 - damaged, replaced or tampered with: a cache miss, late
            if self._rebuild is None:
                raise InputError(f"the taxonomy graph cache is damaged ({name}: {exc}); delete the file and run again",
                                 path=str(self.cache_file) if self.cache_file else None) from None
            data = self._rebuild()
            self._adopt(data)
            self.from_cache = False
            self.warnings.append(f"the taxonomy graph cache {self.cache_file} was damaged ({name}: {exc}); rebuilt it")
            return data[name]

    def _exact(self, q: QName) -> int | None:
        """The node of ``q`` itself; most filings report in another year's namespace than the graph
        holds, and a namespace the graph lacks needs no search."""
        return self._find_in(q.namespace, q.local) if q.namespace in self._namespace_set else None

    def _find_in(self, ns: str, local: str) -> int | None:
        """The node number of a name (binary search in its namespace's sorted local names: a warm
        run looks up a few hundred names and should not build a 28,000-entry dict first)."""
        if self._groups is None:
            nodes, clark = self._nodes, f"{{{ns}}}{local}" if ns else local
            i = bisect_left(nodes, clark)
            return i if i < len(nodes) and nodes[i] == clark else None
        group = self._group_at.get(ns)
        if group is None:
            return None
        names = self._locals(ns)
        j = bisect_left(names, local)
        return group[0] + j if j < len(names) and names[j] == local else None

    def _locals(self, ns: str) -> list[str]:
        names = self._group_locals.get(ns)
        if names is None:
            names = self._group_locals[ns] = self._group_at[ns][1].split("\n")
        return names

    def _name(self, i: int) -> tuple[str, str]:
        """(namespace, local name) of node ``i``."""
        if self._groups is None:
            return _split_clark(self._nodes[i])
        ns, start, _ = self._groups[bisect_right(self._starts, i) - 1]
        return ns, self._locals(ns)[i - start]

    @cached_property
    def _nodes(self) -> list[str]:
        return self._section("nodes")

    @cached_property
    def _rows(self) -> list[tuple]:
        return self._section("rows")

    @cached_property
    def _strings(self) -> list[str]:
        return self._section("strings")

    @cached_property
    def _labels(self) -> dict[int, tuple]:
        return self._section("labels")

    @cached_property
    def _e(self) -> dict[str, array]:
        return {k: _ints(v) for k, v in self._section("edges").items()}

    @cached_property
    def _out_start(self) -> array:
        return _ints(self._section("out_start"))

    @cached_property
    def _in_perm(self) -> array:
        return _ints(self._section("in_perm"))

    @cached_property
    def _in_start(self) -> array:
        return _ints(self._section("in_start"))

    # -- nodes ------------------------------------------------------------------------------------------
    def _qname(self, i: int) -> QName:
        q = self._qnames[i]
        if q is None:
            ns, local = self._name(i)
            prefix = self._odd_prefixes[i] if i in self._odd_prefixes else self._ns_prefixes.get(ns)
            q = self._qnames[i] = QName(ns, local, prefix)
        return q

    def _concept(self, i: int) -> Concept:
        c = self._concepts.get(i)
        if c is None:
            p, cid, bal, pt, dt, ab, sg, nl, src = self._rows[i]
            c = self._concepts[i] = Concept(self._qname(i), cid, bal, pt, dt, ab, sg, nl, src)
        return c

    def _nearest(self, q: QName) -> int | None:
        """Same family and local name, nearest year (ties go to the newer taxonomy).

        Looks the local name up in each namespace of the family, best year first, instead of
        indexing all ~28,000 nodes by (family, local name): a warm run bridges a few hundred
        concepts and should not pay for an index over the whole taxonomy.
        """
        order = self._preference.get(q.namespace)
        if order is None:
            order = self._preference[q.namespace] = self._namespace_preference(q.namespace)
        for ns in order:
            i = self._find_in(ns, q.local)
            if i is not None:
                return i
        return None

    def _namespace_preference(self, namespace: str) -> tuple[str, ...]:
        """The graph's namespaces of ``namespace``'s family, in the order ``_nearest`` prefers them:
        nearest year, then newer year, then node order (clark order, as ``min`` over nodes had it)."""
        fam, year = namespace_family(namespace), namespace_year(namespace) or 0

        def rank(ns: str) -> tuple:
            y = namespace_year(ns) or 0
            return (abs(y - year), -y, f"{{{ns}}}")

        return tuple(sorted((ns for ns in self._namespaces if namespace_family(ns) == fam), key=rank))

    def _node(self, q: QName | str) -> int | None:
        q = QName.from_clark(q) if isinstance(q, str) else q
        i = self._exact(q)
        return i if i is not None else self._nearest(q)

    def bridged(self, q: QName) -> QName | None:
        """``bridge(q)[0]`` without composing the note (the environment bridges every concept of a
        filing and records year mismatches once per namespace instead)."""
        i = self._exact(q)
        if i is None:
            i = self._nearest(q)
        return None if i is None else self._qname(i)

    def bridge(self, q: QName) -> tuple[QName | None, str | None]:
        """The taxonomy's QName for ``q`` and, when another year's concept was matched, why."""
        i = self._exact(q)
        if i is not None:
            return self._qname(i), None
        j = self._nearest(q)
        if j is None:
            return None, None
        t = self._qname(j)
        return t, _bridge_note(q.namespace, t.namespace)

    def concept(self, q: QName | str) -> Concept | None:
        i = self._node(q)
        return None if i is None else self._concept(i)

    def __contains__(self, q: QName) -> bool:
        return self._node(q) is not None

    def __len__(self) -> int:
        return self._size

    def counts(self) -> dict[str, int]:
        return dict(self._data["counts"])

    # -- relationships ------------------------------------------------------------------------------------
    def _dec(self, sid: int) -> Decimal | None:
        if sid < 0:
            return None
        d = self._decimals.get(sid)
        if d is None:
            d = self._decimals[sid] = Decimal(self._strings[sid])
        return d

    def _edges(self, q: QName | str, kind: int, role: str | None, incoming: bool = False) -> list[int]:
        i = self._node(q)
        if i is None:
            return []
        e, st = self._e, self._in_start if incoming else self._out_start
        idx = self._in_perm[st[i]:st[i + 1]] if incoming else range(st[i], st[i + 1])
        return [x for x in idx if e["kind"][x] == kind and (role is None or self._strings[e["role"][x]] == role)]

    def _str(self, sid: int) -> str | None:
        return None if sid < 0 else self._strings[sid]

    def calc_children(self, q: QName, role: str | None = None) -> list[tuple[str, QName, Decimal | None, Decimal]]:
        """(role, child, weight, order) of the summation-item arcs leaving ``q``, ordered by role, order."""
        e = self._e
        return [(self._strings[e["role"][x]], self._qname(e["tgt"][x]), self._dec(e["weight"][x]), self._dec(e["order"][x]))
                for x in self._edges(q, 0, role)]

    def calc_parents(self, q: QName, role: str | None = None) -> list[tuple[str, QName, Decimal | None, Decimal]]:
        """(role, parent, weight, order) of the summation-item arcs reaching ``q``."""
        e = self._e
        return [(self._strings[e["role"][x]], self._qname(e["src"][x]), self._dec(e["weight"][x]), self._dec(e["order"][x]))
                for x in self._edges(q, 0, role, incoming=True)]

    def presentation_children(self, q: QName, role: str | None = None) -> list[tuple[str, QName, Decimal, str | None]]:
        """(role, child, order, preferred label) of the parent-child arcs leaving ``q``."""
        e = self._e
        return [(self._strings[e["role"][x]], self._qname(e["tgt"][x]), self._dec(e["order"][x]), self._str(e["pref"][x]))
                for x in self._edges(q, 2, role)]

    def _arc(self, x: int) -> Arc:
        e = self._e
        closed = e["closed"][x]
        return Arc(
            kind=KINDS[e["kind"][x]], arcrole=self._strings[e["arcrole"][x]], role=self._strings[e["role"][x]],
            source=self._qname(e["src"][x]), target=self._qname(e["tgt"][x]), order=self._dec(e["order"][x]),
            weight=self._dec(e["weight"][x]), preferred_label=self._str(e["pref"][x]), target_role=self._str(e["trole"][x]),
            closed=None if closed < 0 else bool(closed), context_element=self._str(e["ctx"][x]),
            usable=bool(e["usable"][x]), document=self._str(e["doc"][x]) or "",
        )

    def definition_arcs(self, q: QName, arcrole: str | None = None, role: str | None = None, *, incoming: bool = False) -> list[Arc]:
        """Definition arcs leaving (or, with ``incoming``, reaching) ``q``, optionally by arcrole and role."""
        return [a for a in (self._arc(x) for x in self._edges(q, 1, role, incoming)) if arcrole is None or a.arcrole == arcrole]

    def labels(self, q: QName) -> dict[str, str]:
        i = self._node(q)
        return {} if i is None else {self._strings[r]: t for r, t in self._labels.get(i, ())}

    def roles(self) -> dict[str, RoleType]:
        if self._roles is None:
            self._roles = {u: RoleType(u, d, tuple(used)) for u, d, used in self._section("roles")}
        return dict(self._roles)

    # -- search -------------------------------------------------------------------------------------------
    def search(self, text: str, limit: int = 10) -> list[QName]:
        """Concepts whose local name or standard label contains ``text`` (case-insensitive), best
        first; topped up with difflib's close matches of the local name for typos."""
        needle = " ".join(text.lower().split())
        if not needle:
            return []
        if self._search is None:
            std = self._strings.index(STANDARD_LABEL) if STANDARD_LABEL in self._strings else -2
            self._search = [(i, c.rsplit("}", 1)[-1].lower(), next((t.lower() for r, t in self._labels.get(i, ()) if r == std), ""))
                            for i, c in enumerate(self._nodes)]
        squashed = needle.replace(" ", "")
        scored = []
        for i, local, label in self._search:
            rank = (0 if local == squashed else 1 if local.startswith(squashed) else 2 if squashed in local
                    else 3 if needle in label else None)
            if rank is not None:
                scored.append((rank, len(local), -(namespace_year(self._qname(i).namespace) or 0), local, i))
        hits = [i for *_, i in sorted(scored)][:limit]
        if len(hits) < limit:
            by_local: dict[str, list[int]] = {}
            for i, local, _ in self._search:
                by_local.setdefault(local, []).append(i)
            import difflib  # only for a search that falls short: a tenth of the module's import

            for m in difflib.get_close_matches(squashed, list(by_local), n=limit, cutoff=0.7):
                hits.extend(i for i in by_local[m] if i not in hits)
        return [self._qname(i) for i in hits[:limit]]

    # -- networkx -----------------------------------------------------------------------------------------
    @property
    def nx(self):
        """A ``networkx.MultiDiGraph`` view (nodes: clark strings with a ``concept`` attr), built on
        first access because the query API does not need it and building it costs ~a second."""
        if self._nx is None:
            import networkx

            g = networkx.MultiDiGraph()
            g.add_nodes_from((c, {"concept": self._concept(i)}) for i, c in enumerate(self._nodes))
            attrs = ("kind", "arcrole", "role", "order", "weight", "preferred_label", "target_role", "closed", "context_element", "usable")
            g.add_edges_from(
                (a.source.clark(), a.target.clark(), {k: getattr(a, k) for k in attrs})
                for a in (self._arc(x) for x in range(len(self._e["src"])))
            )
            self._nx = g
        return self._nx

