"""DQC.US.0137 — Location axis with a single value (docs/rules/DQC_US_0137.md).

A line item that has an extensible-enumeration companion (the 2025 constant ``EXT_ENUM``: a line item
and the ``...ExtensibleList`` / ``...ExtensibleEnumeration`` concept that names where it is reported)
should say where it sits in the statements with that companion, not with BalanceSheetLocationAxis or
IncomeStatementLocationAxis. When the only fact of the line item on the location axis is one fact, the
axis was used as a pointer to a statement line: that fact is a violation.
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, constant_qnames, decoded_constant, facts_named, gate, local_dims
from auditflow.rules.properties import period_type
from auditflow.rules.registry import CONSTANTS_2025, Need, RuleSpec, register

RULE = "0137"
CODE = "DQC.US.0137.9838"
PERIODIC = frozenset({"10-K", "10-K/A", "10-KT", "20-F", "20-F/A", "40-F", "40-F/A", "10-Q", "10-Q/A", "10-QT", "10-QT/A"})
AXES = {"instant": "BalanceSheetLocationAxis", "duration": "IncomeStatementLocationAxis"}
MESSAGE = (
    "{concept} with a value of {value} is reported on {axis}, and it is the only fact of {concept} on that axis. "
    "A single location is not a breakdown: instead of {axis}, report the extensible enumeration {enum} to name "
    "the statement line item that includes {concept}."
)
APPROXIMATED = ("DQC.US.0137: the period type of a standard concept (which location axis applies) is taken from its "
                "facts, as our US-GAAP copy has no element schema")


def _pairs(raw: list) -> tuple[tuple[str, str], ...]:
    """EXT_ENUM decoded: (line item, its extensible-enumeration concept) by local name."""
    out = []
    for entry in raw[1:]:
        names = constant_qnames(entry) if isinstance(entry, list) else []
        if len(names) == 2:
            out.append((names[0].local, names[1].local))
    return tuple(sorted(out))


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    doc_type = (env.filing.document_type or "").strip()
    if doc_type not in PERIODIC:
        c.skipped(None, f"form not in scope: DQC 0137 reads only periodic reports, not {doc_type or 'no document type'!r}")
        return c.result()
    for line_item, enum in decoded_constant(resources, "EXT_ENUM", _pairs):
        facts = facts_named(env, line_item, US_GAAP)
        if not facts:
            continue
        kind = period_type(env, facts[0].concept)
        if kind is None:
            continue
        if env.filing.concepts.get(facts[0].concept) is None or env.filing.concepts[facts[0].concept].source != "schema":
            c.note(APPROXIMATED)
        axis = AXES[kind]
        on_axis = [f for f in facts if f.unit_id is not None and (ctx := env.filing.contexts.get(f.context_id)) is not None
                   and axis in local_dims(ctx)]
        if len(on_axis) == 1:
            member = local_dims(env.filing.contexts[on_axis[0].context_id])[axis]
            c.violation(CODE, on_axis[0], axis=axis, enum=enum, member=member)
        elif on_axis:
            c.consistent(on_axis[0], f"{len(on_axis)} facts of {line_item} on {axis}")
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Location axis with a single value", messages={CODE: MESSAGE},
    needs=frozenset({Need.DEI, Need.FACTS, Need.TAXONOMY}), run=run, resources=(CONSTANTS_2025,),
    not_applicable=("form not in scope", "no data root"),
    fix_hint="Remove the location axis from the single {concept} fact and tag the matching extensible enumeration.",
))
