"""GraphRAG: the concepts the question names, linked by the tools' own label search, and their
neighbourhood in the dual graph, serialised compactly (docs/baselines.md, "graphrag").

For each linked concept: its calculation parents and children with weights (the filer's arcs, the
taxonomy's when the filer has none), the axes, members and defaults of the tables it is a line item of,
and the facts of the concept and of its calculation neighbours in the question's period (one hop: the
children and parents themselves are not expanded). The question's period is the one its words name
best among the concept's periods (the queried fact's own when the case hands it over).
"""
from __future__ import annotations

from auditflow.agents.baselines.lines import concept_label, fact_line, period_words, stems, unique
from auditflow.env.names import names
from auditflow.env.tool_base import ToolContext
from auditflow.env.tools import run_tool, tool_set
from auditflow.xbrl.model import Fact

LINKED = 2  # concepts linked from a question
MAX_NEIGHBOURS = 8  # calculation neighbours shown per direction
MAX_MEMBERS = 8  # members shown per axis
MAX_FACT_LINES = 16


def linked_concepts(ctx: ToolContext, question: str, tools: int) -> list:
    """The concepts the label search finds for the question, best first (at most ``LINKED``)."""
    obs = run_tool(ctx, "search_concepts", {"text": question, "limit": LINKED}, tools=tool_set(tools))
    from auditflow.env.names import resolve_concept

    return [resolve_concept(ctx, c["concept"]) for c in obs.get("concepts", [])][:LINKED]


def question_periods(ctx: ToolContext, question: str, facts: list[Fact]) -> set:
    """The periods among ``facts`` whose words share the most stems with the question (all on no overlap)."""
    words = set(stems(question))
    periods = {ctx.env.filing.contexts[f.context_id].period for f in facts}
    scored = {p: len(words & set(stems(period_words(p)))) for p in periods}
    best = max(scored.values(), default=0)
    return {p for p, s in scored.items() if s == best} if best else periods


def _calc(ctx: ToolContext, q, *, down: bool) -> list[tuple]:
    """(neighbour, weight) pairs, the filer's arcs first; the taxonomy's when the filer has none."""
    env = ctx.env
    arcs = env.index.calc_children(q) if down else env.index.calc_parents(q)
    pairs = [((a.target if down else a.source), a.weight) for a in arcs]
    if not pairs and env.taxonomy is not None:
        rows = env.taxonomy.calc_children(env.bridges.get(q, q)) if down else env.taxonomy.calc_parents(env.bridges.get(q, q))
        pairs = [(other, weight) for _role, other, weight, _order in rows]
    return list(dict.fromkeys(pairs))[:MAX_NEIGHBOURS]


def _weight(w) -> str:
    return "+1" if w is None else (f"+{w.normalize()}" if w > 0 else f"{w.normalize()}")


def _tables(ctx: ToolContext, q) -> list[str]:
    out = []
    for cube in sorted(ctx.env.cubes(), key=lambda c: (c.role, c.hypercube.clark())):
        if q not in cube.primary_items:
            continue
        for axis_q in sorted(cube.axes, key=lambda a: a.clark()):
            ax = cube.axes[axis_q]
            members = [concept_label(ctx, m) for m in sorted(ax.members, key=lambda m: m.clark()) if m not in ax.domains]
            more = f" and {len(members) - MAX_MEMBERS} more" if len(members) > MAX_MEMBERS else ""
            default = concept_label(ctx, ax.default) if ax.default is not None else "none"
            out.append(f"{concept_label(ctx, axis_q)}: members {', '.join(members[:MAX_MEMBERS])}{more}; default {default}")
    return list(dict.fromkeys(out))[:2]


def context(ctx: ToolContext, question: str, *, focus: Fact | None, tools: int) -> str:
    env, n = ctx.env, names(ctx.env)
    linked = [focus.concept] if focus is not None else linked_concepts(ctx, question, tools)
    if not linked:
        return "no concept of the filing matches the question's words"
    blocks, lines = [], 0
    for q in linked:
        own = env.facts(q)
        periods = ({env.filing.contexts[focus.context_id].period} if focus is not None
                   else question_periods(ctx, question, own))
        parents, children = _calc(ctx, q, down=False), _calc(ctx, q, down=True)
        block = [f"concept: {concept_label(ctx, q)} ({n.qstr(q)})"]
        if parents:
            block.append("  calculation parents: " + ", ".join(f"{concept_label(ctx, p)} (weight {_weight(w)})" for p, w in parents))
        if children:
            block.append("  calculation children: " + ", ".join(f"{_weight(w)} {concept_label(ctx, c)}" for c, w in children))
        for t in _tables(ctx, q):
            block.append(f"  table axis {t}")
        block.append("  facts in the period:")
        for who in [q] + [c for c, _ in children] + [p for p, _ in parents]:
            shown = [f for f in unique(ctx, sorted(env.facts(who), key=lambda f: (
                bool(env.filing.contexts[f.context_id].dimensions), f.index)))
                if f.is_numeric and env.filing.contexts[f.context_id].period in periods][:max(0, MAX_FACT_LINES - lines)]
            if shown:
                block.append(f"    {concept_label(ctx, who)}:")
                block += [f"      {fact_line(ctx, f, label=False)}" for f in shown]
                lines += len(shown)
        blocks.append("\n".join(block))
    return "\n".join(blocks)
