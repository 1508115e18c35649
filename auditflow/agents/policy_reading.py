"""The deterministic policy's reading of a question by meaning, with the tools that resolve phrases.

The policy (:mod:`auditflow.agents.policy`) reads a question the way the case generator writes one: a
label, then "year ended <date>", then member labels. A question typed in a user's own words ("Tesla's
capital expenditures in the first half of 2024", "iPhone net sales in Greater China for fiscal
2023") has none of those forms. When the auditors' tool set offers ``resolve_period`` (and
``resolve_member``), the policy reads the question through them instead, like any model would:

1. ``resolve_period`` on the whole question: the period candidates, best first, and the period words;
2. ``resolve_member`` on the rest: the members it names together, and so the words that name them;
3. ``search_concepts`` on the other words (by meaning in that tool set): the top hit, alone (``limit``
   1, so no order of a list decides), else among all hits a label the words name whole, the longest;
   then ``resolve_member`` again on the member words, for that concept: the axis its facts use them on;
4. the fact: ``find_facts`` with exactly that concept, period and dimensions (a role that cannot
   browse facts: the checkers with that selector), trying the next period candidate the filing has
   when one finds nothing; then every checker, then the report.

Only a tool set that offers ``resolve_period`` turns this on, so the policy's rows on the recorded
corpora (tool set 1) are what they were (docs/query-forms.md, "Period phrases by meaning").
"""
from __future__ import annotations

from typing import Any

from auditflow.agents.policy import CHECKS, FILLER, FINAL_REPORT, PLANS, _hits, _listed_facts, _offered, _report, _words
from auditflow.env.members import words as member_words_of
from auditflow.env.periods import without_phrase
from auditflow.env.phrases import PeriodWords
from auditflow.env.query import parse_period

MAX_PERIOD_TRIES = 3


def natural_next(role: str, question: str, seen: list[tuple[str, dict]], allowed, *, reopened: int = 0) -> tuple[str, dict]:
    """The next (tool, arguments) for a question read by meaning (the steps in the module's docstring)."""
    periods = [o for n, o in seen if n == "resolve_period"]
    if not periods:
        return "resolve_period", {"phrase": question}
    read = periods[0]
    candidates = [] if "error" in read else sorted(read.get("candidates") or [], key=lambda c: c.get("rank", 0))
    rest = without_phrase(" ".join(question.split()), read.get("read") or "") if candidates else question
    by_member = "resolve_member" in allowed
    members = [o for n, o in seen if n == "resolve_member"]
    if by_member and not members:
        return "resolve_member", {"phrase": rest or question}
    member_words, line_words = _split(rest, members[0] if members else None)
    chosen = _concept(seen, line_words or rest)
    if isinstance(chosen, tuple):
        return chosen
    if chosen is None:
        return FINAL_REPORT, _report({}, {}, "no concept of the filing is named by the question's words")
    concept = chosen["concept"]
    dims: dict[str, str] = {}
    if member_words and by_member:
        if len(members) < 2:  # the members again, now only those the concept's facts use: their axis
            return "resolve_member", {"phrase": member_words, "concept": concept}
        dims = dict(members[1].get("dimensions") or {}) if "error" not in members[1] else {}
    in_filing = [c["period"] for c in candidates if c.get("in_filing")][:MAX_PERIOD_TRIES]
    target = _target(role, concept, in_filing, bool(candidates), dims, seen, allowed)
    if isinstance(target, tuple):
        return target
    if target is None:
        return FINAL_REPORT, _report({}, {}, "no fact of the question's concept has the period and members it names")
    checks = [(n, o) for n, o in seen if n in CHECKS and "error" not in o]
    done = {n for n, o in seen[reopened:] if "error" not in o}
    for tool in PLANS.get(role, ()):
        if tool in allowed and tool not in done and tool not in ("get_fact", "get_concept"):
            return tool, target["args"]
    return FINAL_REPORT, _report(target["fact"], dict(checks), "")


def _split(rest: str, found: dict | None) -> tuple[str, str]:
    """(the words of ``rest`` that name the members ``resolve_member`` found together, the other words:
    the line item's). A word belongs to the members when its content is in one of their labels."""
    if not found or "error" in found:
        return "", rest
    named = {(a, m) for a, m in (found.get("dimensions") or {}).items()}
    label_words: set[str] = set()
    for c in found.get("candidates") or []:
        if (c.get("axis"), c.get("member")) in named:
            label_words |= member_words_of(str(c.get("label") or ""))
    members, line = [], []
    for token in rest.split():
        content = member_words_of(token)
        (members if content and content <= label_words else line).append(token)
    return " ".join(members), " ".join(line)


def _concept(seen, text: str):
    """{"concept", "words" of its labels}, a search to make first, or None: the search's only hit with
    ``limit`` 1; failing that, among a full search's hits a label the words name whole, the longest."""
    text = text or "total"
    searches = [o for n, o in seen if n == "search_concepts"]
    if not searches:
        return "search_concepts", {"text": text, "limit": 1}
    hits = _reported(searches[0])
    if len(hits) == 1:
        return {"concept": hits[0]["concept"], "words": _label_words(hits[0])}
    if len(searches) == 1:
        return "search_concepts", {"text": text}
    asked = set(_words(text).split())
    whole = [(len(_label_words(h)), h["concept"], h) for h in _reported(searches[1]) if _label_words(h) and _label_words(h) <= asked]
    if not whole:
        return None
    best = max(whole, key=lambda w: (w[0], w[1]))
    return {"concept": best[1], "words": _label_words(best[2])}


def _reported(obs: dict) -> list[dict]:
    """A search's hits the filing reports facts of (a guided view offers only those)."""
    return [] if "error" in obs else [h for h in _hits(obs) if h.get("reported", True) and h.get("concept")]


def _label_words(hit: dict) -> frozenset[str]:
    words = set()
    for label in (hit.get("matched_label"), hit.get("label")):
        words |= set(_words(label or "").split())
    return frozenset(words - FILLER)


def _target(role, concept: str, periods: list[str], named: bool, dims: dict[str, str], seen, allowed):
    """{"args", "fact"} of the fact to check, a (tool, arguments) lookup to make first, or None."""
    if "find_facts" in allowed:
        looks = [o for n, o in seen if n == "find_facts"]
        tries = periods if named else [None]
        for i, period in enumerate(tries):
            if i >= len(looks):
                args: dict[str, Any] = {"concept": concept, "dimensions": dims}
                if period is not None:
                    args["period"] = period
                return "find_facts", args
            fact = _pick(looks[i], latest=period is None)
            if fact is not None:
                return {"args": {"fact": fact["fact"]}, "fact": {**fact, "concept": concept}}
        return None
    ran = [o for n, o in seen if n in CHECKS and "error" not in o]
    if ran:
        return {"args": {"fact": ran[-1]["fact"]}, "fact": {"fact": ran[-1]["fact"], "concept": concept,
                                                            "value": ran[-1].get("reported")}}
    errors = sum(1 for n, o in seen if n in CHECKS and "error" in o)
    if errors >= len(periods):
        return None
    return {"args": {"concept": concept, "period": periods[errors], "dimensions": dims}, "fact": {"concept": concept}}


def _pick(obs: dict, *, latest: bool) -> dict | None:
    """The fact an exact find_facts listed: one fact, or, of several (another unit, a copy), the first in
    a fixed order of their words; with no period asked, the latest period's. Never by listed position."""
    if "error" in obs:
        return None
    if latest:  # the facts' periods are needed: as listed, or read back from the offered calls' words
        facts = [f for f in _listed_facts(obs) if isinstance(f.get("fact"), str)]
        return max(facts, key=lambda f: (*_span(f), _text(f))) if facts else None
    facts = [f for f in obs.get("facts") or [] if isinstance(f.get("fact"), str)] if "facts" in obs else [
        {"fact": o["arguments"]["fact"], "is": o.get("is")} for o in _offered(obs) if isinstance(o["arguments"].get("fact"), str)]
    return min(facts, key=_text) if facts else None


def _text(fact: dict) -> str:
    return str(fact.get("is") or fact.get("period") or "") + str(sorted((fact.get("dimensions") or {}).items()))


def _span(fact: dict) -> tuple[str, int]:
    """(end date, minus the length in days): the latest period first, of those the shortest."""
    words = fact.get("period_words")
    if isinstance(words, PeriodWords):
        return words.end.isoformat(), -int((words.months or 0) * 30.44)
    try:
        p = parse_period(str(fact.get("period") or ""))
    except Exception:  # noqa: BLE001 - a listed fact without a readable period sorts first
        return "", 0
    return (p.end.isoformat() if p.end else ""), -p.days
