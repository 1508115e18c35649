"""The ``inject:`` step: a case's deterministic changes, as :class:`auditflow.mutations.Mutation` values.

A case holds a known error in a real filing without copying the filing: ``set_value``,
``flip_sign`` or ``remove`` one fact, named by its id (``Fact.key``) or by what a reader sees
(concept, period, dimensions). A selector is resolved against the UNMUTATED filing with the same
name resolution the agents' tools use, and must name exactly one fact: exact duplicates (the same
number shown twice) count as one, because mutations change all copies together. Anything else is
a :class:`CaseInputError` naming the case file, line and the candidates.
"""
from __future__ import annotations

from pathlib import Path

from auditflow.cases.errors import CaseInputError
from auditflow.cases.model import AuditCase, FactSelector, InjectSpec
from auditflow.env.names import resolve_concept, resolve_dimensions, resolve_period
from auditflow.env.tool_base import ToolContext, ToolError
from auditflow.graphs.environment import AuditEnvironment, build_environment
from auditflow.mutations import Mutation, MutationError, apply_mutations, exact_duplicates

MAX_LISTED = 5


def resolve_selector(env: AuditEnvironment, selector: str | FactSelector, *, data_root: Path | None = None) -> str:
    """The ``Fact.key`` a selector names. A string is taken as a key (checked when applied).

    :raises ValueError: with a message naming the problem and the candidates.
    """
    if isinstance(selector, str):
        return selector
    ctx = ToolContext(env, data_root)
    try:
        concept = resolve_concept(ctx, selector.concept)
        period = resolve_period(ctx, selector.period, concept=concept)
        dims = resolve_dimensions(ctx, dict(selector.dimensions))
    except ToolError as exc:
        close = f" Close matches: {', '.join(exc.close_matches)}." if exc.close_matches else ""
        raise ValueError(f"selector {selector} names nothing in the filing: {exc.message}.{close}") from None
    found = env.facts(concept, period=period, dimensions=dims)
    if not found:
        raise ValueError(f"selector {selector} matches no fact (the concept, period and dimensions exist, "
                         "but not together); check the dimensions or name the fact by id.")
    same = {f.key for f in exact_duplicates(env.filing, found[0])}
    others = [f for f in found if f.key not in same]
    if others:
        listed = ", ".join(f"{f.key} (value {f.value}, unit {f.unit_id})" for f in found[:MAX_LISTED])
        raise ValueError(f"selector {selector} matches {len(found)} different facts: {listed}; "
                         "name one by its id instead (e.g. set_value: <id>).")
    return found[0].key


def to_mutation(env: AuditEnvironment, spec: InjectSpec, *, data_root: Path | None = None) -> Mutation:
    """The Mutation for one inject entry (its selector resolved in ``env``)."""
    key = resolve_selector(env, spec.target, data_root=data_root)
    return Mutation(spec.kind, key, spec.value if spec.kind == "set_value" else None)  # type: ignore[arg-type]


def injected_environment(env: AuditEnvironment, case: AuditCase, *, data_root: Path | None = None) -> AuditEnvironment:
    """A new environment over a copy of ``env``'s filing with the case's changes applied in order.

    :raises CaseInputError: a selector that matches no fact or several, or a mutation that cannot apply.
    """
    mutations = []
    for i, spec in enumerate(case.inject):
        try:
            mutations.append(to_mutation(env, spec, data_root=data_root))
        except (ValueError, MutationError) as exc:
            raise CaseInputError(str(exc), file=case.where, line=spec.line, field=f"inject[{i}]") from None
    try:
        mutated = apply_mutations(env.filing, mutations)
    except MutationError as exc:
        spec = next((s for s, m in zip(case.inject, mutations) if m.fact == exc.fact), case.inject[0])
        raise CaseInputError(str(exc), file=case.where, line=spec.line,
                             field=f"inject[{case.inject.index(spec)}]") from None
    return build_environment(mutated, taxonomy=env.taxonomy)
