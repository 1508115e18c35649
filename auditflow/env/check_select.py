"""Which part of a rule's result concerns one fact: its finding, its check, or why there is none.

Each rule runs once per environment (memoised: a case makes three checker calls, a filing has many
cases) and its result is indexed by fact. For a queried fact the order of preference is:

1. a finding whose focus is the fact or an exact duplicate of it;
2. a consistent check of it;
3. a finding that uses it as evidence (a calculation child, a member): that finding, with the total;
4. a consistent check that uses it the same way;
5. a not-applicable check of it;
6. otherwise "not applicable" with the reason no check involves it (the rule entry's
   ``AgentTool.not_applicable``).

The verdict, and what a consistent check summed (its evidence, expected value and tolerance), always
come from the rule's own records; this module only selects.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Literal

from auditflow.env.envcache import memo
from auditflow.env.names import names
from auditflow.env.tool_base import ToolContext
from auditflow.errors import AuditflowError
from auditflow.rules.finding import CheckRecord, Finding, Outcome, RuleResult
from auditflow.rules.registry import agent_rules
from auditflow.rules.runner import run_rules
from auditflow.xbrl.model import Fact

SelectionKind = Literal["finding", "component", "consistent", "component_consistent", "not_applicable"]


@dataclass
class RuleView:
    """One rule's result on one environment, indexed by fact key."""

    result: RuleResult
    by_focus: dict[str, list[Finding]] = field(default_factory=lambda: defaultdict(list))
    by_evidence: dict[str, list[Finding]] = field(default_factory=lambda: defaultdict(list))
    checks: dict[str, list[CheckRecord]] = field(default_factory=lambda: defaultdict(list))
    general: list[CheckRecord] = field(default_factory=list)  # records about no fact (rule or role level)

    @classmethod
    def of(cls, result: RuleResult) -> "RuleView":
        view = cls(result)
        for f in result.findings:
            if f.fact_id is not None:
                view.by_focus[f.fact_id].append(f)
            for e in f.evidence:
                if e.fact_id is not None and e.fact_id != f.fact_id:
                    view.by_evidence[e.fact_id].append(f)
        for c in result.checks:
            (view.checks[c.fact_id] if c.fact_id is not None else view.general).append(c)
        return view

    @property
    def rule_level_reason(self) -> str | None:
        """The reason when the rule as a whole did not run (no data root, form out of scope...)."""
        checks = self.result.checks
        return checks[0].reason if len(checks) == 1 and checks[0].fact_id is None and checks[0].concept is None else None


def rule_view(ctx: ToolContext, rule: str) -> RuleView:
    """The rule's indexed result, computed once per (environment, rule, data root)."""
    if rule not in agent_rules():
        raise AuditflowError(f"rule {rule} is not offered to the auditors; agent rules: {', '.join(agent_rules())}")

    def build() -> RuleView:
        try:
            result = run_rules(ctx.env, (rule,), data_root=ctx.data_root).results[rule]
        except AuditflowError as exc:  # a broken data root: the checker says so instead of failing the loop
            result = RuleResult(rule, checks=(CheckRecord(rule, Outcome.NOT_APPLICABLE, reason=f"the rule could not run: {exc}"),))
        return RuleView.of(result)

    return memo(ctx.env, ("rule", rule, str(ctx.data_root)), build)


@dataclass(frozen=True)
class Selection:
    kind: SelectionKind
    finding: Finding | None = None
    record: CheckRecord | None = None
    total_key: str | None = None  # the total this fact is a component of, or the duplicate that was checked


def twins(ctx: ToolContext, fact: Fact) -> tuple[str, ...]:
    """The fact's key first, then its exact duplicates (same concept, context content and unit)."""
    group = names(ctx.env).twins.get(fact.key, (fact.key,))
    return (fact.key,) + tuple(k for k in group if k != fact.key)


def select(ctx: ToolContext, rule: str, fact: Fact) -> Selection:
    view, keys = rule_view(ctx, rule), twins(ctx, fact)
    for k in keys:
        if view.by_focus.get(k):
            return Selection("finding", finding=view.by_focus[k][0], total_key=k)
    for k in keys:
        for c in view.checks.get(k, ()):
            if c.outcome is Outcome.CONSISTENT:
                return Selection("consistent", record=c, total_key=k)
    for k in keys:
        if view.by_evidence.get(k):
            f = view.by_evidence[k][0]
            return Selection("component", finding=f, total_key=f.fact_id)
    components = consistent_components(ctx, rule)
    for k in keys:
        if k in components:
            total = components[k]
            return Selection("component_consistent", total_key=total, record=consistent_check(view, total))
    for k in keys:
        if view.checks.get(k):
            return Selection("not_applicable", record=view.checks[k][0], total_key=k)
    return Selection("not_applicable")


def consistent_check(view: RuleView, key: str) -> CheckRecord | None:
    """The first consistent check of the fact ``key`` (the one its observation shows)."""
    return next((c for c in view.checks.get(key, ()) if c.outcome is Outcome.CONSISTENT), None)


def consistent_components(ctx: ToolContext, rule: str) -> dict[str, str]:
    """Component fact key -> the key of the consistent total whose check used it (the fact itself,
    for a rule whose check evidence is the checked fact: 0015)."""

    def build() -> dict[str, str]:
        out: dict[str, str] = {}
        view = rule_view(ctx, rule)
        for key in sorted(view.checks, key=lambda k: names(ctx.env).facts_by_key[k].index):
            check = consistent_check(view, key)
            for e in check.evidence if check is not None else ():
                if e.fact_id != key:
                    out.setdefault(e.fact_id, key)
        return out

    return memo(ctx.env, ("components", rule, str(ctx.data_root)), build)
