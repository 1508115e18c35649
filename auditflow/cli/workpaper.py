"""The Excel workpaper of ``auditflow check --xlsx``: a summary sheet, one sheet per rule with findings, and
the filings' warnings (what was not loaded or not checked).

Every sheet has one header row, frozen, with a filter on it. In a rule's sheet each finding row is
followed by its evidence rows, in the same columns (code ``evidence``; the evidence fact's value under
``reported``, its axis and member under ``dimensions``, its calculation weight under ``weight``).
"""
from __future__ import annotations

from pathlib import Path

from openpyxl import Workbook
from openpyxl.styles import Font

from auditflow.errors import InputError
from auditflow.rules.finding import dec_str
from auditflow.rules.runner import RULES, CheckReport
from auditflow.xlsx_file import save_workbook

FINDING_COLS = ("filing", "code", "concept", "fact id", "context", "period", "dimensions", "unit", "decimals",
                "reported", "expected", "tolerance", "difference", "message", "weight")
WARNING_COLS = ("filing", "warning")


def _num(d):
    """Numbers as numbers in Excel (auditors sum columns), exact text kept in JSON output."""
    return None if d is None else float(d) if d != d.to_integral_value() else int(d)


def write_workpaper(reports: list[CheckReport], path: str | Path) -> None:
    wb = Workbook()
    ws = wb.active
    ws.title = "Summary"
    ws.append(("filing", "rule", "findings", "consistent", "not applicable", "warnings"))
    for r in reports:
        for rule, res in r.results.items():
            ws.append((r.filing, f"DQC.US.{rule}", len(res.findings), res.consistent, res.not_applicable, len(res.warnings)))
    _header(ws)
    for rule in RULES:
        if not any(rule in r.results and r.results[rule].findings for r in reports):
            continue
        sheet = wb.create_sheet(f"DQC.US.{rule}")
        sheet.append(FINDING_COLS)
        for r in reports:
            res = r.results.get(rule)
            for f in res.findings if res else ():
                diff = f.reported - f.expected if f.reported is not None and f.expected is not None else None
                sheet.append((r.filing, f.code, str(f.concept), f.fact_id, f.context_id, str(f.period),
                              ", ".join(f"{a}={m}" for a, m in f.dimensions), f.unit, str(f.decimals),
                              _num(f.reported), _num(f.expected), _num(f.tolerance), _num(diff), f.message))
                for e in f.evidence:
                    sheet.append(_evidence_row(e))
        _header(sheet)
    warnings = [(r.filing, w) for r in reports for w in r.to_json()["warnings"]]
    if warnings:
        sheet = wb.create_sheet("Warnings")
        sheet.append(WARNING_COLS)
        for row in warnings:
            sheet.append(row)
        _header(sheet)
    try:
        save_workbook(wb, path)
    except OSError as exc:
        raise InputError(f"cannot write the workpaper: {exc.strerror or exc}", path=str(path)) from None


def _evidence_row(e) -> tuple:
    """An evidence line under its finding, in the finding columns."""
    dims = f"{e.axis}={e.member}" if e.axis else ""
    cells = {"code": "evidence", "concept": str(e.concept) if e.concept else "", "fact id": e.fact_id,
             "context": e.context_id or "", "dimensions": dims, "message": e.note or "", "decimals": "" if e.decimals is None else str(e.decimals), "reported": _num(e.value),
             "weight": dec_str(e.weight) if e.weight is not None else ""}
    return tuple(cells.get(col, "") for col in FINDING_COLS)


def _header(ws) -> None:
    """Bold, frozen header row with a filter over the filled range."""
    for cell in ws[1]:
        cell.font = Font(bold=True)
    ws.freeze_panes = "A2"
    ws.auto_filter.ref = ws.dimensions
