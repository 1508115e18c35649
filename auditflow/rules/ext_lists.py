"""What DQC rules 0120, 0124, 0135 and 0136 share: the values of extensible-list facts, the financial
statement networks of the filer's presentation linkbase and the concepts in them.

An extensible list (or enumeration) fact names concepts of the filing: its value is a space-separated
list of ``namespace#local-name`` tokens. The rules compare those concepts, and lease or other line items,
with the concepts the filer shows on its face statements. Standard concepts are compared by their
year-independent identity (:func:`auditflow.rules.resources.family_key`), so a value written against one
taxonomy year matches the presentation of the same concept.

"Monetary" is a property of the element schema, which our US-GAAP copy lacks (docs/rules/README.md,
"Element properties"): :func:`maybe_monetary` keeps a concept unless the filing shows it is not monetary.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from auditflow.rules.properties import declared_type, is_monetary_fact, networks, pre_descendants
from auditflow.xbrl.qname import QName

if TYPE_CHECKING:
    from auditflow.graphs.environment import AuditEnvironment
    from auditflow.xbrl.model import Fact

STATEMENT = "- Statement "  # DQC's test of a statement network's definition (no dash after it)
NOT_LINE_ITEMS = ("Abstract", "Axis", "Member", "Domain", "Table", "LineItems", "TextBlock", "Policy")
MONETARY_APPROXIMATED = (
    "monetary line items approximated (no US-GAAP element schema, docs/rules/README.md): a concept counts as "
    "monetary unless the filer's schema declares another type, its facts are all in other units, or its name "
    "marks it as an abstract, axis, member, table, text block or policy"
)


def list_values(env: "AuditEnvironment", f: "Fact") -> list[QName]:
    """The concepts an extensible list fact names (``ns#local`` tokens; a ``prefix:local`` token is resolved
    through the instance's namespace declarations; tokens that resolve to nothing are left out)."""
    out: list[QName] = []
    for token in (f.value or "").split():
        ns, sep, local = token.rpartition("#")
        if not sep:
            prefix, sep, local = token.partition(":")
            ns = env.filing.namespaces.get(prefix, "") if sep else ""
        if ns and local:
            out.append(QName(ns, local))
    return out


def statement_networks(env: "AuditEnvironment") -> list[str]:
    """Presentation roles whose definition contains ``- Statement `` (DQC's ``$PRES_NETWORKS`` filtered so)."""
    return networks(env, STATEMENT)


def concepts_in(env: "AuditEnvironment", roles: Iterable[str]) -> set[QName]:
    """Every concept of the presentation networks ``roles``."""
    out: set[QName] = set()
    for role in roles:
        out |= env.index.pre_concepts.get(role, set())
    return out


def maybe_monetary(env: "AuditEnvironment", q: QName) -> bool:
    """False when the filing shows ``q`` is not a monetary item; True otherwise (see the module docstring)."""
    if q.local.endswith(NOT_LINE_ITEMS):
        return False
    declared = declared_type(env, q)
    if declared is not None:
        return declared == "monetaryItemType"
    facts = [f for f in env.index.by_concept.get(q, ()) if not f.is_nil]
    return not facts or any(is_monetary_fact(env, f) for f in facts)


def descendants_from(env: "AuditEnvironment", role: str, root_locals: Iterable[str]) -> Iterator[QName]:
    """Presentation descendants in ``role`` of the concepts of the role with these local names."""
    wanted = set(root_locals)
    roots = [q for q in env.index.pre_concepts.get(role, ()) if q.local in wanted]
    return pre_descendants(env, role, sorted(roots, key=lambda q: q.clark()))
