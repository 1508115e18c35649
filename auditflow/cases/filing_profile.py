"""What kind of filing a case is on (form, inline or XML, filer size): the spread tags of a corpus.

A corpus has to show it covers 10-K and 10-Q, inline and XML, large and small filers, so every
generated case is tagged with them. Form and format come from the loaded filing. Filer size comes
from the filer's own cover-page facts when it gave them, in the SEC's order of authority: the filer
category (large accelerated), the smaller-reporting-company flag, then the public float against the
SEC thresholds ($700M large accelerated, $250M smaller reporting company). Several re-tagged filings
lost those facts in the roll; for them the data root's ``filings-rolled/MANIFEST.md`` "small?"
column (taken from the same dei facts of the original filing) decides.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from auditflow.xbrl.filing import Filing

LARGE_FLOAT = Decimal(700_000_000)
SMALL_FLOAT = Decimal(250_000_000)
ROLLED_MANIFEST = Path("filings-rolled") / "MANIFEST.md"


@dataclass(frozen=True, slots=True)
class FilingProfile:
    """Form (``10-K``), format (``inline`` / ``xml``) and filer size (``large`` / ``small`` / ``unknown``)."""

    form: str
    format: str
    filer_size: str

    def tags(self) -> tuple[str, ...]:
        """Marker-safe tags: ``form_10k``, ``inline``/``xml``, ``large_filer``/``small_filer``."""
        form = "form_" + re.sub(r"[^a-z0-9]", "", self.form.lower()) if self.form else "form_unknown"
        return (form, self.format, f"{self.filer_size}_filer")


def filing_profile(filing: Filing, *, data_root: Path | None) -> FilingProfile:
    """The profile of a loaded filing; ``data_root`` is read only for the rolled filings' manifest."""
    return FilingProfile(filing.document_type or "", "inline" if filing.is_inline else "xml",
                         _filer_size(filing) or _manifest_size(filing.name, data_root) or "unknown")


def _dei(filing: Filing, local: str) -> str | None:
    """The first non-dimensional dei fact with this local name, as text."""
    for f in filing.facts:
        if f.concept.local == local and f.concept.namespace.startswith("http://xbrl.sec.gov/dei/") \
                and not filing.contexts[f.context_id].dimensions and f.value:
            return f.value.strip()
    return None


def _filer_size(filing: Filing) -> str | None:
    if (_dei(filing, "EntityFilerCategory") or "").lower() == "large accelerated filer":
        return "large"
    if (_dei(filing, "EntitySmallBusiness") or "").lower() == "true":
        return "small"
    try:
        public_float = Decimal(_dei(filing, "EntityPublicFloat") or "")
    except InvalidOperation:
        return None
    return "large" if public_float >= LARGE_FLOAT else "small" if public_float < SMALL_FLOAT else None


def _manifest_size(name: str, data_root: Path | None) -> str | None:
    """``small?`` of the filing's row in the rolled filings' manifest: "yes…" small, "no…" large."""
    if data_root is None:
        return None
    try:
        lines = (Path(data_root) / ROLLED_MANIFEST).read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    header = None
    for line in lines:
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
            continue
        row = dict(zip(header, cells))
        if row.get("dir") == name and "small?" in row:
            answer = row["small?"].lower()
            return "small" if answer.startswith("yes") else "large" if answer.startswith("no") else None
    return None
