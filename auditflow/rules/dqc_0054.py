"""DQC.US.0054 — Excluded dimensions from a table (docs/rules/DQC_US_0054.md).

srt:StatementGeographicalAxis must not be an axis of the pension and defined-contribution tables in the
filer's definition linkbase.
"""
from __future__ import annotations

from auditflow.rules.common import Collector, gate
from auditflow.rules.registry import Need, RuleSpec, register
from auditflow.xbrl.model import HYPERCUBE_DIMENSION

RULE = "0054"
TABLES = (
    ("DQC.US.0054.7490", "ScheduleOfDefinedBenefitPlansDisclosuresTable"),
    ("DQC.US.0054.7491", "DefinedContributionPlanTable"),
    ("DQC.US.0054.7492", "DefinedBenefitPlansAndOtherPostretirementBenefitPlansDisclosuresTable"),
)
MESSAGE = (
    "The filer's definition linkbase makes StatementGeographicalAxis an axis of {table} (in {network}). This axis "
    "must not be used on this table: use RetirementPlanSponsorLocationAxis for the location of the plan sponsor."
)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    for code, table in TABLES:
        arcs = [a for a in env.filing.arcs if a.arcrole == HYPERCUBE_DIMENSION and a.source.local == table]
        bad = next((a for a in arcs if a.target.local == "StatementGeographicalAxis"), None)
        if bad is not None:
            network = env.role_definition(bad.role) or bad.role
            c.violation(code, None, concept=bad.source, role=network, table=table, network=network)
        elif arcs:
            c.consistent(None, f"{table} has no StatementGeographicalAxis", concept=arcs[0].source)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Excluded dimensions from a table", messages={code: MESSAGE for code, _ in TABLES},
    needs=frozenset({Need.FILER_DEF}), run=run,
))
