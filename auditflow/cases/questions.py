"""Generated cases asked as auditors ask: plain words or FinMR questions instead of the fact's name.

The generator picks a fact and computes what the checkers answer about it; this module rewrites the
case's structured query into a question that names the fact the way a reader of the filing would
(docs/query-forms.md), drops the rule hint, and moves the fact into ``expect.fact`` so a wrong pick is
labelled E. What makes a question hard is what else it could mean, so each case is tagged with the
distractors the filing holds: the same label under other members, the same concept in other periods,
and facts whose only match is dimensional.

* ``finmr``: FinMR's own wording, a concept and a period only (so only for facts without members);
* ``text``: the filer's own label (standard, terse or total, as its label linkbase has them), the
  members by label, and the period as statements head it ("three months ended July 1, 2023").
"""
from __future__ import annotations

import random
import re
from dataclasses import replace

from auditflow.cases.generated import GeneratedCase
from auditflow.cases.model import CaseQuery, FactSelector
from auditflow.env.phrases import period_phrase
from auditflow.env.query import parse_period
from auditflow.env.tool_base import ToolContext
from auditflow.env.names import label_of, names, resolve_concept, resolve_dimensions

FORMS = ("text", "finmr")
LABEL_ROLES = ("label", "terseLabel", "totalLabel")
_SUFFIX = re.compile(r"\s*\[(member|domain|axis|abstract|line items|table)\]\s*$", re.IGNORECASE)


def finmr_question(concept: str, period: str) -> str:
    p = parse_period(period)
    when = p.end.isoformat() if p.start is None else f"{p.start.isoformat()} to {p.end.isoformat()}"
    return f"What's the reported value of {concept} in the Instance document for the period {when}?"


def _clean(label: str) -> str:
    return _SUFFIX.sub("", " ".join(label.split()))


def concept_label(ctx: ToolContext, concept, rng: random.Random, *, taken: frozenset[str] = frozenset()) -> str:
    """One of the filer's own labels of the concept (seeded choice), else the standard label. ``taken``:
    labels another concept reported for the same period and members also carries; a question worded
    with one of them would name two facts, so it is never chosen (the standard label is then used)."""
    own = names(ctx.env).labels.get(concept, {})
    choices = sorted({_clean(own[r]) for r in LABEL_ROLES if own.get(r)} - taken)
    if choices:
        return rng.choice(choices)
    return _clean(label_of(ctx, concept) or concept.local)


def labels_sharing_the_context(ctx: ToolContext, concept, period: str, dims: dict) -> frozenset[str]:
    """The labels (the filer's, as questions write them) of the other concepts the filing reports for
    ``period`` under exactly the members ``dims``: the words a question must not use for ``concept``.
    On hi-10k-2020-09-30, "Fair value of plan assets" labels two pension concepts, both reported for
    September 30, 2019 under Domestic Plan."""
    index = names(ctx.env)
    others = {f.concept for f in ctx.env.facts(None, period=parse_period(period), dimensions=dict(dims))
              if f.concept != concept}
    return frozenset(_clean(text) for other in others
                     for role, text in index.labels.get(other, {}).items() if role in LABEL_ROLES and text)


def text_question(ctx: ToolContext, q: CaseQuery, rng: random.Random) -> str:
    concept = resolve_concept(ctx, q.concept)
    dims = resolve_dimensions(ctx, dict(q.dimensions))
    label = concept_label(ctx, concept, rng, taken=labels_sharing_the_context(ctx, concept, q.period, dims))
    members = [_clean(label_of(ctx, m) or getattr(m, "local", str(m))) for _a, m in sorted(dims.items(), key=str)]
    phrase = period_phrase(parse_period(q.period), fiscal=rng.random() < 0.5)
    if not members:
        return f"{label}, {phrase}" if rng.random() < 0.5 else f"{label} {_after_label(phrase)}"
    joined = ", ".join(members)
    return (f"{label} ({joined}), {phrase}" if rng.random() < 0.5
            else f"{joined} {label[:1].lower() + label[1:]} {_after_label(phrase)}")


def _after_label(phrase: str) -> str:
    """The period phrase run on after a label: "for the three months ended ...", but "as of ..." and
    "forever" as they are (a balance is not "for the as of" a date)."""
    return phrase if phrase.startswith("as of") or phrase == "forever" else f"for the {phrase}"


def distractor_tags(ctx: ToolContext, q: CaseQuery) -> tuple[str, ...]:
    """What else a question about this fact could be taken to mean, in this filing."""
    concept = resolve_concept(ctx, q.concept)
    period = parse_period(q.period)
    facts = ctx.env.facts(concept)
    contexts = ctx.env.filing.contexts
    tags = []
    same_period = [f for f in facts if contexts[f.context_id].period == period]
    if len({tuple(sorted(map(str, contexts[f.context_id].dims_dict().items()))) for f in same_period}) > 1:
        tags.append("distractor_members")
    if len({contexts[f.context_id].period for f in facts}) > 1:
        tags.append("distractor_periods")
    if q.dimensions and not any(not contexts[f.context_id].dimensions for f in same_period):
        tags.append("dimensional_only")
    return tuple(tags)


def as_questions(cases: list[GeneratedCase], seed: int, *, finmr_share: float = 0.5) -> list[GeneratedCase]:
    """Each case with its query rewritten as a question (seeded: FinMR wording for about ``finmr_share``
    of the facts without members, plain words otherwise), no rule hint, and the fact in ``expect.fact``."""
    out = []
    for case in cases:
        rng = random.Random(f"{seed}:question:{case.id}")
        q = case.query
        ctx = ToolContext(case.filing.env)
        form = "finmr" if not q.dimensions and rng.random() < finmr_share else "text"
        text = finmr_question(q.concept, q.period) if form == "finmr" else text_question(ctx, q, rng)
        fact = FactSelector(q.concept, q.period, q.dimensions)
        tags = tuple(dict.fromkeys((*case.tags, f"query_{form}", *distractor_tags(ctx, q))))
        out.append(replace(case, query=CaseQuery(None, None, (), None, form, text),
                           expect=replace(case.expect, fact=fact), tags=tags))
    return out
