"""The paired bootstrap: reproducible from its seed, right on differences known in advance."""
from __future__ import annotations

import pytest

from auditflow.bootstrap import compare, comparison_seed, paired_bootstrap

A = [True] * 14 + [False] * 6
B = [True] * 8 + [False] * 6 + [True] * 2 + [False] * 4


def test_same_seed_same_result_other_seed_other_draws() -> None:
    first = paired_bootstrap(A, B, resamples=2000, seed=7)
    assert paired_bootstrap(A, B, resamples=2000, seed=7) == first
    other = paired_bootstrap(A, B, resamples=2000, seed=8)
    assert other.difference == first.difference  # the point estimate never depends on the draws
    assert (other.low, other.high, other.p_value) != (first.low, first.high, first.p_value)


def test_pinned_values_do_not_drift() -> None:
    """Only Random.random() is used, whose sequence Python guarantees for a seed: these numbers must hold
    on every supported Python version (a change here would change every committed results.md)."""
    r = paired_bootstrap(A, B, resamples=1000, seed=0)
    assert (r.n, r.acc_a, r.acc_b, r.difference) == (20, 0.7, 0.5, pytest.approx(0.2))
    assert (r.low, r.high, r.p_value) == (-0.05, 0.45, 188 / 1001)


def test_a_certain_difference() -> None:
    """Right on every case against wrong on every case: the interval is the point, p its floor."""
    r = paired_bootstrap([True] * 12, [False] * 12, resamples=999, seed=1)
    assert (r.difference, r.low, r.high) == (1.0, 1.0, 1.0)
    assert r.p_value == 1 / 1000


def test_no_difference() -> None:
    r = paired_bootstrap(A, A, resamples=500, seed=3)
    assert (r.difference, r.low, r.high, r.p_value) == (0.0, 0.0, 0.0, 1.0)


def test_a_clear_difference_is_significant_and_its_interval_holds_it() -> None:
    better = [True] * 40
    worse = [True] * 25 + [False] * 15
    r = paired_bootstrap(better, worse, resamples=4000, seed=0)
    assert r.difference == pytest.approx(0.375)
    assert 0.2 < r.low < 0.375 < r.high < 0.55
    assert r.p_value < 0.001


def test_each_pair_has_its_own_seed() -> None:
    """Adding a configuration to a run changes no other comparison."""
    assert comparison_seed(0, "full", "no-checks") == comparison_seed(0, "full", "no-checks")
    assert comparison_seed(0, "full", "no-checks") != comparison_seed(0, "full", "no-gating")
    assert comparison_seed(0, "full", "no-checks") != comparison_seed(1, "full", "no-checks")
    c = compare("full", "no-checks", A, B, resamples=300, seed=5)
    assert c.result == paired_bootstrap(A, B, resamples=300, seed=comparison_seed(5, "full", "no-checks"))
    assert c.to_json()["difference"] == 0.2


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="equal lengths"):
        paired_bootstrap([True], [True, False])
    with pytest.raises(ValueError, match="at least one case"):
        paired_bootstrap([], [])
