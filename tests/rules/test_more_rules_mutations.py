"""Mutation tests over real filings for the registered rules with numeric checks (0004, 0009, 0118).

For each filing, the first fact a rule checked and found consistent is perturbed (``auditflow.mutations``);
the rule must then report that very fact, with the code of the check it failed, and nothing it reported
before may disappear. Rules about dates, dimensions and linkbases are covered by the fixtures of
each rule's tests/rules/test_dqc_NNNN.py (the mutations change values only).
"""
from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pytest

from auditflow.graphs.environment import build_environment
from auditflow.mutations import Mutation, apply_mutation
from auditflow.rules import registry
from auditflow.rules.finding import Outcome
from auditflow.rules.resources import Resources
from auditflow.xbrl.loader import load_filing

FILINGS = ("filings/aapl-10k-2023-09-30", "filings/nflx-10k-2023-12-31", "filings/tsla-10q-2024-06-30",
           "filings-rolled/tol-10k-2023-10-31", "filings-rolled/cch-10q-2025-06-30")


def _sig(f) -> tuple:
    return (f.code, f.fact_id, str(f.reported), str(f.expected))


@pytest.mark.slow
@pytest.mark.parametrize("rule", ["0004", "0009", "0118"])
@pytest.mark.parametrize("name", FILINGS)
def test_a_perturbed_consistent_fact_is_reported(data_root, name, rule):
    env = build_environment(load_filing(data_root / name))
    spec, res = registry.get(rule), Resources(data_root)
    before = spec.run(env, res)
    checked = [c for c in before.checks if c.outcome is Outcome.CONSISTENT and c.fact_id]
    if not checked:
        pytest.skip(f"{rule} checks nothing on {name}")
    fact = env.filing.fact_by_key(checked[0].fact_id)
    # 0004/0118: far outside any rounding; 0009: the smaller side made larger than any share count
    bumped = fact.number * 1000 + Decimal(10) ** 12 if rule == "0009" else fact.number + Decimal(10) ** 12
    after = spec.run(build_environment(apply_mutation(env.filing, Mutation("set_value", fact.key, bumped))), res)
    added = Counter(map(_sig, after.findings)) - Counter(map(_sig, before.findings))
    assert not Counter(map(_sig, before.findings)) - Counter(map(_sig, after.findings))
    on_fact = [s for s in added if s[1] == fact.key]
    assert on_fact and all(s[0].startswith(f"DQC.US.{rule}.") and s[2] == str(bumped) for s in on_fact), added
