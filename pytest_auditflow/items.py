"""Case files as pytest collectors and cases as pytest items (the standard non-Python test pattern).

Items record their results as ``user_properties`` (``auditflow.<field>``) in a ``finally:``, so a
failing or crashing case still carries its data: xdist ships them to the controller with each
report, JUnit XML writes them as ``<property>`` elements, and the controller's reporter builds
the suite report from them alone.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import pytest

from auditflow.cases.errors import CaseFileError
from auditflow.cases.loader import load_case_file
from auditflow.cases.model import AuditCase
from auditflow.errors import AuditflowError
from auditflow.eval.causes import NOT_RUN, cause_of
from auditflow.rules.finding import dec_str
from auditflow.rules.registry import rule_ids
from pytest_auditflow.failure import render_failure
from pytest_auditflow.session import PROP, SESSION_KEY, AuditflowSession

if TYPE_CHECKING:
    from auditflow.cases.runner import CaseOutcome

FILE_ERROR_PROP = "auditflow_case_file_error"  # not under PROP: the reporter makes no case row of it
RULE_MARKERS = rule_ids()  # a dqc_NNNN marker for every registered rule (auditflow.rules.registry)


class CaseFailed(Exception):
    """A case whose result differs from its expectations (or that could not run)."""

    def __init__(self, outcome: CaseOutcome) -> None:
        super().__init__(outcome.case.id)
        self.outcome = outcome


class AuditCaseFile(pytest.File):
    """A ``*.case.yaml`` file. A file that cannot be used (YAML syntax, schema, meaning, size) is one
    failing item named after the file, not a collection error: pytest stops a whole session at a
    collection error ("Interrupted"), and one bad file must not keep every other file's cases from
    running (docs/reliability.md). Any other exception is a bug and stays a collection error."""

    def collect(self) -> Iterator[AuditCaseItem | CaseFileErrorItem]:
        session = self.config.stash[SESSION_KEY]
        try:
            cases = load_case_file(self.path, display=session.display_path(self.path))
        except AuditflowError as exc:  # CaseFileError and the typed errors of reading the file
            yield CaseFileErrorItem.from_parent(self, name=self.path.name, error=exc)
            return
        for case in cases:
            yield AuditCaseItem.from_parent(self, name=case.id, case=case)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None):  # type: ignore[override]
        """Never raises: pytest's ``Collector.repr_failure`` takes no ``style``, and an error while
        describing an error would end the whole session as INTERNALERROR (exit 3)."""
        try:
            if isinstance(excinfo.value, CaseFileError):
                return str(excinfo.value)
            return super().repr_failure(excinfo)
        except BaseException as exc:  # noqa: BLE001 - the last resort; says what it can
            return safe_description(self.path, excinfo, exc)


class CaseFileErrorItem(pytest.Item):
    """The one item of a case file that cannot be used: it fails with the file's error (every problem,
    with its line and field) and carries no case row, so the suite report counts no case for it and a
    gate never turns its failure into a pass (see :class:`AuditflowReporter`)."""

    def __init__(self, *, error: AuditflowError, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error
        self.add_marker("auditflow")

    def runtest(self) -> None:
        self.user_properties.append((FILE_ERROR_PROP, self.config.stash[SESSION_KEY].display_path(self.path)))
        raise self.error

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None):  # type: ignore[override]
        try:  # never raises, like AuditCaseFile.repr_failure
            return f"{excinfo.value}\nNone of this file's cases ran; the other case files are not affected."
        except BaseException as exc:  # noqa: BLE001
            return safe_description(self.path, excinfo, exc)

    def reportinfo(self) -> tuple[Path, int, str]:
        line = getattr(self.error, "problems", None)
        first = line[0].line - 1 if line else 0
        return self.path, first, f"auditflow case file {self.path.name}"


class AuditCaseItem(pytest.Item):
    """One audit case: runs the protocol, judges the result, records it for the report."""

    def __init__(self, *, case: AuditCase, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self._add_markers()
        parts = [p for p in Path(case.filing).parts[-2:] if p not in ("..", ".", "/")]
        self.extra_keyword_matches.update({case.rule, *parts})  # -k aapl, -k 0015

    def _add_markers(self) -> None:
        """``auditflow``, ``dqc_<rule>`` and the case's tags, so ``-m`` selects cases; tags are registered
        on the fly so ``--strict-markers`` accepts them."""
        known = {line.split(":", 1)[0].split("(", 1)[0].strip() for line in self.config.getini("markers")}
        for tag in self.case.tags:
            if tag not in known:
                self.config.addinivalue_line("markers", f"{tag}: AuditFlow case tag")
            self.add_marker(tag)
        self.add_marker("auditflow")
        if self.case.rule in RULE_MARKERS:
            self.add_marker(f"dqc_{self.case.rule}")
        if reason := self.session_state.missing_requirement(self.case):  # a mark: reported at the case's line
            self.add_marker(pytest.mark.skip(reason=reason))

    @property
    def session_state(self) -> AuditflowSession:
        return self.config.stash[SESSION_KEY]

    def runtest(self) -> None:
        state = self.session_state
        outcomes: list = []
        try:
            outcomes = state.run_item(self)
        finally:
            self.user_properties.extend(case_properties(self, outcomes[0] if outcomes else None, outcomes))
        # with --auditflow-repeats K the case passes when every repeat passed (pass^K); the first that did not is shown
        outcome = next((o for o in outcomes if not o.passed), outcomes[0])
        # --auditflow-update-expected rewrites what the model answered; an input error has no answer to write
        if not outcome.passed and (outcome.input_error or not state.settings.update_expected):
            raise CaseFailed(outcome)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None):  # type: ignore[override]
        try:  # never raises, like AuditCaseFile.repr_failure
            if isinstance(excinfo.value, CaseFailed):
                state = self.session_state
                return render_failure(excinfo.value.outcome, nodeid=self.nodeid, settings=state.settings,
                                      file=state.display_path(self.path))
            if isinstance(excinfo.value, AuditflowError):
                return f"AuditFlow case {self.case.id}: {excinfo.value}"
            return super().repr_failure(excinfo, style=style)
        except BaseException as exc:  # noqa: BLE001
            return safe_description(self.path, excinfo, exc)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.case.line - 1, f"auditflow case {self.case.id}"


def repeat_fields(repeats: list[CaseOutcome]) -> dict[str, Any]:
    """Every repeat's label, how many passed, the pass rate and pass^K (all K passed); the cache
    counts and keys summed over the repeats (a miss in any repeat shows), and the row passes only when
    every repeat did."""
    passed = sum(o.passed for o in repeats)
    out: dict[str, Any] = {
        "repeats": len(repeats), "repeat_labels": ",".join(o.judgement.label for o in repeats),
        "repeats_passed": passed, "pass_rate": round(passed / len(repeats), 6), "pass_all": passed == len(repeats),
        "passed": passed == len(repeats),
        "cache_keys": sorted({k for o in repeats for k in o.cache_keys}),
    }
    for name in repeats[0].cache:
        out[f"cache_{name}"] = sum(int(o.cache.get(name, 0)) for o in repeats)
    return out


def summed_live(outcomes: list[CaseOutcome]) -> dict[str, Any] | None:
    """The live model calls of the case's runs summed (auditflow.llm.progress), or None when all replayed."""
    live = [o.live for o in outcomes if o.live]
    if not live:
        return None
    total = {k: sum(x.get(k, 0) for x in live) for k in live[0]}
    total["seconds"] = round(total.get("seconds", 0.0), 3)
    return total


def safe_description(path: Path, excinfo: pytest.ExceptionInfo[BaseException], failure: BaseException) -> str:
    """A description of ``excinfo`` that cannot fail, used when the usual rendering raised ``failure``."""
    try:
        text = " ".join(str(excinfo.value).split())
    except BaseException:  # noqa: BLE001 - even str() of a hostile exception may raise
        text = "(its message cannot be shown)"
    text = text if len(text) <= 500 else text[:500] + "..."
    return (f"{path}: {type(excinfo.value).__name__}: {text}\n"
            f"(the usual description failed too: {type(failure).__name__})")


def case_properties(item: AuditCaseItem, outcome: CaseOutcome | None,
                    repeats: list[CaseOutcome] | None = None) -> list[tuple[str, Any]]:
    """The case's results as execnet-serialisable ``(auditflow.<key>, value)`` pairs: the first run's
    row, and with ``--auditflow-repeats`` K > 1 every repeat's label, the pass rate and pass^K."""
    case, state = item.case, item.session_state
    row: dict[str, Any] = {
        "case_id": case.id, "file": state.display_path(item.path), "line": case.line, "rule": case.rule,
        "filing": case.filing, "concept": case.query.concept, "period": case.query.period,
        "model": state.settings.run.model, "config": state.settings.run.config,
        "expected_decision": case.expect.decision,
    }
    if state.settings.html_path is not None:  # --auditflow-html: the case and its whole result, for the report
        from auditflow.html.payload import case_payload, dumps

        row["html"] = dumps(case_payload(case, outcome))
    if outcome is None:  # the run raised: a bug or an unexpected error, shown with its traceback
        row.update(label="S", verdict_right=False, passed=False, crashed=True, cause=NOT_RUN,
                   error="the case run raised an exception")
        return [(f"{PROP}.{k}", v) for k, v in row.items()]
    r, j = outcome.result, outcome.judgement
    row.update(
        label=j.label, verdict_right=j.verdict_right, passed=outcome.passed,
        cause=(None if outcome.input_error  # not scored, so no cause of "not A": listed apart in the report
               else NOT_RUN if outcome.error is not None else cause_of(case.expect, r, j)),
        decision=r.decision if r else None, triggered_rules=",".join(r.triggered_rules) if r else "",
        reported_value=dec_str(r.reported_value) if r else None, expected_value=dec_str(r.expected_value) if r else None,
        credibility=r.credibility if r else None, seconds=round(outcome.seconds, 3), error=outcome.error,
        judge_label=outcome.judge_label, **{f"cache_{k}": v for k, v in outcome.cache.items()},
        cache_keys=list(outcome.cache_keys),  # for --auditflow-used-keys; not in the results file
        # the whole AuditResult, timings left out: equal digests = byte-identical artifacts (replay checks)
        result_sha256=hashlib.sha256(r.canonical_json().encode()).hexdigest() if r else None,
    )
    if any(o.error_kind == "model" for o in (repeats or [outcome])):  # the endpoint failed: never gated away
        row["error_kind"] = "model"
    if repeats and len(repeats) > 1:  # --auditflow-repeats: nothing of this in a plain run's row
        row.update(repeat_fields(repeats))
    if live := summed_live(repeats or [outcome]):  # only calls that reached the model: a replayed row stays as it was
        row.update({f"llm_{k}": v for k, v in live.items()})
        if (cost := state.settings.cost(live)) is not None:
            row["llm_cost"] = cost
    if state.settings.update_expected and r is not None:
        row["actual"] = json.dumps({"decision": r.decision, "triggered_rules": list(r.triggered_rules),
                                    "reported_value": dec_str(r.reported_value),
                                    "expected_value": dec_str(r.expected_value),
                                    "tools_called": sorted(outcome.tools), "index": case.index,
                                    "expected_tools": list(case.expect.tools_called), "path": str(case.file.resolve())})
    return [(f"{PROP}.{k}", v) for k, v in row.items()]
