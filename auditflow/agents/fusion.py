"""Evidential fusion of junior audit reports over the frame Θ = {consistent, violation}.

See the design note ``evidential-reasoning.md`` for the theory and the worked example the tests pin.
A report becomes a basic belief assignment (mass on "consistent", on "violation" and on Θ =
ignorance); reports are combined with Dempster's rule, whose conflict mass K measures disagreement.

Choices made here, and why:

* **Numbers are floats, summed with ``math.fsum``.** Masses are beliefs, not money, so Decimal buys
  nothing; ``fsum`` is correctly rounded whatever the order of its terms, which makes
  ``dempster(m1, m2)`` and ``dempster(m2, m1)`` bit-identical. Artifacts round to 6 decimals
  (:func:`rounded`; masses by largest remainder so the three still sum to exactly 1).
* **The checker is authoritative.** A report contradicting a definite checker outcome is discounted
  with ``contradiction_alpha`` (0 by default: it becomes vacuous and carries no weight), and the
  checker enters as a third source with reliability ``checker_reliability`` (0.99: highly reliable,
  yet never a categorical mass that would make K = 1 against a report that kept some weight).
  Finally the decision is pinned to the checker's outcome, so no setting of the alphas lets a
  contradicting report win; the numbers (Bel, credibility) then honestly show how much support it has.
* **Gating is discounting.** A report that skipped rule-required tools is Shafer-discounted with
  ``skipped_tools_alpha`` (0.5): it still counts, but its ignorance grows. Discounts compose
  multiplicatively (discounting by a then b equals discounting by a·b).
* **Two conflicts.** ``conflict`` is K of what was actually fused (it enters credibility =
  Bel(decision)·(1 − K)); ``report_conflict`` is K between the undiscounted reports, the signal for
  escalation. Note that discounting lowers K faster than Bel, so in the doc's skipped-tool example
  Bel·(1 − K) rises (0.655 vs 0.610) while Bel and BetP drop; the tests pin both facts.
* **Total conflict raises.** K = 1 means Dempster's rule is undefined; :class:`TotalConflictError`
  tells the caller to escalate instead of silently normalising (Zadeh's paradox).
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any, Literal, Sequence

from auditflow.contract import DIGITS, rounded
from auditflow.errors import AuditflowError

CONSISTENT = "consistent"
VIOLATION = "violation"
UNABLE = "unable_to_verify"
HYPOTHESES: tuple[str, str] = (CONSISTENT, VIOLATION)
Hypothesis = Literal["consistent", "violation"]

TOLERANCE = 1e-9

DEFAULT_CHECKER_RELIABILITY = 0.99


class FusionError(AuditflowError):
    """Fusion inputs that make no sense: masses not summing to 1, a factor outside [0, 1]."""


class TotalConflictError(FusionError):
    """K = 1: the sources contradict each other categorically; escalate instead of fusing."""


def _unit(name: str, value: float) -> float:
    """A factor that must lie in [0, 1] (confidence, completeness, alpha, weight, reliability)."""
    x = float(value)
    if math.isnan(x) or x < 0.0 or x > 1.0:
        raise FusionError(f"{name} must be a number between 0 and 1, got {value!r}")
    return x


def _hypothesis(h: str) -> str:
    if h not in HYPOTHESES:
        raise FusionError(f"hypothesis must be 'consistent' or 'violation', got {h!r}")
    return h


@dataclass(frozen=True, slots=True)
class Mass:
    """A basic belief assignment on Θ = {C, V}: m(C), m(V) and the ignorance m(Θ); m(∅) = 0."""

    consistent: float = 0.0
    violation: float = 0.0
    ignorance: float = 1.0

    def __post_init__(self) -> None:
        for name in ("consistent", "violation", "ignorance"):
            x = float(getattr(self, name))
            if math.isnan(x) or x < -TOLERANCE:
                raise FusionError(f"mass m({name}) must be non-negative, got {x!r}")
            object.__setattr__(self, name, max(x, 0.0))
        total = math.fsum((self.consistent, self.violation, self.ignorance))
        if abs(total - 1.0) > TOLERANCE:
            raise FusionError(
                f"masses must sum to 1, got {total!r} (C={self.consistent}, V={self.violation}, "
                f"Θ={self.ignorance}); put the remainder on the ignorance mass"
            )

    @classmethod
    def vacuous(cls) -> Mass:
        """Total ignorance: the source says nothing."""
        return cls(0.0, 0.0, 1.0)

    @classmethod
    def categorical(cls, hypothesis: str) -> Mass:
        """All mass on one hypothesis (a certain source)."""
        h = _hypothesis(hypothesis)
        return cls(1.0 if h == CONSISTENT else 0.0, 1.0 if h == VIOLATION else 0.0, 0.0)

    def of(self, hypothesis: str) -> float:
        return self.consistent if _hypothesis(hypothesis) == CONSISTENT else self.violation

    def bel(self, hypothesis: str) -> float:
        """Committed support: the only subset of a singleton is itself."""
        return self.of(hypothesis)

    def pl(self, hypothesis: str) -> float:
        """Support not refuted: 1 − Bel(¬h) = m(h) + m(Θ)."""
        return self.of(hypothesis) + self.ignorance

    def betp(self, hypothesis: str) -> float:
        """Pignistic probability: ignorance spread evenly over the two hypotheses."""
        return self.of(hypothesis) + self.ignorance / 2.0

    @property
    def is_vacuous(self) -> bool:
        return self.ignorance >= 1.0 - TOLERANCE

    def to_json(self) -> dict[str, float]:
        """Six decimals by largest remainder, so the rounded masses still sum to exactly 1."""
        scaled = [x * 10**DIGITS for x in (self.consistent, self.violation, self.ignorance)]
        units = [math.floor(x) for x in scaled]
        by_remainder = sorted(range(3), key=lambda i: (units[i] - scaled[i], i))
        for i in by_remainder[: max(0, 10**DIGITS - sum(units))]:
            units[i] += 1
        c, v, t = (u / 10**DIGITS for u in units)
        return {"consistent": c, "ignorance": t, "violation": v}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Mass:
        return cls(obj["consistent"], obj["violation"], obj["ignorance"])


def discount(m: Mass, alpha: float) -> Mass:
    """Shafer discounting with reliability α: m'(A) = α·m(A) for A ≠ Θ, m'(Θ) = 1 − α + α·m(Θ)."""
    a = _unit("alpha", alpha)
    return Mass(a * m.consistent, a * m.violation, 1.0 - a + a * m.ignorance)


def _conjunctive(masses: Sequence[Mass]) -> tuple[float, float, float, float]:
    """Unnormalised conjunctive combination: (C, V, Θ, K) with K the mass that landed on ∅."""
    c, v, t, lost = 0.0, 0.0, 1.0, []
    for m in masses:
        lost.append(math.fsum((c * m.violation, v * m.consistent)))
        c, v, t = (
            math.fsum((c * m.consistent, c * m.ignorance, t * m.consistent)),
            math.fsum((v * m.violation, v * m.ignorance, t * m.violation)),
            t * m.ignorance,
        )
    return c, v, t, math.fsum(lost)


def conflict_of(masses: Sequence[Mass]) -> float:
    """The conflict mass K of combining ``masses``, without normalising (never raises)."""
    return min(max(_conjunctive(masses)[3], 0.0), 1.0)


def combine(masses: Sequence[Mass]) -> tuple[Mass, float]:
    """Dempster's rule over any number of sources: (fused mass, total K). No sources → vacuous."""
    c, v, t, k = _conjunctive(masses)
    total = math.fsum((c, v, t))
    if total <= TOLERANCE:
        raise TotalConflictError(
            f"total conflict (K = {k:.6f}): the sources put all their mass on opposite "
            "hypotheses, so Dempster's rule is undefined; escalate to the Senior Auditor"
        )
    return Mass(c / total, v / total, t / total), min(max(k, 0.0), 1.0)


def dempster(m1: Mass, m2: Mass) -> tuple[Mass, float]:
    """Dempster's rule for two sources; returns (m1 ⊕ m2, K). Raises TotalConflictError when K = 1."""
    return combine((m1, m2))


def report_mass(decision: str, confidence: float, completeness: float = 1.0) -> Mass:
    """The doc's natural BBA: m(v) = q·s, m(¬v) = 0, m(Θ) = rest; "unable_to_verify" is vacuous.

    q is the report's self-confidence, s the completeness of its evidence (for instance the share of
    required checkers that returned a definite result). Missing tools are handled by discounting in
    :func:`fuse_reports`, so s should not count them again.
    """
    q = _unit("confidence", confidence)
    s = _unit("completeness", completeness)
    if decision == UNABLE:
        return Mass.vacuous()
    support = q * s
    if _hypothesis(decision) == VIOLATION:
        return Mass(0.0, support, 1.0 - support)
    return Mass(support, 0.0, 1.0 - support)


# ER algorithm (Yang & Xu 2002, recursive form)

@dataclass(frozen=True, slots=True)
class _ERState:
    """Masses of the ER algorithm; ignorance is split into weight-induced (bar) and own (tilde)."""

    v: float
    c: float
    bar: float
    tilde: float

    @property
    def h(self) -> float:
        return self.bar + self.tilde


def _normalised_weights(weights: Sequence[float], n: int) -> list[float]:
    if len(weights) != n:
        raise FusionError(f"expected {n} weights (one per source), got {len(weights)}")
    ws = [float(w) for w in weights]
    if any(math.isnan(w) or w < 0 for w in ws) or math.fsum(ws) <= 0:
        raise FusionError(f"weights must be non-negative with a positive sum, got {list(weights)!r}")
    total = math.fsum(ws)
    return [w / total for w in ws]


def _er_combine(a: _ERState, b: _ERState) -> _ERState:
    """One recursive step of the ER algorithm: I(i) ⊕ source i+1."""
    clash = math.fsum((a.v * b.c, a.c * b.v))
    if clash >= 1.0 - TOLERANCE:
        raise TotalConflictError("total conflict in the ER algorithm; escalate to the Senior Auditor")
    k = 1.0 / (1.0 - clash)
    return _ERState(
        v=k * math.fsum((a.v * b.v, a.v * b.h, a.h * b.v)),
        c=k * math.fsum((a.c * b.c, a.c * b.h, a.h * b.c)),
        tilde=k * math.fsum((a.tilde * b.tilde, a.tilde * b.bar, a.bar * b.tilde)),
        bar=k * a.bar * b.bar,
    )


def er_algorithm(beliefs: Sequence[Mass], weights: Sequence[float]) -> Mass:
    """Yang & Xu's ER algorithm (2002): belief degrees β_V, β_C and residual ignorance β_H.

    Each belief's ignorance is the auditor's incompleteness; weights are relative importance and are
    normalised here. The weight-induced ignorance is removed at the end, so a low-weight source
    dilutes rather than dominates. An alternative to :func:`dempster`, documented and tested.
    """
    if not beliefs:
        return Mass.vacuous()
    state: _ERState | None = None
    for m, w in zip(beliefs, _normalised_weights(weights, len(beliefs))):
        src = _ERState(v=w * m.violation, c=w * m.consistent, bar=1.0 - w, tilde=w * m.ignorance)
        state = src if state is None else _er_combine(state, src)
    assert state is not None
    rest = 1.0 - state.bar
    return Mass(state.c / rest, state.v / rest, state.tilde / rest)


# ER rule (Yang & Xu 2013, weights and reliabilities)

def _er_rule_source(m: Mass, w: float, r: float) -> tuple[float, float, float, float]:
    """(C, V, Θ, P(Θ)) of one source: m_θ = c·w·p_θ, residual m_P(Θ) = c·(1 − r), c = 1/(1 + w − r)."""
    w, r = _unit("weight", w), _unit("reliability", r)
    if 1.0 + w - r <= 0.0:
        raise FusionError("weight 0 with reliability 1 leaves the ER rule undefined; give a weight > 0")
    cw = 1.0 / (1.0 + w - r)
    return cw * w * m.consistent, cw * w * m.violation, cw * w * m.ignorance, cw * (1.0 - r)


def _er_rule_combine(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, float, float, float]:
    """m̂_θ = m_P,b·m_θ,a + m_P,a·m_θ,b + Σ_{B∩C=θ} m_B,a·m_C,b; rescaled to sum 1 (scale-free)."""
    (ac, av, at, ap), (bc, bv, bt, bp) = a, b
    c = math.fsum((bp * ac, ap * bc, ac * bc, ac * bt, at * bc))
    v = math.fsum((bp * av, ap * bv, av * bv, av * bt, at * bv))
    t = math.fsum((bp * at, ap * bt, at * bt))
    p = ap * bp
    total = math.fsum((c, v, t, p))
    if total <= TOLERANCE:
        raise TotalConflictError("total conflict in the ER rule; escalate to the Senior Auditor")
    return c / total, v / total, t / total, p / total


def er_rule(beliefs: Sequence[Mass], *, weights: Sequence[float], reliabilities: Sequence[float]) -> Mass:
    """Yang & Xu's ER rule (2013): p_C, p_V and p_Θ (Θ kept as local ignorance).

    Implemented in the scale-consistent form ``m_P(Θ),2·m_θ,1 + m_P(Θ),1·m_θ,2 + Σ``; it equals the
    doc's ``(1 − r_2)m_θ,1 + (1 − r_1)m_θ,2 + Σ`` evaluated on w·p masses up to a constant factor that
    the final normalisation removes (and coincides with it when r = w). With r = 1 it is Dempster's rule.
    """
    n = len(beliefs)
    if len(weights) != n or len(reliabilities) != n:
        raise FusionError(f"need one weight and one reliability per source ({n}), got "
                          f"{len(weights)} and {len(reliabilities)}")
    if n == 0:
        return Mass.vacuous()
    sources = [_er_rule_source(m, w, r) for m, w, r in zip(beliefs, weights, reliabilities)]
    state = sources[0]
    for src in sources[1:]:
        state = _er_rule_combine(state, src)
    c, v, t, _ = state
    total = math.fsum((c, v, t))
    if total <= TOLERANCE:
        raise FusionError("every source has zero weight; the ER rule has nothing to combine")
    return Mass(c / total, v / total, t / total)


# Fusing junior reports

@dataclass(frozen=True, slots=True)
class FusionInput:
    """What fusion needs from one junior report: its verdict, confidence and tool-evidence status."""

    role: str
    decision: str  # "consistent" | "violation" | "unable_to_verify"
    confidence: float
    completeness: float = 1.0
    skipped_tools: tuple[str, ...] = ()  # rule-required tools the report never ran
    ungrounded: bool = False  # its decision or codes are not what its author's own checkers returned

    def __post_init__(self) -> None:
        object.__setattr__(self, "skipped_tools", tuple(sorted(set(self.skipped_tools))))


@dataclass(frozen=True, slots=True)
class SourceMass:
    """One report as it entered fusion: its natural BBA, the discount applied and why."""

    role: str
    decision: str
    alpha: float
    reasons: tuple[str, ...]
    raw: Mass
    mass: Mass

    def to_json(self) -> dict[str, Any]:
        return {"alpha": rounded(self.alpha), "decision": self.decision, "mass": self.mass.to_json(),
                "raw": self.raw.to_json(), "reasons": list(self.reasons), "role": self.role}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> SourceMass:
        return cls(obj["role"], obj["decision"], obj["alpha"], tuple(obj["reasons"]),
                   Mass.from_json(obj["raw"]), Mass.from_json(obj["mass"]))


@dataclass(frozen=True, slots=True)
class FusionResult:
    """The fused verdict with its evidence trail.

    ``conflict`` is K of the combination actually used (after discounting); ``report_conflict`` is K
    between the undiscounted reports, the disagreement signal for escalation. ``bel``, ``pl``, ``betp``
    and ``credibility`` = Bel(decision)·(1 − K) describe the decision; for "unable_to_verify" they are
    0, 1, 0 and 0: nothing committed, nothing excluded.
    """

    decision: str
    mass: Mass
    conflict: float
    report_conflict: float
    bel: float
    pl: float
    betp: float
    credibility: float
    sources: tuple[SourceMass, ...] = ()
    checker_outcome: str | None = None
    checker_reliability: float = DEFAULT_CHECKER_RELIABILITY

    @property
    def interval(self) -> tuple[float, float]:
        """[Bel, Pl] of the decision: the uncertainty interval."""
        return (self.bel, self.pl)

    def to_json(self) -> dict[str, Any]:
        return {
            "betp": rounded(self.betp), "bel": rounded(self.bel), "pl": rounded(self.pl),
            "checker": {"outcome": self.checker_outcome, "reliability": rounded(self.checker_reliability)},
            "conflict": rounded(self.conflict), "credibility": rounded(self.credibility),
            "decision": self.decision,
            "hypotheses": {h: {"bel": rounded(self.mass.bel(h)), "betp": rounded(self.mass.betp(h)),
                               "pl": rounded(self.mass.pl(h))} for h in HYPOTHESES},
            "interval": [rounded(self.bel), rounded(self.pl)], "mass": self.mass.to_json(),
            "report_conflict": rounded(self.report_conflict),
            "sources": [s.to_json() for s in self.sources],
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> FusionResult:
        """Read back :meth:`to_json` (derived fields such as ``hypotheses`` are recomputed)."""
        checker = obj.get("checker") or {}
        return cls(obj["decision"], Mass.from_json(obj["mass"]), obj["conflict"], obj["report_conflict"],
                   obj["bel"], obj["pl"], obj["betp"], obj["credibility"],
                   tuple(SourceMass.from_json(s) for s in obj.get("sources", ())),
                   checker.get("outcome"), checker.get("reliability", DEFAULT_CHECKER_RELIABILITY))


def _definite_checker(outcome: Any) -> str | None:
    """Map "violation"/"consistent" (or the rules' Outcome enum) to itself, None/"not_applicable" to None."""
    value = outcome.value if isinstance(outcome, enum.Enum) else outcome
    if value is None or value == "not_applicable":
        return None
    if value not in HYPOTHESES:
        raise FusionError(
            f"checker outcome must be consistent, violation, not_applicable or None, got {outcome!r}")
    return value


def _gate(report: FusionInput, checker: str | None, skipped_alpha: float, contra_alpha: float) -> SourceMass:
    """Turn a report into its BBA and discount it for skipped tools and for contradicting the checker.

    A report that says something its author's own checker runs did not return is discounted like one
    that contradicts the authoritative checker: when no checker is definite (a fact nothing can
    verify) that is the only thing that keeps an invented finding from deciding the case.
    """
    raw = report_mass(report.decision, report.confidence, report.completeness)
    alpha, reasons = 1.0, []
    if report.skipped_tools:
        alpha *= skipped_alpha
        reasons.append("skipped required tools: " + ", ".join(report.skipped_tools))
    if checker is not None and report.decision in HYPOTHESES and report.decision != checker:
        alpha *= contra_alpha
        reasons.append(f"contradicts the authoritative checker outcome {checker!r}")
    elif report.ungrounded:
        alpha *= contra_alpha
        reasons.append("contradicts its own checker results")
    return SourceMass(report.role, report.decision, alpha, tuple(reasons), raw, discount(raw, alpha))


def _decide(mass: Mass, checker: str | None) -> str:
    """The checker's definite outcome if any; else argmax BetP; vacuous or tied → unable_to_verify."""
    if checker is not None:
        return checker
    pv, pc = mass.betp(VIOLATION), mass.betp(CONSISTENT)
    if mass.is_vacuous or abs(pv - pc) <= TOLERANCE:
        return UNABLE
    return VIOLATION if pv > pc else CONSISTENT


def fuse_reports(
    reports: Sequence[FusionInput],
    checker_outcome: Any = None,
    *,
    skipped_tools_alpha: float = 0.5,
    contradiction_alpha: float = 0.0,
    checker_reliability: float = DEFAULT_CHECKER_RELIABILITY,
) -> FusionResult:
    """Fuse junior reports (and the checker, when definite) into one verdict with its credibility.

    Sources are combined in a fixed order (reports as given, then the checker) so reruns are
    identical. Raises :class:`TotalConflictError` when the discounted reports contradict each other
    categorically (only possible without a definite checker or with ``contradiction_alpha`` > 0).
    """
    a_skip = _unit("skipped_tools_alpha", skipped_tools_alpha)
    a_contra = _unit("contradiction_alpha", contradiction_alpha)
    checker = _definite_checker(checker_outcome)
    sources = tuple(_gate(r, checker, a_skip, a_contra) for r in reports)
    masses = [s.mass for s in sources]
    if checker is not None:
        masses.append(discount(Mass.categorical(checker), _unit("checker_reliability", checker_reliability)))
    try:
        mass, k = combine(masses)
    except TotalConflictError as exc:
        roles = ", ".join(s.role for s in sources)
        raise TotalConflictError(f"reports of {roles} are in total conflict: {exc}") from exc
    decision = _decide(mass, checker)
    if decision == UNABLE:
        bel, pl, betp = 0.0, 1.0, 0.0
    else:
        bel, pl, betp = mass.bel(decision), mass.pl(decision), mass.betp(decision)
    return FusionResult(
        decision=decision, mass=mass, conflict=k, report_conflict=conflict_of([s.raw for s in sources]),
        bel=bel, pl=pl, betp=betp, credibility=bel * (1.0 - k), sources=sources,
        checker_outcome=checker, checker_reliability=checker_reliability,
    )


__all__ = [
    "CONSISTENT", "VIOLATION", "UNABLE", "HYPOTHESES", "Hypothesis", "FusionError", "TotalConflictError",
    "Mass", "discount", "dempster", "combine", "conflict_of", "report_mass", "er_algorithm", "er_rule",
    "FusionInput", "FusionResult", "SourceMass", "fuse_reports", "rounded",
]
