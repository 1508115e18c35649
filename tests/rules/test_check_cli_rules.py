"""``auditflow check`` in the filer's language: --rules ids/ranges/all, --format log, grouping by rule."""
from __future__ import annotations

import json

from auditflow.graphs.factory import SAMPLE
from auditflow.cli.main import main
from auditflow.rules import registry


def checked(capsys) -> list[str]:
    doc = json.loads(capsys.readouterr().out)
    doc = doc["filings"][0] if "filings" in doc else doc  # one filing: either JSON shape
    return sorted(doc["checked"])


def test_rules_takes_ids_ranges_and_all(capsys, data_root):
    base = ["check", str(SAMPLE), "--data-root", str(data_root), "--no-taxonomy", "--format", "json", "--exit-zero"]
    assert main([*base, "--rules", "15,126"]) == 0
    assert checked(capsys) == ["0015", "0126"]
    assert main([*base, "--rules", "4-9"]) == 0
    assert checked(capsys) == [r for r in registry.rule_ids() if "0004" <= r <= "0009"]
    assert main([*base]) == 0  # the default is every registered rule
    assert checked(capsys) == list(registry.rule_ids())
    assert main([*base, "--rules", "9999"]) == 2
    assert "unknown rule '9999'" in capsys.readouterr().err


def test_log_format_is_arelle_style_one_line_per_finding(capsys, data_root):
    """One line per finding, ``[LEVEL] [code] message (...) - document:line`` (docs/check-log.md)."""
    assert main(["check", str(SAMPLE), "--data-root", str(data_root), "--no-taxonomy", "--format", "log"]) == 1
    lines = [line for line in capsys.readouterr().out.splitlines() if not line.startswith("[WARNING]")]
    assert [line.split("] ", 2)[1] for line in lines] == ["[DQC.US.0015.2944", "[DQC.US.0126.9590"]
    assert all(line.startswith("[ERROR] ") and " - acme-20241231.htm:" in line for line in lines)
    assert "AccountsReceivableNetCurrent is reported as -12,500,000 USD" in lines[0]


def test_table_groups_findings_by_rule_with_titles_and_messages(capsys, data_root):
    main(["check", str(SAMPLE), "--data-root", str(data_root), "--no-taxonomy", "--rules", "all"])
    out = capsys.readouterr().out
    assert "DQC.US.0015 Negative values: 1 finding(s)" in out
    assert "Element values are equal" in out  # every rule has a summary row, findings or not
    assert "[DQC.US.0126.9590] In " in out  # the finding's message in DQC's form


def test_list_rules_prints_the_registry(capsys):
    """The one list of rules a user reads is the registry's own (the README keeps none by hand)."""
    assert main(["check", "--list-rules", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["rule"] for r in rows] == [s.name for s in registry.rules().values()]
    assert {r["rule"]: r["auditors"] for r in rows if r["auditors"]} == {
        f"DQC.US.{rule}": tool for rule, tool in registry.agent_rules().items()}
    assert main(["check", "--list-rules", "--rules", "4-9"]) == 0
    shown = capsys.readouterr().out
    assert "DQC.US.0004" in shown and "DQC.US.0015" not in shown
