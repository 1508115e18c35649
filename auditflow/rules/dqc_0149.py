"""DQC.US.0149 — NoncurrentAssets used outside the long-lived assets disclosure (docs/rules/DQC_US_0149.md).

NoncurrentAssets is the long-lived assets of the segment and geographic disclosures, not the balance sheet
total of non-current assets (AssetsNoncurrent). It must not appear in a statement network (9943), and each
of its facts needs the concept presented below ScheduleOfRevenuesFromExternalCustomersAndLongLivedAssetsTable
(10075).
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, facts_named, gate, in_family
from auditflow.rules.properties import hypercubes, pre_ancestors, pre_descendants, statement_networks
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0149"
CONCEPT = "NoncurrentAssets"
TABLE = "ScheduleOfRevenuesFromExternalCustomersAndLongLivedAssetsTable"
MESSAGES = {
    "DQC.US.0149.9943": (
        "NoncurrentAssets appears in the face financial statements ({network}). This concept is the long-lived assets "
        "reported in the segment and geographic disclosures; on the balance sheet use AssetsNoncurrent."),
    "DQC.US.0149.10075": (
        "NoncurrentAssets is reported with a value of {value}. This concept is the long-lived assets by geographic area "
        "and must be presented below the table ScheduleOfRevenuesFromExternalCustomersAndLongLivedAssetsTable.{where}"),
}


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    ours = [q for q in {q for cs in env.index.pre_concepts.values() for q in cs} | set(env.index.by_concept)
            if q.local == CONCEPT and in_family(q, US_GAAP)]
    statements = [r for r in statement_networks(env) if any(q in env.index.pre_concepts[r] for q in ours)]
    if statements:
        names = "; ".join(env.role_definition(r) for r in statements)
        c.violation("DQC.US.0149.9943", None, concept=ours[0], role=names, network=names)
    facts = facts_named(env, CONCEPT, US_GAAP)
    if not facts:
        return c.result()
    tables = [(role, src) for (role, src) in env.index.pre_down if src.local == TABLE and in_family(src, US_GAAP)]
    placed = any(q.local == CONCEPT for role, table in tables for q in pre_descendants(env, role, [table]))
    cubes = hypercubes(env)
    found = sorted({a.local for _role, a in pre_ancestors(env, ours) if a in cubes})
    where = f" It is presented below {', '.join(found)}: use {TABLE} instead." if found else ""
    for f in facts:
        if placed:
            c.consistent(f, f"presented below {TABLE}")
        else:
            c.violation("DQC.US.0149.10075", f, where=where)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="NoncurrentAssets used outside the long-lived assets disclosure", messages=MESSAGES,
    needs=frozenset({Need.FILER_PRE, Need.FACTS}), run=run,
    fix_hint="Use AssetsNoncurrent on the balance sheet; present NoncurrentAssets below the long-lived assets table.",
))
