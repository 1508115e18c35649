"""Questions worded the way people type them: the ``cases/natural`` corpus (issue 46).

``cases/hard`` asks in two wordings only, FinMR's and the generator's plain words (docs/query-forms.md),
and a reader can learn those two templates instead of the questions. This module words the generator's
cases the way an analyst, an auditor or a filer's own staff types them:

* **frames**: questions ("How much did Apple spend on buybacks in the first nine months of fiscal
  2023?"), noun phrases ("Total current assets on the December 31, 2022 balance sheet"), analyst
  shorthand ("TSLA H1 2024 capex") and requests ("Please tie out Netflix's cost of revenues for Q3 2024");
* **periods** read against the filer's own calendar (its ``dei`` fiscal year and period focus, its
  document period end date and fiscal year end): fiscal and calendar years, quarters ("Q2 FY23", "the
  June 2023 quarter"), halves and year-to-date spans ("first nine months of fiscal 2023", "9M 2024"),
  balance-sheet dates and year-ends, and dates in several spellings;
* **concepts** by the filer's own labels, shortened the way people shorten them ("Accounts receivable,
  net" -> "accounts receivable", "Research and development" -> "R&D"), or by a common analyst synonym
  (:data:`SYNONYMS`); **members** by their labels without the taxonomy's suffixes ("Greater China");
* the company by a short form of its registrant name, or its ticker.

Which wording a case gets is a seeded choice per case (``seed`` and the case id), so the same cases give
the same bytes. Nothing else of a case changes: the fact, the injection and the expectation stay what the
generator made them, i.e. the checkers' answer on the case's **exact twin** (the same case with concept,
period and members given exactly); as with ``--questions`` the fact moves to ``expect.fact``.

A wording never names two facts. A concept phrase (label, shortened label or synonym) is dropped when
another concept the filing reports for the same period and members answers to it too; a period phrase
is only offered when the calendar reading of it gives back exactly the fact's period (a filer whose
``dei`` focus disagrees with its own dates gets dates only). The wording is not tuned to any reader: it
was written from how filings, analyst notes and audit requests word things, before any tool read it.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace
from typing import Callable

from auditflow.cases.generated import GeneratedCase
from auditflow.cases.model import CaseQuery, FactSelector
from auditflow.cases.natural_periods import MONTHS, FiscalCalendar, PeriodWording, fiscal_calendar, period_wordings
from auditflow.cases.natural_words import (
    VERBS, ConceptWording, is_standard, casual, clean_label, company, concept_wordings, member_words, possessive,
    taken_phrases,
)
from auditflow.cases.questions import distractor_tags
from auditflow.env.names import label_of, resolve_concept, resolve_dimensions
from auditflow.env.query import parse_period
from auditflow.env.tool_base import ToolContext


# -- frames ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Parts:
    """What a frame puts together: who, what (members included), when."""

    who: str  # company name or ticker
    ticker: str
    what: str  # the concept phrase with its members
    short_what: str  # the same for shorthand (no articles, shortest label)
    verb: str | None
    when: PeriodWording
    instant: bool


Frame = Callable[[Parts], "str | None"]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


QUESTION_FRAMES: tuple[Frame, ...] = (
    lambda p: f"What was {possessive(p.who)} {p.what} {p.when.phrase}?",
    lambda p: f"What did {p.who} report for {p.what} {p.when.phrase}?",
    lambda p: f"How much did {p.who} {p.verb} {p.when.phrase}?" if p.verb else None,
    lambda p: f"How much {p.what} did {p.who} have {p.when.phrase}?" if p.instant else
    f"How much {p.what} did {p.who} report {p.when.phrase}?",
    lambda p: f"what's the {p.what} number {p.when.phrase}?",
    lambda p: f"Where did {p.what} land {p.when.phrase}?" if not p.instant else
    f"Where did {p.what} stand {p.when.phrase}?",
    lambda p: f"Can you tell me {possessive(p.who)} {p.what} {p.when.phrase}?",
)
NOUN_FRAMES: tuple[Frame, ...] = (
    lambda p: _cap(f"{p.what} {p.when.phrase}"),
    lambda p: f"{possessive(p.who)} {p.what} {p.when.phrase}",
    lambda p: _cap(f"{p.what} reported by {p.who} {p.when.phrase}"),
    lambda p: f"{p.who} {p.what} {p.when.phrase}",
)
SHORTHAND_FRAMES: tuple[Frame, ...] = (
    lambda p: f"{p.ticker} {p.when.short} {p.short_what}" if p.when.short else None,
    lambda p: f"{p.who} {p.short_what} {p.when.short}" if p.when.short else None,
    lambda p: f"{p.short_what} {p.when.short}?" if p.when.short else None,
    lambda p: f"{p.short_what}, {p.when.short} ({p.ticker})" if p.when.short else None,
)
REQUEST_FRAMES: tuple[Frame, ...] = (
    lambda p: f"Check {possessive(p.who)} {p.what} {p.when.phrase}",
    lambda p: f"Please verify the {p.what} {p.when.phrase}",
    lambda p: f"I need {p.what} {p.when.phrase} for {p.who}",
    lambda p: f"Is the {p.what} {p.when.phrase} right?",
    lambda p: f"Tie out {p.what} {p.when.phrase}",
    lambda p: f"Pull the {p.what} figure {p.when.phrase}",
)
FRAMES: dict[str, tuple[Frame, ...]] = {
    "question": QUESTION_FRAMES, "noun": NOUN_FRAMES, "shorthand": SHORTHAND_FRAMES, "request": REQUEST_FRAMES,
}
FRAME_WEIGHTS = {"question": 3, "noun": 3, "shorthand": 2, "request": 2}


def _with_members(what: str, members: list[str], rng: random.Random) -> str:
    if not members:
        return what
    joined = " ".join(members) if len(members) == 1 else ", ".join(members[:-1]) + " and " + members[-1]
    return rng.choice((f"{joined} {what}", f"{what} for {joined}", f"{what} from {joined}", f"{what} ({joined})"))


def natural_question(ctx: ToolContext, q: CaseQuery, filing_name: str, cal: FiscalCalendar,
                     rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """The question for a structured query, and the tags saying how it was worded."""
    concept = resolve_concept(ctx, q.concept)
    dims = resolve_dimensions(ctx, dict(q.dimensions))
    period = parse_period(q.period)
    taken = taken_phrases(ctx, concept, period, dims)
    words = concept_wordings(ctx, concept, taken)
    sources = {w.source for w in words}
    pick = _weighted(rng, {s: w for s, w in (("synonym", 4), ("short", 3), ("filer", 3)) if s in sources}) or \
        next((s for s in ("standard", "name") if s in sources), None)
    # when every phrase of the concept is shared with another concept of the context: its standard label,
    # tagged label_shared (the question cannot tell the two apart by their words)
    choice = rng.choice([w for w in words if w.source == pick]) if pick else \
        ConceptWording("shared", clean_label(label_of(ctx, concept) or concept.local))
    text = casual(choice.text) if rng.random() < 0.7 else choice.text
    members = [member_words(ctx, m) for _a, m in sorted(dims.items(), key=str)]
    what = _with_members(text, members, rng)
    # shorthand takes the shortest phrase, of the filer's and the analysts' when there are any
    shortest = min([w for w in words if w.source in ("synonym", "short", "filer")] or words,
                   key=lambda w: len(w.text), default=choice)
    short_what = " ".join(members + [casual(shortest.text)])
    verbs = VERBS.get(concept.local, ()) if is_standard(concept) and not members else ()
    wordings = period_wordings(period, cal, rng)
    calendar_words = [w for w in wordings if w.style not in ("dates", "instant_date")]
    pool = calendar_words if calendar_words and rng.random() < 0.65 else wordings
    style = rng.choice(sorted({w.style for w in pool}))  # each kind of wording as likely, however many spellings
    when = rng.choice([w for w in pool if w.style == style])
    co = company(ctx.env.filing, filing_name)
    who = co.ticker if rng.random() < 0.25 else co.name
    parts = Parts(who, co.ticker, what, short_what, rng.choice(verbs) if verbs else None, when, period.start is None)
    family = _weighted(rng, FRAME_WEIGHTS)
    while True:
        frames = list(FRAMES[family])
        rng.shuffle(frames)
        for frame in frames:
            if (out := frame(parts)) is not None and not template_like(out):
                used = shortest if family == "shorthand" else choice
                tags = (f"phrasing_{family}", f"period_{when.style}", f"label_{used.source}")
                return " ".join(out.split()), tags
        family = "noun"  # every period wording has a phrase, so a noun frame always applies


# How `cases/hard`'s plain-words questions end (auditflow/cases/questions.py): a statement heading's
# period with the date spelled out. A natural question never ends so, and never reads as FinMR's.
_TEMPLATE_END = re.compile(
    r"(as of|(three months|six months|nine months|year|fiscal year) ended|period from [A-Z][a-z]+ \d{1,2}, \d{4} to) "
    r"(%s) \d{1,2}, \d{4}\??$" % "|".join(MONTHS))


def template_like(text: str) -> bool:
    """Whether a question reads as one of the generator's template questions (plain words or FinMR)."""
    return bool(_TEMPLATE_END.search(text)) or "in the Instance document" in text


def _weighted(rng: random.Random, weights: dict[str, int]) -> str | None:
    if not weights:
        return None
    keys = sorted(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def as_natural_questions(cases: list[GeneratedCase], seed: int) -> list[GeneratedCase]:
    """Each case with its query worded as people type it (seeded per case), no rule hint, and the fact in
    ``expect.fact``; its tags say how it was worded (``phrasing_*``, ``period_*``, ``label_*``) and what
    else it could be taken to mean (the distractor tags of ``--questions``)."""
    out = []
    calendars: dict[str, FiscalCalendar] = {}
    for case in cases:
        rng = random.Random(f"{seed}:natural:{case.id}")
        q = case.query
        ctx = ToolContext(case.filing.env)
        if case.filing.name not in calendars:  # worked out once per filing (setdefault would scan every time)
            calendars[case.filing.name] = fiscal_calendar(case.filing.env.filing)
        cal = calendars[case.filing.name]
        text, how = natural_question(ctx, q, case.filing.name, cal, rng)
        fact = FactSelector(q.concept, q.period, q.dimensions)
        tags = tuple(dict.fromkeys((*case.tags, "query_natural", *how, *distractor_tags(ctx, q))))
        out.append(replace(case, query=CaseQuery(None, None, (), None, "text", text),
                           expect=replace(case.expect, fact=fact), tags=tags))
    return out
