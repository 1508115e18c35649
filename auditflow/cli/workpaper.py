"""The Excel workpaper of ``auditflow check --xlsx``: a summary sheet and one sheet per rule with findings."""
from __future__ import annotations

from pathlib import Path

from openpyxl import Workbook
from openpyxl.styles import Font

from auditflow.rules.finding import dec_str
from auditflow.rules.runner import RULES, CheckReport

FINDING_COLS = ("filing", "code", "concept", "fact id", "context", "period", "dimensions", "unit", "decimals",
                "reported", "expected", "tolerance", "difference", "message")
EVIDENCE_COLS = ("", "evidence: concept", "fact id", "axis", "member", "weight", "value", "decimals")


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
    _bold(ws)
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
                    sheet.append(("", "evidence", str(e.concept) if e.concept else "", e.fact_id,
                                  str(e.axis) if e.axis else "", str(e.member) if e.member else "",
                                  dec_str(e.weight), _num(e.value), str(e.decimals)))
        _bold(sheet)
    wb.save(str(path))


def _bold(ws) -> None:
    for cell in ws[1]:
        cell.font = Font(bold=True)
