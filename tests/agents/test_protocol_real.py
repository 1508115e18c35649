"""The protocol with the policy backend on mutated real filings (issue 4, must show).

Errors are injected as in the DQC mutation test (tests/test_mutations.py): sign flips that 0015 must
report, perturbed calculation totals (0126) and perturbed dimension members (0117), each finder
returning the one finding its mutation must add. For every target, the audit of the focus fact on
the mutated filing must give that finding's decision, rule, reported and expected values; the same
fact on the untouched filing must be consistent; and two runs must leave byte-identical artifacts.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from auditflow.agents.audit import run_audit
from auditflow.env.query import AuditQuery
from auditflow.graphs.environment import build_environment
from auditflow.mutations import apply_mutation, calc_total_targets, member_targets, sign_flip_targets
from auditflow.xbrl.loader import load_filing

PER_FILING = 2
FAMILIES = {
    "0015": ("filings/aapl-10k-2023-09-30", "filings/nflx-10q-2024-09-30"),
    "0126": ("filings/aapl-10k-2023-09-30", "filings/nflx-10k-2023-12-31"),
    "0117": ("filings-rolled/tol-10k-2023-10-31", "filings-rolled/hi-10k-2020-09-30"),
}
CASES = [(rule, name, i) for rule, names in FAMILIES.items() for name in names for i in range(PER_FILING)]


class Filings:
    """Unmutated environments and mutation targets, loaded once for the module."""

    def __init__(self, data_root: Path) -> None:
        self.data_root = data_root
        self.envs: dict[str, object] = {}
        self.found: dict[tuple[str, str], list] = {}

    def env(self, name: str):
        if name not in self.envs:
            self.envs[name] = build_environment(load_filing(self.data_root / name))
        return self.envs[name]

    def target(self, rule: str, name: str, i: int):
        if (rule, name) not in self.found:
            env, root = self.env(name), self.data_root
            finders = {"0015": lambda: sign_flip_targets(env, root, limit=PER_FILING),
                       "0126": lambda: calc_total_targets(env, limit=PER_FILING, data_root=root),
                       "0117": lambda: member_targets(env, limit=PER_FILING, data_root=root)}
            self.found[(rule, name)] = finders[rule]()
        targets = self.found[(rule, name)]
        assert len(targets) == PER_FILING, f"{name}: only {len(targets)} {rule} targets"
        return targets[i]


@pytest.fixture(scope="module")
def filings(data_root) -> Filings:
    return Filings(data_root)


def focus_query(filing, key: str, name: str, rule: str) -> AuditQuery:
    """The audit query an evaluator would write for a fact: prefixed names, the one period notation."""
    fact = filing.fact_by_key(key)
    ctx = filing.contexts[fact.context_id]
    dims = tuple((str(axis), str(member)) for axis, member in ctx.dimensions)
    return AuditQuery(name.split("/")[-1], str(fact.concept), str(ctx.period), dims, rule_hint=rule,
                      case_id=f"{name.split('/')[-1]}:{rule}:{key}")


def case_id(case) -> str:
    rule, name, i = case
    return f"{rule}-{name.split('/')[-1]}-{i}"


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_an_injected_error_is_found_with_its_rule_and_values(filings, data_root, case):
    rule, name, i = case
    target = filings.target(rule, name, i)
    mutated = apply_mutation(filings.env(name).filing, target.mutation)
    query = focus_query(mutated, target.focus, name, rule)
    runs = [run_audit(build_environment(mutated), query, config="full", data_root=data_root) for _ in range(2)]
    result = runs[0]
    assert (result.decision, result.triggered_rules, result.reported_value, result.expected_value) == (
        "violation", (target.code,), target.reported, target.expected), (target, query)
    assert result.rounds == 1 and result.reviews[0].accepted and not result.invalid_output
    assert result.fusion.checker_outcome == "violation" and len(result.reports) == 2
    assert runs[0].canonical_json() == runs[1].canonical_json()


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_the_same_fact_untouched_is_consistent(filings, data_root, case):
    rule, name, i = case
    target = filings.target(rule, name, i)
    env = filings.env(name)
    query = focus_query(env.filing, target.focus, name, rule)
    first, second = (run_audit(env, query, config="full", data_root=data_root) for _ in range(2))
    assert (first.decision, first.triggered_rules) == ("consistent", ()), query
    assert first.expected_value == first.reported_value == env.filing.fact_by_key(target.focus).number
    assert first.rounds == 1 and first.fusion.checker_outcome == "consistent"
    assert first.canonical_json() == second.canonical_json()
