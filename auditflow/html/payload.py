"""What the HTML report needs of one case run, as plain JSON.

The plugin's controller only sees what each item sends it (``user_properties``, forwarded by xdist), so
an item that runs with ``--auditflow-html`` adds one property holding this payload as a JSON string:
the case (query, tags, injections, expectations), the judgement's mismatches and the whole
:class:`~auditflow.agents.reports.AuditResult` (``to_json()``, which leaves out the timings).
``auditflow eval --html`` builds the same payload from the outcome in process.
"""
from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from auditflow.rules.finding import dec_str

if TYPE_CHECKING:
    from auditflow.cases.model import AuditCase
    from auditflow.cases.runner import CaseOutcome

FORMAT = 1


def case_info(case: AuditCase) -> dict[str, Any]:
    """The case as the report shows it (never the absolute path of its file)."""
    q = case.query
    return {
        "id": case.id, "description": case.description, "tags": list(case.tags), "rule": case.rule,
        "filing": case.filing, "line": case.line,
        "query": {"concept": q.concept, "period": q.period, "dimensions": {a: m for a, m in q.dimensions},
                  "rule_hint": q.rule_hint, "form": getattr(q, "form", "structured"), "text": getattr(q, "text", None)},
        "inject": [str(i) for i in case.inject],
    }


def case_payload(case: AuditCase, outcome: CaseOutcome | None) -> dict[str, Any]:
    """The report's data for one case run; ``outcome`` None when the run raised."""
    out: dict[str, Any] = {"format": FORMAT, "case": case_info(case), "expect": case.expect.as_display(),
                           "actual": None, "mismatches": [], "result": None}
    if outcome is None:
        return out
    r = outcome.result
    out["mismatches"] = [{"field": m.field, "expected": m.expected, "actual": m.actual}
                         for m in outcome.judgement.mismatches]
    if r is not None:
        out["actual"] = {"decision": r.decision, "triggered_rules": list(r.triggered_rules),
                         "reported_value": dec_str(r.reported_value), "expected_value": dec_str(r.expected_value),
                         "tools_called": sorted(outcome.tools), "fact": getattr(r, "fact", None)}
        out["result"] = r.to_json()
    return out


def dumps(payload: dict[str, Any]) -> str:
    """The payload as one JSON string (a ``user_properties`` value): sorted keys, so it is stable."""
    return json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


# -- entries: one case under one configuration, as the suite report reads them --------------------

def plugin_entries(rows: Iterable[Mapping[str, Any]], field: str = "html") -> list[dict[str, Any]]:
    """The plugin's rows (sorted by node id) with their payload (the ``field`` property) decoded."""
    out = []
    for row in rows:
        raw = row.get(field)
        entry = {k: v for k, v in row.items() if k != field}
        entry.update(key=row.get("nodeid", ""), payload=json.loads(raw) if isinstance(raw, str) and raw else None)
        out.append(entry)
    return out


class PayloadCollector:
    """Runs cases for ``auditflow eval`` (its ``run_one``) and keeps each run's payload.

    Keyed by the row's settings and the case (file, position): what :func:`auditflow.eval.runner.run_eval`
    hands ``run_one``. The whole settings, not just model and protocol: rows such as ``full`` and
    ``full+shuffle=1`` share both and must not show each other's evidence. ``redact`` replaces machine
    folders in error texts, as eval's records do.
    """

    def __init__(self, redact: Callable[[str], str] = lambda s: s, run: Callable[..., Any] | None = None) -> None:
        self.redact = redact
        self.run = run
        self.payloads: dict[tuple[Any, str, int], dict[str, Any]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _key(settings: Any, case: AuditCase) -> tuple[Any, str, int]:
        return (settings, str(case.file), case.index)

    def __call__(self, case: AuditCase, settings: Any) -> CaseOutcome:
        if self.run is None:
            from auditflow.cases.runner import run_case

            self.run = run_case
        outcome = self.run(case, settings)
        payload = case_payload(case, outcome)
        for m in payload["mismatches"]:
            m["actual"] = self.redact(m["actual"])
        with self._lock:
            self.payloads[self._key(settings, case)] = payload
        return outcome

    def get(self, settings: Any, case: AuditCase) -> dict[str, Any] | None:
        """The payload of ``case`` run with ``settings`` (a row's, :attr:`EvalRun.settings`), if kept."""
        return self.payloads.get(self._key(settings, case))


def eval_entries(report: Any, run: Any, cases: Iterable[Any], collector: PayloadCollector | None) -> list[dict[str, Any]]:
    """Entries of an :class:`auditflow.eval.report.EvalReport`: every configuration's records in
    report order, with cache counts from the run's timings and the collected payloads."""
    by_key = {kc.key: kc.case for kc in cases}
    cache = {(t.config, t.key): t.cache for t in getattr(run, "timings", ())}
    out = []
    for config in report.configs:
        for rec in report.records[config.name]:
            case = by_key.get(rec.key)
            file, _, case_id = rec.key.rpartition("::")
            counts = cache.get((config.name, rec.key), {})
            out.append({
                "key": rec.key, "config": config.name, "model": config.model, "rule": rec.rule, "label": rec.label,
                "passed": rec.passed, "verdict_right": rec.verdict_right, "case_id": case_id, "file": file,
                "line": case.line if case is not None else "", "expected_decision": rec.expected_decision,
                "decision": rec.decision, "error": rec.error,
                **{f"cache_{k}": v for k, v in counts.items()},
                "payload": (collector.get(run.settings[config.name], case)
                            if collector and case is not None and config.name in run.settings else None),
            })
    return out
