"""The guided search of the ``natural`` profile: ready calls built from the resolvers' answers.

A question in an auditor's own words ("Tesla's capex in the first half of 2024") names its period and
members in words no statement heading uses, and the recorded 1.5B model, shown find_facts' facts as
headings ("six months ended June 30, 2024"), matched the question's words against them by form, not by
meaning. Tool set 2 has the tools that read those words against the filing (``resolve_period``,
``resolve_member``), so a profile whose ``search.resolvers`` is on (``natural``; docs/prompt-profiles.md,
"Search guidance") leads the auditor through them before it chooses:

1. the opening offers ``search_concepts`` and ``resolve_period`` on the question, as typed; whichever
   the model takes, the other is offered next (one ready call: nothing to choose);
2. when the search says some words name members (``member_words``), ``resolve_member`` on them;
3. then the choices, as in ``guided`` (:func:`auditflow.agents.observations.search_options`): one
   ``find_facts`` per concept the search found; after it, one call per fact listed, and after an error
   naming the periods a concept is reported for, one call per period. Here the facts and periods come
   in the order of the resolvers' candidates (the period ranked first by ``resolve_period``, then the
   members ``resolve_member`` named together; the tool's own order otherwise), and an option the
   resolvers matched says so in its words: ``"Services, six months ended June 30, 2024 (the question's
   'first half of 2024', 'services')"``, with the resolver's reason beside it.

The model still writes every call, and still chooses the concept and the fact; the checkers still
decide what is true of it. What changes is that the words it compares with the question are the
question's own. Nothing here runs for ``guided`` or ``plain``: their recorded conversations are
untouched.
"""
from __future__ import annotations

from typing import Any, Callable

from auditflow.env.members import FILLER, words

RESOLVE_PERIOD, RESOLVE_MEMBER, SEARCH, FIND = "resolve_period", "resolve_member", "search_concepts", "find_facts"
NOT_MATCHED = 99  # the rank of a period no resolver candidate names


def natural_options(transcript: list[dict[str, Any]], allowed: tuple[str, ...], question: str | None,
                    choices: Callable[[dict[str, Any]], list[dict[str, Any]]]) -> tuple[list[dict[str, Any]], bool]:
    """(the calls to offer after the last step of ``transcript``, whether they stand in for that step's
    list of hits or facts). ``choices``: guided's options after one step (concepts, facts, close matches),
    which this orders and describes by the resolvers' answers."""
    steps = [s for s in transcript if s.get("tool")]
    if not steps or not question:
        return [], False
    base_at = _last_index(steps, (SEARCH, FIND))
    later = steps[base_at + 1:] if base_at is not None else steps
    if any(s.get("tool") not in (RESOLVE_PERIOD, RESOLVE_MEMBER) for s in later):
        # the auditor has gone on from its last search or listing: guided's options after that step
        return _ordered(choices(steps[-1]), steps), True
    mech = _next_resolution(steps, allowed, question)
    if mech is not None:
        return [mech], False
    if base_at is None:
        return [], False
    base = steps[base_at]
    if base.get("tool") == SEARCH:
        return _with_resolved(choices(base), steps), True
    listed = (base.get("observation") or {}).get("facts")
    args = base.get("arguments") or {}
    if not listed and "period" in args and "concept" in args:
        # nothing reported for the period resolved first: likely another concept is meant (the search's
        # other hits, with that period), or this one for another period (its facts for every period, last)
        search = steps[_last_index(steps, (SEARCH,)) or 0]
        empty = {s.get("arguments", {}).get("concept") for s in steps if s.get("tool") == FIND
                 and "period" in (s.get("arguments") or {}) and not (s.get("observation") or {}).get("facts")}
        others = [o for o in _with_resolved(choices(search), steps) if o["arguments"].get("concept") not in empty]
        return others + [{"is": f"{args['concept']} for every period", "name": FIND,
                          "arguments": {"concept": args["concept"]}}], True
    return _ordered(choices(base), steps), True


def opening_options(question: str, tools: list[str] | tuple[str, ...]) -> list[dict[str, Any]]:
    """The opening's ready calls: the search and the period resolution on the question, as typed."""
    return [{"name": name, "arguments": {arg: question}}
            for name, arg in ((SEARCH, "text"), (RESOLVE_PERIOD, "phrase")) if name in tools]


def _next_resolution(steps: list[dict[str, Any]], allowed: tuple[str, ...], question: str) -> dict[str, Any] | None:
    """The resolution the auditor has not made yet, before it chooses: the search and the period of the
    question, then the members of the words the search set aside as naming members."""
    done = {s.get("tool") for s in steps}
    if SEARCH in allowed and SEARCH not in done:
        return {"name": SEARCH, "arguments": {"text": question}}
    if RESOLVE_PERIOD in allowed and RESOLVE_PERIOD not in done:
        return {"name": RESOLVE_PERIOD, "arguments": {"phrase": question}}
    if RESOLVE_MEMBER in allowed and RESOLVE_MEMBER not in done:
        words = _member_words(steps)
        if words:
            return {"name": RESOLVE_MEMBER, "arguments": {"phrase": words}}
    return None


def _member_words(steps: list[dict[str, Any]]) -> str:
    """The words the first successful search read as naming members (its ``member_words``)."""
    for s in steps:
        obs = s.get("observation") or {}
        if s.get("tool") == SEARCH and "error" not in obs:
            return " ".join(w for w in obs.get("member_words") or [] if isinstance(w, str))
    return ""


def _last_index(steps: list[dict[str, Any]], tools: tuple[str, ...]) -> int | None:
    for i in range(len(steps) - 1, -1, -1):
        if steps[i].get("tool") in tools and "error" not in (steps[i].get("observation") or {}):
            return i
    return None


# -- ordering and describing by the resolvers' candidates -----------------------------------------------
def _with_resolved(options: list[dict[str, Any]], steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The search's options (a concept each) asking for the period ``resolve_period`` ranked first: a
    concept may have more facts than find_facts lists (Apple's net sales: 45, by product and region), and
    the question's period keeps them few. A role that cannot browse facts (its first checker on the
    concept) asks for the members ``resolve_member`` named together as well."""
    periods, _, _ = _period_candidates(steps)
    members = _member_dimensions(steps)
    if not periods:
        return options
    phrase = _member_candidates(steps)[1]
    out = []
    for o in options:
        args = dict(o.get("arguments") or {})
        if "concept" in args and "fact" not in args:
            args["period"] = periods[0]
            if o.get("name") != FIND and members and not _holds(steps, args["concept"], phrase):
                args["dimensions"] = members
        out.append({**o, "arguments": args})
    return out


def _ordered(options: list[dict[str, Any]], steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``options`` that name a fact or a period, in the order of the resolvers' candidates (stable: the
    tool's own order among equals), each the resolvers matched described with the question's words."""
    periods, read, period_why = _period_candidates(steps)
    members, member_phrase = _member_candidates(steps)
    facts = _listed_facts(steps)
    concepts = {str((s.get("arguments") or {}).get("concept") or "") for s in steps if s.get("tool") == FIND} | {
        str((o.get("arguments") or {}).get("concept") or "") for o in options}
    if member_phrase and any(_holds(steps, c, member_phrase) for c in concepts if c):
        members, member_phrase = set(), ""  # "goods and services" were the line item's words, not a member's
    if not periods and not members:
        return options
    scored = []
    shared = len({_period_of(o, facts) for o in options}) == 1  # one period (find_facts asked for it): said once
    for i, o in enumerate(options):
        args = o.get("arguments") or {}
        fact = facts.get(args.get("fact")) if isinstance(args.get("fact"), str) else None
        period = _period_of(o, facts)
        if period is None:
            return options  # concepts or handles: nothing the resolvers read
        p_rank = periods.index(period) if period in periods else NOT_MATCHED
        dims = set(((fact or {}).get("dimensions") or args.get("dimensions") or {}).values())
        m_rank = 0 if dims == members else (1 if members and dims and dims <= members else 2)
        said = [f"'{read}'"] if p_rank == 0 and read and not shared else []
        if members and dims == members and member_phrase:
            said.append(f"'{member_phrase}'")
        described = dict(o)
        if said:
            described["is"] = f"{o.get('is')} (the question's {', '.join(said)})"
        scored.append(((bool(p_rank) + bool(m_rank), p_rank, m_rank, i), described))  # both matched first
    out = [o for _, o in sorted(scored, key=lambda so: so[0])]
    if out and period_why and _period_of(out[0], facts) == periods[0]:
        out[0] = {**out[0], "why": period_why}  # the resolver's reason, once: beside the best-ranked option
    return out


def _period_of(option: dict[str, Any], facts: dict[str, dict[str, Any]]) -> str | None:
    args = option.get("arguments") or {}
    if isinstance(args.get("period"), str):
        return args["period"]
    fact = facts.get(args.get("fact")) if isinstance(args.get("fact"), str) else None
    return (fact or {}).get("period")


def _period_candidates(steps: list[dict[str, Any]]) -> tuple[list[str], str, str]:
    """(the periods ``resolve_period`` ranked that the filing reports, best first; the words it read; the
    best one's reason), from its first answer."""
    for s in steps:
        obs = s.get("observation") or {}
        if s.get("tool") == RESOLVE_PERIOD and "error" not in obs:
            cands = sorted((c for c in obs.get("candidates") or [] if isinstance(c, dict) and c.get("in_filing")),
                           key=lambda c: c.get("rank", 0))
            return [str(c.get("period")) for c in cands], str(obs.get("read") or ""), str(cands[0].get("reason") or "") if cands else ""
    return [], "", ""


def _member_candidates(steps: list[dict[str, Any]]) -> tuple[set[str], str]:
    """(the members ``resolve_member`` found named together, the words it read), from its last answer."""
    for s in reversed(steps):
        obs = s.get("observation") or {}
        if s.get("tool") == RESOLVE_MEMBER and "error" not in obs:
            return set((obs.get("dimensions") or {}).values()), str(obs.get("phrase") or "")
    return set(), ""


def _holds(steps: list[dict[str, Any]], concept: str, phrase: str) -> bool:
    """Whether the search's labels of ``concept`` hold every word of ``phrase`` (filler aside): then the
    words are the line item's own ("Cost of Goods and Services Sold" names no member "Services")."""
    want = words(phrase) - FILLER
    if not want:
        return False
    for s in steps:
        obs = s.get("observation") or {}
        if s.get("tool") == SEARCH and "error" not in obs:
            for hit in obs.get("concepts") or []:
                if isinstance(hit, dict) and hit.get("concept") == concept:
                    if want <= words(f"{hit.get('label') or ''} {hit.get('matched_label') or ''}"):
                        return True
    return False


def _member_dimensions(steps: list[dict[str, Any]]) -> dict[str, str]:
    """The axis -> member set ``resolve_member`` found named together, from its last answer."""
    for s in reversed(steps):
        obs = s.get("observation") or {}
        if s.get("tool") == RESOLVE_MEMBER and "error" not in obs:
            return {str(k): str(v) for k, v in (obs.get("dimensions") or {}).items()}
    return {}


def _listed_facts(steps: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The facts find_facts listed so far, by handle."""
    out: dict[str, dict[str, Any]] = {}
    for s in steps:
        obs = s.get("observation") or {}
        if s.get("tool") == FIND and "error" not in obs:
            for f in obs.get("facts") or []:
                if isinstance(f, dict) and isinstance(f.get("fact"), str):
                    out[f["fact"]] = f
    return out
