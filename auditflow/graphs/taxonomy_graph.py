"""The STATIC taxonomy graph: what the standard taxonomies say, independent of any filing.

Rules compare a filing with the published taxonomies (calculation parents, dimension defaults,
presentation groups), so every calculation/definition/presentation/label linkbase of every package
is read once into one graph of concepts. Reading ~45 MB of XML takes seconds, but a verifier runs
often, so the result is cached on disk in a compact, code-free form (string table + int arrays) that
loads in milliseconds; the query API runs on those arrays and the networkx view is built only when
asked for.
"""
from __future__ import annotations

import io
import os
import pickle
import re
import weakref
import zlib
from array import array
from collections import Counter
from decimal import Decimal
from bisect import bisect_left, bisect_right
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Callable
from urllib.parse import urljoin

from auditflow.cache_dir import default_cache_dir
from auditflow.errors import InputError
from auditflow.xbrl.model import CALCULATION, DEFINITION, PRESENTATION, Arc, Concept, Label, RoleType
from auditflow.xbrl.packages import TaxonomySet, canonical_url
from auditflow.xbrl.qname import QName, namespace_family, namespace_year, standard_prefix

if TYPE_CHECKING:  # the linkbase reader is imported where a cold build reads linkbases
    from auditflow.xbrl.linkbase import LinkbaseContent

CODE_VERSION = "3"  # bump whenever the packed layout or the build rules change
STANDARD_LABEL = "http://www.xbrl.org/2003/role/label"
KINDS = (CALCULATION, DEFINITION, PRESENTATION)
EDGE_COLS = ("src", "tgt", "kind", "arcrole", "role", "order", "weight", "pref", "trole", "closed", "ctx", "usable", "doc")
_MAGIC = b"AFTAXGRAPH\x02\n"
# Parts of the cache a warm run decodes only when a query needs them (see ``_write_cache``).
LAZY_SECTIONS = ("nodes", "rows", "strings", "edges", "out_start", "in_perm", "in_start", "labels", "roles")
_LAZY_ATTRS = ("_nodes", "_rows", "_strings", "_labels", "_e", "_out_start", "_in_perm", "_in_start")
_SKIP_NAME = re.compile(r"[-_](ref|doc)[-_.]")  # reference/documentation linkbases: huge and unused here
_LINKBASE_NAME = re.compile(r"-(cal|def|pre|lab)-")

# progress(done, total, what): called as files are read during a cold build
Progress = Callable[[int, int, str], None]


# ---------------------------------------------------------------------------------------------------
# building
# ---------------------------------------------------------------------------------------------------
class _Builder:
    """Reads every source of a TaxonomySet; prohibition/override is applied per source (package)."""

    def __init__(self, tset: TaxonomySet, progress: Progress | None) -> None:
        self.tset, self.progress = tset, progress
        self.concepts: dict[str, Concept] = {}
        self.arcs: list[Arc] = []
        self.labels: dict[str, dict[str, tuple[int, str]]] = {}
        self.roles: dict[str, RoleType] = {}
        self.warnings: list[str] = []
        self.unresolved: list[str] = []
        self._joins: dict[tuple[str, str], str] = {}
        self._done, self._total = 0, 0

    def run(self) -> dict:
        from auditflow.xbrl.linkbase import LinkbaseContent, effective_arcs, read_links

        plan = []
        for src in self.tset.sources:
            files = [f for f in src.files() if not f.startswith("META-INF/") and not _SKIP_NAME.search(f.rsplit("/", 1)[-1])]
            plan.append((src, [f for f in files if f.endswith(".xsd")], [f for f in files if f.endswith(".xml")]))
        self._total = sum(len(s) + len(x) for _, s, x in plan)
        embedded = [self._schemas(src, xsds) for src, xsds, _ in plan]  # all schemas first: exact locators
        for (src, _, xmls), roots in zip(plan, embedded):
            content = LinkbaseContent()
            for rel in xmls:
                self._linkbase(src, rel, content)
            for url, root in roots:
                read_links(root, document=url, locate=self._locator(url), resolve=self.tset.concept_for_locator, into=content)
            self.arcs.extend(effective_arcs(content.arcs))
            self._add_labels(content.labels)
            self.unresolved.extend(content.unresolved_locators)
        if self.unresolved:
            sample = ", ".join(sorted(set(self.unresolved))[:3])
            self.warnings.append(f"{len(self.unresolved)} locators name no known concept and were dropped (e.g. {sample})")
        return _pack(self)

    def _tick(self, what: str) -> None:
        self._done += 1
        if self.progress is not None:
            self.progress(self._done, self._total, what)

    def _schemas(self, src, xsds: list[str]) -> list[tuple[str, object]]:
        """Concepts and role types of every schema; returns the roots that embed linkbases."""
        from auditflow.xbrl.safexml import parse_xml  # a cold build only: a warm run imports no lxml
        from auditflow.xbrl.schema import read_schema

        embedded = []
        for rel in xsds:
            self._tick(src.describe(rel))
            url = src.url_for(rel) or src.describe(rel)
            try:
                root = parse_xml(src.read_member(rel), name=src.describe(rel))
            except InputError as exc:  # a broken file is reported, the rest of the taxonomy still loads
                self.warnings.append(str(exc))
                continue
            info = read_schema(root, location=url)
            hit = self.tset.locate(url)
            if hit is not None and hit[0] is src and hit[1] == rel:
                self.tset.remember_schema(url, info)
            for c in info.by_name.values():
                self.concepts.setdefault(c.qname.clark(), c)
            for uri, rt in info.roles.items():
                self.roles.setdefault(uri, rt)
            if info.has_embedded_linkbases:
                embedded.append((url, root))
        return embedded

    def _linkbase(self, src, rel: str, content: LinkbaseContent) -> None:
        from auditflow.xbrl.linkbase import read_links
        from auditflow.xbrl.safexml import parse_xml

        self._tick(src.describe(rel))
        try:
            data = src.read_member(rel)
            if not _LINKBASE_NAME.search(rel) and b"linkbase" not in data[:4096]:
                return
            root = parse_xml(data, name=src.describe(rel))
        except InputError as exc:
            self.warnings.append(str(exc))
            return
        if isinstance(root.tag, str) and root.tag.endswith("}linkbase"):
            url = src.url_for(rel) or src.describe(rel)
            read_links(root, document=url, locate=self._locator(url), resolve=self.tset.concept_for_locator, into=content)

    def _locator(self, base: str) -> Callable[[str], tuple[str, str]]:
        """href -> (canonical schema URL, fragment), joining each distinct document href once."""
        joins = self._joins

        def locate(href: str) -> tuple[str, str]:
            doc, _, frag = href.partition("#")
            url = joins.get((base, doc))
            if url is None:
                url = joins[(base, doc)] = canonical_url(urljoin(base, doc))
            return url, frag

        return locate

    def _add_labels(self, labels: list[Label]) -> None:
        for lab in labels:
            rank = 0 if lab.lang.lower() == "en-us" else 1 if lab.lang.lower().startswith("en") else 2
            per = self.labels.setdefault(lab.concept.clark(), {})
            if lab.role not in per or rank < per[lab.role][0]:
                per[lab.role] = (rank, lab.text)
            if lab.concept.clark() not in self.concepts:
                self.concepts[lab.concept.clark()] = Concept(qname=lab.concept, source="locator")


def _pack(b: _Builder) -> dict:
    """Turn the builder's objects into builtins only (str/int/bytes/tuples): fast and safe to unpickle."""
    for a in b.arcs:
        for q in (a.source, a.target):
            if q.clark() not in b.concepts:
                b.concepts[q.clark()] = Concept(qname=q, source="locator")
    nodes = sorted(b.concepts)
    index = {c: i for i, c in enumerate(nodes)}
    strings: list[str] = []
    sidx: dict[str, int] = {}

    def s(v: str | None) -> int:
        if v is None:
            return -1
        i = sidx.get(v)
        if i is None:
            i = sidx[v] = len(strings)
            strings.append(v)
        return i

    interned: dict = {}
    rows = [tuple(interned.setdefault(v, v) for v in _concept_row(b.concepts[c])) for c in nodes]
    keyed = sorted(
        ((index[a.source.clark()], KINDS.index(a.kind), a.role, a.order, index[a.target.clark()], a) for a in b.arcs),
        key=lambda t: t[:5],
    )
    arcs = [t[5] for t in keyed]
    src, kind, tgt = [t[0] for t in keyed], [t[1] for t in keyed], [t[4] for t in keyed]
    columns = (src, tgt, kind, [s(a.arcrole) for a in arcs], [s(a.role) for a in arcs], [s(str(a.order)) for a in arcs],
               [s(None if a.weight is None else str(a.weight)) for a in arcs], [s(a.preferred_label) for a in arcs],
               [s(a.target_role) for a in arcs], [-1 if a.closed is None else int(a.closed) for a in arcs],
               [s(a.context_element) for a in arcs], [int(a.usable) for a in arcs], [s(a.document) for a in arcs])
    cols = {k: array("i", v) for k, v in zip(EDGE_COLS, columns)}
    in_perm = array("i", sorted(range(len(keyed)), key=lambda e: (tgt[e], kind[e], keyed[e][2], keyed[e][3], src[e])))
    labels = {index[c]: tuple((s(role), text) for role, (_, text) in sorted(per.items())) for c, per in b.labels.items()}
    kinds = [kind.count(k) for k in range(3)]
    return {
        "version": CODE_VERSION, "fingerprint": b.tset.fingerprint(), "nodes": nodes, "groups": _groups(nodes),
        "namespaces": _namespaces(nodes),
        **_prefixes(nodes, rows), "rows": rows, "strings": strings,
        "edges": {k: v.tobytes() for k, v in cols.items()},
        "out_start": _starts(cols["src"], len(nodes)).tobytes(), "in_perm": in_perm.tobytes(),
        "in_start": _starts([tgt[e] for e in in_perm], len(nodes)).tobytes(),
        "labels": labels, "roles": [(r.uri, r.definition, r.used_on) for r in b.roles.values()],
        "warnings": b.warnings,
        "counts": {"concepts": len(nodes), "calc_arcs": kinds[0], "def_arcs": kinds[1], "pre_arcs": kinds[2],
                   "labels": sum(len(v) for v in labels.values())},
    }


def _split_clark(clark: str) -> tuple[str, str]:
    """(namespace, local name) of a clark string; ``("", name)`` without a namespace."""
    if clark.startswith("{"):
        ns, _, local = clark[1:].partition("}")
        return ns, local
    return "", clark


def _groups(nodes: list[str]) -> list[tuple[str, int, str]] | None:
    """The sorted node names as (namespace, first node number, its local names joined by newlines),
    one entry per namespace: a warm run splits only the namespaces it looks names up in (us-gaap,
    srt, dei...) instead of unpickling all ~28,000 names. None when a namespace's nodes are not
    contiguous (names without a namespace can sort on both sides of "{"), in which case lookups
    search the full list."""
    out: list[tuple[str, int, list[str]]] = []
    seen: set[str] = set()
    for i, clark in enumerate(nodes):
        ns, local = _split_clark(clark)
        if out and out[-1][0] == ns:
            out[-1][2].append(local)
            continue
        if ns in seen:
            return None
        seen.add(ns)
        out.append((ns, i, [local]))
    return [(ns, start, "\n".join(names)) for ns, start, names in out]


def _namespaces(nodes: list[str]) -> list[str]:
    """The distinct namespaces of the nodes, so bridging by local name need not scan every node."""
    return sorted({_split_clark(c)[0] for c in nodes})


def _prefixes(nodes: list[str], rows: list[tuple]) -> dict:
    """Each node's prefix as ``ns_prefixes[namespace]`` (the usual one) unless ``odd_prefixes[node]``
    says otherwise: naming a bridged concept then needs no concept rows, which a warm run skips."""
    counts: dict[str, Counter] = {}
    for clark, row in zip(nodes, rows):
        counts.setdefault(_split_clark(clark)[0], Counter())[row[0]] += 1
    usual = {ns: c.most_common(1)[0][0] for ns, c in counts.items()}
    odd = {i: row[0] for i, (clark, row) in enumerate(zip(nodes, rows)) if row[0] != usual[_split_clark(clark)[0]]}
    return {"ns_prefixes": usual, "odd_prefixes": odd}


def _concept_row(c: Concept) -> tuple:
    return (c.qname.prefix, c.id, c.balance, c.period_type, c.data_type, c.abstract, c.substitution_group, c.nillable, c.source)


def _starts(keys: list[int], n: int) -> array:
    """CSR offsets: edges of node i are [starts[i], starts[i+1]) in a list sorted by node."""
    starts = array("i", bytes(4 * (n + 1)))
    for k in keys:
        starts[k + 1] += 1
    for i in range(n):
        starts[i + 1] += starts[i]
    return starts


def build_taxonomy_graph(tset: TaxonomySet, *, progress: Progress | None = None) -> TaxonomyGraph:
    """Read every linkbase and element schema of ``tset`` into a graph (the slow, cold path)."""
    return TaxonomyGraph(_Builder(tset, progress).run())


# ---------------------------------------------------------------------------------------------------
# querying
# ---------------------------------------------------------------------------------------------------
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
                 sections: "_Sections | None" = None, rebuild: Callable[[], dict] | None = None) -> None:
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


# ---------------------------------------------------------------------------------------------------
# disk cache
# ---------------------------------------------------------------------------------------------------
class _BuiltinsOnly(pickle.Unpickler):
    """The cache holds builtins only, so refusing every global makes a tampered file inert."""

    def find_class(self, module: str, name: str):
        raise pickle.UnpicklingError(f"the taxonomy cache may not reference {module}.{name}")


def cache_path(cache_dir: Path, fingerprint: str) -> Path:
    return Path(cache_dir) / f"taxonomy-graph-v{CODE_VERSION}-{fingerprint[:32]}.pickle"


# File layout: _MAGIC, CRC-32 of the head (4 bytes), head length (8 bytes), the head pickle, then each
# section's pickle. The head holds the node names and a table {section: (offset, length, CRC-32)}.
# The checksums only catch damage (a truncated or overwritten file) and are ~4x cheaper than sha256;
# safety against a tampered file comes from the builtins-only unpickler. A warm run reads the head
# (~2 of ~8 MB); a section is read and checked when a query first needs it.
_HEAD = len(_MAGIC) + 12


def _frame(head: bytes) -> bytes:
    """The file's start: magic, the head's checksum and length, the head."""
    return _MAGIC + zlib.crc32(head).to_bytes(4, "big") + len(head).to_bytes(8, "big") + head


class _Sections:
    """Reads sections from the cache file opened at load time. Reading through that open file, not
    the path, means a cache rewritten by another process meanwhile (os.replace) cannot mix files."""

    def __init__(self, fh, base: int, table: dict) -> None:
        self._fh, self._base, self._table = fh, base, table
        weakref.finalize(self, fh.close)

    def read(self, name: str):
        offset, length, crc = self._table[name]
        self._fh.seek(self._base + offset)
        raw = self._fh.read(length)
        if len(raw) != length or zlib.crc32(raw) != crc:
            raise ValueError("checksum mismatch")
        return _BuiltinsOnly(io.BytesIO(raw)).load()


def _read_cache(path: Path, fingerprint: str) -> tuple[dict, _Sections] | None:
    """The cached head and a reader for its sections, or None when missing, corrupt (checksum
    mismatch), stale or unreadable."""
    fh = None
    try:
        fh = open(path, "rb")  # noqa: SIM115 - kept open by _Sections for lazy reads
        start = fh.read(_HEAD)
        if len(start) != _HEAD or start[: len(_MAGIC)] != _MAGIC:
            raise ValueError("not a taxonomy graph cache")
        crc, length = int.from_bytes(start[len(_MAGIC):len(_MAGIC) + 4], "big"), int.from_bytes(start[len(_MAGIC) + 4:], "big")
        head = fh.read(length)
        if len(head) != length or zlib.crc32(head) != crc:
            raise ValueError("damaged head")
        data = _BuiltinsOnly(io.BytesIO(head)).load()
        size = os.fstat(fh.fileno()).st_size
        if not (isinstance(data, dict) and data.get("version") == CODE_VERSION and data.get("fingerprint") == fingerprint
                and _valid_table(data.get("sections"), size - _HEAD - length)):
            raise ValueError("stale or malformed")
        return data, _Sections(fh, _HEAD + length, data.pop("sections"))
    except Exception:  # noqa: BLE001 - any unreadable cache is simply rebuilt
        if fh is not None:
            fh.close()
        return None


def _valid_table(table, room: int) -> bool:
    """Every lazy section listed, each inside the file."""
    return (isinstance(table, dict) and all(
        isinstance(table.get(k), tuple) and len(table[k]) == 3 and all(isinstance(x, int) and x >= 0 for x in table[k])
        and table[k][0] + table[k][1] <= room for k in LAZY_SECTIONS))


def _write_cache(path: Path, data: dict) -> str | None:
    """Write atomically (temp file + os.replace); returns a warning instead of failing the run."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        blobs = [pickle.dumps(data[k], protocol=5) for k in LAZY_SECTIONS]
        table, offset = {}, 0
        for k, blob in zip(LAZY_SECTIONS, blobs):
            table[k] = (offset, len(blob), zlib.crc32(blob))
            offset += len(blob)
        head = pickle.dumps({**{k: v for k, v in data.items() if k not in LAZY_SECTIONS}, "sections": table}, protocol=5)
        import tempfile  # only to write an entry: a hit does not pay for its import (random, ...)

        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".taxonomy-graph-", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(_frame(head))
            for blob in blobs:
                fh.write(blob)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        return None
    except OSError as exc:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        return f"could not write the taxonomy graph cache {path}: {exc.strerror or exc}"


def load_taxonomy_graph(tset: TaxonomySet, *, cache_dir: Path | None = None, progress: Progress | None = None) -> TaxonomyGraph:
    """The taxonomy graph of ``tset``, from the disk cache when its fingerprint matches, else built
    (and cached). Default cache dir: ``$AUDITFLOW_CACHE_DIR`` or ``~/.cache/auditflow/taxonomy``."""
    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    _recall_fingerprint(tset, directory)
    fp = tset.fingerprint()
    path = cache_path(directory, fp)

    def rebuild() -> dict:
        """Build from the packages and rewrite the cache: also what a damaged section found later costs."""
        graph = build_taxonomy_graph(tset, progress=progress)
        _remember_fingerprint(tset, directory)
        problem = _write_cache(path, graph._data)
        if problem:
            graph._data["warnings"] = [*graph._data["warnings"], problem]
        return graph._data

    cached = _read_cache(path, fp)
    if cached is not None:
        try:
            return TaxonomyGraph(cached[0], from_cache=True, cache_file=path, sections=cached[1], rebuild=rebuild)
        except Exception:  # noqa: BLE001 - a cache from a buggy writer: rebuild rather than crash
            pass
    return TaxonomyGraph(rebuild(), cache_file=path)


def taxonomy_fingerprint(tset: TaxonomySet, cache_dir: Path | None = None) -> str:
    """``tset``'s content fingerprint, recalled from the memo in ``cache_dir`` when its files are
    unchanged (stat signature), else computed once and remembered."""
    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    if not tset.fingerprint_known:
        _recall_fingerprint(tset, directory)
        if not tset.fingerprint_known:
            tset.fingerprint()
            _remember_fingerprint(tset, directory)
    return tset.fingerprint()


def _memo_path(directory: Path, tset: TaxonomySet) -> Path:
    return directory / f"fingerprint-{tset.stat_signature()[:32]}.txt"


def _recall_fingerprint(tset: TaxonomySet, directory: Path) -> None:
    """Reuse the content fingerprint recorded for the same files (paths, sizes, mtimes): hashing
    ~50 MB of taxonomy on every run costs more than loading the cached graph itself."""
    try:
        fp = _memo_path(directory, tset).read_text().strip()
    except OSError:
        return
    if len(fp) == 64 and all(c in "0123456789abcdef" for c in fp):
        tset.adopt_fingerprint(fp)


def _remember_fingerprint(tset: TaxonomySet, directory: Path) -> None:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tmp = _memo_path(directory, tset).with_suffix(".tmp")
        tmp.write_text(tset.fingerprint())
        os.replace(tmp, _memo_path(directory, tset))
    except OSError:
        pass  # a read-only cache directory only costs the re-hash next time
