"""Building the taxonomy graph: every linkbase of every package read once into packed arrays.

The packed form (a string table, concept rows and edge columns) is what :mod:`auditflow.graphs.taxonomy_store`
writes to disk and :class:`auditflow.graphs.taxonomy_graph.TaxonomyGraph` queries.
"""
from __future__ import annotations

import re
from array import array
from collections import Counter
from typing import TYPE_CHECKING, Callable
from urllib.parse import urljoin

from auditflow.errors import InputError
from auditflow.graphs.taxonomy_graph import CODE_VERSION, EDGE_COLS, KINDS, TaxonomyGraph, _split_clark
from auditflow.xbrl.model import Arc, Concept, Label, RoleType
from auditflow.xbrl.packages import TaxonomySet, canonical_url

if TYPE_CHECKING:  # the linkbase reader is imported where a cold build reads linkbases
    from auditflow.xbrl.linkbase import LinkbaseContent

_SKIP_NAME = re.compile(r"[-_](ref|doc)[-_.]")  # reference/documentation linkbases: huge and unused here
_LINKBASE_NAME = re.compile(r"-(cal|def|pre|lab)-")

# progress(done, total, what): called as files are read during a cold build
Progress = Callable[[int, int, str], None]


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

