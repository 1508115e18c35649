"""Running one audit case end to end: environment (+ inject), the protocol, the label.

This is what a pytest item calls, kept free of pytest so the same run can be scripted. Two kinds of
problems become an outcome with ``error`` set; anything else is a bug and propagates with its traceback:

* an input error of the case (an :class:`~auditflow.errors.AuditflowError` before the model answers:
  a concept, period or member the filing does not have, raised with its close matches by the same
  check as ``auditflow audit``, a missing filing, a bad ``inject:`` selector): the case's fault, not
  the model's, so it gets :data:`~auditflow.cases.labels.INPUT` instead of a label and is left out
  of Joint ACC and every rate (docs/metrics.md);
* an LLM cache miss in replay mode: labelled S, so the suite report still counts the case.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from auditflow.agents.audit import run_audit
from auditflow.agents.reports import AuditResult
from auditflow.cases.filings import case_environment
from auditflow.cases.labels import INPUT, Judgement, Mismatch, judge, tools_called
from auditflow.cases.model import AuditCase
from auditflow.cases.models import (is_cache_miss, is_model_error, make_judge, make_models, new_stats,
                                   stats_counts, used_keys)
from auditflow.cases.settings import RunSettings
from auditflow.errors import AuditflowError

MakeModels = Callable[..., Any]  # (spec, *, cache_dir, record_mode, case_id, stats) -> role -> model


@dataclass
class CaseOutcome:
    """What one case run produced: the audit result (if any), its judgement, cache counts, timings."""

    case: AuditCase
    result: AuditResult | None
    judgement: Judgement
    error: str | None = None
    error_kind: str | None = None  # "cache_miss" or "model" (labelled S) | "input" (not scored: INPUT)
    cache: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    judge_label: str | None = None
    tools: frozenset[str] = frozenset()
    cache_keys: tuple[str, ...] = ()  # the LLM cache entries the run read or wrote (what a prune keeps)
    live: dict[str, Any] | None = None  # calls that reached the model: calls, tokens, seconds (None on replay)

    @property
    def passed(self) -> bool:
        return self.error is None and self.judgement.passed

    @property
    def input_error(self) -> bool:
        """The case's own inputs are wrong: no model outcome, never scored."""
        return self.error_kind == "input"


def run_case(case: AuditCase, settings: RunSettings, *, make: MakeModels = make_models,
             make_judge_model: MakeModels = make_judge, judge_template: str | None = None) -> CaseOutcome:
    """Run ``case`` with ``settings``; ``make`` builds the auditors' model factory and ``make_judge_model``
    the judge's chat model (see :mod:`auditflow.cases.models`). ``judge_template`` (the FinMR rubric)
    turns on the LLM judge when ``settings.judge_model`` is set.
    """
    t0 = time.perf_counter()
    stats = new_stats()
    try:
        env = case_environment(case, data_root=settings.data_root, rootdir=settings.rootdir)
        models = make(settings.model, cache_dir=settings.cache_dir, record_mode=settings.record_mode,
                      case_id=case.id, stats=stats)
        result = run_audit(env, case.audit_query(), config=settings.config, models=models,
                           data_root=settings.data_root, profile=settings.profile(), shuffle=settings.shuffle,
                           allow_missing=case.expect.not_found)
        judgement = judge(case.expect, result)
        label = _judge_llm(case, result, settings, make_judge_model, judge_template, stats)
    except Exception as exc:  # noqa: BLE001 - only input errors and cache misses become outcomes
        kind = ("cache_miss" if is_cache_miss(exc) else "model" if is_model_error(exc)  # S: the model gave no answer
                else "input" if isinstance(exc, AuditflowError) else None)
        if kind is None:
            raise
        failed = (Judgement(INPUT, False, (Mismatch("input", "a case its filing can answer", f"input error: {exc}"),))
                  if kind == "input" else Judgement("S", False, (Mismatch("output", "an audit result", f"error: {exc}"),)))
        return CaseOutcome(case, None, failed, str(exc), kind, stats_counts(stats), time.perf_counter() - t0,
                           cache_keys=used_keys(stats), live=_live(stats))
    return CaseOutcome(case, result, judgement, cache=stats_counts(stats), seconds=time.perf_counter() - t0,
                       judge_label=label, tools=tools_called(result), cache_keys=used_keys(stats), live=_live(stats))


def _live(stats: Any) -> dict[str, Any] | None:
    """The case's live calls summed (auditflow.llm.progress), or None when every call was replayed."""
    totals = getattr(stats, "live", None)
    return totals.to_json() if totals is not None and totals.calls else None


def _judge_llm(case: AuditCase, result: AuditResult, settings: RunSettings, make_judge_model: MakeModels,
               template: str | None, stats: Any) -> str | None:
    if not settings.judge_model or template is None:
        return None
    from auditflow.cases.judge_llm import llm_label

    model = make_judge_model(settings.judge_model, cache_dir=settings.cache_dir, record_mode=settings.record_mode,
                             case_id=f"{case.id}#judge", stats=stats)
    return llm_label(model, template, case.expect, result)
