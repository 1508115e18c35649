"""Facts and text as the retrieval baselines show them: one compact line per fact, text cut by size.

A line carries what a reader of the statement sees (docs/baselines.md): the handle, the concept's label,
the period with the words a statement heads it with ("12 months ended September 25, 2021"), the members
by label, the unit and the value. Handles are given only when a line is shown, so the model reads F1,
F2... in the order of its context. :func:`rank` is the one BM25 ranking every baseline uses.
"""
from __future__ import annotations

import html
import re
import threading
from typing import Sequence

from auditflow.env.facts import fact_unit, fact_value
from auditflow.env.names import label_of, names
from auditflow.env.search import stems  # the concept search's words: the same stems, a stemmer per thread
from auditflow.env.tool_base import ToolContext
from auditflow.xbrl.model import Fact

TEXT_CHUNK_CHARS = 400  # a text block is cut into pieces of about this size
_TAG = re.compile(r"<[^>]+>")


def concept_label(ctx: ToolContext, q) -> str:
    """The filer's own labels (its standard label, then the others its statements print, such as a terse
    "Cost of sales"), else the taxonomy's, else the name."""
    own = names(ctx.env).labels.get(q, {})
    texts = list(dict.fromkeys(t for r, t in sorted(own.items(), key=lambda rt: (rt[0] != "label", rt[0]))
                               if "documentation" not in r.lower()))
    return " / ".join(texts[:3]) if texts else (label_of(ctx, q) or names(ctx.env).qstr(q))


def period_words(period) -> str:
    """``2020-09-27..2021-09-25 (12 months ended September 25, 2021)``; an instant ``as of`` its date."""
    if period.forever or period.end is None:
        return "forever"
    when = f"{period.end:%B} {period.end.day}, {period.end.year}"
    if period.start is None:
        return f"{period.end.isoformat()} (as of {when})"
    months = round((period.end - period.start).days / 30.44)
    return f"{period} ({months} months ended {when})"


def member_words(ctx: ToolContext, fact: Fact) -> str:
    dims = ctx.env.filing.contexts[fact.context_id].dimensions
    return "; ".join(f"{concept_label(ctx, axis)}: {_member(ctx, m)}" for axis, m in dims)


def _member(ctx: ToolContext, member) -> str:
    q = getattr(member, "qname", None) or member
    return concept_label(ctx, q) if hasattr(q, "local") else str(getattr(member, "value", member))


def fact_text(ctx: ToolContext, fact: Fact, *, label: bool = True) -> str:
    """The words of a fact line without its handle (what BM25 reads)."""
    parts = [concept_label(ctx, fact.concept)] if label else []
    parts.append(period_words(ctx.env.filing.contexts[fact.context_id].period))
    if members := member_words(ctx, fact):
        parts.append(f"members {members}")
    value = fact_value(fact)
    unit = fact_unit(ctx, fact)
    parts.append(f"{value if value is not None else 'nil'}{f' {unit}' if unit else ''}")
    return " | ".join(parts)


def fact_line(ctx: ToolContext, fact: Fact, *, label: bool = True) -> str:
    """``F3 | Cost of sales | 2020-09-27..2021-09-25 (12 months ended September 25, 2021) | 212981000000 USD``."""
    return f"{ctx.handles.handle(fact)} | {fact_text(ctx, fact, label=label)}"


def text_pieces(raw: str, size: int = TEXT_CHUNK_CHARS) -> list[str]:
    """A text block's words without markup, cut at word boundaries into pieces of about ``size``."""
    words = html.unescape(_TAG.sub(" ", raw)).split()
    pieces, cur = [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > size:
            pieces.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    if cur:
        pieces.append(cur)
    return pieces


def is_text_block(fact: Fact) -> bool:
    return not fact.is_numeric and fact.value is not None and len(fact.value) > 200


class Bm25Index:
    """BM25 over fixed documents, built once and asked many times: a filing's chunks are the same for
    every question about it, and stemming and indexing them costs far more than one query."""

    def __init__(self, docs: Sequence[str]):
        self.size = len(docs)
        self._retriever = None
        self._lock = threading.Lock()  # cases of one filing may rank at once (eval's jobs)
        if docs:
            import bm25s

            self._retriever = bm25s.BM25()
            self._retriever.index([stems(d) or ["\u0000"] for d in docs], show_progress=False)

    def rank(self, query: str) -> list[int]:
        """Indices of the documents by BM25 score against ``query``, best first; ties (and zero scores)
        keep the documents' order, so the ranking is the same on every run."""
        terms = stems(query)
        if self._retriever is None or not terms:
            return list(range(self.size))
        with self._lock:
            scores = self._retriever.get_scores(terms)
        return sorted(range(self.size), key=lambda i: (-round(float(scores[i]), 9), i))


def rank(query: str, docs: Sequence[str]) -> list[int]:
    """:meth:`Bm25Index.rank` over ``docs`` indexed for this one query."""
    return Bm25Index(docs).rank(query) if docs and stems(query) else list(range(len(docs)))


def unique(ctx: ToolContext, facts) -> list[Fact]:
    """``facts`` without exact repeats (an inline filing shows one number on several pages): one line each."""
    seen, out = set(), []
    for f in facts:
        key = fact_text(ctx, f)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out
