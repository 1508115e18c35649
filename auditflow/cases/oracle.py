"""What the deterministic checkers answer for one audit query: the ``expect:`` a generated case records.

A generated case must not carry an expectation someone typed: it is what the three checker tools
(``check_sign``, ``check_calc_tree``, ``check_dim_consistency``) return for the queried fact, read
the way the protocol reads them (the checkers are authoritative in fusion): any violation makes
the decision ``violation`` with the violating codes; else any consistent check makes it
``consistent`` (expected = reported); else ``unable_to_verify`` (no expected value). The queried
fact is found exactly as an auditor's session finds it, so the answer is about the same fact.

When two checkers report violations with different expected values the case has no single right
expected value; the answer says so (``ambiguous``) and the generator leaves such facts out. A
checker prefers a fact's own consistent check to a failing total that uses it as a child; the
answer lists such findings too (``involved``), so "consistent" can mean "no finding anywhere".
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from auditflow.contract import normalise_number
from auditflow.env.check_select import rule_view, twins
from auditflow.env.check_tools import verdict_of
from auditflow.env.query import AuditQuery
from auditflow.env.session import AuditSession
from auditflow.env.tools import CHECKS as CHECK_TOOLS
from auditflow.graphs.environment import AuditEnvironment
from auditflow.rules.registry import agent_rules

RULES = tuple(agent_rules())  # the rules the auditors are offered (auditflow.rules.registry)


@dataclass(frozen=True, slots=True)
class CheckerAnswer:
    """The checkers' answer for one query; ``focus`` is the key of the fact the query resolved to."""

    decision: str
    triggered_rules: tuple[str, ...]
    reported_value: Decimal | None
    expected_value: Decimal | None
    focus: str | None
    outcomes: tuple[tuple[str, str], ...] = ()  # (tool, outcome), in CHECK_TOOLS order
    ambiguous: bool = False
    involved: tuple[str, ...] = ()  # codes of every finding about the fact or using it as evidence

    def outcome(self, tool: str) -> str | None:
        return dict(self.outcomes).get(tool)


def checker_answer(env: AuditEnvironment, query: AuditQuery, *, data_root: Path | None) -> CheckerAnswer:
    """Run the three checkers on the queried fact (F1) and read their outcomes as the protocol does."""
    session = AuditSession(env, query, "single", data_root=data_root, required=())
    focus = session.focus
    if focus is None:
        return CheckerAnswer("unable_to_verify", (), None, None, None)
    outs = {tool: session.call(tool, {"fact": "F1"}) for tool in CHECK_TOOLS}
    reported = _number(session.opening()["queried_fact"].get("value"))
    outcomes = tuple((tool, str(outs[tool].get("outcome"))) for tool in CHECK_TOOLS)
    involved = _involved(session, focus)
    verdict = verdict_of(outs.values())
    if verdict == "violation":
        violations = [o for o in outs.values() if o.get("outcome") == "violation"]
        codes = tuple(sorted({o["code"] for o in violations if o.get("code")}))
        expected = {_number(o.get("expected")) for o in violations}
        first = _number(sorted(violations, key=lambda o: o.get("rule", ""))[0].get("expected"))
        return CheckerAnswer("violation", codes, reported, first, focus.key, outcomes, len(expected) > 1, involved)
    if verdict == "consistent":
        return CheckerAnswer("consistent", (), reported, reported, focus.key, outcomes, involved=involved)
    return CheckerAnswer("unable_to_verify", (), reported, None, focus.key, outcomes, involved=involved)


def _involved(session: AuditSession, focus) -> tuple[str, ...]:
    """Codes of the findings (any rule) whose focus or evidence is the fact or an exact duplicate."""
    keys = twins(session.ctx, focus)
    codes = set()
    for rule in RULES:
        view = rule_view(session.ctx, rule)
        codes.update(f.code for k in keys for f in (*view.by_focus.get(k, ()), *view.by_evidence.get(k, ())))
    return tuple(sorted(codes))


def _number(value: object) -> Decimal | None:
    return normalise_number(value) if value is not None else None
