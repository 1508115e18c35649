"""The controller-side reporter: gathers case rows, writes results, applies gates, prints the report.

Registered only where there is no ``workerinput`` (the xdist controller, or a plain run). Its only
input is each report's ``auditflow.*`` user properties, which xdist forwards from the workers; so
the rows, the JSON, the gates and the printed table are the same with and without ``-n``.
"""
from __future__ import annotations

import json
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from auditflow.cases.errors import CaseInputError
from auditflow.cases.labels import INPUT, tally
from auditflow.cases.models import POLICY
from auditflow.cases.results import (
    GateResult, baseline_gate, load_baseline, min_joint_acc_gate, results_document, sorted_rows, timings_document,
    timings_path, write_results,
)
from auditflow.cases.rewrite import expect_from_actual, rewrite_expectations
from pytest_auditflow.items import FILE_ERROR_PROP, AuditCaseItem
from pytest_auditflow.live import Bar, LiveLines
from pytest_auditflow.options import DEFAULT_ALPHA
from pytest_auditflow.render import render_report
from pytest_auditflow.session import PROP, AuditflowSession, model_note


class AuditflowReporter:
    def __init__(self, state: AuditflowSession) -> None:
        self.state = state
        self.rows: dict[str, dict[str, Any]] = {}
        self.gates: list[GateResult] = []
        self.notes: list[str] = []
        self.other_failures: set[str] = set()  # failures that are not a case's verdict: never gated away
        self.skipped: dict[str, str] = {}  # case node id -> why it was skipped (e.g. no data root)
        self.bad_files: set[str] = set()  # case files that could not be used (one failing item each)
        self.baseline = self._load_baseline()
        self._lock = threading.Lock()  # live-call lines come from the case threads
        self.bar = Bar()  # shown once a case made a live model call
        self.live_seen = False
        if self._recording():  # a replay-only run makes no live call: it listens to none (other tests' calls)
            state.config.add_cleanup(LiveLines(self._progress, state.config).close)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.bar.total = sum(isinstance(i, AuditCaseItem) for i in session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids) -> None:  # noqa: ARG002
        if not self.bar.total:  # the controller collects nothing itself: a worker's count (every test)
            self.bar.total = len(ids)

    def _load_baseline(self) -> dict[str, dict[str, Any]] | None:
        """The baseline's cases, read up front so a bad file is a usage error before anything runs."""
        path = self.state.settings.baseline
        try:
            return load_baseline(path) if path is not None else None
        except CaseInputError as exc:
            raise pytest.UsageError(f"--auditflow-baseline: {exc}") from None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = {k[len(PROP) + 1:]: v for k, v in report.user_properties if k.startswith(PROP + ".")}
        if props and (report.when == "call" or report.nodeid not in self.rows):
            self.rows[report.nodeid] = {"nodeid": report.nodeid, **props}
        # a crash or a case's input error is not a verdict: no gate may turn it into a pass
        if report.failed and not (props and report.when == "call" and not props.get("crashed")
                                  and props.get("label") != INPUT and props.get("error_kind") != "model"):
            self.other_failures.add(report.nodeid)
        self.bad_files.update(v for k, v in report.user_properties if k == FILE_ERROR_PROP)
        if report.skipped and "auditflow" in report.keywords:
            self.skipped[report.nodeid] = _skip_reason(report)
        # Recording with a live model takes tens of seconds a case: say which case is being recorded (once its
        # setup passed, so not for a skipped case), and when it is done.
        if self._recording() and report.when == "setup" and report.passed and "auditflow" in report.keywords:
            self._progress(f"recording {report.nodeid} (started {time.strftime('%H:%M:%S')})")
        if props and report.when == "call" and self._recording():
            self._progress(f"recorded {report.nodeid} in {props.get('seconds') or 0:.1f}s: "
                           f"{props.get('cache_writes', 0)} LLM call(s) recorded, {props.get('cache_hits', 0)} replayed "
                           f"({len(self.rows)} case(s) done)")
        if props and report.when == "call":
            self.bar.advance()
            self.live_seen = self.live_seen or bool(props.get("llm_calls"))
            if self.live_seen:  # a live run: the bar with its rate and ETA (a replay shows none)
                self._progress(self.bar.line())

    def _recording(self) -> bool:
        run = self.state.settings.run
        return run.record_mode != "none" and run.model != POLICY

    def _progress(self, line: str) -> None:
        tr = self.state.config.pluginmanager.get_plugin("terminalreporter")
        if tr is not None:
            line = line.removeprefix("auditflow: ")
            with self._lock:
                if tr._tw.width_of_current_line:  # after pytest's progress dots
                    tr.write("\n")
                tr.write_line(f"auditflow: {line}")

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.other_failures.add(report.nodeid)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        rows = sorted_rows(self.rows.values())
        if not rows:
            return
        self.gates = self._gates(rows)
        if live := live_summary(rows):
            self.notes.append(live)
        self.notes.extend(repeats_lines(rows))
        if failed_endpoint := endpoint_line(rows):
            self.notes.append(failed_endpoint)
        if self.state.settings.update_expected:
            self.notes.append(self._update_expected(rows))
        if self.state.settings.json_path is not None:
            public = [_public(r) for r in rows]
            doc = results_document(public, settings=self._settings_json(), gates=self.gates)
            write_results(self.state.settings.json_path, doc)
            write_results(timings := timings_path(self.state.settings.json_path), timings_document(public))
            self.notes.append(f"results written to {self.state.settings.json_path} (wall-clock seconds apart, "
                              f"in {timings})")
        if self.state.settings.html_path is not None:
            self.notes.append(self._write_html(rows))
        if self.state.settings.used_keys_path is not None:
            from auditflow.llm.cache_cmd import write_used_keys

            n = write_used_keys(self.state.settings.used_keys_path, (k for r in rows for k in r.get("cache_keys") or ()))
            self.notes.append(f"{n} used LLM cache keys written to {self.state.settings.used_keys_path} "
                              f"(keep them: auditflow cache prune DIR --used {self.state.settings.used_keys_path})")
        self._apply_gates(session)

    def _apply_gates(self, session: pytest.Session) -> None:
        """With a gate configured, the gates decide the session: a failed gate fails it, and passed gates
        keep case failures (already shown) from failing it, as a pass-rate threshold does. Any other
        failure (a Python test, a collection error, a crash) still fails the session."""
        if not self.gates:
            return
        if any(not g.ok for g in self.gates):
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
        elif session.exitstatus == pytest.ExitCode.TESTS_FAILED and not self.other_failures:
            failed = sum(not r.get("passed") for r in self.rows.values())
            session.exitstatus = pytest.ExitCode.OK
            self.notes.append(f"gates passed: the {failed} failing case(s) above do not fail the session")

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.rows and not self.skipped and not self.bad_files:
            return
        tw = terminalreporter._tw
        encoding = getattr(getattr(tw, "_file", None), "encoding", None) or sys.stdout.encoding or ""
        terminalreporter.write_sep("=", "auditflow report")
        terminalreporter.write(render_report(
            sorted_rows(self.rows.values()), width=tw.fullwidth, ascii_only="utf" not in encoding.lower(),
            settings_line=self._settings_line(), gates=self.gates, slowest=self.state.settings.slowest,
            notes=[*self.notes, *bad_files_lines(self.bad_files)], skipped=skipped_line(self.skipped)))

    def _write_html(self, rows: list[dict[str, Any]]) -> str:
        """The self-contained HTML report (--auditflow-html); returns the note to print."""
        from auditflow.html.payload import plugin_entries
        from auditflow.html.render import write_html
        from auditflow.html.suite_page import render_suite

        path = self.state.settings.html_path
        run = self.state.settings.run
        text = render_suite(plugin_entries(rows), title=f"AuditFlow: {len(rows)} case(s)", configs=[run.config],
                            settings={**self._settings_json(), "skipped cases": len(getattr(self, "skipped", ()) or ()) or None,
                                      "live model calls": live_summary(rows)})  # None (not shown) on a replay
        write_html(path, text)
        return f"HTML report written to {path}"

    def _settings_json(self) -> dict[str, Any]:
        run = self.state.settings.run
        prof = run.profile()
        return {"model": run.model, "config": run.config, "record_mode": run.record_mode,
                "judge_model": run.judge_model, "prompt_profile": f"{prof.name} ({prof.sha256[:12]})",
                "shuffle": run.shuffle}

    def _settings_line(self) -> str:
        run = self.state.settings.run
        judge = f", LLM judge {run.judge_model}" if run.judge_model else ""
        skipped = f" ({len(self.skipped)} skipped)" if self.skipped else ""
        bad = sum(r.get("label") == INPUT for r in self.rows.values())
        inputs = f" ({bad} more with an input error)" if bad else ""
        prof = run.profile()
        shuffle = f", shuffle {run.shuffle}" if run.shuffle is not None else ""
        return (f"AuditFlow: {len(self.rows) - bad} case(s) run{inputs}{skipped}, model {run.model} ({model_note(run)}), "
                f"config {run.config}, prompts {prof.name} ({prof.sha256[:12]}){shuffle}, record mode {run.record_mode}{judge}")

    def _gates(self, rows: list[dict[str, Any]]) -> list[GateResult]:
        s = self.state.settings
        out = []
        if s.min_joint_acc is not None:
            out.append(min_joint_acc_gate(tally(rows)[1], s.min_joint_acc))
        if self.baseline is not None:
            out.append(baseline_gate(rows, self.baseline, s.max_drop, alpha=self._alpha(rows)))
        return out

    def _alpha(self, rows: list[dict[str, Any]]) -> float | None:
        """The significance level of the baseline gate: the one given, else the default when this run has
        noise to tell from a regression (repeats, or calls that reached a model); a replay of single runs
        answers the same every time, so there a drop beyond max-drop fails on its own."""
        s = self.state.settings
        if s.alpha is not None:
            return s.alpha
        noisy = s.repeats > 1 or any(r.get("llm_calls") for r in rows)
        return DEFAULT_ALPHA if noisy else None

    def _update_expected(self, rows: list[dict[str, Any]]) -> str:
        """Rewrite ``expect:`` of every case that ran and did not pass; returns the note to print."""
        by_file: dict[Path, dict[int, dict[str, Any]]] = defaultdict(dict)
        for r in rows:
            if r.get("passed") or not r.get("actual"):
                continue
            actual = json.loads(r["actual"])
            by_file[Path(actual["path"])][actual["index"]] = expect_from_actual(actual, actual["expected_tools"])
        count = sum(rewrite_expectations(path, updates) for path, updates in sorted(by_file.items()))
        files = ", ".join(self.state.display_path(p) for p in sorted(by_file)) or "none"
        return f"--auditflow-update-expected: rewrote expect: of {count} case(s) in {len(by_file)} file(s): {files}"


def repeats_lines(rows: list[dict[str, Any]]) -> list[str]:
    """With ``--auditflow-repeats K``: the mean pass rate, pass^K (the share of cases that passed all K
    runs), and each case that did not pass every time with its rate; nothing in a plain run."""
    rep = [r for r in rows if r.get("repeats")]
    if not rep:
        return []
    k = max(int(r["repeats"]) for r in rep)
    mean = sum(float(r["pass_rate"]) for r in rep) / len(rep)
    all_k = sum(bool(r.get("pass_all")) for r in rep)
    lines = [f"repeats {k}: pass rate {100 * mean:.1f}% (mean per case), pass^{k} {100 * all_k / len(rep):.1f}% "
             f"({all_k}/{len(rep)} case(s) passed all {k} runs)"]
    lines += [f"  {r['nodeid']}: passed {r['repeats_passed']}/{r['repeats']} ({r['repeat_labels']})"
              for r in rep if not r.get("pass_all")]
    return lines


def endpoint_line(rows: list[dict[str, Any]]) -> str | None:
    """One line when the model endpoint failed under some cases (a server killed mid-run): how many, the
    first error (it names the endpoint), and how to finish the recording; None otherwise."""
    failed = [r for r in rows if r.get("error_kind") == "model"]
    if not failed:
        return None
    first = " ".join(str(failed[0].get("error") or "").split())
    return (f"the model endpoint failed under {len(failed)} case(s), which ended without an answer (S): {first[:300]}. "
            f"When it answers again, rerun with --auditflow-record-mode once: what was recorded replays and only "
            f"the missing calls are made")


def live_summary(rows: list[dict[str, Any]]) -> str | None:
    """The live model calls of the run, mean per case, and their cost when prices were given; None when
    every call was replayed (so a replay's report is unchanged)."""
    live = [r for r in rows if r.get("llm_calls")]
    if not live:
        return None
    n = len(rows)
    mean = lambda k: sum(float(r.get(k) or 0) for r in rows) / n  # noqa: E731 - a replayed case counts 0
    costs = [r["llm_cost"] for r in rows if r.get("llm_cost") is not None]
    cost = f", cost {sum(costs):.4f} ({sum(costs) / n:.4f} per case)" if costs else ""
    total = sum(int(r["llm_calls"]) for r in live)
    return (f"live model calls: {total} in {len(live)} case(s); per case {mean('llm_calls'):.1f} calls, "
            f"{mean('llm_prompt_tokens'):.0f} prompt + {mean('llm_completion_tokens'):.0f} completion tokens, "
            f"{mean('llm_seconds'):.1f}s in the model{cost}")


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return text.removeprefix("Skipped: ")


def bad_files_lines(files: set[str]) -> list[str]:
    """One line naming the case files that could not be used (their errors are shown above), or none."""
    if not files:
        return []
    return [f"{len(files)} case file(s) could not be used, their cases did not run (see the failures above): "
            + ", ".join(sorted(files))]


def skipped_line(skipped: dict[str, str]) -> str | None:
    """One line: how many cases were skipped and why (reasons by frequency), or None."""
    if not skipped:
        return None
    counts: dict[str, int] = defaultdict(int)
    for reason in skipped.values():
        counts[reason] += 1
    reasons = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if len(reasons) == 1:
        return f"skipped {len(skipped)} case(s): {reasons[0][0]}"
    return f"skipped {len(skipped)} case(s): " + "; ".join(f"{n} {why}" for why, n in reasons)


def _public(row: dict[str, Any]) -> dict[str, Any]:
    """A row for the results file (without the update-only ``actual`` payload and the cache keys)."""
    return {k: v for k, v in row.items() if k not in ("actual", "cache_keys", "html")}
