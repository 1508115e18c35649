"""The hand review of the real filings' findings (``docs/real-filings.md``), read as data.

A real (not injected) violation may only enter the corpus after a person has looked at it: the
checkers cannot tell a filer's error from an artefact of the XULE re-tagging of the rolled filings.
That review lives in ``docs/real-filings.md``, one ``### <filing>`` section per filing with a table
row per finding whose ``review`` column says ``real`` or ``artefact`` (or, for a per-concept table,
a sentence "all reviewed as **real**" above it). Reading the document itself, rather than a copy of
its verdicts, keeps one source of truth: a finding the document does not list is not reviewed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from auditflow.errors import AuditflowError

DEFAULT_REVIEW_DOC = Path(__file__).resolve().parents[2] / "docs" / "real-filings.md"
VERDICTS = ("real", "artefact")
NO_FACT = ("—", "-", "")  # a finding about a relationship (a calculation or presentation arc), not a fact
CODE_PREFIX = "DQC.US."
_SECTION = re.compile(r"^###\s+(?:\[)?([a-z0-9]+-10[kq]-\d{4}-\d{2}-\d{2})")
_TABLE_VERDICT = re.compile(r"all reviewed as \*\*(real|artefact)\*\*")
_CODE = re.compile(r"^\d{4}\.\d+$")
_FACT_ITEM = re.compile(r"(?:^|;)\s*([A-Za-z_][\w.-]*)\s+[^:;]+:")


class ReviewDocError(AuditflowError):
    """The review document cannot be read."""


@dataclass(frozen=True, slots=True)
class ReviewedFinding:
    """One finding of an untouched filing and the reviewer's verdict; ``ref`` cites the document row."""

    filing: str
    code: str
    fact_id: str | None  # None: a finding about a relationship, not a fact (DQC 0008, 0046, 0055, ...)
    verdict: str  # "real" | "artefact"
    ref: str


def load_reviews(path: Path | None = None) -> list[ReviewedFinding]:
    """Every reviewed finding of the document (default: the repository's ``docs/real-filings.md``)."""
    doc = Path(path) if path is not None else DEFAULT_REVIEW_DOC
    try:
        text = doc.read_text(encoding="utf-8")
    except OSError as exc:
        raise ReviewDocError(f"cannot read the review of real findings {doc}: {exc}") from None
    return parse_reviews(text, source=f"docs/{doc.name}" if doc.parent.name == "docs" else doc.name)


def parse_reviews(text: str, *, source: str = "docs/real-filings.md") -> list[ReviewedFinding]:
    """The reviewed findings in ``text`` (see the module docstring for the layout read)."""
    out: list[ReviewedFinding] = []
    filing, header, table_verdict = None, None, None
    for line in text.splitlines():
        if m := _SECTION.match(line):
            filing, header, table_verdict = m.group(1), None, None
            continue
        if line.startswith("#"):
            filing, header = None, None
            continue
        if not line.startswith("|"):
            header = None
            if m := _TABLE_VERDICT.search(line):
                table_verdict = m.group(1)
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
            continue
        if filing is None or set("".join(cells)) <= set("-: "):
            continue
        out.extend(_row(filing, header, cells, table_verdict, source))
    return out


def _row(filing: str, header: list[str], cells: list[str], table_verdict: str | None,
         source: str) -> list[ReviewedFinding]:
    row = dict(zip(header, cells))
    code = row.get("code", "").strip("`")
    if not _CODE.match(code):
        return []
    if "fact" in row and "review" in row:
        verdict = row["review"].split()[0].lower() if row["review"] else ""
        if verdict not in VERDICTS:
            return []
        fact = row["fact"].strip("`")
        return [ReviewedFinding(filing, CODE_PREFIX + code, None if fact in NO_FACT else fact, verdict,
                                f"{source}, {filing} #{row.get('#', '?')}")]
    facts_cell = next((v for k, v in row.items() if k.startswith("facts")), None)
    if facts_cell is None or table_verdict is None:
        return []
    concept = row.get("concept", "").strip("`")
    return [ReviewedFinding(filing, CODE_PREFIX + code, fid, table_verdict, f"{source}, {filing}, row {concept}")
            for fid in _FACT_ITEM.findall(facts_cell)]
