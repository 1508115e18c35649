"""Edits of a REAL filing of the data root for the rule tests that need more than a changed value
(``auditflow.mutations`` changes values only): add a fact in one of the filing's own contexts, add or
drop linkbase arcs. The filing is loaded fresh and copied, never written back.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable

from auditflow.graphs.environment import build_environment
from auditflow.rules import registry
from auditflow.rules.resources import Resources
from auditflow.xbrl.filing import Filing
from auditflow.xbrl.loader import load_filing
from auditflow.xbrl.model import Arc, Fact
from auditflow.xbrl.qname import QName


def load(data_root: Path, name: str) -> Filing:
    """``name`` is ``filings/<folder>`` or ``filings-rolled/<folder>``."""
    return load_filing(data_root / name)


def with_facts(filing: Filing, *facts: Fact) -> Filing:
    start = max((f.index for f in filing.facts), default=0) + 1
    added = [replace(f, index=start + n, id=f.id or f"edit{n}") for n, f in enumerate(facts)]
    return replace(filing, facts=[*filing.facts, *added])


def fact(concept: QName, value, context_id: str, *, unit: str | None, decimals=None) -> Fact:
    return Fact(concept, context_id, str(value), unit, decimals)


def with_arcs(filing: Filing, *, add: Iterable[Arc] = (), drop: Callable[[Arc], bool] = lambda a: False) -> Filing:
    return replace(filing, arcs=[*(a for a in filing.arcs if not drop(a)), *add])


def without_facts(filing: Filing, drop: Callable[[Fact], bool]) -> Filing:
    return replace(filing, facts=[f for f in filing.facts if not drop(f)])


def run_rule(rule: str, filing: Filing, data_root: Path):
    return registry.get(rule).run(build_environment(filing), Resources(data_root))


def context_where(filing: Filing, test: Callable) -> str:
    """The id of the first context (sorted by id) for which ``test(context)`` holds."""
    return next(cid for cid, ctx in sorted(filing.contexts.items()) if test(ctx))
