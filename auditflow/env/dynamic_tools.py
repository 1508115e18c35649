"""Dynamic tools: the numbers the filer reported (the filing graph), always as short fact handles.

``find_facts`` is an exact filter (concept, period, dimensions), not a fuzzy search: small models
pick by position, so the environment narrows, the model does not choose. ``get_fact_history``
shows the same concept and dimensions across periods, oldest first: a sign flip or a jump shows up
as a break in the series.
"""
from __future__ import annotations

from typing import Any

from auditflow.env.facts import fact_by_handle, fact_period, fact_unit, fact_value, fact_view
from auditflow.env.names import concept_periods, dims_json, label_of, names, resolve_concept, resolve_dimensions, resolve_period
from auditflow.env.tool_base import (
    CONCEPT_ARG, DIMENSIONS_ARG, FACT_ARG, MAX_CLOSE_MATCHES, PERIOD_ARG, Tool, ToolContext, ToolError, object_schema,
)
from auditflow.env.phrases import period_phrase
from auditflow.xbrl.model import Fact
from auditflow.xbrl.qname import QName

MAX_FACTS = 20


def _order(ctx: ToolContext, f: Fact) -> tuple:
    """Non-dimensional first, then by period (oldest first), dimensions, document order."""
    c = ctx.env.filing.contexts[f.context_id]
    p = c.period
    return (bool(c.dimensions), str(p.end or ""), -p.days, str(dims_json(ctx, c.dimensions)), f.index)


def listed_fact(ctx: ToolContext, f: Fact) -> dict[str, Any]:
    """A fact as find_facts lists it: its view without the concept, the period as a statement heads it
    and, when dimensional, its members' labels (what an auditor matches a question's words against)."""
    view = fact_view(ctx, f, with_concept=False)
    view["period_text"] = period_phrase(fact_period(ctx, f))
    if view["dimensions"]:
        view["members"] = member_labels(ctx, f)
    return view


def find_facts(ctx: ToolContext, args: dict) -> dict:
    q = resolve_concept(ctx, args["concept"])
    period = resolve_period(ctx, args["period"], concept=q) if "period" in args else None
    dims = resolve_dimensions(ctx, args["dimensions"]) if "dimensions" in args else None
    found = _collapse(ctx, sorted(ctx.env.facts(q, period=period, dimensions=dims), key=lambda f: _order(ctx, f)))
    shown = []
    for f, copies in ctx.order(found[:MAX_FACTS], "find_facts", q, period, sorted((dims or {}).items(), key=str)):
        view = listed_fact(ctx, f)
        if copies:
            view["duplicates"] = copies
        shown.append(view)
    obs: dict[str, Any] = {
        "concept": names(ctx.env).qstr(q), "period": str(period) if period is not None else None,
        "dimensions": dims_json(ctx, dims) if dims is not None else None, "facts": shown, "count": len(found),
    }
    if len(found) > MAX_FACTS:
        obs["more"] = len(found) - MAX_FACTS
    if not found:
        periods = [str(p) for p in concept_periods(ctx, q)]
        obs["note"] = (f"no fact matches; {obs['concept']} is reported for: {', '.join(periods[-MAX_CLOSE_MATCHES:])}"
                       if periods else f"the filing reports no fact of {obs['concept']}")
    return obs


def _collapse(ctx: ToolContext, facts: list[Fact]) -> list[tuple[Fact, int]]:
    """Exact duplicates (same concept, context, unit, value, decimals) shown once, with their count:
    an inline filing repeats a number on several pages, and a list of identical rows only invites
    a small model to pick among them."""
    n = names(ctx.env)
    first: dict[tuple, int] = {}
    out: list[list] = []
    for f in facts:
        key = (n.twins.get(f.key, (f.key,))[0], f.value, f.decimals, f.is_nil)
        if key in first:
            out[first[key]][1] += 1
        else:
            first[key] = len(out)
            out.append([f, 0])
    return [(f, c) for f, c in out]


def member_labels(ctx: ToolContext, fact: Fact) -> list[str]:
    """The labels of a fact's members, as a statement's column or row heads read (typed members as written)."""
    dims = ctx.env.filing.contexts[fact.context_id].dimensions
    out = []
    for _axis, member in sorted(dims, key=lambda am: str(am[0])):
        out.append((label_of(ctx, member) or names(ctx.env).qstr(member)) if isinstance(member, QName) else str(member))
    return out


def get_fact(ctx: ToolContext, args: dict) -> dict:
    fact = fact_by_handle(ctx, args["fact"])
    obs = fact_view(ctx, fact)
    obs["label"] = label_of(ctx, fact.concept)
    dups = [k for k in names(ctx.env).twins.get(fact.key, ()) if k != fact.key]
    obs["duplicates"] = [ctx.handles.handle(names(ctx.env).facts_by_key[k]) for k in dups]
    return obs


def get_fact_history(ctx: ToolContext, args: dict) -> dict:
    if "fact" in args:
        fact = fact_by_handle(ctx, args["fact"])
        concept, dims = fact.concept, ctx.env.filing.contexts[fact.context_id].dims_dict()
    elif "concept" in args:
        concept = resolve_concept(ctx, args["concept"])
        dims = resolve_dimensions(ctx, args.get("dimensions", {}))
    elif ctx.focus is not None:
        concept, dims = ctx.focus.concept, ctx.env.filing.contexts[ctx.focus.context_id].dims_dict()
    else:
        raise ToolError("bad_arguments", "give fact (a handle such as F1) or concept (+ dimensions)",
                        ctx.handles.known()[:MAX_CLOSE_MATCHES])
    history = ctx.order(ctx.env.fact_history(concept, dims), "history", concept, sorted(dims.items(), key=str))
    points = [{"fact": ctx.handles.handle(f), "period": str(fact_period(ctx, f)), "value": fact_value(f)} for f in history]
    obs: dict[str, Any] = {
        "concept": names(ctx.env).qstr(concept), "dimensions": dims_json(ctx, dims),
        "unit": fact_unit(ctx, history[0]) if history else None, "history": points, "count": len(points),
    }
    if not points:
        obs["note"] = "the filing reports no fact of this concept with exactly these dimensions"
    return obs


_HISTORY_ARGS = object_schema({"fact": FACT_ARG, "concept": CONCEPT_ARG, "dimensions": DIMENSIONS_ARG})

DYNAMIC_TOOLS: tuple[Tool, ...] = (
    Tool("find_facts", "Reported facts of a concept, filtered exactly by period and dimensions ({} = no dimensions; "
         "omit a filter to see all). Each fact gets a handle (F2, F3...).", "dynamic",
         object_schema({"concept": CONCEPT_ARG, "period": PERIOD_ARG, "dimensions": DIMENSIONS_ARG}, ("concept",)), find_facts),
    Tool("get_fact", "One fact by its handle: concept, label, period, dimensions, value, unit, decimals, duplicates.",
         "dynamic", object_schema({"fact": FACT_ARG}, ("fact",)), get_fact),
    Tool("get_fact_history", "The same concept and dimensions across every period the filing reports, oldest first. "
         "Give fact (a handle) or concept (+ dimensions); with no argument, the queried fact F1.", "dynamic",
         _HISTORY_ARGS, get_fact_history),
)
