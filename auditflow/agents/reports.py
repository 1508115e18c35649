"""What the auditors hand in and what an audit run leaves behind.

Junior reports, Senior reviews, agent transcripts and the final :class:`AuditResult` are frozen
dataclasses whose ``to_json`` is deterministic (sorted keys, amounts as plain decimal strings via
``dec_str``, floats rounded to 6 decimals): a warm-cache replay must produce a byte-identical
artifact, so wall-clock timings live in a separate field that comparisons leave out.

LLM agents finish by calling a final-report tool whose arguments follow :data:`JUNIOR_REPORT_SCHEMA`;
:func:`parse_junior_report` is the one gate from that untrusted JSON to a :class:`JuniorReport`, and
its :class:`InvalidReportError` is what marks an invalid output.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, fields
from decimal import Decimal
from typing import Any, Iterable, Mapping, Sequence

from auditflow.agents.fusion import FusionInput, FusionResult
from auditflow.contract import (
    CONFLICT_SOURCES, DECISIONS, FACT_CONFLICTS, FACT_HANDLE_PATTERN, RULE_CODE_PATTERN, STEP_KINDS, ConflictSource,
    REPORT_FIELDS, Decision, InvalidReportError, StepKind, is_rule_code, normalise_number, plain_json, rounded,
)

JUNIOR_REPORT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "decision": {"type": "string", "enum": list(DECISIONS)},
        "triggered_rules": {"type": "array", "items": {"type": "string", "pattern": RULE_CODE_PATTERN},
                            "description": "full DQC message codes, empty unless the decision is violation"},
        "reported_value": {"type": ["string", "null"], "description": "the value as filed, e.g. \"-1234.5\""},
        "expected_value": {"type": ["string", "null"], "description": "the value the rule expects"},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        # handles only: a sentence cannot be traced to a step of the evidence path. A prompt profile
        # may cap the list and the rationale (PromptProfile.report_schema): a small model otherwise
        # fills them at ~15 tokens a second on two cores.
        "evidence": {"type": "array", "items": {"type": "string", "pattern": FACT_HANDLE_PATTERN},
                     "description": "handles of the facts the decision rests on, e.g. F1"},
        "rationale": {"type": "string"},
    },
    "required": ["decision", "triggered_rules", "reported_value", "expected_value", "confidence", "evidence"],
    "additionalProperties": False,
}

# The contract names the report's fields; the schema the model is held to lists exactly those.
assert tuple(JUNIOR_REPORT_SCHEMA["properties"]) == REPORT_FIELDS, "auditflow.contract.REPORT_FIELDS"


__all__ = [
    "JUNIOR_REPORT_SCHEMA", "EvidenceStep", "ToolCall", "TranscriptStep", "AgentTranscript", "JuniorReport",
    "SeniorReview", "Arbitration", "AuditResult", "parse_junior_report", "fusion_input",
]


# Evidence, tool calls, transcripts

def _fields_json(obj: Any, *, exclude: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Every dataclass field through :func:`plain_json`: one serialiser, so no class can drift."""
    return plain_json({f.name: getattr(obj, f.name) for f in fields(obj) if f.name not in exclude})


def _known(cls: type, obj: Mapping[str, Any], **nested: Any) -> Any:
    """``cls`` from its JSON: known keys only (derived keys such as "interval" are dropped);
    ``nested`` maps a field name to the converter of its JSON value."""
    kw = {f.name: obj[f.name] for f in fields(cls) if f.name in obj}
    kw.update({name: conv(kw[name]) for name, conv in nested.items() if kw.get(name) is not None})
    return cls(**kw)


def _many(cls: type) -> Any:
    return lambda items: tuple(cls.from_json(x) for x in items)


@dataclass(frozen=True, slots=True)
class EvidenceStep:
    """One step of an evidence path: a tool call, what it showed, and the fact handles it produced."""

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict, hash=False)
    summary: str = ""
    facts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "arguments", plain_json(dict(self.arguments)))
        object.__setattr__(self, "facts", tuple(self.facts))

    def to_json(self) -> dict[str, Any]:
        return _fields_json(self)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> EvidenceStep:
        return _known(cls, obj)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call as the environment saw it. Arguments and result (the structured observation) are
    stored as plain JSON: a snapshot that cannot change later, and exact on a round trip."""

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict, hash=False)
    result: Any = field(default=None, hash=False)
    error: str | None = None
    call_id: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "arguments", plain_json(dict(self.arguments)))
        object.__setattr__(self, "result", plain_json(self.result))

    def to_json(self) -> dict[str, Any]:
        return _fields_json(self)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> ToolCall:
        return _known(cls, obj)


@dataclass(frozen=True, slots=True)
class TranscriptStep:
    """One entry of an agent's transcript: a message, a tool call, a (refused or invalid) final, feedback."""

    kind: StepKind
    content: str = ""
    tool_call: ToolCall | None = None

    def __post_init__(self) -> None:
        if self.kind not in STEP_KINDS:
            raise ValueError(f"transcript step kind must be one of {', '.join(STEP_KINDS)}, got {self.kind!r}")

    def to_json(self) -> dict[str, Any]:
        return _fields_json(self)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> TranscriptStep:
        return _known(cls, obj, tool_call=ToolCall.from_json)


@dataclass(frozen=True, slots=True)
class AgentTranscript:
    """Everything one agent did, round by round, with the counts the metrics need."""

    role: str
    rounds: tuple[tuple[TranscriptStep, ...], ...] = ()
    tool_calls: int = 0
    invalid_outputs: int = 0
    refused_finals: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "rounds", tuple(tuple(r) for r in self.rounds))

    @classmethod
    def from_rounds(cls, role: str, rounds: Iterable[Iterable[TranscriptStep]]) -> AgentTranscript:
        """A transcript whose counts are taken from its steps, so they cannot drift from them."""
        rs = tuple(tuple(r) for r in rounds)
        kinds = [s.kind for r in rs for s in r]
        return cls(role, rs, kinds.count("tool_call"), kinds.count("invalid_output"), kinds.count("refused_final"))

    @property
    def tools_run(self) -> frozenset[str]:
        """Tools that were called and answered without an error (what required-tool gating counts)."""
        return frozenset(s.tool_call.tool for r in self.rounds for s in r
                         if s.kind == "tool_call" and s.tool_call is not None and s.tool_call.error is None)

    def to_json(self) -> dict[str, Any]:
        return _fields_json(self)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> AgentTranscript:
        return _known(cls, obj, rounds=lambda rs: tuple(_many(TranscriptStep)(r) for r in rs))


# Reports and reviews

@dataclass(frozen=True, slots=True)
class JuniorReport:
    """A junior auditor's final answer. Rule codes are kept sorted and unique: they are a set."""

    role: str
    decision: Decision
    triggered_rules: tuple[str, ...]
    reported_value: Decimal | None
    expected_value: Decimal | None
    confidence: float
    evidence_path: tuple[EvidenceStep, ...] = ()
    rationale: str = ""

    def __post_init__(self) -> None:
        bad = [] if self.decision in DECISIONS else [
            f"decision must be one of {', '.join(DECISIONS)}, got {self.decision!r}"]
        c = self.confidence
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0.0 <= c <= 1.0:
            bad.append(f"confidence must be a number between 0 and 1, got {c!r}")
        if bad:
            raise InvalidReportError(bad, role=self.role)
        object.__setattr__(self, "triggered_rules", tuple(sorted(set(self.triggered_rules))))
        object.__setattr__(self, "reported_value", normalise_number(self.reported_value))
        object.__setattr__(self, "expected_value", normalise_number(self.expected_value))
        object.__setattr__(self, "confidence", rounded(c))
        object.__setattr__(self, "evidence_path", tuple(self.evidence_path))

    @property
    def tools_used(self) -> frozenset[str]:
        return frozenset(s.tool for s in self.evidence_path)

    def to_json(self) -> dict[str, Any]:
        return _fields_json(self)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> JuniorReport:
        return _known(cls, obj, evidence_path=_many(EvidenceStep))


@dataclass(frozen=True, slots=True)
class SeniorReview:
    """The Senior's verdict on one round: accept the consensus, or name the conflict and give feedback."""

    round: int
    accepted: bool
    conflict_source: ConflictSource | None = None
    feedback: dict[str, str] = field(default_factory=dict, hash=False)  # role -> targeted feedback
    reason: str = ""  # why the Senior accepted or which difference it saw
    # True only when the auditors' checkers examined two different facts. A fact-conflict source can also
    # be the Senior's guess from two reports' values ("likely a different period") about one fact, or
    # about a fact one auditor never examined; that is a disagreement, not two facts. Left out of the
    # JSON when False, so the artifacts of every other review keep their bytes.
    different_facts: bool = False

    def __post_init__(self) -> None:
        if self.conflict_source is not None and self.conflict_source not in CONFLICT_SOURCES:
            raise ValueError(f"conflict_source must be one of {', '.join(CONFLICT_SOURCES)} or None, "
                             f"got {self.conflict_source!r}")
        if self.different_facts and self.conflict_source not in FACT_CONFLICTS:
            raise ValueError(f"two different facts differ in concept, period or members, not {self.conflict_source!r}")
        object.__setattr__(self, "feedback", dict(self.feedback))

    @property
    def names_different_facts(self) -> bool:
        """Whether this review sent the auditors back because their checkers examined different facts."""
        return not self.accepted and self.different_facts

    def to_json(self) -> dict[str, Any]:
        return _fields_json(self, exclude=frozenset() if self.different_facts else frozenset({"different_facts"}))

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> SeniorReview:
        return _known(cls, obj)


@dataclass(frozen=True, slots=True)
class Arbitration:
    """The Senior's choice between the two facts its auditors still disputed when the rounds ran out.

    ``offered``: the facts as the Senior read them, in the order offered (their words, as find_facts
    lists a fact); ``facts``: the same facts as a reader names them (concept, period, dimensions,
    value, like ``AuditResult.fact``); ``chosen``: the index of the fact chosen, or None when the
    answer named neither (``answer`` keeps what came back, so an invalid answer is recorded, never
    guessed at).
    """

    offered: tuple[str, ...]
    facts: tuple[dict[str, Any], ...]
    chosen: int | None
    answer: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "offered", tuple(self.offered))
        object.__setattr__(self, "facts", tuple(plain_json(dict(f)) for f in self.facts))
        if self.chosen is not None and not 0 <= self.chosen < len(self.facts):
            raise ValueError(f"chosen must index one of the {len(self.facts)} facts, got {self.chosen}")

    @property
    def chosen_fact(self) -> dict[str, Any] | None:
        return self.facts[self.chosen] if self.chosen is not None else None

    def to_json(self) -> dict[str, Any]:
        return _fields_json(self)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Arbitration:
        return _known(cls, obj)


# The artifact

_SCORES = ("credibility", "conflict", "bel", "pl", "betp")


@dataclass(frozen=True, slots=True)
class AuditResult:
    """One audit run's artifact.

    ``query`` is stored as ``AuditQuery.to_json()`` (an AuditQuery passed in is converted), so the
    artifact keeps its shape when the query class grows. Scores and the fusion trail are rounded to 6
    decimals on construction, so ``from_json(r.to_json()) == r``. ``timings`` (wall clock) take no
    part in equality, ``to_json()`` or ``canonical_json()``: they differ on every run.
    """

    query: dict[str, Any] = field(hash=False)
    config: str
    decision: Decision
    triggered_rules: tuple[str, ...]
    reported_value: Decimal | None
    expected_value: Decimal | None
    evidence_path: tuple[EvidenceStep, ...]
    credibility: float
    conflict: float
    bel: float
    pl: float
    betp: float
    rounds: int
    reports: tuple[JuniorReport, ...] = ()
    reviews: tuple[SeniorReview, ...] = ()
    transcripts: tuple[AgentTranscript, ...] = ()
    invalid_output: bool = False
    structural_failure: bool = False
    fusion: FusionResult | None = field(default=None, hash=False)
    # the fact the final values are about: concept, period, dimensions, value (None: no auditor's checker
    # examined one; in a configuration without checkers, the fact the chosen report's author was handed or
    # named last); with a question the auditors had to find it, so a case can tell a wrong pick (E)
    fact: dict[str, Any] | None = field(default=None, hash=False)
    profile: dict[str, str] = field(default_factory=dict, hash=False)  # the prompt profile's name, sha256, source
    shuffle: int | None = None  # the seed observations were permuted with (None: tool order)
    # the Senior's choice when the auditors still checked different facts after the last round; left out
    # of the JSON when there was none, so the artifacts of every other audit keep their bytes
    arbitration: Arbitration | None = field(default=None, hash=False)
    timings: dict[str, float] = field(default_factory=dict, hash=False, compare=False)

    def __post_init__(self) -> None:
        if self.decision not in DECISIONS:
            raise ValueError(f"decision must be one of {', '.join(DECISIONS)}, got {self.decision!r}")
        query = self.query.to_json() if hasattr(self.query, "to_json") else self.query
        object.__setattr__(self, "query", plain_json(query))
        object.__setattr__(self, "triggered_rules", tuple(sorted(set(self.triggered_rules))))
        object.__setattr__(self, "reported_value", normalise_number(self.reported_value))
        object.__setattr__(self, "expected_value", normalise_number(self.expected_value))
        for name in ("evidence_path", "reports", "reviews", "transcripts"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        for name in _SCORES:
            object.__setattr__(self, name, rounded(getattr(self, name)))
        if self.fusion is not None:
            object.__setattr__(self, "fusion", FusionResult.from_json(self.fusion.to_json()))
        object.__setattr__(self, "fact", plain_json(dict(self.fact)) if self.fact is not None else None)
        object.__setattr__(self, "profile", plain_json(dict(self.profile)))
        object.__setattr__(self, "timings", dict(self.timings))

    @property
    def interval(self) -> tuple[float, float]:
        """[Bel, Pl] of the decision."""
        return (self.bel, self.pl)

    def to_json(self, *, include_timings: bool = False) -> dict[str, Any]:
        """The artifact as JSON; wall-clock timings only on request."""
        out = _fields_json(self, exclude=frozenset() if include_timings else frozenset({"timings"}))
        if out["arbitration"] is None:
            del out["arbitration"]
        out["interval"] = list(self.interval)
        return out

    def canonical_json(self) -> str:
        """The byte-stable form used to compare runs: sorted keys, fixed separators, no timings."""
        return json.dumps(self.to_json(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> AuditResult:
        return _known(cls, obj, evidence_path=_many(EvidenceStep), reports=_many(JuniorReport),
                      reviews=_many(SeniorReview), transcripts=_many(AgentTranscript),
                      fusion=FusionResult.from_json, arbitration=Arbitration.from_json)


# Parsing an LLM's final report

def _parse_decision(obj: Mapping[str, Any], problems: list[str]) -> str | None:
    if "decision" not in obj:
        return None
    raw = obj["decision"]
    value = re.sub(r"[\s-]+", "_", raw.strip().lower()) if isinstance(raw, str) else raw
    if value not in DECISIONS:
        problems.append(f"decision must be one of {', '.join(DECISIONS)}, got {raw!r}")
        return None
    return value


def _parse_rules(obj: Mapping[str, Any], decision: str | None, problems: list[str]) -> tuple[str, ...]:
    raw = obj.get("triggered_rules", [])
    if not isinstance(raw, list) or not all(isinstance(r, str) for r in raw):
        problems.append(f"triggered_rules must be a list of rule codes, got {raw!r}")
        return ()
    codes = tuple(sorted({r.strip() for r in raw}))
    bad = [c for c in codes if not is_rule_code(c)]
    if bad:
        problems.append(f"triggered_rules must be full codes as the checkers return them (DQC.US.<rule>.<number>), "
                        f"got {', '.join(map(repr, bad))}")
    if decision == "violation" and not codes:
        problems.append("decision is violation but triggered_rules is empty; name the rule code(s) that fired")
    if decision == "consistent" and codes:
        problems.append("decision is consistent but triggered_rules is not empty; a consistent fact triggers no rule")
    return codes


def _parse_value(obj: Mapping[str, Any], key: str, problems: list[str]) -> Decimal | None:
    try:
        return normalise_number(obj.get(key))
    except InvalidReportError as exc:
        problems.append(f"{key}: {exc.problems[0]}")
        return None


def _parse_confidence(obj: Mapping[str, Any], problems: list[str]) -> float:
    if "confidence" not in obj:
        return 0.0
    raw = obj["confidence"]
    value = float(raw) if isinstance(raw, str) and re.fullmatch(r"\s*(\d+(\.\d*)?|\.\d+)\s*", raw) else raw
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        problems.append(f"confidence must be a number between 0 and 1, got {raw!r}")
        return 0.0
    return float(value)


def _parse_handles(obj: Mapping[str, Any], problems: list[str]) -> tuple[str, ...]:
    raw = obj.get("evidence", [])
    if not isinstance(raw, list) or not all(isinstance(h, str) and h.strip() for h in raw):
        problems.append(f"evidence must be a list of fact handles (non-empty strings), got {raw!r}")
        return ()
    return tuple(dict.fromkeys(h.strip() for h in raw))


def _evidence_path(handles: tuple[str, ...], steps: Sequence[EvidenceStep]) -> tuple[EvidenceStep, ...]:
    """The steps that produced a cited handle, in call order, then the citation itself.

    A handle that no step produced stays visible in the final "final_report" step, so an ungrounded
    citation can be spotted in the artifact.
    """
    cited = set(handles)
    path = [s for s in steps if cited.intersection(s.facts)]
    if handles:
        path.append(EvidenceStep("final_report", {}, "handles cited by the final report", handles))
    return tuple(path)


def parse_junior_report(obj: Any, role: str, *, steps: Sequence[EvidenceStep] = ()) -> JuniorReport:
    """Validate an LLM's final-report arguments and build a :class:`JuniorReport`.

    Accepts what :data:`JUNIOR_REPORT_SCHEMA` accepts, plus amounts as numbers or display strings
    ("(1,234)", "$1,234") and a decision in any case or spacing. Every problem is collected, so the
    model sees them all at once. ``steps`` are the agent's tool steps, used to build the evidence path.
    """
    if not isinstance(obj, Mapping):
        raise InvalidReportError([f"the final report must be a JSON object, got {type(obj).__name__}"], role=role)
    props = JUNIOR_REPORT_SCHEMA["properties"]
    problems = [f"unknown field {k!r}" for k in sorted(map(str, obj)) if k not in props]
    problems += [f"missing field {k!r}" for k in JUNIOR_REPORT_SCHEMA["required"] if k not in obj]
    decision = _parse_decision(obj, problems)
    rules = _parse_rules(obj, decision, problems)
    reported = _parse_value(obj, "reported_value", problems)
    expected = _parse_value(obj, "expected_value", problems)
    confidence = _parse_confidence(obj, problems)
    handles = _parse_handles(obj, problems)
    rationale = obj.get("rationale", "")
    if not isinstance(rationale, str):
        problems.append(f"rationale must be a string, got {type(rationale).__name__}")
    if problems:
        raise InvalidReportError(problems, role=role)
    return JuniorReport(role, decision, rules, reported, expected, confidence,  # type: ignore[arg-type]
                        _evidence_path(handles, steps), rationale)


def fusion_input(report: JuniorReport, *, required_tools: Iterable[str] = (),
                 tools_run: Iterable[str] | None = None, completeness: float = 1.0,
                 grounded: bool = True) -> FusionInput:
    """What fusion needs from a report. ``tools_run`` defaults to the tools on its evidence path; pass
    ``AgentTranscript.tools_run`` to count every tool the agent actually ran. ``grounded``: whether the
    report says what its author's own checkers returned (:func:`auditflow.agents.senior.grounded`)."""
    ran = frozenset(tools_run) if tools_run is not None else report.tools_used
    skipped = tuple(sorted(set(required_tools) - ran))
    return FusionInput(report.role, report.decision, report.confidence, completeness, skipped, not grounded)
