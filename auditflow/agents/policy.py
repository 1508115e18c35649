"""A deterministic policy backend: NOT a language model.

It implements langchain's chat-model interface so the protocol runs unchanged without any LLM: it
reads the observations in the conversation and plans the next tool call by the role's strategy
(Compliance: constraints first; Forensic: evidence first, checks last), then writes the final report
from the checkers' outcomes. It is the no-LLM baseline and the protocol's test double. On questions it
must find the fact by string matching of label, period phrase and member labels, which on cases/hard
scores above the recorded 1.5B model (docs/hard/results-notes.md).
"""
from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from auditflow.agents import policy_steps
from auditflow.agents.arbitration import CHOOSE_FACT
from auditflow.agents.policy_reading import natural_next
from auditflow.agents.prompts import FINAL_REPORT, read_payload
from auditflow.env.phrases import PeriodWords, parse_period_phrase
from auditflow.env.query import FINMR_PATTERN, parse_period
from auditflow.env.tools import CHECKS

def _history(messages: list[BaseMessage]) -> tuple[dict, list[tuple[str, dict]], int]:
    """The opening observation, (tool name, observation) pairs oldest first, and how many of those came
    before the Senior last re-opened the audit (its feedback then lists what is required again)."""
    opening: dict = {}
    names: dict[str, str] = {}
    seen: list[tuple[str, dict]] = []
    reopened = 0
    for m in messages:
        if isinstance(m, HumanMessage) and not opening:
            opening = read_payload(m.content).get("observation", {}) or {}
        elif isinstance(m, HumanMessage):
            if "still_required" in read_payload(m.content):  # a feedback that re-opened the audit
                reopened = len(seen)
        elif isinstance(m, AIMessage):
            for c in m.tool_calls:
                names[c["id"]] = c["name"]
        elif isinstance(m, ToolMessage):
            seen.append((names.get(m.tool_call_id, ""), read_payload(m.content)))
    return opening, seen, reopened


def _arguments(tool: str, focus: dict) -> dict:
    if tool == "get_concept":
        return {"concept": focus.get("concept", "")}
    return {"fact": focus.get("fact", "F1")}


def plan_next(role: str, messages: list[BaseMessage], allowed: frozenset[str] | set[str]) -> tuple[str, dict]:
    """The next (tool, arguments) for this role, given everything observed so far and the tools bound."""
    opening, seen, reopened = _history(messages)
    focus = opening.get("queried_fact") or {}
    done = {name for name, obs in seen if "error" not in obs}
    if not focus and opening.get("question"):
        return search_next(role, opening["question"], seen, allowed, reopened=reopened)
    if not focus:
        return FINAL_REPORT, policy_steps.report_from_checks({}, {}, "the queried fact is not in the filing")
    for tool in policy_steps.PLANS.get(role, ()):
        if tool in allowed and tool not in done:
            return tool, _arguments(tool, focus)
    checks = {name: obs for name, obs in seen if name in CHECKS and "error" not in obs}
    return FINAL_REPORT, policy_steps.report_from_checks(focus, checks, "")


# -- questions the auditors must resolve themselves ---------------------------------------------------
MAX_SEARCHES = 3
def _words(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def _question_parts(question: str) -> tuple[str | None, PeriodWords | None, str]:
    """(concept when the question names one, the period it names, the label words)."""
    finmr = FINMR_PATTERN.search(question)
    if finmr:
        start, end = finmr["start"], finmr["end"]
        if not end:
            return finmr["concept"], PeriodWords(dt.date.fromisoformat(start), None), ""
        first, last = dt.date.fromisoformat(start), dt.date.fromisoformat(end)
        return finmr["concept"], PeriodWords(last, 0, first), ""  # both dates given: matched exactly
    parsed = parse_period_phrase(question)
    period, rest = parsed if parsed else (None, question)
    return None, period, _words(rest)


def _match_concept(seen: list[tuple[str, dict]], words: str) -> tuple[str, str] | None:
    """(concept, the words left for members) from the searches so far: the hit whose label (standard or the
    filer's own) ends the question's words, the longest such label first."""
    best: tuple[int, str, str] | None = None
    for name, obs in seen:
        if name != "search_concepts" or "error" in obs:
            continue
        for hit in policy_steps.hits(obs):
            for label in (hit.get("matched_label"), hit.get("label")):
                lw = _words(label or "")
                if lw and (words == lw or words.endswith(" " + lw) or words.startswith(lw + " ")):
                    rest = words[:-len(lw)] if words.endswith(lw) else words[len(lw):]
                    cand = (len(lw), hit["concept"], rest.strip())
                    best = max(best, cand) if best else cand
    return (best[1], best[2]) if best else None


def _period_ok(period: PeriodWords | None, text: str | PeriodWords) -> bool:
    if period is None:
        return True
    if isinstance(text, PeriodWords):  # a fact known by its words: the same end, length and start
        return (text.end, text.months is None) == (period.end, period.months is None) and (
            period.months is None or (period.start == text.start if period.start else text.months == period.months))
    try:
        p = parse_period(text)
    except Exception:  # noqa: BLE001 - a period the notation does not read is no match
        return False
    return period.matches(p)


def _members_ok(fact: dict, member_words: str) -> bool:
    labels = [_words(m) for m in fact.get("members") or []]
    if not member_words:
        return not fact.get("dimensions") and not labels
    return bool(labels) and all(lab in member_words or member_words in lab for lab in labels)


def _member_gap(fact: dict, member_words: str) -> int:
    """How many words the members' labels and the question's member words do not share."""
    have = set(" ".join(_words(m) for m in fact.get("members") or []).split())
    want = set(member_words.split())
    return len(have ^ want)


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def search_next(role: str, question: str, seen: list[tuple[str, dict]], allowed, *, reopened: int = 0) -> tuple[str, dict]:
    """The policy's plan for a question: find the concept by its label words, then the fact by its period
    and members (forensic: find_facts; compliance, which cannot browse facts: the checkers' own selector,
    the period taken from their close matches), then every checker on it, then the report. When the
    Senior re-opened the audit (``seen[reopened:]`` is what came after), the tools run again: the
    policy's reading of the question does not change, so neither does its fact. A tool set that offers
    ``resolve_period`` reads the question by meaning instead (:mod:`auditflow.agents.policy_reading`)."""
    if "resolve_period" in allowed and not FINMR_PATTERN.search(question):
        return natural_next(role, question, seen, allowed, reopened=reopened)
    concept, period, words = _question_parts(question)
    member_words = ""
    if concept is None:
        match = _match_concept(seen, words)
        if match is None:
            tries = sum(1 for name, _ in seen if name == "search_concepts")
            parts = words.split()
            if tries < MAX_SEARCHES and len(parts) > tries:
                return "search_concepts", {"text": " ".join(parts[tries:])}
            return FINAL_REPORT, policy_steps.report_from_checks({}, {}, "no concept of the filing carries the question's label")
        concept, member_words = match
        member_words = " ".join(w for w in member_words.split() if w not in policy_steps.FILLER)
    checks = [(n, o) for n, o in seen if n in CHECKS and "error" not in o]
    target = _target_fact(role, concept, period, member_words, seen, allowed)
    if isinstance(target, tuple):
        return target  # a lookup still to make
    if target is None:
        return FINAL_REPORT, policy_steps.report_from_checks({}, {}, "no fact of the question's concept has its period and members")
    for tool in policy_steps.PLANS.get(role, ()):
        if tool in allowed and tool not in {n for n, o in seen[reopened:] if "error" not in o} and tool not in ("get_fact", "get_concept"):
            return tool, target["args"]
    return FINAL_REPORT, policy_steps.report_from_checks(target["fact"], dict(checks), "")


def _target_fact(role, concept, period, member_words, seen, allowed):
    """{"args": what to call tools with, "fact": its view}, a (tool, arguments) lookup to make first, or None."""
    if "find_facts" in allowed:
        found = [o for n, o in seen if n == "find_facts" and "error" not in o]
        if not found:
            return "find_facts", {"concept": concept}
        fits = [f for f in policy_steps.listed_facts(found[-1])
                if _period_ok(period, f.get("period_words") or f.get("period", "")) and _members_ok(f, member_words)]
        if not fits:
            return None
        # by how closely the members' labels are the question's words, then a fixed order: never by the
        # position a tool listed them in (a shuffled run must pick the same fact)
        best = min(fits, key=lambda f: (_member_gap(f, member_words), sorted((f.get("dimensions") or {}).items()),
                                        f.get("period", ""), f.get("is") or ""))
        return {"args": {"fact": best["fact"]}, "fact": {**best, "concept": concept}}
    dims: dict[str, str] = {}
    if member_words:
        cubes = [o for n, o in seen if n == "get_dimension_members" and "error" not in o]
        if not cubes:
            return "get_dimension_members", {"concept": concept}
        wanted = _squash(member_words)
        for cube in cubes[-1].get("cubes") or []:
            for axis in cube.get("axes") or []:
                # the most specific member named by the words ("nonrelated party" is not "related party"),
                # whatever order the members were listed in
                named = sorted((m for m in axis.get("members") or []
                                if _squash(m.split(":")[-1].removesuffix("Member")) in wanted),
                               key=lambda m: (-len(m.split(":")[-1]), m))
                if named:
                    dims.setdefault(axis["axis"], named[0])
        if not dims:
            return None
    ran = [o for n, o in seen if n in CHECKS and "error" not in o]
    if ran:
        return {"args": {"fact": ran[-1]["fact"]}, "fact": {"fact": ran[-1]["fact"], "concept": concept,
                                                            "value": ran[-1].get("reported")}}
    errors = [o["error"] for n, o in seen if n in CHECKS and "error" in o]
    guess = _period_guess(period)
    if errors:
        near = [p for p in errors[-1].get("close_matches") or [] if _period_ok(period, p)]
        if not near or len(errors) >= 2:
            return None
        guess = near[0]
    if guess is None:
        return None
    return {"args": {"concept": concept, "period": guess, "dimensions": dims}, "fact": {"concept": concept}}


def choose_offered(question: str, options: list[dict]) -> dict:
    """The Senior's choice between disputed facts, as the policy makes it (auditflow.agents.arbitration):
    a fact whose period is the question's first, then the one whose words the question uses most
    closely (fewest of its words the question lacks), then by its words: never by the position offered."""
    _, period, words = _question_parts(question)
    asked = set(words.split())

    def rank(option: dict) -> tuple:
        text = option.get("is") or ""
        parsed = parse_period_phrase(text)
        period_words, rest = parsed if parsed else (None, text)
        fits = period_words is not None and _period_ok(period, period_words)
        return (not fits, len(set(_words(rest).split()) - asked - policy_steps.FILLER), text)

    return min(options, key=rank)


def _period_guess(period: PeriodWords | None) -> str | None:
    if period is None:
        return None
    if period.months is None:
        return period.end.isoformat()
    if period.start is not None:
        return f"{period.start.isoformat()}..{period.end.isoformat()}"
    months = period.months or 12
    y, m = divmod(period.end.month - 1 - months + 1, 12)
    start = dt.date(period.end.year + y, m + 1, 1) if period.end.day > 27 else period.end
    return f"{start.isoformat()}..{period.end.isoformat()}"


class DeterministicPolicy(BaseChatModel):
    """Plans tool calls by rule; not a language model (its ``_llm_type`` says so)."""

    role: str = "forensic"
    tools: frozenset[str] = frozenset()  # names of the bound tools: what the role may call

    @property
    def _llm_type(self) -> str:
        return "auditflow-deterministic-policy (not a language model)"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"policy": "auditflow-deterministic", "role": self.role}

    def bind_tools(self, tools, **kwargs):  # noqa: ARG002 - one call is always made
        names = frozenset(t["function"]["name"] if isinstance(t, dict) and "function" in t else getattr(t, "name", str(t))
                          for t in tools)
        return self.model_copy(update={"tools": names})

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:  # noqa: ARG002
        if CHOOSE_FACT in self.tools:  # the Senior, asked which of two disputed facts the question names
            payload = read_payload(messages[-1].content)
            choice = choose_offered(str(payload.get("question") or ""), policy_steps.offered(payload))
            tool, args = CHOOSE_FACT, choice["arguments"]
        else:
            tool, args = plan_next(self.role, list(messages), self.tools)
        n = sum(1 for m in messages if isinstance(m, AIMessage)) + 1
        msg = AIMessage(content="", tool_calls=[{"name": tool, "args": args, "id": f"call_{n}", "type": "tool_call"}])
        return ChatResult(generations=[ChatGeneration(message=msg)])

    def direct_answer(self, payload: dict) -> str:
        """Direct-LLM configuration: with no tools the policy cannot verify anything, and says so."""
        focus = payload.get("queried_fact") or {}
        return json.dumps(policy_steps.report_from_checks(focus, {}, "no tools: the deterministic policy only relays checker outcomes"))
