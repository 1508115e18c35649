"""Which DQC rule looks at a concept, in words: shared by get_concept and the checkers' reasons.

An auditor starting from the constraints (A1) first asks "which rules could flag this line item?";
a checker that finds nothing to check must say *why* (not a listed concept, a statement with a
table, another period). Both answers come from the same definitions the rules use
(:mod:`auditflow.rules.statements`), so the words and the verdicts cannot drift apart.
"""
from __future__ import annotations

from auditflow.env.envcache import memo
from auditflow.env.names import names, role_title
from auditflow.env.tool_base import ToolContext
from auditflow.errors import AuditflowError
from auditflow.rules.dqc_0117 import AXES_IN_SCOPE
from auditflow.rules.registry import agent_rules
from auditflow.rules.resources import NonNegList, available_0015_years, filing_taxonomy_year, load_0015_list, select_year
from auditflow.rules.statements import is_statement_role_0126, statement_cube_roles, statement_cubes
from auditflow.xbrl.model import Period
from auditflow.xbrl.qname import QName


def nonneg_list(ctx: ToolContext) -> tuple[NonNegList | None, str]:
    """The DQC 0015 list for the filing's year (as the rule picks it), or None and why not."""
    if ctx.data_root is None:
        return None, "no data root: the DQC 0015 list is unavailable"
    root = ctx.data_root

    def build() -> tuple[NonNegList | None, str]:
        try:
            year, note = select_year(filing_taxonomy_year(ctx.env.filing), available_0015_years(root))
            return load_0015_list(root, year), note or ""
        except (AuditflowError, ValueError) as exc:
            return None, f"the DQC 0015 list is unavailable: {exc}"

    return memo(ctx.env, ("nonneg", str(root)), build)


def scope_0015(ctx: ToolContext, q: QName) -> str:
    listed, why = nonneg_list(ctx)
    if listed is None:
        return f"unknown: {why}"
    eid = listed.element_id(q)
    if eid is None:
        return f"not on the DQC 0015 non-negative list ({listed.year})"
    return f"on the DQC 0015 non-negative list ({listed.year}): must not be negative (DQC.US.0015.{eid})"


def scope_0117(ctx: ToolContext, q: QName) -> str:
    n = names(ctx.env)
    hits = []
    for cube in statement_cubes(ctx.env):
        if q in cube.primary_items:
            axes = sorted(n.qstr(a) for a in cube.axes if a.local in AXES_IN_SCOPE)
            shown = ", ".join(axes) if axes else "none checked by 0117"
            hits.append(f"line item of {n.qstr(cube.hypercube)} on {role_title(ctx, cube.role)!r} (axes: {shown})")
    return "; ".join(hits) if hits else "not a line item of a statement table"


def statement_roles_0126(ctx: ToolContext) -> list[tuple[str, bool]]:
    """(role URI, has a table) for every presentation role DQC 0126 would consider a statement."""
    env = ctx.env

    def build() -> list[tuple[str, bool]]:
        tables = statement_cube_roles(env)
        return [(r, r in tables) for r in sorted(env.index.pre_roles) if is_statement_role_0126(r, env.role_definition(r))]

    return memo(env, "statement_roles_0126", build)


def calc_places(ctx: ToolContext, q: QName) -> list[tuple[str, str, bool]]:
    """(role, "total" | "component", has table) for each 0126 statement role where ``q`` is in the calculation."""
    idx = ctx.env.index
    out = []
    for role, table in statement_roles_0126(ctx):
        if idx.calc_down.get((role, q)):
            out.append((role, "total", table))
        if any(a.role == role for a in idx.calc_up.get(q, ())):
            out.append((role, "component", table))
    return out


def scope_0126(ctx: ToolContext, q: QName) -> str:
    parts = []
    for role, place, table in calc_places(ctx, q):
        title = role_title(ctx, role)
        parts.append(f"calculation {place} on {title!r}, which has a table: 0126 does not check it" if table
                     else f"calculation {place} on {title!r}")
    return "; ".join(parts) if parts else "not in the calculation of a statement 0126 checks"


_SCOPES = {"0015": scope_0015, "0117": scope_0117, "0126": scope_0126}


def rule_scopes(ctx: ToolContext, q: QName) -> dict[str, str]:
    """What each agent rule (registry order) would check of ``q``; an agent rule without a scope is an error."""
    return {rule: _SCOPES[rule](ctx, q) for rule in agent_rules()}


def reporting_period_0126(ctx: ToolContext) -> Period | None:
    """DQC 0126's period R: the context period of the first dei:DocumentPeriodEndDate fact."""
    f = ctx.env.filing.first_fact("DocumentPeriodEndDate")
    return ctx.env.filing.contexts[f.context_id].period if f is not None else None


def in_period(p: Period, r: Period) -> bool:
    """DQC 0126's period match: instants by date, durations by start and end."""
    if p.is_instant:
        return p.end == r.end
    return p.start == r.start and p.end == r.end
