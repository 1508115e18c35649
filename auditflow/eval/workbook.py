"""``results.xlsx``: the same tables as ``results.md`` with numbers as numbers, plus per-case rows.

Sheets: ``results`` (accuracy, labels and behaviour per configuration), ``comparisons`` (bootstrap),
``cases`` (one row per configuration and case). Rates are stored as fractions with a percent format,
so a reviewer can compute with them. Like ``results.md``, the workbook's bytes depend only on the
results (:mod:`auditflow.xlsx_file`); this run's seconds live in ``run.json`` alone.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from openpyxl import Workbook
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter

from auditflow.eval.markdown import family
from auditflow.eval.report import EvalReport
from auditflow.xlsx_file import save_workbook

PERCENT = "0.00%"
RESULT_HEADERS = ("configuration", "protocol", "model", "cases", "Joint ACC", "VAcc", "consistent cases",
                  "consistent: VAcc", "consistent: Joint ACC")
TAIL_HEADERS = ("A", "S", "E", "C", "SER", "EER", "CER", "invalid output", "passed", "mean credibility",
                "mean rounds", "mean tool calls", "cache misses", "input errors", "crashes")


def _sheet(wb: Workbook, title: str, headers: Sequence[str], rows: Sequence[Sequence[Any]],
           percent: Sequence[str] = ()) -> None:
    ws = wb.create_sheet(title)
    ws.append(list(headers))
    for cell in ws[1]:
        cell.font = Font(bold=True)
    for row in rows:
        ws.append(list(row))
    for i, h in enumerate(headers, start=1):
        letter = get_column_letter(i)
        ws.column_dimensions[letter].width = max(10, min(60, len(h) + 2))
        if h in percent:
            for cell in ws[letter][1:]:
                cell.number_format = PERCENT
    ws.freeze_panes = "B2"


def write_workbook(report: EvalReport, path: Path) -> None:
    wb = Workbook()
    wb.remove(wb.active)
    families = list(dict.fromkeys(f for m in report.metrics.values() for f in m.families()))
    fam_headers = [f"{family(f)} ACC" for f in families]
    rows = []
    for c in report.configs:
        m = report.metrics[c.name]
        cons = m.by_decision["consistent"]
        rows.append([c.name, c.protocol, c.model, m.n, m.joint_acc, m.total.vacc, cons.n, cons.vacc, cons.joint_acc,
                     *(m.rule_acc(f) for f in families), *(m.total.labels[k] for k in "ASEC"), m.rate("S"),
                     m.rate("E"), m.rate("C"), m.invalid_rate, m.total.passed, m.mean_credibility, m.mean_rounds,
                     m.mean_tool_calls, *(m.problems.get(k, 0) for k in ("cache_miss", "input", "crash"))])
    headers = [*RESULT_HEADERS, *fam_headers, *TAIL_HEADERS]
    _sheet(wb, "results", headers, rows, percent=("Joint ACC", "VAcc", "consistent: VAcc", "consistent: Joint ACC",
                                                  *fam_headers, "SER", "EER", "CER", "invalid output"))
    _sheet(wb, "comparisons", ("reference", "other", "cases", "reference Joint ACC", "other Joint ACC", "difference",
                               "95% low", "95% high", "p-value", "resamples", "seed"),
           [(c.reference, c.other, c.result.n, c.result.acc_a, c.result.acc_b, c.result.difference, c.result.low,
             c.result.high, c.result.p_value, c.result.resamples, str(c.result.seed)) for c in report.comparisons],
           percent=("reference Joint ACC", "other Joint ACC", "difference", "95% low", "95% high"))
    _sheet(wb, "cases", ("configuration", "case", "rule", "expected decision", "label", "verdict right", "passed",
                         "decision", "triggered rules", "reported value", "expected value", "credibility", "rounds",
                         "tool calls", "invalid output", "mismatches", "cause", "problem", "message"),
           [(name, r.key, r.rule, r.expected_decision, r.label, r.verdict_right, r.passed, r.decision,
             ", ".join(r.triggered_rules), r.reported_value, r.expected_value, r.credibility, r.rounds, r.tool_calls,
             r.invalid_output, ", ".join(r.mismatches), r.cause, r.error_kind, r.error)
            for name, recs in report.records.items() for r in recs])
    path.parent.mkdir(parents=True, exist_ok=True)
    save_workbook(wb, path)
