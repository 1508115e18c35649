"""Seeded paired bootstrap of the Joint ACC difference between two configurations.

Both configurations ran the same cases, so the comparison is paired: each resample draws N case
indices with replacement and takes the difference of the two accuracies on those same cases. The
95% interval is the percentile interval of the resampled differences; the two-sided p-value is that
of the null "no difference", from the resampled differences shifted to mean zero (Efron &
Tibshirani's bootstrap test): ``(1 + #{|d* - d| >= |d|}) / (B + 1)``. It is never 0, and it is 1
when the two configurations got exactly the same cases right.

Reproducible by construction: the draws use only :meth:`random.Random.random`, whose sequence for a
given integer seed Python guarantees across versions (``choices``/``randrange`` may change theirs);
each comparison gets its own seed derived from the run's seed and the two names, so adding a
configuration changes no other comparison; differences are summed as integers, so no float
rounding can move a resample across the test's threshold.
"""
from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass
from typing import Any, Sequence

DEFAULT_RESAMPLES = 10_000
CONFIDENCE = 0.95
DIGITS = 6


@dataclass(frozen=True, slots=True)
class BootstrapResult:
    """``difference`` = acc(a) - acc(b) on the n paired cases, its interval and p-value."""

    n: int
    acc_a: float
    acc_b: float
    difference: float
    low: float
    high: float
    p_value: float
    resamples: int
    seed: int


@dataclass(frozen=True, slots=True)
class Comparison:
    """One line of the comparisons table: the reference configuration against another."""

    reference: str
    other: str
    result: BootstrapResult

    def to_json(self) -> dict[str, Any]:
        r = self.result
        return {"reference": self.reference, "other": self.other, "n": r.n,
                "reference_joint_acc": round(r.acc_a, DIGITS), "other_joint_acc": round(r.acc_b, DIGITS),
                "difference": round(r.difference, DIGITS), "ci_low": round(r.low, DIGITS),
                "ci_high": round(r.high, DIGITS), "confidence": CONFIDENCE, "p_value": round(r.p_value, DIGITS),
                "resamples": r.resamples, "seed": r.seed}


def comparison_seed(seed: int, a: str, b: str) -> int:
    """A seed for comparing ``a`` with ``b``, fixed by the run's seed and the two names only."""
    return int.from_bytes(hashlib.sha256(f"{seed}\x00{a}\x00{b}".encode()).digest()[:8], "big")


def paired_bootstrap(a: Sequence[bool], b: Sequence[bool], *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                     confidence: float = CONFIDENCE) -> BootstrapResult:
    """Bootstrap the accuracy difference of two paired 0/1 outcome lists (``a[i]``, ``b[i]`` = case i).

    :raises ValueError: lists of different lengths, no cases, or fewer than one resample.
    """
    if len(a) != len(b):
        raise ValueError(f"paired outcomes need equal lengths, got {len(a)} and {len(b)}")
    n = len(a)
    if n == 0 or resamples < 1:
        raise ValueError("a bootstrap needs at least one case and one resample")
    diffs = [int(x) - int(y) for x, y in zip(a, b)]
    total = sum(diffs)
    rng = random.Random(seed)
    draw = rng.random
    sums = sorted(sum(diffs[int(draw() * n)] for _ in range(n)) for _ in range(resamples))
    extreme = sum(abs(s - total) >= abs(total) for s in sums)
    alpha = 1 - confidence
    lo = sums[max(0, math.floor(alpha / 2 * resamples))]
    hi = sums[min(resamples - 1, math.ceil((1 - alpha / 2) * resamples) - 1)]
    return BootstrapResult(n, sum(map(bool, a)) / n, sum(map(bool, b)) / n, total / n, lo / n, hi / n,
                           (1 + extreme) / (1 + resamples), resamples, seed)


def compare(reference: str, other: str, ref_a: Sequence[bool], other_a: Sequence[bool], *, resamples: int,
            seed: int) -> Comparison:
    """The reference against ``other`` (outcome lists in the same case order), seeded per pair."""
    return Comparison(reference, other, paired_bootstrap(ref_a, other_a, resamples=resamples,
                                                         seed=comparison_seed(seed, reference, other)))
