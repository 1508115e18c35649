"""Whether a DQC rule runs on a filing, judged by its ``dei:DocumentType``.

DQC rules first look up the document type in the rule-form lookup: a rule runs when the form is
listed, or when the filing has no DocumentType fact at all (the rules then err on the side of
checking). Kept separate from the rules so that all three families decide the same way.
"""
from __future__ import annotations

from typing import AbstractSet, Mapping

from auditflow.errors import ResourceError
from auditflow.rules.resources import normalise_rule


def rule_applies(rule: str, document_type: str | None, form_lookup: Mapping[str, AbstractSet[str]]) -> bool:
    """True when ``rule`` runs for ``document_type`` (None or blank: no DocumentType fact -> runs).

    The comparison is exact after trimming whitespace, as the DQC lookup is: ``dei:DocumentType`` is
    an enumeration, so a differently spelled value is not a form the rule knows.

    :raises ResourceError: when the lookup has no row for the rule (a broken data root, not a
        reason to skip the rule silently).
    """
    key = normalise_rule(rule)
    if key not in form_lookup:
        raise ResourceError(
            f"the DQC rule-form lookup has no row for rule {key}; rows present: {', '.join(sorted(form_lookup))}. "
            "Restore dqc/common/rule_form_lookup_0015_0117_0126.csv under the data root."
        )
    if document_type is None or not document_type.strip():
        return True
    return document_type.strip() in form_lookup[key]


def not_applicable_reason(rule: str, document_type: str | None) -> str:
    """The sentence recorded when a rule is skipped for its form type."""
    shown = (document_type or "").strip()
    return f"out of scope: document type {shown!r} is not in the DQC rule-form lookup for {normalise_rule(rule)}"
