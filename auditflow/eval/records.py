"""One case's result under one configuration, split into what reproduces and what does not.

:class:`CaseRecord` is everything the reports are computed from: label, verdict, values, credibility,
rounds, tool calls, and why a case could not run. It holds no wall-clock time, cache counter or
absolute path, so two runs on the same cache give equal records (error messages name the cache
folder, the data root and the checkout; :class:`Redactor` replaces them with placeholders).
:class:`CaseTiming` keeps the seconds and cache counts of the run, which differ on every run.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from auditflow.eval.causes import NOT_RUN, cause_of
from auditflow.rules.finding import dec_str

if TYPE_CHECKING:
    from auditflow.cases.runner import CaseOutcome

CACHE_MISS, INPUT, CRASH = "cache_miss", "input", "crash"


@dataclass(frozen=True)
class Redactor:
    """Replaces machine-specific folders in messages by stable names (longest folder first)."""

    replacements: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, **folders: Any) -> Redactor:
        """``Redactor.of(cache_dir=p, data_root=q, rootdir=r)``: ``p`` -> ``<cache_dir>`` etc.; None skipped."""
        pairs = [(str(path), f"<{name}>") for name, path in folders.items() if path]
        return cls(tuple(sorted(pairs, key=lambda p: -len(p[0]))))

    def __call__(self, text: str) -> str:
        for folder, name in self.replacements:
            text = text.replace(folder, name)
        return text


@dataclass(frozen=True, slots=True)
class CaseRecord:
    """The reproducible result of one case under one configuration (see the module docstring)."""

    key: str
    rule: str
    expected_decision: str
    label: str
    verdict_right: bool
    passed: bool
    decision: str | None = None
    triggered_rules: tuple[str, ...] = ()
    reported_value: str | None = None
    expected_value: str | None = None
    credibility: float | None = None
    rounds: int | None = None
    tool_calls: int | None = None
    invalid_output: bool = False
    mismatches: tuple[str, ...] = ()  # the stated fields the answer got wrong
    cause: str | None = None  # why the case is not A (auditflow.eval.causes); None for A
    error_kind: str | None = None  # cache_miss | input | crash
    error: str | None = None

    @property
    def has_result(self) -> bool:
        return self.decision is not None

    def row(self) -> dict[str, Any]:
        """The row :func:`auditflow.cases.labels.tally` counts."""
        return {"rule": self.rule, "label": self.label, "verdict_right": self.verdict_right, "passed": self.passed}

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["triggered_rules"] = list(self.triggered_rules)
        out["mismatches"] = list(self.mismatches)
        return out


@dataclass(frozen=True, slots=True)
class CaseTiming:
    """A run's bookkeeping of one case, kept out of the reproducible records: wall-clock seconds, LLM
    cache counts, and the cache keys the run used (what ``--used-keys`` writes)."""

    config: str
    key: str
    seconds: float
    cache: dict[str, int] = field(default_factory=dict)
    cache_keys: tuple[str, ...] = ()  # the LLM cache entries the run read or wrote (what a prune keeps)
    live: dict[str, Any] | None = None  # calls that reached the model: calls, tokens, seconds (None on replay)


def record_of(key: str, outcome: CaseOutcome, redact: Redactor) -> CaseRecord:
    """The record of a case that ran (possibly into a cache miss or an input error)."""
    case, r, j = outcome.case, outcome.result, outcome.judgement
    base = dict(key=key, rule=case.rule, expected_decision=case.expect.decision, label=j.label,
                verdict_right=j.verdict_right, passed=outcome.passed)
    if outcome.input_error:  # the case's own inputs are wrong: no label, no cause, in no rate (labels.INPUT)
        return CaseRecord(**base, error_kind=INPUT, error=redact(outcome.error or "input error"))
    if outcome.error is not None or r is None:
        return CaseRecord(**base, invalid_output=True, cause=NOT_RUN, error_kind=outcome.error_kind,
                          error=redact(outcome.error or "no audit result"))
    return CaseRecord(
        **base, decision=r.decision, triggered_rules=tuple(r.triggered_rules),
        reported_value=dec_str(r.reported_value), expected_value=dec_str(r.expected_value),
        credibility=r.credibility, rounds=r.rounds, tool_calls=sum(t.tool_calls for t in r.transcripts),
        invalid_output=bool(r.invalid_output or r.structural_failure),
        mismatches=tuple(m.field for m in j.mismatches), cause=cause_of(case.expect, r, j))


def crash_record(key: str, rule: str, expected_decision: str, exc: BaseException, redact: Redactor) -> CaseRecord:
    """The record of a case whose run raised (a bug): labelled S, so the table still counts it."""
    return CaseRecord(key, rule, expected_decision, "S", False, False, invalid_output=True, cause=NOT_RUN,
                      error_kind=CRASH, error=redact(f"{type(exc).__name__}: {exc}"))
