"""Small case files on the bundled sample filing: they run without the data root, in about a second."""
from __future__ import annotations

from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "auditflow" / "samples" / "acme-10k-2024" / "xml"

CASES = f"""\
auditflow: 1
defaults:
  filing: {SAMPLE.as_posix()}
cases:
  - id: assets-calc
    query: {{concept: us-gaap:Assets, period: 2024-12-31, rule_hint: "0126"}}
    expect: {{decision: violation, triggered_rules: [DQC.US.0126.9590], reported_value: "226150000",
              expected_value: "216150000"}}
  - id: assets-corrected
    query: {{concept: us-gaap:Assets, period: 2024-12-31, rule_hint: "0126"}}
    inject:
      - set_value: f-bs-13
        value: "216,150,000"
    expect: {{decision: consistent, triggered_rules: [], reported_value: "216150000", expected_value: "216150000"}}
  - id: revenue-members
    query:
      concept: us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax
      period: 2024-01-01..2024-12-31
      rule_hint: "0117"
    expect: {{decision: consistent, reported_value: "240500000", expected_value: "240500000"}}
"""


@pytest.fixture
def case_dir(tmp_path: Path) -> Path:
    """A folder with one case file of three sample cases (two consistent, one violation)."""
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "sample.case.yaml").write_text(CASES, encoding="utf-8")
    (folder / "notes.yaml").write_text("not: a case file\n", encoding="utf-8")  # must be ignored
    return folder
