"""Period phrases as people type them, resolved against one filing's calendar.

An analyst asks for "the first nine months of fiscal 2023", "Q3 FY24", "the June 2023 quarter", "H1
2024" or "the December 31, 2022 balance sheet"; the tools take a period only as ``YYYY-MM-DD`` or
``YYYY-MM-DD..YYYY-MM-DD``. Between the two stands the filer's calendar, which only the filing knows:
its fiscal year end (``dei:CurrentFiscalYearEndDate``), how its fiscal years are numbered
(``dei:DocumentFiscalYearFocus`` against ``dei:DocumentPeriodEndDate``), and, for a 52/53-week filer,
the actual dates of its contexts, which sit up to a week away from the nominal month end. This module
reads a phrase into the periods it can mean (fiscal and calendar readings of "2023" for a September
filer, both ranked), moves each onto the filing's own dates when one lies within a week, and says for
every candidate why it matched and whether the filing reports facts for it (docs/query-forms.md,
"Period phrases by meaning").

It is pure: :func:`read_period` takes a :class:`FilingCalendar` (built from an environment by
:func:`calendar_of`, or from dei values and periods by :func:`calendar_from`;
:mod:`auditflow.env.filing_calendar`) and a text, and reads the longest phrase the rules of
:mod:`auditflow.env.period_words` find in it. The tool ``resolve_period`` (:data:`PERIOD_TOOLS`) shows
its candidates. :mod:`auditflow.env.phrases` stays as it is: the recorded observations depend on its
three statement-heading forms.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from auditflow.env.filing_calendar import DAY, TOLERANCE_DAYS, FilingCalendar, calendar_from, calendar_of
from auditflow.env.period_words import RULES, NoCalendar, Reading
from auditflow.env.tool_base import Tool, ToolContext, ToolError, object_schema
from auditflow.xbrl.model import Period

__all__ = ["FilingCalendar", "PERIOD_TOOLS", "PeriodCandidate", "PeriodReading", "calendar_from", "calendar_of",
           "read_period", "resolve_period", "without_phrase"]
MAX_CANDIDATES = 5


# -- what a reader returns -------------------------------------------------------------------------
@dataclass(frozen=True)
class PeriodCandidate:
    """One period a phrase may mean, in the filing's own dates when it has them."""

    period: Period
    in_filing: bool  # some context of the filing has exactly this period
    facts: int  # how many facts the filing reports for it
    reason: str  # why the phrase means it, e.g. "fiscal 2023 = the fiscal year ending 2023-09-30 (...)"

    @property
    def notation(self) -> str:
        """The period as tool arguments write it: ``2024-06-30`` or ``2024-01-01..2024-06-30``."""
        return str(self.period)


@dataclass(frozen=True)
class PeriodReading:
    """A text read for a period: the words read (``""``: none), the text without them, the candidates."""

    text: str
    matched: str
    rest: str
    candidates: tuple[PeriodCandidate, ...]


_INSTANT_BEFORE = re.compile(r"(?:(?:at|as\s+(?:of|at)|by|on)\s+)?(?:the\s+)?(?:(?P<end>end|close)|(?P<start>beginning|start|opening))"
                             r"(?:\s+of\s+(?:the\s+)?|-)$", re.I)
_INSTANT_AFTER = re.compile(r"^(?:'s)?\s*(?:consolidated\s+)?(?:balance\s+sheets?|statements?\s+of\s+financial\s+position)", re.I)
_NORMALISE = str.maketrans({"\u2019": "'", "\u2018": "'", "\u2013": "-", "\u2014": "-", "\u00a0": " "})
_LEFTOVER = re.compile(r"(?:\s+|^)(?:in|for|during|of|at|as\s+of|on|over|from|the|by|through|since)\s*$", re.I)


def read_period(cal: FilingCalendar, text: str) -> PeriodReading:
    """The period ``text`` names, read against the filing's calendar, with its candidates best first.

    The longest period phrase in the text is read (so "first nine months of fiscal 2023" wins over its
    "fiscal 2023"); "the end of ..." before it or "balance sheet" after it makes it an instant. Candidates
    the filing has come first, then by how the phrase is most plainly read (fiscal before calendar
    unless it says calendar); at most :data:`MAX_CANDIDATES`. No phrase: ``matched == ""`` and no
    candidates. A relative phrase in a filing without dei values raises :class:`ToolError`.
    """
    norm = text.translate(_NORMALISE)  # same length: spans index the text
    best: tuple[int, int, int, re.Match, Callable] | None = None
    for rank, (name, rx, fn) in enumerate(RULES):
        for m in rx.finditer(norm):
            if m.end() == m.start() or not _word_bounded(norm, m):
                continue
            cand = (m.end() - m.start(), -rank, -m.start(), m, fn)
            if best is None or cand[:3] > best[:3]:
                best = cand
    if best is None:
        return PeriodReading(text, "", text.strip(), ())
    _, _, _, m, fn = best
    start, end = m.start(), m.end()
    before = _INSTANT_BEFORE.search(norm[:start])
    after = _INSTANT_AFTER.match(norm[end:])
    try:
        readings = fn(cal, m)
        if before is not None:
            start = before.start()
            readings = [_instant(r, at_start=bool(before["start"])) for r in readings]
        if after is not None:
            end += after.end()
            readings = [_instant(r, at_start=False) for r in readings]
        ranked = _rank(cal, readings)
    except NoCalendar as exc:
        raise ToolError("bad_arguments", f"{m[0].strip()!r} is relative to the document, but {exc}: name the year "
                        "(e.g. 'fiscal 2023')") from None
    except (ValueError, OverflowError):  # a year no calendar holds ("fiscal 0000"): read as no period
        ranked = ()
    return PeriodReading(text, text[start:end].strip(), _rest(text, start, end), ranked)


def _word_bounded(norm: str, m: re.Match) -> bool:
    """A match that neither starts nor ends inside a word ("sq3" and "2023q" are not quarters)."""
    a, b = m.start(), m.end()
    return not (a > 0 and norm[a - 1].isalnum() and norm[a].isalnum()) and not (
        b < len(norm) and norm[b].isalnum() and norm[b - 1].isalnum())


def _instant(r: Reading, *, at_start: bool) -> Reading:
    p = r.nominal
    if p.is_instant:
        return r
    d = (p.start - DAY) if at_start else p.end
    where = "beginning" if at_start else "end"
    return Reading(Period(None, d), f"the {where} of {r.reason}: the instant {d}", r.pref, r.exact, r.only_if_present)


def without_phrase(text: str, matched: str) -> str:
    """``text`` without the period words ``matched`` (as :func:`read_period` or ``resolve_period``'s
    ``read`` gives them) and the little words that tied them in ("in", "for the"...): what is left names
    the line item and its members."""
    at = text.find(matched) if matched else -1
    return _rest(text, at, at + len(matched)) if at >= 0 else " ".join(text.split()).strip(" ,;:.?!")


def _rest(text: str, start: int, end: int) -> str:
    head = _LEFTOVER.sub("", text[:start].rstrip(" ,;:("))
    while (shorter := _LEFTOVER.sub("", head)) != head:
        head = shorter
    tail = text[end:].strip(" ,;:.?!)")
    return " ".join(f"{head} {tail}".split()).strip(" ,;:.?!")


def _rank(cal: FilingCalendar, readings: list[Reading]) -> tuple[PeriodCandidate, ...]:
    scored: list[tuple[tuple, PeriodCandidate]] = []
    seen: set[Period] = set()
    for i, r in enumerate(readings):
        period, note = _snap(cal, r)
        if period in seen or (r.only_if_present and period not in cal.facts_by_period):
            continue
        seen.add(period)
        have = period in cal.facts_by_period
        facts = cal.facts_by_period.get(period, 0)
        scored.append(((not have, r.pref, i), PeriodCandidate(period, have, facts, r.reason + note)))
    return tuple(c for _, c in sorted(scored, key=lambda sc: sc[0]))[:MAX_CANDIDATES]


def _snap(cal: FilingCalendar, r: Reading) -> tuple[Period, str]:
    """The reading's period in the filing's own dates: itself when a context has it, else the filing's
    period of the same kind whose ends lie within :data:`TOLERANCE_DAYS` (nearest, then most facts)."""
    p = r.nominal
    if p in cal.facts_by_period:
        return p, ""
    tol = TOLERANCE_DAYS
    near = []
    for q in cal.facts_by_period:
        if q.forever or q.is_instant != p.is_instant or q.end is None:
            continue
        gap = abs((q.end - p.end).days) + (abs((q.start - p.start).days) if not p.is_instant else 0)
        if abs((q.end - p.end).days) <= tol and (p.is_instant or abs((q.start - p.start).days) <= tol):
            near.append((gap, -cal.facts_by_period[q], str(q), q))
    if not near:
        return p, f"; {p} is not a period of the filing"
    q = min(near)[3]
    if r.exact:
        return q, f"; the filing has no {p}, the nearest is {q}"
    return q, f"; in the filing as {q} (its 52/53-week dates, within {tol} days)"


# -- the tool -------------------------------------------------------------------------------------------
def resolve_period(ctx: ToolContext, args: dict) -> dict:
    """``resolve_period``: a phrase -> the filing's periods it may mean, ranked, each with its reason."""
    phrase = " ".join(str(args["phrase"]).split())
    cal = calendar_of(ctx.env)
    reading = read_period(cal, phrase)
    if not reading.candidates:
        latest = sorted((p for p in cal.facts_by_period if not p.forever), key=lambda p: (p.end, p.days), reverse=True)
        raise ToolError("bad_arguments", f"no period phrase in {phrase!r}: name one such as 'fiscal 2023', 'Q2 2024', "
                        "'first half of 2024', 'six months ended June 30, 2024' or 'as of December 31, 2022'",
                        [str(p) for p in latest])
    ranked = [{"rank": i, "period": c.notation, "in_filing": c.in_filing, "facts": c.facts, "reason": c.reason}
              for i, c in enumerate(reading.candidates, 1)]
    return {"phrase": phrase, "read": reading.matched, "candidates": ctx.order(ranked, "resolve_period", phrase),
            "count": len(ranked)}


PERIOD_TOOLS: tuple[Tool, ...] = (
    Tool("resolve_period", "Turn a period phrase ('fiscal 2023', 'Q2 2024', 'first nine months of fiscal 2023', "
         "'H1 2024', 'as of December 31, 2022') into the filing's periods, best first: each with the reason it "
         "matches and how many facts the filing reports for it.", "static",
         object_schema({"phrase": {"type": "string", "minLength": 1,
                                   "description": "the period as the question words it, or the whole question"}},
                       ("phrase",)), resolve_period),
)
