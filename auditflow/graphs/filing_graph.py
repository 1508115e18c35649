"""The dynamic graph of one filing: facts, contexts, units and the filer's own relationships.

Nodes are tuples ``(kind, key)`` so the same networkx graph can hold every kind without collisions:
``("fact", fact.key)``, ``("context", id)``, ``("unit", id)``, ``("concept", clark)``. Edges carry a
``rel`` attribute: ``context``, ``unit``, ``concept`` (the bridge from a fact to what it reports),
or the linkbase kind for concept-to-concept relationships.
"""
from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Iterable


from auditflow.xbrl.filing import Filing

if TYPE_CHECKING:
    import networkx as nx
from auditflow.xbrl.model import SUMMATION_ITEMS, Arc, Fact, Period


def fact_node(f: Fact) -> tuple[str, str]:
    return ("fact", f.key)


def concept_node(clark: str) -> tuple[str, str]:
    return ("concept", clark)


def build_filing_graph(filing: Filing, extra_edges: Iterable[tuple] = ()) -> "nx.MultiDiGraph":
    """The filing's networkx graph; ``extra_edges`` (u, v, attrs) are added last (the environment's
    bridges to the taxonomy). Nodes and edges are generated, not listed: each (node, attrs) or
    (u, v, attrs) tuple is dropped as soon as it is stored, which keeps thousands of temporaries
    from piling up (and from triggering the garbage collector)."""
    # QName object -> its concept node. Keyed by id(): a QName's own hash is a Python-level call,
    # dearer than the clark() it would save; equal QNames that are distinct objects just get an entry each.
    clark: dict[int, tuple[str, str]] = {}
    for q in (*(f.concept for f in filing.facts), *(x for a in filing.arcs for x in (a.source, a.target))):
        if id(q) not in clark:
            clark[id(q)] = concept_node(q.clark())

    def nodes():
        yield from ((("context", cid), {"context": c}) for cid, c in filing.contexts.items())
        yield from ((("unit", uid), {"unit": u}) for uid, u in filing.units.items())
        yield from ((concept_node(q.clark()), {"concept": c}) for q, c in filing.concepts.items())
        yield from ((("fact", f.key), {"fact": f}) for f in filing.facts)

    def edges():
        for f in filing.facts:
            n = ("fact", f.key)
            yield n, ("context", f.context_id), {"rel": "context"}
            if f.unit_id:
                yield n, ("unit", f.unit_id), {"rel": "unit"}
            yield n, clark[id(f.concept)], {"rel": "concept"}
        for a in filing.arcs:
            yield clark[id(a.source)], clark[id(a.target)], {"rel": a.kind, "arc": a}
        yield from extra_edges

    return multidigraph(nodes(), edges(), fresh=True)


def multidigraph(nodes: Iterable[tuple], edges: Iterable[tuple], *, fresh: bool = False) -> "nx.MultiDiGraph":
    """``MultiDiGraph()`` + ``add_nodes_from(nodes)`` + ``add_edges_from(edges)``, built faster.

    networkx's add_edges_from costs ~9 µs an edge on a multigraph (each edge goes through add_edge,
    new_edge_key and the graph views again), which made the filing graph a fifth of a warm load.
    This fills networkx's documented dict-of-dicts layout (``_node``, ``_succ``/``_adj``, ``_pred``
    sharing one key dict per node pair) exactly as those calls do: same node order, nodes created
    on first mention, edge keys 0, 1, ... per node pair, a fresh attribute dict per edge.
    ``fresh=True`` says every attribute dict given is new and unshared, so it is stored as is instead
    of copied. tests/xbrl/test_load_speedups.py compares the result with the public-API build.
    """
    import networkx as nx  # imported here: commands that only run the rules never need it

    g = nx.MultiDiGraph()
    if not _plain_layout(g):
        g.add_nodes_from(nodes)
        g.add_edges_from(edges)
        return g
    node, succ, pred = g._node, g._succ, g._pred
    for n, attrs in nodes:
        if n in node:
            node[n].update(attrs)
        else:
            node[n], succ[n], pred[n] = attrs if fresh else dict(attrs), {}, {}
    for u, v, attrs in edges:
        if u not in node:
            node[u], succ[u], pred[u] = {}, {}, {}
        if v not in node:
            node[v], succ[v], pred[v] = {}, {}, {}
        keys = succ[u].get(v)
        if keys is None:
            keys = succ[u][v] = pred[v][u] = {}
        key = len(keys)
        while key in keys:
            key += 1
        keys[key] = attrs if fresh else dict(attrs)
    clear = getattr(nx, "_clear_cache", None)
    if clear is not None:
        clear(g)
    return g


def _plain_layout(g) -> bool:
    """True when ``g`` stores its nodes and adjacency in plain dicts, the layout ``multidigraph`` fills."""
    factories = ("node_dict_factory", "node_attr_dict_factory", "adjlist_outer_dict_factory", "adjlist_inner_dict_factory",
                 "edge_key_dict_factory", "edge_attr_dict_factory")
    return (all(getattr(type(g), f, None) is dict for f in factories)
            and all(type(getattr(g, a, None)) is dict for a in ("_node", "_succ", "_pred")) and g._adj is g._succ)


class FilingIndex:
    """Dict indexes over a filing for the queries tools and rules make thousands of times."""

    def __init__(self, filing: Filing) -> None:
        self.filing = filing
        self.by_concept: dict = defaultdict(list)
        for f in filing.facts:
            self.by_concept[f.concept].append(f)
        self.calc_down: dict = defaultdict(list)
        self.calc_up: dict = defaultdict(list)
        self.pre_down: dict = defaultdict(list)
        self.pre_concepts: dict[str, set] = defaultdict(set)
        calc_roles, pre_roles = set(), set()
        for a in filing.arcs:  # one pass: a filing has thousands of arcs
            if a.arcrole in SUMMATION_ITEMS:
                self.calc_down[(a.role, a.source)].append(a)
                self.calc_up[a.target].append(a)
                calc_roles.add(a.role)
            elif a.kind == "presentation":
                self.pre_down[(a.role, a.source)].append(a)
            if a.kind == "presentation":
                pre_roles.add(a.role)
                pre = self.pre_concepts[a.role]
                pre.add(a.source)
                pre.add(a.target)
        self.calc_roles = sorted(calc_roles)
        self.pre_roles = sorted(pre_roles)

    def period(self, f: Fact) -> Period:
        return self.filing.contexts[f.context_id].period

    def calc_children(self, concept, role: str | None = None) -> list[Arc]:
        if role is not None:
            return sorted(self.calc_down.get((role, concept), []), key=lambda a: a.order)
        return [a for r in self.calc_roles for a in sorted(self.calc_down.get((r, concept), []), key=lambda a: a.order)]

    def calc_parents(self, concept, role: str | None = None) -> list[Arc]:
        return [a for a in self.calc_up.get(concept, []) if role is None or a.role == role]
