"""Facts as tools show them (a flat dict with a handle) and as tools accept them (a handle, or
concept + period + dimensions).

One view for every tool keeps the observations uniform: the same keys, the same period notation,
values as plain decimal strings, so a model that learned to read one observation reads them all.
"""
from __future__ import annotations

from typing import Any

from auditflow.env.names import (
    concept_periods, dims_json, names, nearest_periods, resolve_concept, resolve_dimensions, resolve_period,
)
from auditflow.env.tool_base import MAX_CLOSE_MATCHES, ToolContext, ToolError
from auditflow.rules.finding import dec_str
from auditflow.xbrl.model import Fact, Period

MAX_TEXT = 160


def fact_period(ctx: ToolContext, fact: Fact) -> Period:
    return ctx.env.filing.contexts[fact.context_id].period


def fact_value(fact: Fact) -> str | None:
    """A plain decimal string for numbers, the (shortened) text otherwise, None when nil."""
    if fact.is_nil or fact.value is None:
        return None
    if fact.is_numeric:
        n = fact.number
        return dec_str(n) if n is not None else fact.value
    text = " ".join(fact.value.split())
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


def fact_unit(ctx: ToolContext, fact: Fact) -> str | None:
    unit = ctx.env.filing.units.get(fact.unit_id) if fact.unit_id else None
    return str(unit) if unit is not None else fact.unit_id


def fact_view(ctx: ToolContext, fact: Fact, *, with_concept: bool = True) -> dict[str, Any]:
    """``{"fact": "F3", "concept", "period", "dimensions", "value", "unit", "decimals"}``."""
    ctx_ = ctx.env.filing.contexts[fact.context_id]
    out: dict[str, Any] = {"fact": ctx.handles.handle(fact)}
    if with_concept:
        out["concept"] = names(ctx.env).qstr(fact.concept)
    out.update(period=str(ctx_.period), dimensions=dims_json(ctx, ctx_.dimensions), value=fact_value(fact),
               unit=fact_unit(ctx, fact), decimals=fact.decimals)
    if fact.is_nil:
        out["nil"] = True
    return out


def has_fact_ref(args: dict) -> bool:
    return "fact" in args or "concept" in args


def resolve_fact(ctx: ToolContext, args: dict, *, use_focus: bool = True) -> Fact:
    """The fact named by ``fact`` (a handle), else by ``concept`` + ``period`` (+ ``dimensions``),
    else the queried fact when ``use_focus``.

    :raises ToolError: unknown handle, unknown concept, period not in the filing, no such fact.
    """
    if "fact" in args:
        return fact_by_handle(ctx, args["fact"])
    if "concept" in args:
        q = resolve_concept(ctx, args["concept"])
        if "period" not in args:
            raise ToolError("bad_arguments", "give period together with concept (or give fact, a handle such as F1)",
                            [str(p) for p in concept_periods(ctx, q)][-MAX_CLOSE_MATCHES:])
        p = resolve_period(ctx, args["period"], concept=q)
        dims = resolve_dimensions(ctx, args.get("dimensions", {}))
        found = ctx.env.facts(q, period=p, dimensions=dims)
        if not found:
            shown = dims_json(ctx, dims) or "no dimensions"
            if not dims and (under := _member_sets(ctx, q, p)):
                # reported for that period only under members: name them, as periods are named below
                raise ToolError("unknown_fact", f"the filing has no fact of {names(ctx.env).qstr(q)} for {p} with no "
                                "dimensions; it reports it under these members (give one as dimensions)", under)
            periods = {fact_period(ctx, f) for f in ctx.env.facts(q, dimensions=dims)}
            raise ToolError("unknown_fact", f"the filing has no fact of {names(ctx.env).qstr(q)} for {p} with {shown}",
                            nearest_periods(p, periods))
        return found[0]
    if use_focus and ctx.focus is not None:
        return ctx.focus
    raise ToolError("bad_arguments", "give fact (a handle such as F1) or concept and period", ctx.handles.known()[:MAX_CLOSE_MATCHES])


MEMBER_SEPARATOR = ", "  # between the axis=member pairs of one dimension set in close matches


def _member_sets(ctx: ToolContext, concept, period) -> list[str]:
    """The dimension sets ``concept`` is reported under for ``period``, each as ``axis=member`` pairs,
    the fewest axes first (at most MAX_CLOSE_MATCHES): what to add to a selector that named no dimensions."""
    sets = {MEMBER_SEPARATOR.join(f"{a}={m}" for a, m in sorted(dims_json(ctx, ctx.env.filing.contexts[f.context_id].dimensions).items()))
            for f in ctx.env.facts(concept, period=period)}
    return sorted((s for s in sets if s), key=lambda s: (s.count(MEMBER_SEPARATOR), s))[:MAX_CLOSE_MATCHES]


def fact_by_handle(ctx: ToolContext, handle: str) -> Fact:
    key = ctx.handles.key(handle)
    if key is None:
        known = ctx.handles.known()
        num = _num(handle)
        near = sorted(known, key=lambda h: (abs(_num(h) - num), _num(h))) if num >= 0 else known
        if ":" in handle:  # a concept where a handle belongs: say how to name a fact by its concept instead
            raise ToolError("unknown_fact", f"{handle!r} is a concept, not a fact handle: give fact a handle such as F3 "
                            "(find_facts shows them), or give concept, period and dimensions instead of fact",
                            near[:MAX_CLOSE_MATCHES])
        raise ToolError("unknown_fact", f"no fact has the handle {handle!r} in this run: use a handle a tool has shown",
                        near[:MAX_CLOSE_MATCHES])
    return names(ctx.env).facts_by_key[key]


def _num(handle: str) -> int:
    digits = handle.strip().upper().removeprefix("F")
    return int(digits) if digits.isdigit() else -1
