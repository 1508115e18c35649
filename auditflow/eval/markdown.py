"""``results.md``: the paper-style tables, the comparisons, what did not run, and the command.

A pure function of :class:`~auditflow.eval.report.EvalReport`: fixed number formats (percentages
with two decimals, as the paper prints them), rows in ``--configs`` order, cases in key order, and
no clock, cache counter or absolute path, so the same command on the same cache writes the same
bytes. The chart images are always linked (``auditflow eval`` makes them when matplotlib is
installed): whether a plotting library is present must not change this file.
"""
from __future__ import annotations

import shlex
from typing import Iterable

from auditflow.eval.beside import case_sets
from auditflow.bootstrap import Comparison
from auditflow.eval.causes import CAUSES
from auditflow.eval.metrics import ConfigMetrics
from auditflow.eval.records import CACHE_MISS, CRASH, INPUT, CaseRecord
from auditflow.eval.report import EvalReport

CHARTS = (("per-rule-accuracy.png", "Joint ACC by DQC rule family and configuration"),
          ("error-types.png", "FinMR labels (A, S, E, C) by configuration"))
RUN_FILE = "run.json"
MAX_PROBLEM = 160
PROBLEMS_HEADING = "## Cases without an audit result"  # only when some run gave no audit result


def pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.2f}%"


def pct_of(count: int, n: int) -> str:
    return "–" if n == 0 else f"{100 * count / n:.2f}% ({count}/{n})"


def num(x: float | None, digits: int) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def pp(x: float) -> str:
    return f"{100 * x:+.2f}"


def family(rule: str) -> str:
    return f"DQC.US.{rule}" if rule.isdigit() else rule


def cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def _table(headers: Iterable[str], align: Iterable[str], rows: Iterable[Iterable[str]]) -> list[str]:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join(align) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def _counts(report: EvalReport) -> str:
    rules: dict[str, int] = {}
    decisions: dict[str, int] = {}
    for c in report.cases:
        rules[c.rule] = rules.get(c.rule, 0) + 1
        decisions[c.expected_decision] = decisions.get(c.expected_decision, 0) + 1
    by_rule = ", ".join(f"{family(r)} {n}" for r, n in sorted(rules.items()))
    by_decision = ", ".join(f"{n} {d}" for d, n in sorted(decisions.items(), key=lambda kv: (-kv[1], kv[0])))
    files = len(report.files)
    if not report.cases:
        return f"**Cases:** none ran, from {files} case file{'s' if files != 1 else ''}."
    return (f"**Cases:** {len(report.cases)} from {files} case file{'s' if files != 1 else ''} "
            f"({by_rule}; {by_decision or 'none'}).")


def _accuracy(report: EvalReport) -> list[str]:
    families = list(dict.fromkeys(f for m in report.metrics.values() for f in m.families()))
    headers = ["configuration", "model", "cases", "Joint ACC", "VAcc", "consistent: VAcc", "consistent: Joint ACC",
               *(f"{family(f)} ACC" for f in families)]
    rows = []
    for c in report.configs:
        m = report.metrics[c.name]
        cons = m.by_decision["consistent"]
        rows.append([c.name, f"`{c.model}`", str(m.n), pct_of(m.total.labels["A"], m.n),
                     pct_of(m.total.verdict_right, m.n), pct_of(cons.verdict_right, cons.n),
                     pct_of(cons.labels["A"], cons.n),
                     *(pct_of(m.by_rule[f].labels["A"], m.by_rule[f].n) if f in m.by_rule else "–" for f in families)])
    return _table(headers, [":--", ":--", *["--:"] * (len(headers) - 2)], rows)


def _errors(report: EvalReport) -> list[str]:
    headers = ["configuration", "A", "S", "E", "C", "SER", "EER", "CER", "invalid output", "passed",
               "mean credibility", "mean rounds", "mean tool calls"]
    rows = []
    for c in report.configs:
        m: ConfigMetrics = report.metrics[c.name]
        t = m.total
        rows.append([c.name, *(str(t.labels[k]) for k in "ASEC"), pct(m.rate("S")), pct(m.rate("E")),
                     pct(m.rate("C")), pct(m.invalid_rate), f"{t.passed}/{t.n}", num(m.mean_credibility, 3),
                     num(m.mean_rounds, 2), num(m.mean_tool_calls, 2)])
    return _table(headers, [":--", *["--:"] * (len(headers) - 1)], rows)


def _causes(report: EvalReport) -> list[str]:
    """Cases per cause of not being A (auditflow.eval.causes), one column per cause seen in any row."""
    seen = {c for m in report.metrics.values() for c in m.causes}
    if not seen:
        return []
    columns = [c for c in (*CAUSES, *sorted(seen - set(CAUSES))) if c in seen]
    rows = []
    for c in report.configs:
        m: ConfigMetrics = report.metrics[c.name]
        rows.append([c.name, str(m.total.labels["A"]), *(str(m.causes.get(k, 0)) for k in columns)])
    align = [":--", *["--:"] * (len(columns) + 1)]
    return ["## Why cases were not A", "", *_table(["configuration", "A", *columns], align, rows), ""]


def _comparisons(report: EvalReport) -> list[str]:
    ref = report.reference
    if not report.comparisons:
        return ["Only one configuration ran: nothing to compare." if len(report.configs) == 1
                else "No case ran: nothing to compare."]
    sizes = {c.result.n for c in report.comparisons}
    n = next(iter(sizes))
    which = (f"the {n} cases every configuration ran" if sizes == {len(report.cases)}
             else "the cases both configurations ran (a subset row's own cases, in the cases column)")
    head = [f"{report.resamples} paired resamples of {which}, seed {report.seed} "
            "(each pair seeded from it and the two names). Difference = "
            f"{ref} − other, in percentage points; 95% percentile interval; two-sided p-value of "
            "\"no difference\" (shifted bootstrap, never below 1/(resamples + 1)).", ""]
    return head + _comparison_table(ref, report.comparisons)


def _comparison_table(ref: str, comparisons: Iterable[Comparison]) -> list[str]:
    """The reference against each other row: cases, both accuracies, difference, interval, p-value."""
    rows = [[f"{ref} vs {c.other}", str(c.result.n), pct(c.result.acc_a), pct(c.result.acc_b), pp(c.result.difference),
             f"[{pp(c.result.low)}, {pp(c.result.high)}]", f"{c.result.p_value:.4f}"] for c in comparisons]
    return _table(["comparison", "cases", ref, "other", "difference (pp)", "95% interval (pp)", "p-value"],
                  [":--", *["--:"] * 6], rows)


def _beside(report: EvalReport) -> list[str]:
    """A section per ``--with-results`` file, then every row's Joint ACC on every case set."""
    out: list[str] = []
    for other in report.beside:
        families = list(dict.fromkeys(f for r in other.rows for f in r.by_rule))
        out += ["", f"## Beside it: {other.case_sets}", "",
                f"From `{other.path}` ({other.cases} cases), written by:", "",
                "```bash", other.command, "```", ""]
        rows = [[r.config, f"`{r.model}`", str(r.joint.n), pct_of(r.joint.right, r.joint.n),
                 pct_of(r.consistent.right, r.consistent.n),
                 *(pct_of(r.by_rule[f].right, r.by_rule[f].n) if f in r.by_rule else "–" for f in families),
                 *(str(r.labels.get(k, 0)) for k in "ASEC")] for r in other.rows]
        out += _table(["configuration", "model", "cases", "Joint ACC", "consistent: Joint ACC",
                       *(f"{family(f)} ACC" for f in families), "A", "S", "E", "C"],
                      [":--", ":--", *["--:"] * (7 + len(families))], rows)
        if other.comparisons:
            ref = other.comparisons[0].reference
            out += ["", f"Paired bootstrap of {ref} against each ({other.resamples} resamples, on the cases both "
                        "rows ran; difference = " f"{ref} − other, in percentage points):", ""]
            out += _comparison_table(ref, other.comparisons)
    if report.beside:
        out += _across(report)
    return out


def _across(report: EvalReport) -> list[str]:
    """Every row's Joint ACC on this run's cases and on each other run's ("–" where it did not run)."""
    names = list(dict.fromkeys([*(c.name for c in report.configs), *(r.config for o in report.beside for r in o.rows)]))
    here = {name: pct_of(m.total.labels["A"], m.n) for name, m in report.metrics.items()}
    there = [{r.config: pct_of(r.joint.right, r.joint.n) for r in o.rows} for o in report.beside]
    headers = ["configuration", f"`{case_sets(report.command)}`", *(f"`{o.case_sets}`" for o in report.beside)]
    return ["", "## Joint ACC on every case set", "",
            *_table(headers, [":--", *["--:"] * (len(headers) - 1)],
                    ([n, *(cells.get(n, "–") for cells in (here, *there))] for n in names))]


def problem_text(r: CaseRecord) -> str:
    if r.error_kind == CACHE_MISS:
        return "LLM cache miss: no recorded answer for a call, and the record mode replays only"
    what = {CRASH: "crash (a bug)", "model": "the model endpoint failed"}.get(r.error_kind, "input error of the case")
    text = f"{what}: {r.error or ''}"
    return text if len(text) <= MAX_PROBLEM else text[: MAX_PROBLEM - 1] + "…"


def rerecord_command(report: EvalReport, configs: Iterable[str]) -> str:
    """The report's command, for ``configs`` only, recording the missing LLM calls."""
    parts = shlex.split(report.command)
    i = parts.index("--configs")
    parts[i + 1] = ",".join(configs)
    return shlex.join([*parts, "--record-mode", "new_episodes"])


def _counted_as(problems: list[tuple[str, CaseRecord]]) -> str:
    """How the problems count: a cache miss or a crash is S; an input error of the case is in no rate."""
    inputs = sum(r.error_kind == INPUT for _, r in problems)
    if not inputs:
        return "each counts as S (no valid output) above."
    if inputs == len(problems):
        return "each is an input error of its case, counted in no rate above (fix the case)."
    return (f"{inputs} are input errors of their cases, counted in no rate above (fix the cases); "
            "the others count as S (no valid output).")


def _problems(report: EvalReport) -> list[str]:
    problems = report.problems()
    if not problems:
        return []
    out = ["", PROBLEMS_HEADING, "",
           f"{len(problems)} run(s) ended without an audit result; " + _counted_as(problems), ""]
    out += _table(["configuration", "case", "problem"], [":--", ":--", ":--"],
                  ([c, f"`{r.key}`", cell(problem_text(r))] for c, r in problems))
    missed = list(dict.fromkeys(c for c, r in problems if r.error_kind == CACHE_MISS))
    if missed:
        out += ["", "Record the missing LLM calls (the model is called for them only), then run the command above "
                    "again:", "", "```bash", rerecord_command(report, missed), "```"]
    return out


def _skipped(report: EvalReport) -> list[str]:
    if not report.skipped:
        return []
    out = ["", "## Skipped cases", "", f"{len(report.skipped)} case(s) could not run here and are in no number above:",
           ""]
    return out + [f"- `{s.key}`: {cell(s.reason)}" for s in report.skipped]


DEFINITIONS = (
    "Labels follow FinMR in strict order: **S** no valid output, else **E** reported value wrong, else **C** "
    "expected value wrong (zero tolerance) or, with both values right, the decision or triggered rules wrong, else "
    "**A** all right. Every case that ran is in the denominator.",
    "**Joint ACC** = A / cases; **SER**, **EER**, **CER** = S, E, C / cases; per-rule ACC is the Joint ACC of a DQC "
    "family's cases. **VAcc** = right verdicts (consistent / violation) / cases; the consistent cases' own VAcc "
    "and Joint ACC are shown beside it, because VAcc alone rewards always answering \"violation\".",
    "**invalid output**: cases in which an auditor emitted at least one output that failed validation (even if it "
    "recovered) or no audit result came back; it includes every S case. **passed**: every stated expectation "
    "met (decision, triggered rules, values, required tools), as `pytest --auditflow` asserts.",
    "**Why cases were not A**: the first of these that holds (read from each audit result): did not run; no "
    "valid report; auditors disagreed on the fact (the Senior's last review still named two different facts and "
    "it did not choose between them); the Senior chose the other fact (it chose, and passed over the meant one); "
    "no fact examined; another concept, another period or other members than the fact the question means (a "
    "wrong pick in the search); else a wrong conclusion on the meant fact.",
    "Means of credibility (the fused belief in the decision), Senior rounds and tool calls (all auditors) are "
    "over the cases that produced an audit result.",
    f"Seconds per case are wall-clock time and differ on every run, so they are not in this file: see `{RUN_FILE}` "
    "next to it.",
)


def render_markdown(report: EvalReport, *, charts_not_drawn: str | None = None) -> str:
    """The whole ``results.md``; ``charts_not_drawn`` (why, e.g. no matplotlib) replaces the chart links."""
    charts = ([f"Not drawn: {charts_not_drawn}", ""] if charts_not_drawn
              else [x for name, alt in CHARTS for x in (f"![{alt}]({name})", "")])
    lines = ["# AuditFlow evaluation", "",
             "Made with this command, from the project root; re-running it on the same LLM cache reproduces this "
             "file byte for byte:", "", "```bash", report.command, "```", "", _counts(report), "",
             "## Accuracy", "", *_accuracy(report), "",
             "## Error types and behaviour", "", *_errors(report), "", *_causes(report),
             f"## Paired bootstrap: Joint ACC of {report.reference} against each configuration", "",
             *_comparisons(report), *_problems(report), *_skipped(report), *_beside(report), "",
             "## Charts", "", *charts,
             "## Definitions", "", *(f"- {d}" for d in DEFINITIONS)]
    if report.notes.strip():  # the reviewer's reading of the numbers, kept with the command that made them
        lines += ["", report.notes.strip()]
    return "\n".join(lines) + "\n"
