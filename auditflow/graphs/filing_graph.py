"""The dynamic graph of one filing: facts, contexts, units and the filer's own relationships.

Nodes are tuples ``(kind, key)`` so the same networkx graph can hold every kind without collisions:
``("fact", fact.key)``, ``("context", id)``, ``("unit", id)``, ``("concept", clark)``. Edges carry a
``rel`` attribute: ``context``, ``unit``, ``concept`` (the bridge from a fact to what it reports),
or the linkbase kind for concept-to-concept relationships.
"""
from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING


from auditflow.xbrl.filing import Filing

if TYPE_CHECKING:
    import networkx as nx
from auditflow.xbrl.model import SUMMATION_ITEMS, Arc, Fact, Period


def fact_node(f: Fact) -> tuple[str, str]:
    return ("fact", f.key)


def concept_node(clark: str) -> tuple[str, str]:
    return ("concept", clark)


def build_filing_graph(filing: Filing) -> "nx.MultiDiGraph":
    import networkx as nx  # imported here: commands that only run the rules never need it

    g = nx.MultiDiGraph()
    g.add_nodes_from((("context", cid), {"context": c}) for cid, c in filing.contexts.items())
    g.add_nodes_from((("unit", uid), {"unit": u}) for uid, u in filing.units.items())
    g.add_nodes_from((concept_node(q.clark()), {"concept": c}) for q, c in filing.concepts.items())
    fact_nodes, edges = [], []
    for f in filing.facts:
        n = fact_node(f)
        fact_nodes.append((n, {"fact": f}))
        edges.append((n, ("context", f.context_id), {"rel": "context"}))
        if f.unit_id:
            edges.append((n, ("unit", f.unit_id), {"rel": "unit"}))
        edges.append((n, concept_node(f.concept.clark()), {"rel": "concept"}))
    g.add_nodes_from(fact_nodes)
    for a in filing.arcs:
        edges.append((concept_node(a.source.clark()), concept_node(a.target.clark()), {"rel": a.kind, "arc": a}))
    g.add_edges_from(edges)
    return g


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
        for a in filing.arcs:
            if a.arcrole in SUMMATION_ITEMS:
                self.calc_down[(a.role, a.source)].append(a)
                self.calc_up[a.target].append(a)
            elif a.kind == "presentation":
                self.pre_down[(a.role, a.source)].append(a)
        self.calc_roles = sorted({a.role for a in filing.arcs if a.arcrole in SUMMATION_ITEMS})
        self.pre_roles = sorted({a.role for a in filing.arcs if a.kind == "presentation"})
        self.pre_concepts: dict[str, set] = defaultdict(set)
        for a in filing.arcs:
            if a.kind == "presentation":
                self.pre_concepts[a.role].update((a.source, a.target))

    def period(self, f: Fact) -> Period:
        return self.filing.contexts[f.context_id].period

    def calc_children(self, concept, role: str | None = None) -> list[Arc]:
        if role is not None:
            return sorted(self.calc_down.get((role, concept), []), key=lambda a: a.order)
        return [a for r in self.calc_roles for a in sorted(self.calc_down.get((r, concept), []), key=lambda a: a.order)]

    def calc_parents(self, concept, role: str | None = None) -> list[Arc]:
        return [a for a in self.calc_up.get(concept, []) if role is None or a.role == role]
