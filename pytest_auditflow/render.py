"""The suite report as text: a rich table by DQC rule family, then cache, judge, gates, slowest cases.

Rendering is a pure function of the case rows, so the report is the same with and without xdist
(rows are sorted by node id; durations appear only in the "slowest" lines). It fits the given
width, and uses ASCII box characters when the terminal's encoding is not UTF-8 (pytest would
otherwise print escaped ``\\u2501`` sequences).
"""
from __future__ import annotations

import io
from typing import Any, Iterable, Mapping

from rich import box
from rich.console import Console
from rich.table import Table

from auditflow.cases.labels import INPUT, ORDER, Tally, tally
from auditflow.cases.results import GateResult, cache_totals
from auditflow.eval.metrics import cause_counts

MIN_WIDTH = 40


def _pct(x: float | None, digits: int = 1) -> str:
    return "-" if x is None else f"{100 * x:.{digits}f}%"


def _family(rule: str, compact: bool) -> str:
    return f"DQC.US.{rule}" if rule.isdigit() and not compact else rule


WIDE_HEADERS = ("rule family", "cases", "passed", *ORDER, "Joint ACC", "VAcc", "invalid", "judge agree")
COMPACT_HEADERS = ("rule", "n", "pass", *ORDER, "JAcc", "VAcc", "inv", "judge")


def _row(name: str, t: Tally, judged: bool, digits: int) -> list[str]:
    cells = [name, str(t.n), str(t.passed), *(str(t.labels[k]) for k in ORDER),
             _pct(t.joint_acc, digits), _pct(t.vacc, digits), _pct(t.invalid_rate, digits)]
    if judged:
        cells.append(_pct(t.agreed / t.judged, digits) if t.judged else "-")
    return cells


def build_table(rows: Iterable[Mapping[str, Any]], *, ascii_only: bool, compact: bool = False) -> Table:
    """Rule families as rows; N, passed, the FinMR labels A/S/E/C, Joint ACC, VAcc, invalid rate; totals.

    ``compact`` (narrow terminals): short headers, bare rule numbers, whole percentages.
    """
    by_rule, total = tally(rows)
    judged = total.judged > 0
    headers = (COMPACT_HEADERS if compact else WIDE_HEADERS)[: 11 if judged else 10]
    table = Table(box=box.ASCII if ascii_only else box.SIMPLE_HEAVY, show_edge=ascii_only and not compact,
                  pad_edge=not compact)
    for i, name in enumerate(headers):
        table.add_column(name, justify="left" if i == 0 else "right", no_wrap=True)
    digits = 0 if compact else 1
    families = list(by_rule.items())
    for i, (rule, t) in enumerate(families):
        table.add_row(*_row(_family(rule, compact), t, judged, digits), end_section=i == len(families) - 1)
    table.add_row(*_row("total", total, judged, digits))
    return table


def render_report(rows: list[Mapping[str, Any]], *, width: int, ascii_only: bool, settings_line: str,
                  gates: Iterable[GateResult] = (), slowest: int = 0, notes: Iterable[str] = (),
                  skipped: str | None = None) -> str:
    """The whole report block (without the pytest section separator), at most ``width`` columns wide."""
    console = Console(file=io.StringIO(), width=max(width, MIN_WIDTH), color_system=None, force_terminal=False,
                      highlight=False, emoji=False, legacy_windows=False, safe_box=ascii_only)
    say = console.print
    say(settings_line)
    if skipped:
        say(skipped)
    if not rows:
        return console.file.getvalue()  # type: ignore[attr-defined]
    say("labels: A all right | S no valid output | E reported wrong | C expected wrong")
    table = build_table(rows, ascii_only=ascii_only)
    if _natural_width(table) > console.width:
        table = build_table(rows, ascii_only=ascii_only, compact=True)
    say(table)
    for line in input_error_lines(rows):
        say(line, soft_wrap=True)
    why = cause_line(rows)
    if why:
        say(why)
    cache = cache_totals(rows)
    say(f"LLM cache: {cache['hits']} hits, {cache['misses']} misses, {cache['writes']} writes")
    _, total = tally(rows)
    if total.judged:
        say(f"LLM judge agrees with the deterministic labels on {total.agreed}/{total.judged} cases "
            f"({_pct(total.agreed / total.judged)})")
    for g in gates:
        say(f"gate {g.name}: {'ok' if g.ok else 'FAILED'} - {g.message}")
    for note in notes:
        say(note)
    for line in slowest_lines(rows, slowest):
        say(line, soft_wrap=True)  # a node id is one word: the terminal may wrap it, rich must not fold it
    return console.file.getvalue()  # type: ignore[attr-defined]


def _natural_width(table: Table) -> int:
    """How wide the table is when nothing constrains it (rich would truncate cells rather than say)."""
    probe = Console(file=io.StringIO(), width=1000, color_system=None, legacy_windows=False)
    probe.print(table)
    return max(len(line.rstrip()) for line in probe.file.getvalue().splitlines())  # type: ignore[attr-defined]


def slowest_lines(rows: Iterable[Mapping[str, Any]], n: int) -> list[str]:
    timed = sorted((r for r in rows if r.get("seconds") is not None), key=lambda r: (-r["seconds"], r["nodeid"]))[:n]
    if not timed:
        return []
    return [f"slowest {len(timed)} case(s):"] + [f"  {r['seconds']:7.2f}s  {r['nodeid']}" for r in timed]


def input_error_lines(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """The cases that did not run for an input error of their own (a typo in the query, a missing filing):
    counted apart from the labels above and left out of every rate, each named with its file and line."""
    bad = [r for r in rows if r.get("label") == INPUT]
    if not bad:
        return []
    return ([f"input errors: {len(bad)} case(s) did not run, their query or filing is wrong (not scored, not in "
             "Joint ACC; fix the cases, see the failures above):"]
            + [f"  {r.get('file')}:{r.get('line')} {r.get('case_id')}" for r in bad])


def cause_line(rows: Iterable[Mapping[str, Any]]) -> str | None:
    """Cases per cause of not being A (docs/metrics.md), or None when every case is A."""
    counts = cause_counts(r.get("cause") for r in rows)
    return "why not A: " + ", ".join(f"{c} {n}" for c, n in counts.items()) if counts else None
