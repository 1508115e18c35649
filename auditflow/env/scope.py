"""Which DQC rule looks at a concept, in words, and the session side of a rule's agent functions.

An auditor starting from the constraints (A1) first asks "which rules could flag this line item?";
a checker that finds nothing to check must say *why* (not a listed concept, a statement with a
table, another period). Both answers are the rules' own (their registry entries'
:class:`auditflow.rules.agent.AgentTool`); this module hands them the session's view of the filing
(:class:`SessionView`: names and role titles as the tools show them, the per-filing memo).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Hashable

from auditflow.env.envcache import memo
from auditflow.env.names import names, role_title
from auditflow.env.tool_base import ToolContext
from auditflow.graphs.environment import AuditEnvironment
from auditflow.rules.registry import agent_tool, agent_rules
from auditflow.rules.statements import statement_tables
from auditflow.xbrl.model import Fact, Period
from auditflow.xbrl.qname import QName


@dataclass(frozen=True)
class SessionView:
    """:class:`auditflow.rules.agent.AgentView` over a tool context."""

    ctx: ToolContext

    @property
    def env(self) -> AuditEnvironment:
        return self.ctx.env

    @property
    def data_root(self) -> Path | None:
        return self.ctx.data_root

    def qstr(self, q: QName) -> str:
        return names(self.ctx.env).qstr(q)

    def role_title(self, role: str) -> str:
        return role_title(self.ctx, role)

    def period_of(self, fact: Fact) -> Period:
        return self.ctx.env.filing.contexts[fact.context_id].period

    def memo(self, key: Hashable, build: Callable[[], Any]) -> Any:
        return memo(self.ctx.env, key, build)


def rule_scopes(ctx: ToolContext, q: QName) -> dict[str, str]:
    """What each agent rule (registry order) would check of ``q``, in the rule's words."""
    view = SessionView(ctx)
    return {rule: agent_tool(rule).scope(view, q) for rule in agent_rules()}


def not_applicable_reason(ctx: ToolContext, rule: str, fact: Fact) -> str:
    """Why no check of ``rule`` involves ``fact``, in the rule's words."""
    return agent_tool(rule).not_applicable(SessionView(ctx), fact)


def statement_has_table(ctx: ToolContext) -> dict[str, bool]:
    """Statement presentation role -> whether it carries a statement table (shown by get_calc_*)."""
    return dict(memo(ctx.env, "statement_tables", lambda: statement_tables(ctx.env)))
