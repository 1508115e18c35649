"""What both of the policy's readers of a question share: its plan per role, the words a label adds that
name no member, how a search's hits and find_facts' facts read from a (guided) observation, and the
final report written from the checkers' outcomes.

The template reader (:mod:`auditflow.agents.policy`) and the reader by meaning
(:mod:`auditflow.agents.policy_reading`, tool set 2) both build on these, so neither imports the other
for them.
"""
from __future__ import annotations

from auditflow.env.phrases import parse_period_phrase
from auditflow.env.tools import CHECKS

PLANS = {
    "compliance": ("get_concept",) + CHECKS,
    "forensic": ("get_fact", "get_fact_history") + CHECKS,
    "single": ("get_fact", "get_fact_history") + CHECKS,
    "direct": (),
}


FILLER = frozenset({"total", "the", "of", "for", "and", "in", "net"})  # words a label adds that name no member



def hits(obs: dict) -> list[dict]:
    """A search's hits as the view shows them: the list, or, where a guided profile offers one call per
    hit instead (docs/prompt-profiles.md), the options' concepts and words."""
    if "concepts" in obs:
        return obs.get("concepts") or []
    return [{"concept": o["arguments"]["concept"], "label": o.get("label") or o.get("is"), "matched_label": o.get("is")}
            for o in offered(obs) if "concept" in o["arguments"]]


def listed_facts(obs: dict) -> list[dict]:
    """find_facts' facts as the view shows them: the list, or the offered calls, one per fact, read back
    from their words ("Service, year ended September 30, 2023": members, then the period)."""
    if "facts" in obs:
        return obs.get("facts") or []
    out = []
    for o in offered(obs):
        parsed = parse_period_phrase(o.get("is") or "")
        if "fact" in o["arguments"] and parsed is not None:
            members = [m.strip() for m in parsed[1].split(",") if m.strip()]
            out.append({"fact": o["arguments"]["fact"], "period_words": parsed[0], "members": members, "is": o.get("is")})
    return out


def offered(obs: dict) -> list[dict]:
    return [o for o in obs.get("next_call_options") or [] if isinstance(o, dict) and isinstance(o.get("arguments"), dict)]


def report_from_checks(focus: dict, checks: dict[str, dict], why: str) -> dict:
    violations = [o for o in checks.values() if o.get("outcome") == "violation"]
    consistent = [o for o in checks.values() if o.get("outcome") == "consistent"]
    # a fact chosen from offered calls carries no value (the options are words and a call): the checkers say it
    reported = focus.get("value") if focus.get("value") is not None else next(
        (o["reported"] for o in [*violations, *consistent] if o.get("reported") is not None), None)
    if violations:
        v = sorted(violations, key=lambda o: o.get("rule", ""))[0]
        decision, rules, expected = "violation", sorted({o["code"] for o in violations if o.get("code")}), v.get("expected")
    elif consistent:
        decision, rules, expected = "consistent", [], reported
    else:
        decision, rules, expected = "unable_to_verify", [], None
        why = why or "no checker applies to this fact"
    cited = {h for o in checks.values() for h in o.get("facts", [])}
    evidence = sorted(cited | ({"F1"} if focus else set()))
    return {
        "decision": decision, "triggered_rules": rules, "reported_value": reported, "expected_value": expected,
        "confidence": 1.0 if decision != "unable_to_verify" else 0.0, "evidence": evidence,
        "rationale": why or "; ".join(f"{o.get('rule')}: {o.get('outcome')} ({o.get('reason', '')})" for _, o in sorted(checks.items())),
    }


