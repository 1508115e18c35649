"""What DQC rules 0137-0157 read of element properties and presentation networks, approximated from the
filing where our US-GAAP copy has no element schema (docs/rules/README.md, "Element properties").

* A concept is *monetary* when the filer's schema says so (its declared data type), else when one of its
  facts has a single currency measure and no denominator.
* Its *period type* is the filer's declaration, else the period of its facts (instant or duration).
* A *statement network* is a presentation role whose definition contains ``- Statement -`` (DQC's
  ``$STATEMENT_PRES_NETWORKS``); a *disclosure network* one with ``- Disclosure -``.

Each rule that uses an approximation says so in its doc and in a warning of its result.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from auditflow.rules.common import constant_qnames
from auditflow.xbrl.model import Fact
from auditflow.xbrl.qname import QName

if TYPE_CHECKING:
    from auditflow.graphs.environment import AuditEnvironment

ISO4217 = "http://www.xbrl.org/2003/iso4217"


def locals_of(raw: list) -> frozenset[str]:
    """A decoded ``set qname`` constant as the local names of its concepts (the rules match by local name
    within the us-gaap family, as the other rules reading the 2025 constants do)."""
    return frozenset(q.local for q in constant_qnames(raw))


def is_monetary_fact(env: "AuditEnvironment", f: Fact) -> bool:
    """A fact measured in one currency (ISO 4217, no denominator)."""
    unit = env.filing.units.get(f.unit_id or "")
    return (unit is not None and not unit.denominators and len(unit.numerators) == 1
            and unit.numerators[0].namespace == ISO4217)


def declared_type(env: "AuditEnvironment", q: QName) -> str | None:
    """The local name of the data type the filer's own schema declares for ``q`` (None: not declared)."""
    c = env.filing.concepts.get(q)
    if c is None or c.source != "schema" or not c.data_type:
        return None
    return c.data_type.rsplit("}", 1)[-1]


def is_monetary(env: "AuditEnvironment", q: QName) -> bool:
    """Monetary by the filer's declaration, else by the unit of any of its facts."""
    declared = declared_type(env, q)
    if declared is not None:
        return declared == "monetaryItemType"
    return any(is_monetary_fact(env, f) for f in env.index.by_concept.get(q, ()))


def period_type(env: "AuditEnvironment", q: QName) -> str | None:
    """'instant' or 'duration' by the filer's declaration, else by its facts' periods (None: unknown)."""
    c = env.filing.concepts.get(q)
    if c is not None and c.source == "schema" and c.period_type:
        return c.period_type
    for f in env.index.by_concept.get(q, ()):
        ctx = env.filing.contexts.get(f.context_id)
        if ctx is not None and not ctx.period.forever:
            return "instant" if ctx.period.start is None else "duration"
    return None


def networks(env: "AuditEnvironment", marker: str) -> list[str]:
    """Presentation roles whose definition contains ``marker`` (``- Statement -``, ``- Disclosure -``), sorted."""
    return [r for r in env.index.pre_roles if marker in env.role_definition(r)]


def statement_networks(env: "AuditEnvironment") -> list[str]:
    return networks(env, "- Statement -")


def _descendants(down: dict, role: str, roots: Iterable[QName]) -> Iterator[QName]:
    """Every descendant of ``roots`` in ``role`` of an index of arcs by (role, source), each once (cycles
    cut), depth first."""
    seen: set[QName] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        for a in down.get((role, node), ()):
            if a.target not in seen:
                seen.add(a.target)
                yield a.target
                stack.append(a.target)


def pre_descendants(env: "AuditEnvironment", role: str, roots: Iterable[QName]) -> Iterator[QName]:
    """Every presentation descendant of ``roots`` in ``role`` (each once, cycles cut), depth first."""
    return _descendants(env.index.pre_down, role, roots)


def calc_descendants(env: "AuditEnvironment", roots: Iterable[QName]) -> Iterator[tuple[str, QName]]:
    """(role, concept) for every summation-item descendant of ``roots`` in any of the filer's networks."""
    roots = list(roots)
    for role in env.index.calc_roles:
        for q in _descendants(env.index.calc_down, role, roots):
            yield role, q


def hypercubes(env: "AuditEnvironment") -> set[QName]:
    """The filer's hypercubes: the tables of its definition linkbase's cubes, and any presentation concept
    whose name ends in ``Table`` (DQC tests the substitution group, which a standard concept's schema would
    give and ours lacks)."""
    tables = {cube.hypercube for cube in env.dims.cubes}
    tables |= {q for concepts in env.index.pre_concepts.values() for q in concepts if q.local.endswith("Table")}
    return tables


def pre_ancestors(env: "AuditEnvironment", concepts: Iterable[QName]) -> Iterator[tuple[str, QName]]:
    """(role, ancestor) for every presentation ancestor of any of ``concepts``, in every network (each
    once per role and concept). The upward index is built once per call, so pass all concepts at once."""
    up: dict[tuple[str, QName], list[QName]] = {}
    for (role, source), arcs in env.index.pre_down.items():
        for a in arcs:
            up.setdefault((role, a.target), []).append(source)
    for concept in concepts:
        for role in env.index.pre_roles:
            seen: set[QName] = set()
            stack = [concept]
            while stack:
                node = stack.pop()
                for parent in up.get((role, node), ()):
                    if parent not in seen:
                        seen.add(parent)
                        yield role, parent
                        stack.append(parent)
