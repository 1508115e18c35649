"""The dual-graph audit environment: one filing joined to the taxonomy it reports against.

The filing graph (facts, contexts, units, the filer's relationships) and the static taxonomy graph
are kept as two graphs and joined by *bridge* edges from each concept the filing uses to the
taxonomy concept it means. A filing in the 2022/2023 us-gaap namespaces bridges to the 2024
taxonomy by local name; every such year mismatch is a recorded warning, never silent.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from auditflow.graphs.dimensions import Cube, DimensionIndex
from auditflow.graphs.filing_graph import FilingIndex, build_filing_graph, concept_node
from auditflow.xbrl.filing import Filing
from auditflow.xbrl.model import Concept, Fact, Warning_
from auditflow.xbrl.qname import QName, namespace_year, standard_prefix

if TYPE_CHECKING:
    import networkx as nx

    from auditflow.graphs.taxonomy_graph import TaxonomyGraph
    from auditflow.xbrl.packages import TaxonomySet


@dataclass
class AuditEnvironment:
    """One loaded filing with its indexes, joined to the taxonomy graph when one is given."""

    filing: Filing
    index: FilingIndex
    dims: DimensionIndex
    taxonomy: "TaxonomyGraph | None" = None
    bridges: dict[QName, QName] = field(default_factory=dict)  # filing concept -> taxonomy concept
    warnings: list[Warning_] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    _graph: "nx.MultiDiGraph | None" = field(default=None, repr=False)

    @property
    def filing_graph(self) -> "nx.MultiDiGraph":
        """The networkx filing graph with its bridge edges to the taxonomy, built on first use (unless the
        environment was made with ``eager_graph=True``): the rules, tools and audits read the indexes."""
        if self._graph is None:
            self._graph = build_filing_graph(self.filing, extra_edges=[
                (concept_node(q.clark()), ("taxonomy", t.clark()), {"rel": "bridge"}) for q, t in self.bridges.items()
            ])
        return self._graph

    # -- concepts --------------------------------------------------------------------------------
    def concept(self, q: QName) -> Concept | None:
        """The filer's view of a concept, completed from the taxonomy where the filer is silent."""
        own = self.filing.concepts.get(q)
        tx = self.taxonomy.concept(self.bridges.get(q, q)) if self.taxonomy is not None else None
        if own is None:
            return tx
        if tx is None or own.source == "schema":
            return own
        from dataclasses import replace

        return replace(
            tx, qname=own.qname, period_type=tx.period_type or own.period_type,
            source=tx.source if tx.source == "schema" else own.source,
        )

    # -- facts -----------------------------------------------------------------------------------
    def facts(self, concept: QName | None = None, *, period=None, dimensions: dict | None = None) -> list[Fact]:
        """Facts by concept, period (a Period) and exact dimensions ({} means no dimensions)."""
        pool = self.index.by_concept.get(concept, []) if concept is not None else self.filing.facts
        out = []
        for f in pool:
            ctx = self.filing.contexts[f.context_id]
            if period is not None and ctx.period != period:
                continue
            if dimensions is not None and dict(ctx.dimensions) != dimensions:
                continue
            out.append(f)
        return out

    def fact_history(self, concept: QName, dimensions: dict | None = None) -> list[Fact]:
        """The same concept and dimensions across every period the filing reports, oldest first."""
        facts = self.facts(concept, dimensions=dimensions if dimensions is not None else {})
        seen, unique = set(), []
        for f in facts:  # a number shown twice in a document is one point of history
            unit = self.filing.units.get(f.unit_id) if f.unit_id else None
            key = (self.index.period(f), unit.numerators if unit else None, f.value)
            if key not in seen:
                seen.add(key)
                unique.append(f)
        return sorted(unique, key=lambda f: (self.index.period(f).end or self.index.period(f).start, self.index.period(f).days, f.index))

    # -- roles and dimensions -----------------------------------------------------------------------
    def role_definition(self, uri: str) -> str:
        r = self.filing.roles.get(uri)
        return r.definition if r is not None else ""

    def statement_roles(self) -> list[str]:
        return sorted(u for u, r in self.filing.roles.items() if "- statement -" in r.definition.lower())

    def cubes(self, role: str | None = None) -> list[Cube]:
        return list(self.dims.by_role.get(role, [])) if role is not None else list(self.dims.cubes)

    def is_dimensionally_valid(self, fact: Fact, cube: Cube) -> bool:
        return cube.is_valid(fact.concept, self.filing.contexts[fact.context_id])

    def counts(self) -> dict[str, int]:
        f = self.filing
        return {
            "facts": len(f.facts),
            "numeric_facts": sum(1 for x in f.facts if x.is_numeric),
            "nil_facts": sum(1 for x in f.facts if x.is_nil),
            "contexts": len(f.contexts),
            "units": len(f.units),
            "concepts": len(f.concepts),
            "calculation_arcs": sum(1 for a in f.arcs if a.kind == "calculation"),
            "definition_arcs": sum(1 for a in f.arcs if a.kind == "definition"),
            "presentation_arcs": sum(1 for a in f.arcs if a.kind == "presentation"),
            "labels": len(f.labels),
            "hypercubes": len(self.dims.cubes),
            "statement_roles": len(self.statement_roles()),
            "roles": len(f.roles),
            "duplicates": len(f.duplicates),
            "bridged_concepts": len(self.bridges),
            "taxonomy_concepts": self.taxonomy.counts()["concepts"] if self.taxonomy is not None else 0,
            "warnings": len(self.warnings),
        }


def build_environment(
    filing_or_path: Filing | str | Path,
    *,
    taxonomy_set: "TaxonomySet | None" = None,
    taxonomy: "TaxonomyGraph | None" = None,
    eager_graph: bool = False,
    filing_cache: bool | None = None,
    cache_dir: Path | None = None,
) -> AuditEnvironment:
    """Load (if needed) a filing and join it to the taxonomy graph. The networkx filing graph is built
    on its first use (``env.filing_graph``; no check, audit or tool reads it, issue 21);
    ``eager_graph=True`` builds it now, inside the timed build (benchmarks of the graph).

    A path is loaded through the on-disk filing cache (:mod:`auditflow.xbrl.filing_cache`, in
    ``cache_dir`` or the taxonomy graph's cache directory) unless ``filing_cache=False`` or
    ``AUDITFLOW_FILING_CACHE=off``; a hit gives the same Filing a fresh load would.
    """
    from auditflow.xbrl import filing_cache as fc

    t0 = time.perf_counter()
    # a path is str or PathLike; anything else is taken as a loaded Filing (an isinstance check on
    # Filing fails when the module was imported twice, as pytester's in-process runs do)
    if not isinstance(filing_or_path, (str, os.PathLike)):
        filing = filing_or_path
    elif fc.enabled(filing_cache):
        filing = fc.load_filing_cached(filing_or_path, taxonomy_set=taxonomy_set, cache_dir=cache_dir)
    else:
        from auditflow.xbrl.loader import load_filing

        resolver = taxonomy_set.concept_for_locator if taxonomy_set is not None else None
        filing = load_filing(filing_or_path, external_resolver=resolver)
    t1 = time.perf_counter()
    env = AuditEnvironment(filing, FilingIndex(filing), DimensionIndex(filing.arcs), taxonomy)
    env.warnings.extend(filing.warnings)
    if taxonomy_set is not None:
        env.warnings.extend(_unresolved_imports(filing, taxonomy_set))
    if taxonomy is not None:
        _bridge(env)
    if eager_graph:
        env.filing_graph  # noqa: B018 - build it now, inside the timed build
    env.timings = {"load_filing": t1 - t0, "build_graphs": time.perf_counter() - t1}
    return env


def _unresolved_imports(filing: Filing, tset: "TaxonomySet") -> list[Warning_]:
    """One warning listing every imported standard schema that no given package resolves."""
    missing = [url for url in filing.imported_urls if not tset.exists(url)]
    if not missing:
        return []
    return [Warning_(
        "taxonomy-unavailable",
        f"{len(missing)} imported schema(s) are in no taxonomy package given: {', '.join(missing)}. "
        "Concepts from them are known only by name and from the filer's linkbases. Pass the official "
        "packages with --taxonomy PATH (or add them under the data root's taxonomy/).",
    )]


def _bridge(env: AuditEnvironment) -> None:
    """Join each filing concept to its taxonomy node; record year mismatches once per namespace."""
    tx = env.taxonomy
    mismatched: dict[str, str] = {}
    for q in env.filing.concepts:
        if standard_prefix(q.namespace) is None:
            continue
        target = tx.bridged(q)
        if target is None:
            continue
        env.bridges[q] = target
        if target.namespace != q.namespace:
            mismatched.setdefault(q.namespace, target.namespace)
    for ns, tns in sorted(mismatched.items()):
        env.warnings.append(Warning_(
            "taxonomy-year-mismatch",
            f"the filing reports in {ns} ({namespace_year(ns)}) but the taxonomy loaded is {tns} "
            f"({namespace_year(tns)}); concepts were bridged by local name, so relationships that changed "
            "between the years may differ",
        ))
