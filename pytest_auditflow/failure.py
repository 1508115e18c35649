"""What a failing case shows: the case header, expected vs actual, the evidence path, the Senior.

A reader should see, without opening the YAML or re-running anything, which fact was audited,
what differs, which tool calls the answer rests on and why the Senior accepted or pushed back.
A cache miss in replay mode instead says exactly how to re-record.
"""
from __future__ import annotations

import difflib
import json
import shlex
from typing import TYPE_CHECKING, Any

from auditflow.cases.labels import LABELS
from auditflow.rules.finding import dec_str
from pytest_auditflow.options import Settings

if TYPE_CHECKING:
    from auditflow.cases.runner import CaseOutcome

MAX_SUMMARY = 160


def _yaml_lines(d: dict[str, Any]) -> list[str]:
    return [f"{k}: {json.dumps(v) if not isinstance(v, str) or k != 'decision' else v}" for k, v in d.items()]


def _actual(outcome: CaseOutcome) -> dict[str, Any]:
    """The result's answer in the shape of the case's ``expect:`` (same keys, same value forms)."""
    r, want = outcome.result, outcome.case.expect.as_display()
    got: dict[str, Any] = {"decision": r.decision if r else None}
    if "triggered_rules" in want:
        got["triggered_rules"] = list(r.triggered_rules) if r else None
    for k in ("reported_value", "expected_value"):
        if k in want:
            got[k] = dec_str(getattr(r, k)) if r else None
    if "tools_called" in want:
        got["tools_called"] = [t for t in want["tools_called"] if t in outcome.tools]
    return got


def header(outcome: CaseOutcome, *, file: str, settings: Settings) -> list[str]:
    c, run = outcome.case, settings.run
    inject = "; ".join(str(s) for s in c.inject)
    j = outcome.judgement
    lines = [f"AuditFlow case {c.id} ({file}:{c.line}): {summary(outcome)}"]
    if c.description:
        lines.append(f"  {c.description}")
    lines += [f"  filing : {c.filing}" + (f"  (inject: {inject})" if inject else ""),
              f"  query  : {c.query}" + (f", rule hint {c.query.rule_hint}" if c.query.rule_hint else ""),
              f"  run    : model {run.model}, config {run.config}, record mode {run.record_mode}",
              ("  label  : none: an input error of the case, not scored (not in Joint ACC or any rate)"
               if outcome.input_error else
               f"  label  : {j.label} ({LABELS[j.label]}), verdict {'right' if j.verdict_right else 'wrong'}")]
    return lines


def summary(outcome: CaseOutcome) -> str:
    """One line for pytest's short summary: what went wrong first."""
    if outcome.error_kind == "cache_miss":
        return "LLM cache miss in replay mode (see below for how to re-record)"
    if outcome.input_error:
        return "input error of the case (not scored)"
    if outcome.error is not None:
        return "could not run"
    text = "; ".join(f"{m.field} expected {m.expected}, got {m.actual}" for m in outcome.judgement.mismatches)
    return text if len(text) <= MAX_SUMMARY else text[:MAX_SUMMARY] + "..."


def diff_lines(outcome: CaseOutcome) -> list[str]:
    """A unified diff of the stated expectations against the same fields of the result."""
    want = _yaml_lines(outcome.case.expect.as_display())
    got = _yaml_lines(_actual(outcome))
    body = list(difflib.unified_diff(want, got, "expected", "actual", lineterm="", n=len(want) + len(got)))
    return ["Expected vs actual:"] + ["  " + line for line in body[2:]]


def evidence_lines(outcome: CaseOutcome) -> list[str]:
    r = outcome.result
    if r is None or not r.evidence_path:
        return ["Evidence path: none"]
    out = ["Evidence path:"]
    for i, s in enumerate(r.evidence_path, 1):
        summary = s.summary if len(s.summary) <= MAX_SUMMARY else s.summary[:MAX_SUMMARY] + "..."
        facts = f"  [{', '.join(s.facts)}]" if s.facts else ""
        out.append(f"  {i}. {s.tool} {json.dumps(s.arguments, sort_keys=True)}: {summary}{facts}")
    return out


def senior_lines(outcome: CaseOutcome, settings: Settings) -> list[str]:
    r = outcome.result
    if r is None or not r.reviews:
        return [f"Senior's diagnosis: none (configuration {settings.run.config} has no Senior review)"]
    out = ["Senior's diagnosis:"]
    for rev in r.reviews:
        what = "accepted" if rev.accepted else f"conflict: {rev.conflict_source}"
        out.append(f"  round {rev.round}: {what} - {rev.reason}")
        out += [f"    feedback to {role}: {text}" for role, text in sorted(rev.feedback.items())]
    if r.arbitration is not None:
        offered = " or ".join(f'"{w}"' for w in r.arbitration.offered)
        chose = (f'chose "{r.arbitration.offered[r.arbitration.chosen]}"' if r.arbitration.chosen is not None
                 else f"named neither fact (answered {r.arbitration.answer!r}); both audits were fused")
        out.append(f"  the Senior's choice between {offered}: {chose}")
    return out


def rerecord_command(nodeid: str, settings: Settings) -> str:
    run = settings.run
    return (f"pytest --auditflow {shlex.quote(nodeid)} --auditflow-model {shlex.quote(run.model)} "
            f"--auditflow-config {run.config} --auditflow-record-mode new_episodes "
            f"--auditflow-cache-dir {shlex.quote(str(run.cache_dir))}")


def never_recorded_lines(outcome: CaseOutcome, settings: Settings) -> list[str]:
    """A hint when the case has no recorded call of this model at all: most often a model recorded on
    an ``auditflow eval`` subset row, replayed over the whole folder (docs/pytest-plugin-notes.md)."""
    from auditflow.llm.cache import models_recorded

    models = models_recorded(settings.run.cache_dir, outcome.case.id)
    if settings.run.model in models:
        return []
    others = f" (it has calls of {', '.join(sorted(models))})" if models else ""
    return [f"This case has no call recorded with {settings.run.model} at all{others}. If that model was recorded "
            "on an eval subset row (auditflow eval --configs full+subset=N), replay only those cases with "
            "--auditflow-subset N."]


def render_failure(outcome: CaseOutcome, *, nodeid: str, file: str, settings: Settings) -> str:
    """The failure text of a case item."""
    lines = header(outcome, file=file, settings=settings)
    if outcome.error_kind == "cache_miss":
        lines += ["", f"LLM cache miss in replay mode (record mode {settings.run.record_mode}): {outcome.error}",
                  f"The cache at {settings.run.cache_dir} has no recorded answer for a call this case makes with "
                  f"model {settings.run.model}. Re-record it (this calls the model) with:",
                  f"  {rerecord_command(nodeid, settings)}",
                  "then review and commit the cache folder.", *never_recorded_lines(outcome, settings)]
    elif outcome.input_error:
        lines += ["", f"Input error of the case: {outcome.error}",
                  "The case names something its filing does not have (or a filing or inject: that cannot be used), "
                  "so the audit never started. Fix the case; it is not scored: the labels and Joint ACC leave it out."]
    elif outcome.error is not None:
        lines += ["", f"The case could not run: {outcome.error}"]
    else:
        lines += ["", *diff_lines(outcome), "", *evidence_lines(outcome), "", *senior_lines(outcome, settings)]
    return "\n".join(lines)
