"""The deterministic policy's reading of a question by meaning, with the tools that resolve phrases.

The policy (:mod:`auditflow.agents.policy`) reads a question the way the case generator writes one: a
label, then "year ended <date>", then member labels. A question typed in a user's own words ("Tesla's
capital expenditures in the first half of 2024", "iPhone net sales in Greater China for fiscal
2023") has none of those forms. When the auditors' tool set offers ``resolve_period`` (and
``resolve_member``), the policy reads the question through them instead, like any model would:

1. ``resolve_period`` on the whole question: the period candidates, best first, and the period words;
2. ``resolve_member`` on the rest: the members it names together, and so the words that name them;
3. ``search_concepts`` on the rest and on the words that name no member, in turn, one hit more at a
   time (``limit`` 1, then 2...: the new hit is the next best, and no order of a list decides), and
   for each concept the filing reports:

   * ``resolve_member`` on the member words (those its own label does not hold), for that concept: the
     axis its facts use them on (a word the search set aside, such as the company's name, names no
     member); a concept without the members named is passed over, and the first such concept is tried
     last without members (the words were the line item's own: "cash spent on share repurchases"
     names no member "Cash");
   * the fact: ``find_facts`` with exactly that concept, period and members, for each period candidate
     the filing has (a role that cannot browse facts: its first checker with that selector);

   the first concept with such a fact is the one; then every checker, then the report.

The calls are not remembered between steps: each step replays the reading over the observations so
far and asks for the first call not yet answered, so a re-opened audit reads the question the same
way. Only a tool set that offers ``resolve_period`` turns this on, so the policy's rows on the recorded
corpora (tool set 1) are what they were (docs/query-forms.md, "Where the resolvers are offered").
"""
from __future__ import annotations

from collections import defaultdict, deque
from typing import Any

from auditflow.agents.junior import MAX_STEPS
from auditflow.agents import policy_steps
from auditflow.agents.prompts import FINAL_REPORT
from auditflow.env.tools import CHECKS
from auditflow.env.members import FILLER as MEMBER_FILLER
from auditflow.env.members import words as member_words_of
from auditflow.env.periods import without_phrase
from auditflow.env.phrases import PeriodWords
from auditflow.env.query import parse_period

MAX_CONCEPTS = 4  # search hits tried, best first
MAX_PERIODS = 3  # period candidates tried for one concept
TAIL = 5  # calls a found fact still needs in a round: the role's tools on it and the report


class _Need(Exception):
    """The next call to make: the reading cannot go on without its observation."""

    def __init__(self, tool: str, arguments: dict) -> None:
        super().__init__(tool)
        self.call = (tool, arguments)


class _Steps:
    """The observations so far, per tool in the order they came: the reading asks for them in the same
    order each time, so the n-th call of a tool it asks for is the n-th observation of that tool."""

    def __init__(self, seen: list[tuple[str, dict]]) -> None:
        self._queues: dict[str, deque] = defaultdict(deque)
        for name, obs in seen:
            self._queues[name].append(obs)
        self.used = 0  # calls the reading has made so far: the same at every replay

    def get(self, tool: str, arguments: dict) -> dict:
        if not self._queues[tool]:
            raise _Need(tool, arguments)
        self.used += 1
        return self._queues[tool].popleft()


def natural_next(role: str, question: str, seen: list[tuple[str, dict]], allowed, *, reopened: int = 0) -> tuple[str, dict]:
    """The next (tool, arguments) for a question read by meaning (the steps in the module's docstring)."""
    try:
        target = _find(role, question, _Steps(seen), allowed)
    except _Need as need:
        return need.call
    if target is None:
        return FINAL_REPORT, policy_steps.report_from_checks({}, {}, "no concept of the filing named by the question has a fact with the "
                                             "period and members it names")
    checks = [(n, o) for n, o in seen if n in CHECKS and "error" not in o]
    done = {n for n, o in seen[reopened:] if "error" not in o}
    for tool in policy_steps.PLANS.get(role, ()):
        if tool in allowed and tool not in done and tool not in ("get_fact", "get_concept"):
            return tool, target["args"]
    return FINAL_REPORT, policy_steps.report_from_checks(target["fact"], dict(checks), "")


def _find(role: str, question: str, steps: _Steps, allowed) -> dict | None:
    """{"args": a fact handle, "fact": its view} of the fact the question names, or None."""
    read = steps.get("resolve_period", {"phrase": question})
    candidates = [] if "error" in read else sorted(read.get("candidates") or [], key=lambda c: c.get("rank", 0))
    rest = without_phrase(" ".join(question.split()), read.get("read") or "") if candidates else question
    periods: list[str | None] = [c["period"] for c in candidates if c.get("in_filing")][:MAX_PERIODS]
    if not candidates:
        periods = [None]  # no period named: the latest fact
    by_member = "resolve_member" in allowed
    named = steps.get("resolve_member", {"phrase": rest or question}) if by_member else None
    member_words, line_words = _split(rest, named)
    # the words as asked, and without the members' words: a member's label may be the line item's own
    # name ("Cost of revenues"), or the members may crowd the line item out of the search
    texts = list(dict.fromkeys(t for t in (rest or question, line_words) if t))
    limits = dict.fromkeys(texts, 0)
    searched: dict[str, str] = {}  # the words a search kept -> the text that searched them first
    kept: frozenset[str] | None = None  # the words the search of the whole rest kept (None: not said)
    tried: set[str] = set()
    without: list[str] = []  # concepts whose facts carry none of the members named: tried last, as totals
    for text in [t for _ in range(MAX_CONCEPTS) for t in texts]:
        if limits[text] < 0:
            continue  # this search has no more hits
        if tried and steps.used + 2 + len(periods) + TAIL > MAX_STEPS:
            break  # what is left of the round's budget goes to the checkers
        limits[text] += 1
        found = steps.get("search_concepts", {"text": text, "limit": limits[text]})
        if "error" in found or int(found.get("count") or 0) < limits[text]:
            limits[text] = -1
        if isinstance(found.get("searched"), str):
            if text == texts[0] and kept is None:
                kept = member_words_of(found["searched"])
            if searched.setdefault(found["searched"], text) != text:
                limits[text] = -1  # the same words as another text's search: the same hits
                continue
        new = sorted((h for h in _reported(found) if h["concept"] not in tried), key=lambda h: h["concept"])
        tried |= {h["concept"] for h in policy_steps.hits(found) if h.get("concept")}
        if not new:
            continue  # the next hit is one the filing does not report
        hit = new[0]
        dims: dict[str, str] = {}
        words = " ".join(w for w in member_words.split() if not member_words_of(w) <= _label_words(hit)
                         and (kept is None or member_words_of(w) <= kept))  # not a word the search set aside
        if words and by_member:
            members = steps.get("resolve_member", {"phrase": words, "concept": hit["concept"]})
            dims = _confirmed(members, words, named)
            if not dims:
                without.append(hit["concept"])
                continue  # the members named may be real: a concept that carries them is looked for first
        fact = _fact(role, hit["concept"], periods, dims, steps, allowed)
        if fact is not None:
            return fact
    for concept in without[:1]:  # the words read as a member were the line item's ("cash spent on...")
        if steps.used + len(periods) + TAIL > MAX_STEPS:
            break
        fact = _fact(role, concept, periods, {}, steps, allowed)
        if fact is not None:
            return fact
    return None


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


def _confirmed(found: dict, words: str, named: dict | None) -> dict[str, str]:
    """The members ``resolve_member`` found for a concept that the words name: a label they hold whole,
    or a member they already named before the concept was known. A label they only share a word with
    ("sales" in "Automotive sales", left over from "cost of sales") is no member the question names."""
    if "error" in found:
        return {}
    before = set(((named or {}).get("dimensions") or {}).values()) if named and "error" not in named else set()
    want = member_words_of(words)
    labels = {(c.get("axis"), c.get("member")): str(c.get("label") or "") for c in found.get("candidates") or []}
    out = {}
    for axis, member in (found.get("dimensions") or {}).items():
        core = (member_words_of(labels.get((axis, member), "")) - MEMBER_FILLER) or member_words_of(labels.get((axis, member), ""))
        if member in before or (core and core <= want):
            out[axis] = member
    return out if len(out) == len(found.get("dimensions") or {}) else {}


def _reported(obs: dict) -> list[dict]:
    """A search's hits the filing reports facts of (a guided view offers only those)."""
    return [] if "error" in obs else [h for h in policy_steps.hits(obs) if h.get("reported", True) and h.get("concept")]


def _label_words(hit: dict) -> frozenset[str]:
    words: set[str] = set()
    for label in (hit.get("matched_label"), hit.get("label")):
        words |= member_words_of(label or "")
    return frozenset(words - policy_steps.FILLER)


def _fact(role, concept: str, periods: list[str | None], dims: dict[str, str], steps: _Steps, allowed) -> dict | None:
    """The concept's fact with the members and the first period that has one: found with ``find_facts``,
    or, for a role that cannot browse facts, by its first checker with the selector."""
    first_check = next((t for t in policy_steps.PLANS.get(role, ()) if t in CHECKS and t in allowed), None)
    for period in periods:
        args: dict[str, Any] = {"concept": concept, "dimensions": dims}
        if period is not None:
            args["period"] = period
        if "find_facts" in allowed:
            fact = _pick(steps.get("find_facts", args), latest=period is None)
            if fact is not None:
                return {"args": {"fact": fact["fact"]}, "fact": {**fact, "concept": concept}}
        elif first_check is not None and period is not None:
            checked = steps.get(first_check, args)
            if "error" not in checked and checked.get("fact"):
                return {"args": {"fact": checked["fact"]},
                        "fact": {"fact": checked["fact"], "concept": concept, "value": checked.get("reported")}}
    return None


def _pick(obs: dict, *, latest: bool) -> dict | None:
    """The fact an exact find_facts listed: one fact, or, of several (another unit, a copy), the first in
    a fixed order of their words; with no period asked, the latest period's. Never by listed position."""
    if "error" in obs:
        return None
    if latest:  # the facts' periods are needed: as listed, or read back from the offered calls' words
        facts = [f for f in policy_steps.listed_facts(obs) if isinstance(f.get("fact"), str)]
        return max(facts, key=lambda f: (*_span(f), _text(f))) if facts else None
    facts = [f for f in obs.get("facts") or [] if isinstance(f.get("fact"), str)] if "facts" in obs else [
        {"fact": o["arguments"]["fact"], "is": o.get("is")} for o in policy_steps.offered(obs) if isinstance(o["arguments"].get("fact"), str)]
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
