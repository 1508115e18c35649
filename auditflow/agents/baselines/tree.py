"""TreeRAG: a root-to-leaf walk down the filing's presentation hierarchy (docs/baselines.md, "treerag").

Levels: the statement or disclosure (a presentation role), then its presentation tree, heading by
heading, down to one line item, then the line item's facts by period and members. At each level the
branch whose words (its label and every label below it) score best by BM25 against the question is
taken; a walk never backtracks. The context is the chosen role, the path from the root to the line
item, the line item's facts (those that match the question best first) and the lines beside it with
their facts for the same periods.
"""
from __future__ import annotations

from collections import defaultdict

from auditflow.agents.baselines.lines import concept_label, fact_line, fact_text, rank, unique
from auditflow.env.envcache import memo
from auditflow.env.names import names
from auditflow.env.tool_base import ToolContext

MAX_LEAF_FACTS = 8
MAX_SIBLINGS = 6
MAX_SIBLING_FACTS = 1


def _trees(ctx: ToolContext) -> dict[str, dict]:
    """Role -> parent -> children in order, from the filer's presentation arcs (once per filing)."""
    return memo(ctx.env, "baseline_presentation_trees", lambda: _build_trees(ctx))


def _build_trees(ctx: ToolContext) -> dict[str, dict]:
    out: dict[str, dict] = defaultdict(lambda: defaultdict(list))
    for a in ctx.env.filing.arcs:
        if a.kind == "presentation":
            out[a.role][a.source].append((a.order, a.target))
    return {r: {p: [c for _o, c in sorted(kids, key=lambda t: (t[0], t[1].clark()))] for p, kids in tree.items()}
            for r, tree in out.items()}


def _below(tree: dict, node, seen=None) -> list:
    seen = set() if seen is None else seen
    out = []
    for c in tree.get(node, []):
        if c not in seen:
            seen.add(c)
            out.append(c)
            out.extend(_below(tree, c, seen))
    return out


def _words(ctx: ToolContext, nodes) -> str:
    n = names(ctx.env)
    return " ".join(f"{concept_label(ctx, q)} {n.qstr(q)}" for q in nodes)


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_PERIOD_WORDS = frozenset(("fiscal", "year", "years", "ended", "ending", "months", "month", "quarter", "as", "of", "at",
                           "for", "the", "period", "three", "six", "nine", "twelve"))


def naming_words(query: str) -> str:
    """The question without its dates and period words: the hierarchy is walked by what the question
    names; the period chooses among the line item's facts (a year in a note's title, or "fiscal year"
    on the cover page, otherwise pulls the walk there)."""
    return " ".join(w for w in query.replace(",", " ").split()
                    if not any(ch.isdigit() for ch in w) and w.lower().strip(".") not in _MONTHS + tuple(_PERIOD_WORDS))


def _node_scores(ctx: ToolContext, trees: dict, query: str) -> dict:
    """Concept -> its BM25 score against ``query`` (its labels and name), over every presented concept."""
    nodes = sorted({q for tree in trees.values() for p, kids in tree.items() for q in (p, *kids)}, key=lambda q: q.clark())
    order = rank(query, [_words(ctx, [q]) for q in nodes])
    # rank() gives the order only; a node's score is its place from the bottom (ties keep their order)
    return {nodes[i]: len(order) - place for place, i in enumerate(order)}


def walk(ctx: ToolContext, query: str) -> tuple[str, list] | None:
    """(role, path from a root to the chosen line item), or None when the filing has no presentation.

    A branch scores as its best line: the best BM25 score of any concept at or below it, so a long
    statement is not penalised for its length (nor a short cover page favoured)."""
    query = naming_words(query)
    trees = _trees(ctx)
    if not trees:
        return None
    score = _node_scores(ctx, trees, query)
    roles = sorted(trees)

    def best(tree: dict, nodes) -> int:
        return max((score.get(q, 0) for q in nodes), default=0)

    role = max(roles, key=lambda r: (best(trees[r], [q for p, kids in trees[r].items() for q in (p, *kids)]),
                                     -roles.index(r)))
    tree = trees[role]
    targets = {c for kids in tree.values() for c in kids}
    level = sorted((p for p in tree if p not in targets), key=lambda q: q.clark())
    path: list = []
    while level:
        node = max(level, key=lambda q: (best(tree, [q, *_below(tree, q)]), score.get(q, 0), -level.index(q)))
        path.append(node)
        level = [c for c in tree.get(node, []) if c not in path]
    return role, path


def context(ctx: ToolContext, query: str) -> str:
    found = walk(ctx, query)
    if found is None:
        return "the filing has no presentation hierarchy"
    role, path = found
    env, n = ctx.env, names(ctx.env)
    leaf = path[-1]
    parent = path[-2] if len(path) > 1 else None
    trees = _trees(ctx)
    siblings = [c for c in trees[role].get(parent, []) if c != leaf][:MAX_SIBLINGS] if parent is not None else []
    out = [f"statement: {env.role_definition(role)}",
           "path: " + " > ".join(concept_label(ctx, q) for q in path),
           f"line item: {concept_label(ctx, leaf)} ({n.qstr(leaf)})", "  facts:"]
    facts = unique(ctx, [f for f in env.facts(leaf) if f.is_numeric])
    chosen = [facts[i] for i in rank(query, [fact_text(ctx, f) for f in facts])[:MAX_LEAF_FACTS]]
    out += [f"    {fact_line(ctx, f, label=False)}" for f in chosen]
    periods = {env.filing.contexts[f.context_id].period for f in chosen[:2]}
    if siblings:
        out.append("beside it:")
    for s in siblings:
        lines = [f for f in unique(ctx, env.facts(s)) if f.is_numeric and env.filing.contexts[f.context_id].period in periods
                 and not env.filing.contexts[f.context_id].dimensions][:MAX_SIBLING_FACTS]
        out.append(f"  {concept_label(ctx, s)}" + "".join(f"\n    {fact_line(ctx, f, label=False)}" for f in lines))
    return "\n".join(out)
