"""How a rule is offered to the auditors: the part of a registry entry the checker tools are built from.

A rule that is an agent tool says, in its own module, everything the auditors are told about it
(docs/protocol.md, "Checker tools"):

* the tool's name, description and place in the tool list (the recorded LLM calls are keyed on them);
* ``scope``: what the rule would check of a concept, the line ``get_concept`` shows under ``rules``;
* ``not_applicable``: why no check of the rule involves a fact, in the rule's own terms;
* ``finding_reason`` and ``consistent_reason``: how a checker observation words a finding and a
  consistent check whose record has no reason of its own;
* ``conflict``: what the Senior names as the likely source when the auditors' codes of this rule differ.

The rule's functions see the filing through :class:`AgentView`, which the environment layer
implements (names as the auditors see them, role titles, a per-filing memo): the words stay the
rule's, the display conventions stay the tools'.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Hashable, Protocol

from auditflow.xbrl.model import Fact, Period
from auditflow.xbrl.qname import QName

if TYPE_CHECKING:
    from auditflow.graphs.environment import AuditEnvironment


class AgentView(Protocol):
    """What a rule's agent functions may ask of the audit session."""

    env: "AuditEnvironment"
    data_root: Path | None

    def qstr(self, q: QName) -> str:
        """A concept or member as the tools write it (``us-gaap:Assets``)."""

    def role_title(self, role: str) -> str:
        """A role's title as the tools show it."""

    def period_of(self, fact: Fact) -> Period:
        """The fact's context period."""

    def memo(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """``build()`` once per filing environment and key."""


def _no_scope(view: AgentView, concept: QName) -> str:
    return "not described"


def _no_reason(view: AgentView, fact: Fact) -> str:
    return "no check of this rule involves this fact"


@dataclass(frozen=True)
class AgentTool:
    """How a rule is offered to the auditors (see the module docstring)."""

    name: str
    description: str
    order: int
    scope: Callable[[AgentView, QName], str] = _no_scope
    not_applicable: Callable[[AgentView, Fact], str] = _no_reason
    finding_reason: str = "{gap}"  # fields: gap ("E, not R: difference D exceeds the allowed T"), axis
    consistent_reason: str = "checked: consistent"  # fields: expected, tolerance
    # When two auditors' reports differ on this rule's codes, the Senior's likely source of the conflict
    # and its one-line reason (a ConflictSource of docs/protocol.md); None: the rule suggests none.
    conflict: tuple[str, str] | None = None

    def word_finding(self, *, gap: str, axis: str) -> str:
        return self.finding_reason.format(gap=gap, axis=axis)

    def word_consistent(self, *, expected: str | None, tolerance: str | None) -> str:
        return self.consistent_reason.format(expected=expected, tolerance=tolerance)
