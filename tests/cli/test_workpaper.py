"""``auditflow check --xlsx``: columns that line up, the filing's warnings, a frozen and filtered header,
and a typed error (exit 2) for a folder that does not exist."""
from __future__ import annotations

from pathlib import Path

from openpyxl import load_workbook

from auditflow.cli.main import main
from auditflow.cli.workpaper import FINDING_COLS

SAMPLE = Path(__file__).resolve().parents[2] / "auditflow" / "samples" / "acme-10k-2024" / "xml"


def test_evidence_rows_line_up_with_the_header(data_root, tmp_path) -> None:
    out = tmp_path / "wp.xlsx"
    main(["check", str(SAMPLE), "--data-root", str(data_root), "--no-taxonomy", "--xlsx", str(out)])
    wb = load_workbook(out)
    sheet = wb["DQC.US.0126"]
    rows = list(sheet.iter_rows(values_only=True))
    assert rows[0] == FINDING_COLS
    col = {name: i for i, name in enumerate(FINDING_COLS)}
    finding, evidence = rows[1], [r for r in rows[2:] if r[col["code"]] == "evidence"]
    assert finding[col["reported"]] == 226150000 and evidence
    for r in evidence:  # the evidence's concept, fact and value sit under those headers
        assert str(r[col["concept"]]).startswith("us-gaap:") and r[col["fact id"]]
        assert isinstance(r[col["reported"]], (int, float)) and r[col["weight"]] in ("1", "-1")
    for ws in wb.worksheets:
        assert ws.freeze_panes == "A2" and ws.auto_filter.ref == ws.dimensions


def test_the_filings_warnings_are_a_sheet(tmp_path, monkeypatch) -> None:
    """Without a data root, the rules that need one say why they did not run: warnings of the filing."""
    from auditflow import dataroot

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AUDITFLOW_DATA_ROOT", raising=False)
    monkeypatch.setattr(dataroot, "repo_data_root", lambda: tmp_path / "none")
    monkeypatch.setattr(dataroot, "user_cache_data_root", lambda: tmp_path / "none")
    out = tmp_path / "wp.xlsx"
    main(["check", str(SAMPLE), "--no-taxonomy", "--xlsx", str(out)])
    wb = load_workbook(out)
    rows = list(wb["Warnings"].iter_rows(values_only=True))
    assert rows[0] == ("filing", "warning") and len(rows) > 1


def test_a_missing_folder_is_an_input_error_exit_2(tmp_path, capsys) -> None:
    out = tmp_path / "no-such-folder" / "wp.xlsx"
    assert main(["check", str(SAMPLE), "--no-taxonomy", "--xlsx", str(out)]) == 2
    err = capsys.readouterr().err
    assert "its folder does not exist" in err and "Traceback" not in err and not out.exists()


def test_the_terminal_table_keeps_numbers_whole_and_says_what_to_fix(data_root) -> None:
    """At 100 columns (and narrower) a number is never broken mid-digit; each finding says what to fix."""
    import io
    import re

    from rich.console import Console

    from auditflow.graphs.factory import shared_environment
    from auditflow.cli.check_cmd import render_table
    from auditflow.rules.runner import run_rules

    report = run_rules(shared_environment(SAMPLE), data_root=data_root)
    for width in (100, 80):
        console = Console(file=io.StringIO(), width=width, color_system=None)
        render_table(console, report)
        out = console.file.getvalue()
        assert "226,150,000" in out and "216,150,000" in out and "10,000,000" in out, out
        assert not re.search(r"\d,\s*$", out, re.MULTILINE), out  # no number cut at a line end
        assert out.count("what to fix:") == len(report.findings)
