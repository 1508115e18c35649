"""DQC.US.0071 — Revenue/cost single member (docs/rules/DQC_US_0071.md).

A company with a single product or service should not disaggregate revenue or cost of sales by that one
member: it reports the total and names the product with TypeOfRevenueExtensibleList or
TypeOfCostGoodOrServiceExtensibleList. So in a statement table (a cube of a role whose definition contains
"- Statement ") with srt:ProductOrServiceAxis, where the filer places exactly one member below
srt:ProductsAndServicesDomain, each revenue or cost of goods and services fact that is the only value on the axis
for its concept, period and other dimensions, with no total reported without the axis, is a violation.
"""
from __future__ import annotations

from collections import defaultdict

from auditflow.rules.common import SRT, US_GAAP, Collector, alignment, facts_named, gate, numeric_items
from auditflow.rules.registry import Need, RuleSpec, register
from auditflow.rules.resources import family_key

RULE = "0071"
CODE = "DQC.US.0071.7646"
LINE_ITEMS = ("RevenueFromContractWithCustomerIncludingAssessedTax", "RevenueFromContractWithCustomerExcludingAssessedTax",
              "CostOfGoodsAndServicesSold")
AXIS_KEY = (SRT, "ProductOrServiceAxis")
DOMAIN_KEY = (SRT, "ProductsAndServicesDomain")
MESSAGE = (
    "{concept} is reported with a value of {value} on ProductOrServiceAxis in {network} (table {table}), but the only "
    "member that disaggregates it is {member}. With a single product or service, either tag the total with "
    "TypeOfRevenueExtensibleList / TypeOfCostGoodOrServiceExtensibleList naming {member} (and drop the member, which "
    "stands for the whole of {concept}), or also report the total of {concept} without the axis; with the total "
    "reported this is not an error."
)


def single_member_tables(env) -> list:
    """The statement cubes with ProductOrServiceAxis, one of the line items, and exactly one member below
    srt:ProductsAndServicesDomain."""
    out = []
    for cube in env.dims.cubes:
        if "- Statement " not in env.role_definition(cube.role):
            continue
        axis = next((ax for a, ax in cube.axes.items() if family_key(a) == AXIS_KEY), None)
        if axis is None or not any(family_key(q) in {(US_GAAP, n) for n in LINE_ITEMS} for q in cube.primary_items):
            continue
        domain = next((d for d in axis.members | axis.domains | set(axis.parents) if family_key(d) == DOMAIN_KEY), None)
        below = {m for m in axis.parents if domain is not None and domain in axis.ancestors(m)}
        if len(below) == 1:
            out.append(cube)
    return out


def _key(env, f, ctx) -> tuple:
    key = alignment(env, f, ctx)
    return (f.concept,) + key[:3] + (tuple((a, m) for a, m in ctx.dimensions if family_key(a) != AXIS_KEY),) + key[4:]


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    tables = single_member_tables(env)
    if not tables:
        c.skipped(None, "no statement table with a single member on ProductOrServiceAxis")
        return c.result()
    facts = [(f, ctx) for local in LINE_ITEMS for f, ctx, _n in numeric_items(env, facts_named(env, local, US_GAAP))]
    totals = {_key(env, f, ctx) for f, ctx in facts if not any(family_key(a) == AXIS_KEY for a, _m in ctx.dimensions)}
    for cube in tables:
        groups = defaultdict(list)
        for f, ctx in facts:
            if any(family_key(a) == AXIS_KEY for a, _m in ctx.dimensions) and cube.is_valid(f.concept, ctx):
                groups[_key(env, f, ctx)].append((f, ctx))
        network = env.role_definition(cube.role) or cube.role
        for key, members in groups.items():
            f, ctx = members[0]
            if len(members) == 1 and key not in totals:
                member = next(m for a, m in ctx.dimensions if family_key(a) == AXIS_KEY)
                c.violation(CODE, f, role=network, network=network, table=cube.hypercube, member=member)
            else:
                c.consistent(f, "the total is reported too" if key in totals else "more than one member reported")
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Revenue/cost single member", messages={CODE: MESSAGE},
    needs=frozenset({Need.FACTS, Need.FILER_DEF}), run=run,
    not_applicable=("form not in scope", "no data root"),
    fix_hint="Report the total of {concept} without ProductOrServiceAxis, or name the single product with "
             "TypeOfRevenueExtensibleList / TypeOfCostGoodOrServiceExtensibleList.",
))
