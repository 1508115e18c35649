"""``search_concepts`` of tool-set version 2: the concept search by meaning, as a tool.

Version 1 (:mod:`auditflow.env.static_tools`) stays byte for byte what the recorded conversations
read; a prompt profile chooses the version (docs/prompt-profiles.md, "Tool sets"). Same name and
arguments, so every harness that offers or reads a search (the guided view's options, the policy,
the direct baseline's excerpt) works with either; the hits are ranked by :mod:`auditflow.env.search`
and each says why it matched. The observation stays short and flat: concept, label, reported, the
filer's label that matched when it is another one, why.
"""
from __future__ import annotations

from typing import Any

from auditflow.env.names import label_of, names
from auditflow.env.search import rank_concepts, why
from auditflow.env.tool_base import Tool, ToolContext, ToolError, object_schema


def search_concepts_by_meaning(ctx: ToolContext, args: dict) -> dict:
    """Concepts that the words of ``text`` name, best first (docs/query-forms.md, "Concept search")."""
    text, limit = " ".join(args["text"].split()), args.get("limit", 10)
    if not text:
        raise ToolError("bad_arguments", "text must contain a word of the line item, e.g. 'capital expenditures'")
    n = names(ctx.env)
    query, ranked = rank_concepts(ctx, text, limit)
    hits: list[dict[str, Any]] = []
    for h in ranked:
        label = label_of(ctx, h.concept)
        hit: dict[str, Any] = {"concept": n.qstr(h.concept), "label": label, "reported": h.reported}
        if h.source not in ("name", "documentation") and h.matched != label:
            hit["matched_label"] = h.matched
        hit["why"] = why(h)
        hits.append(hit)
    searched = " ".join(query.words)
    if not hits and ctx.env.taxonomy is not None and searched:  # a concept this filing never names
        hits = [{"concept": n.qstr(q), "label": label_of(ctx, q), "reported": bool(ctx.env.index.by_concept.get(q)),
                 "why": "taxonomy name"} for q in ctx.env.taxonomy.search(searched, limit=limit)]
    if not hits:
        raise ToolError("unknown_concept", f"no concept of the filing is named by {searched or text!r}: try the line "
                        "item's own words (as the statement prints it) or another word for it")
    obs: dict[str, Any] = {"source": "taxonomy" if ctx.env.taxonomy is not None else "filing", "text": text,
                           "searched": searched}
    if query.shorthand:
        obs["shorthand"] = {phrase: words for phrase, words in query.shorthand}
    if query.member_words:  # words that name members: resolve_member reads them, a concept need not hold them
        obs["member_words"] = list(query.member_words)
    out = ctx.order(hits, "search_concepts", text, limit)
    obs.update({"concepts": out, "count": len(out)})
    return obs


SEARCH_BY_MEANING = Tool(
    "search_concepts", "Find concepts by meaning: give the line item in your own words, or the whole question, e.g. "
    "'capital expenditures' or 'total current assets'. Every label of the filing is ranked; concepts the filing "
    "reports, and those on its statements, come first; each hit says why it matched.", "static",
    object_schema({"text": {"type": "string", "minLength": 1, "description": "the line item or the question, in words"},
                   "limit": {"type": "integer", "minimum": 1, "maximum": 25, "description": "at most this many (default 10)"}},
                  ("text",)), search_concepts_by_meaning)
