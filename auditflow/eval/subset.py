"""A stratified subset of an evaluation's cases, the same on every machine: rows that cost too much
model time to run on every case (``full+shuffle=1+subset=60``) run on it instead.

The strata are (DQC family, expected decision, query form), so the subset keeps the corpus's
make-up: each stratum gets its share of ``size`` by largest remainder (ties go to the larger
stratum, then the stratum's name), and within a stratum the cases are taken in the order of the
SHA-256 of their keys. Nothing depends on a random generator's version or on the order the cases
were listed in; two rows with the same ``size`` run on the very same cases, so they can be compared
with each other as well as with the full row.
"""
from __future__ import annotations

import hashlib
from typing import Sequence

from auditflow.eval.collect import KeyedCase


def stratum(kc: KeyedCase) -> tuple[str, str, str]:
    """(family, expected decision, query form) of a case."""
    return kc.case.rule, kc.case.expect.decision, kc.case.query.form


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def stratified_subset(cases: Sequence[KeyedCase], size: int) -> frozenset[str]:
    """The keys of ``size`` cases (all of them when ``size`` >= their number), stratified as above."""
    if size >= len(cases):
        return frozenset(kc.key for kc in cases)
    groups: dict[tuple[str, str, str], list[str]] = {}
    for kc in cases:
        groups.setdefault(stratum(kc), []).append(kc.key)
    total = len(cases)
    quota = {s: size * len(keys) // total for s, keys in groups.items()}
    rest = size - sum(quota.values())
    by_remainder = sorted(groups, key=lambda s: (-(size * len(groups[s]) % total), -len(groups[s]), s))
    for s in by_remainder[:rest]:
        quota[s] += 1
    return frozenset(k for s, keys in groups.items() for k in sorted(keys, key=_digest)[:quota[s]])
