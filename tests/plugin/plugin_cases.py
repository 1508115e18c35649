"""Case snippets over the bundled sample filing, and output helpers, for the plugin's pytester tests."""
from __future__ import annotations

import re
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "auditflow" / "samples" / "acme-10k-2024" / "xml"

ASSETS_OK = """\
  - id: assets-calc
    query: {concept: us-gaap:Assets, period: 2024-12-31, rule_hint: "0126"}
    expect:
      decision: violation
      triggered_rules: [DQC.US.0126.9590]
      reported_value: "226,150,000"
      expected_value: "216150000"
"""
ASSETS_WRONG = """\
  - id: assets-wrong-expected
    query: {concept: us-gaap:Assets, period: 2024-12-31, rule_hint: "0126"}
    expect:
      decision: violation
      triggered_rules: [DQC.US.0126.9590]
      reported_value: "226150000"
      expected_value: "216150001"  # a reviewer's typo
"""
REVENUE_OK = """\
  - id: revenue-members
    tags: [smoke]
    query: {concept: us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax, period: 2024-01-01..2024-12-31}
    expect: {decision: consistent, reported_value: 240500000, expected_value: 240500000}
"""
RECEIVABLE_OK = """\
  - id: receivable-negative
    query: {concept: us-gaap:AccountsReceivableNetCurrent, period: 2024-12-31, rule_hint: "0015"}
    expect: {decision: violation, triggered_rules: [DQC.US.0015.2944], reported_value: "(12,500,000)", expected_value: 12500000}
"""


def case_file(*cases: str, filing: Path = SAMPLE) -> str:
    """A case file over ``filing`` holding the given case snippets."""
    return f"auditflow: 1\ndefaults:\n  filing: {filing}\ncases:\n" + "".join(cases)


def report_block(text: str) -> str:
    """The auditflow report section of a pytest run's output (up to the next section or summary line)."""
    m = re.search(r"^=+ auditflow report =+$\n(.*?)(?=^=+ |\Z)", text, re.MULTILINE | re.DOTALL)
    assert m, f"no auditflow report in:\n{text}"
    return m.group(1)
