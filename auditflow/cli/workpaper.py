"""The Excel workpaper of ``auditflow check --xlsx``: a summary sheet, one sheet per rule with findings, and
the filings' warnings (what was not loaded or not checked).

Every sheet has one header row, frozen, with a filter on it, and columns as wide as their content (up
to :data:`MAX_WIDTH` characters; a longer message wraps in Excel rather than running off the screen).
In a rule's sheet each finding row is followed by its evidence rows, in the same columns (code
``evidence``; the evidence fact's value under ``reported``, its axis and member under ``dimensions``,
its calculation weight under ``weight``). Amounts, tolerances, weights and ``decimals`` are numbers, so
an auditor can sum and filter them; ``INF`` decimals stay text. The file is written as the other outputs
are (:func:`auditflow.xlsx_file.save_workbook`: same bytes for the same cells, the mode a plain write
gives).
"""
from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from openpyxl import Workbook
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter

from auditflow.errors import InputError
from auditflow.rules.runner import CheckReport
from auditflow.xlsx_file import save_workbook

FINDING_COLS = ("filing", "code", "severity", "concept", "label", "fact id", "document", "line", "context", "period",
                "dimensions", "unit", "decimals", "reported", "expected", "tolerance", "difference", "message",
                "weight")
SUMMARY_COLS = ("filing", "rule", "findings", "consistent", "not applicable", "warnings", "not run")
WARNING_COLS = ("filing", "warning")
MAX_WIDTH = 60  # characters: the widest a column is made
MIN_WIDTH = 8


def _num(d: Decimal | None):
    """Numbers as numbers in Excel (auditors sum columns), exact text kept in JSON output."""
    return None if d is None else float(d) if d != d.to_integral_value() else int(d)


def _decimals(d):
    """``decimals`` as a number; ``INF`` (and anything else that is not an integer) as written."""
    if d is None:
        return None
    try:
        return int(d)
    except (TypeError, ValueError):
        return str(d)


def write_workpaper(reports: list[CheckReport], path: str | Path) -> None:
    wb = Workbook()
    ws = wb.active
    ws.title = "Summary"
    ws.append(SUMMARY_COLS)
    for r in reports:
        for rule, res in r.results.items():
            ws.append((r.filing, f"DQC.US.{rule}", len(res.findings), res.consistent, res.not_applicable,
                       len(res.warnings), r.not_run.get(rule, "")))
    _finish(ws)
    ran = {rule for r in reports for rule in r.results}
    for rule in sorted(ran):  # id order, as the registry lists them
        if not any(rule in r.results and r.results[rule].findings for r in reports):
            continue
        sheet = wb.create_sheet(f"DQC.US.{rule}")
        sheet.append(FINDING_COLS)
        for r in reports:
            res = r.results.get(rule)
            for f in res.findings if res else ():
                diff = f.reported - f.expected if f.reported is not None and f.expected is not None else None
                cells = {"filing": r.filing, "code": f.code, "severity": f.severity, "concept": str(f.concept) if f.concept is not None else "",
                         "label": f.label, "fact id": f.fact_id, "document": f.document, "line": f.line,
                         "context": f.context_id, "period": str(f.period) if f.period is not None else "",
                         "dimensions": ", ".join(f"{a}={m}" for a, m in f.dimensions), "unit": f.unit,
                         "decimals": _decimals(f.decimals), "reported": _num(f.reported),
                         "expected": _num(f.expected), "tolerance": _num(f.tolerance), "difference": _num(diff),
                         "message": f.message}
                sheet.append(tuple(cells.get(col) for col in FINDING_COLS))
                for e in f.evidence:
                    sheet.append(_evidence_row(e))
        _finish(sheet)
    warnings = [(r.filing, w) for r in reports for w in r.to_json()["warnings"]]
    if warnings:
        sheet = wb.create_sheet("Warnings")
        sheet.append(WARNING_COLS)
        for row in warnings:
            sheet.append(row)
        _finish(sheet)
    try:
        save_workbook(wb, path)
    except OSError as exc:
        raise InputError(f"cannot write the workpaper: {exc.strerror or exc}", path=str(path)) from None


def _evidence_row(e) -> tuple:
    """An evidence line under its finding, in the finding columns."""
    dims = f"{e.axis}={e.member}" if e.axis else ""
    cells = {"code": "evidence", "concept": str(e.concept) if e.concept else "", "fact id": e.fact_id,
             "context": e.context_id or "", "dimensions": dims, "message": e.note or "",
             "decimals": _decimals(e.decimals), "reported": _num(e.value), "weight": _num(e.weight)}
    return tuple(cells.get(col, "") for col in FINDING_COLS)


def _width(value) -> int:
    """The characters a cell shows: its longest line (numbers as Excel shows them, near enough)."""
    if value is None:
        return 0
    return max(len(line) for line in str(value).splitlines() or [""])


def _finish(ws) -> None:
    """Bold, frozen header row with a filter over the filled range; each column as wide as its widest
    cell, between :data:`MIN_WIDTH` and :data:`MAX_WIDTH` characters."""
    for cell in ws[1]:
        cell.font = Font(bold=True)
    ws.freeze_panes = "A2"
    ws.auto_filter.ref = ws.dimensions
    for i, column in enumerate(ws.iter_cols(values_only=True), start=1):
        widest = max((_width(v) for v in column), default=0)
        ws.column_dimensions[get_column_letter(i)].width = min(MAX_WIDTH, max(MIN_WIDTH, widest + 2))
