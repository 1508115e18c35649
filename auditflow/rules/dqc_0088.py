"""DQC.US.0088 — Operating lease cost reported as operating lease expense (docs/rules/DQC_US_0088.md).

Under ASC 842 the components of lease cost are OperatingLeaseCost, VariableLeaseCost, ShortTermLeaseCost and
the finance lease items; OperatingLeaseExpense is the older concept for rent expense. A filing that reports
variable lease cost (so it applies ASC 842) and operating lease expense, but no operating lease cost, has most
likely tagged its operating lease cost with the wrong concept (9372). OperatingLeaseExpense below LeaseCost in a
calculation is the same mistake in the linkbase (10094).
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, calc_paths, facts_named, gate, in_family
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0088"
MISSING = "DQC.US.0088.9372"
IN_CALC = "DQC.US.0088.10094"
MESSAGES = {
    MISSING: ("{concept} with a value of {value} is reported, and so is VariableLeaseCost for the period, but "
              "OperatingLeaseCost is not. Check that the operating lease cost has not been tagged with another "
              "concept, such as OperatingLeaseExpense, or left out of the filing."),
    IN_CALC: ("OperatingLeaseExpense is a calculation descendant of LeaseCost in {network}. Where operating lease "
              "expense is a component of lease cost, use OperatingLeaseCost instead: it is the required disclosure "
              "for that component of LeaseCost."),
}


def _period_unit(env, f) -> tuple:
    ctx = env.filing.contexts.get(f.context_id)
    unit = env.filing.units.get(f.unit_id or "")
    return (ctx.entity_id if ctx else None, ctx.period if ctx else None,
            (unit.numerators, unit.denominators) if unit else f.unit_id)


def _descendant_of(env, top: str, local: str) -> str | None:
    """The first role in which a US-GAAP ``local`` is a calculation descendant of a US-GAAP ``top``."""
    return next((role for role, path, _w in calc_paths(env, top)
                 if path[-1].local == local and in_family(path[-1], US_GAAP)), None)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)

    def present(local):
        return {_period_unit(env, f) for f in facts_named(env, local) if not f.is_nil}

    variable, operating_cost = present("VariableLeaseCost"), present("OperatingLeaseCost")
    for f in facts_named(env, "OperatingLeaseExpense"):
        if f.is_nil:
            continue
        key = _period_unit(env, f)
        if key in variable and key not in operating_cost:
            c.violation(MISSING, f)
        else:
            c.consistent(f, f"{MISSING}: " + ("OperatingLeaseCost is reported" if key in operating_cost
                                               else "no VariableLeaseCost for the period"))
    role = _descendant_of(env, "LeaseCost", "OperatingLeaseExpense")
    if role is None:
        c.consistent(None, f"{IN_CALC}: OperatingLeaseExpense is not below LeaseCost")
    else:
        concept = next(a.target for arcs in env.index.calc_down.values() for a in arcs
                       if a.role == role and a.target.local == "OperatingLeaseExpense")
        network = env.role_definition(role) or role
        c.violation(IN_CALC, None, concept=concept, role=network, network=network)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Operating lease cost reported as operating lease expense", messages=MESSAGES,
    needs=frozenset({Need.FACTS, Need.FILER_CAL}), run=run,
    fix_hint="Tag the operating lease cost of ASC 842 with OperatingLeaseCost, not OperatingLeaseExpense.",
    not_applicable=("form not in scope", "no data root"),
))
