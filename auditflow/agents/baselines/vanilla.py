"""Vanilla RAG: the filing as text chunks, BM25 against the question, the top chunks as the context.

Chunks (docs/baselines.md, "vanilla-rag"): the numeric facts of one concept, at most
``LINES_PER_CHUNK`` lines each (label, period, members, unit, value), and the text blocks cut by size.
Nothing of the filing's structure is used beyond what a line says: that is what this baseline measures.
The chunks of a filing and their BM25 index are built once per environment; handles are given only to the
lines shown.
"""
from __future__ import annotations

from dataclasses import dataclass

from auditflow.agents.baselines.lines import Bm25Index, concept_label, fact_line, fact_text, is_text_block, period_words, \
    text_pieces, unique
from auditflow.env.envcache import memo
from auditflow.env.names import names
from auditflow.env.tool_base import ToolContext
from auditflow.xbrl.model import Fact

LINES_PER_CHUNK = 4
TOP_FACT_CHUNKS = 3  # the best chunks of fact lines...
TOP_TEXT_CHUNKS = 1  # ...and of text: long text blocks outscore short fact lines on a question's common words


@dataclass(frozen=True)
class Chunk:
    """Facts (numeric lines) or one piece of a text block (``text``, with the fact it comes from)."""

    facts: tuple[Fact, ...]
    words: str  # what BM25 reads
    head: str  # the concept's label and name, shown once above its lines
    text: str | None = None  # the piece of a text block, when the chunk is one


def _order(ctx: ToolContext, f: Fact) -> tuple:
    c = ctx.env.filing.contexts[f.context_id]
    return (bool(c.dimensions), -(c.period.end.toordinal() if c.period.end else 0), f.index)


def chunks(ctx: ToolContext) -> list[Chunk]:
    def build() -> list[Chunk]:
        out: list[Chunk] = []
        for q, facts in sorted(ctx.env.index.by_concept.items(), key=lambda kv: min(f.index for f in kv[1]) if kv[1] else 0):
            numeric = unique(ctx, sorted((f for f in facts if f.is_numeric), key=lambda f: _order(ctx, f)))
            for i in range(0, len(numeric), LINES_PER_CHUNK):
                part = tuple(numeric[i:i + LINES_PER_CHUNK])
                head = f"{concept_label(ctx, q)} ({names(ctx.env).qstr(q)})"
                out.append(Chunk(part, head + "\n" + "\n".join(fact_text(ctx, f, label=False) for f in part), head))
            for f in facts:
                if is_text_block(f):
                    head = f"{concept_label(ctx, q)} | {period_words(ctx.env.filing.contexts[f.context_id].period)}"
                    out.extend(Chunk((f,), f"{head} {names(ctx.env).qstr(q)} {piece}", head, piece) for piece in text_pieces(f.value or ""))
        return out

    return memo(ctx.env, "baseline_vanilla_chunks", build)


def context(ctx: ToolContext, question: str) -> str:
    """The best chunks for ``question`` (``TOP_FACT_CHUNKS`` of facts, then ``TOP_TEXT_CHUNKS`` of text), as
    the model reads them."""
    found = chunks(ctx)
    ranked = memo(ctx.env, "baseline_vanilla_index", lambda: Bm25Index([c.words for c in found])).rank(question)
    order = ([i for i in ranked if found[i].text is None][:TOP_FACT_CHUNKS]
             + [i for i in ranked if found[i].text is not None][:TOP_TEXT_CHUNKS])
    blocks = []
    for n, i in enumerate(order, 1):
        c = found[i]
        if c.text is not None:
            blocks.append(f"[passage {n}] {ctx.handles.handle(c.facts[0])} | {c.head} | text: {c.text}")
        else:
            blocks.append(f"[passage {n}] {c.head}\n" + "\n".join(fact_line(ctx, f, label=False) for f in c.facts))
    return "\n".join(blocks)
