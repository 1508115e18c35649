"""``auditflow check --xlsx``: columns that line up, the filing's warnings, a frozen and filtered header,
columns fitted to their content, numbers as numbers, the file mode of the other outputs, and a typed
error (exit 2) for a folder that does not exist."""
from __future__ import annotations

from pathlib import Path

import pytest
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
        assert isinstance(r[col["reported"]], (int, float)) and r[col["weight"]] in (1, -1)
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


def test_columns_fit_their_content_up_to_a_cap_and_numbers_are_numbers(data_root, tmp_path) -> None:
    from openpyxl.utils import get_column_letter

    from auditflow.cli.workpaper import MAX_WIDTH

    out = tmp_path / "wp.xlsx"
    main(["check", str(SAMPLE), "--data-root", str(data_root), "--no-taxonomy", "--xlsx", str(out)])
    wb = load_workbook(out)
    for ws in wb.worksheets:
        for i, column in enumerate(ws.iter_cols(values_only=True), start=1):
            widest = max(len(str(v)) for v in column if v is not None)
            width = ws.column_dimensions[get_column_letter(i)].width
            assert width <= MAX_WIDTH and (width >= widest or width == MAX_WIDTH), (ws.title, column[0], width)
    sheet = wb["DQC.US.0126"]
    rows = list(sheet.iter_rows(values_only=True))
    col = {name: i for i, name in enumerate(rows[0])}
    assert sheet.column_dimensions[get_column_letter(col["message"] + 1)].width == MAX_WIDTH  # a long message
    finding = rows[1]
    assert finding[col["decimals"]] == -3 and isinstance(finding[col["tolerance"]], int)  # not "-3" as text
    assert finding[col["severity"]] == "error" and finding[col["label"]] is None  # the sample gives Assets no
    # standard label (only a total label), so none is shown; 0015's concept has one
    assert list(wb["DQC.US.0015"].iter_rows(values_only=True))[1][col["label"]] == "Accounts receivable, net"
    assert finding[col["document"]] == "acme-20241231.xml" and isinstance(finding[col["line"]], int)
    assert all(isinstance(r[col["decimals"]], int) for r in rows[2:] if r[col["code"]] == "evidence")


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_the_workpaper_has_the_file_mode_of_the_html_report(data_root, tmp_path, umask) -> None:
    """Written through a temporary file (atomically), it still gets the mode a plain write gives, as the
    HTML report beside it; a workpaper it replaces keeps its own mode, as a rewritten file would."""
    import os
    import stat

    xlsx, html = tmp_path / "wp.xlsx", tmp_path / "report.html"
    old = os.umask(umask)
    try:
        main(["check", str(SAMPLE), "--data-root", str(data_root), "--no-taxonomy", "--xlsx", str(xlsx),
              "--html", str(html)])
        assert stat.S_IMODE(xlsx.stat().st_mode) == stat.S_IMODE(html.stat().st_mode) == 0o666 & ~umask
        xlsx.chmod(0o600)
        main(["check", str(SAMPLE), "--data-root", str(data_root), "--no-taxonomy", "--xlsx", str(xlsx)])
        assert stat.S_IMODE(xlsx.stat().st_mode) == 0o600
    finally:
        os.umask(old)
