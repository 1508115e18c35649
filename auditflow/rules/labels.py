"""The standard label of a concept a finding names, so the filer reads their own words beside the QName.

The filer's label linkbase comes first: it is what the filer sees in their statements. A concept it
gives no standard label falls back to the US-GAAP taxonomy's, when the environment was joined to the
taxonomy graph (``auditflow check`` is not, by default: the filer's labels are enough and cost nothing
to keep). Without either, the concept has no label and outputs show the QName alone
(docs/check-log.md).

A filing's label linkbase is read on first use (``Filing.defer_labels``), so these are looked up only
for a run that has findings.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from auditflow.xbrl.qname import QName

if TYPE_CHECKING:
    from auditflow.graphs.environment import AuditEnvironment

STANDARD_LABEL = "http://www.xbrl.org/2003/role/label"


def _language_rank(lang: str) -> int:
    """en-US first, then any other English, then the rest (DQC's messages are English)."""
    lang = lang.lower()
    return 0 if lang == "en-us" else 1 if lang.startswith("en") else 2


def standard_labels(env: "AuditEnvironment", concepts: Iterable[QName | None]) -> dict[QName, str]:
    """Concept -> its standard label, for those of ``concepts`` that have one (see the module doc).

    Among the filer's labels of one concept the best language wins, and the first in document order
    among equals, so the choice does not depend on how the filing was loaded.
    """
    wanted = {q for q in concepts if q is not None}
    if not wanted:
        return {}
    best: dict[QName, tuple[int, str]] = {}
    for lab in env.filing.labels:
        if lab.role != STANDARD_LABEL or lab.concept not in wanted:
            continue
        rank = _language_rank(lab.lang)
        if lab.concept not in best or rank < best[lab.concept][0]:
            best[lab.concept] = (rank, " ".join(lab.text.split()))
    out = {q: text for q, (_, text) in best.items() if text}
    tx = env.taxonomy
    if tx is not None:
        for q in sorted(wanted - out.keys(), key=QName.clark):
            text = tx.labels(env.bridges.get(q, q)).get(STANDARD_LABEL)
            if text:
                out[q] = " ".join(text.split())
    return out
