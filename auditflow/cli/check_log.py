"""``auditflow check --format log``: one line per message, shaped as Arelle's DQC plugin logs them.

The format is specified in docs/check-log.md; in short::

    [ERROR] [DQC.US.0004.9283] message (concept: us-gaap:Assets "Total assets"; rule version: DQC 29.0.0RC2) - doc.htm:123
    [WARNING] [taxonomy-unavailable] message - doc.htm:7

A line is its level, its code, the message on one line, a tail in parentheses (the concept with its
label, and the rule version in the same words for every rule) and, after the last `` - ``, where it
is: the document relative to the filing's folder and the source line, or the filing's folder name
for a message about no one fact. The loader's warnings come first, as Arelle logs them while
loading; then each rule's findings, its not-run notice and its warnings, in rule order.
"""
from __future__ import annotations

from pathlib import Path

from auditflow.errors import AuditflowError
from auditflow.graphs.factory import filing_name
from auditflow.rules import registry
from auditflow.rules.finding import Finding
from auditflow.rules.runner import NOT_RUN, CheckReport
from auditflow.xbrl.model import Warning_

WARNING = "WARNING"


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def where(document: str | None, line: int | None, filing: str) -> str:
    """``doc.htm:123``; ``doc.htm`` without a line; without a document, the filing's name as the cases
    call it (its folder, or the folder above one that only says the format, ``acme-10k-2024/inline``)."""
    if not document:
        return filing_name(Path(filing)) or filing
    return f"{document}:{line}" if line else document


def version_of(rule: str) -> str:
    """``rule version: ...`` as :attr:`RuleSpec.version_text` words it (a rule the registry does not
    know, from an older report, has none)."""
    try:
        return f"rule version: {registry.get(rule).version_text}"
    except AuditflowError:
        return "rule version: unknown"


def finding_line(f: Finding, filing: str) -> str:
    level = (f.severity or "error").upper()  # the rule's level of this code (the runner sets it)
    tail = []
    if f.concept is not None:
        tail.append(f"concept: {f.concept}" + (f' "{one_line(f.label)}"' if f.label else ""))
    tail.append(version_of(f.rule))
    return f"[{level}] [{f.code}] {one_line(f.message)} ({'; '.join(tail)}) - {where(f.document, f.line, filing)}"


def loader_line(w: Warning_ | str, filing: str) -> str:
    if isinstance(w, str):  # a report made without its recorded warnings: the text is all there is
        return f"[{WARNING}] [load] {one_line(w)} - {where(None, None, filing)}"
    return f"[{WARNING}] [{w.code}] {one_line(w.message)} - {where(w.document, w.line, filing)}"


def rule_warning_line(rule: str, text: str, filing: str) -> str:
    return f"[{WARNING}] [DQC.US.{rule}] {one_line(text)} ({version_of(rule)}) - {where(None, None, filing)}"


def log_lines(report: CheckReport) -> list[str]:
    lines = [loader_line(w, report.filing) for w in (report.load_warnings or report.warnings)]
    for rule, result in report.results.items():
        lines += [finding_line(f, report.filing) for f in result.findings]
        if rule in report.not_run:
            lines.append(rule_warning_line(rule, f"{NOT_RUN}: {report.not_run[rule]}", report.filing))
        lines += [rule_warning_line(rule, w, report.filing) for w in result.warnings]
    return lines


def render_log(report: CheckReport) -> str:
    return "".join(line + "\n" for line in log_lines(report))
