"""Order robustness of the deterministic baseline: a shuffled replay of the policy over the whole corpus
gives the same labels as the unshuffled run (docs/query-forms.md, "Order robustness").

The policy chooses by what it reads, never by position, so any difference here would be a tool whose
output (or whose handles) depends on list order. A language model is measured the same way with
``--auditflow-shuffle``; there a difference is the model's position bias.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from auditflow.cases.loader import load_case_file
from auditflow.cases.runner import run_case
from auditflow.cases.settings import RunSettings

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["corpus", "hard"])
def test_a_shuffled_policy_run_gives_the_same_labels(corpus, data_root):
    cases = [c for f in sorted((REPO / "cases" / corpus).glob("*.case.yaml")) for c in load_case_file(f)]
    assert len(cases) >= 150
    labels = {}
    for seed in (None, 1):
        settings = RunSettings(model="policy", data_root=data_root, shuffle=seed)
        labels[seed] = {c.id: (o.judgement.label, o.result.fact["concept"] if o.result and o.result.fact else None)
                        for c in cases for o in [run_case(c, settings)]}
    assert labels[None] == labels[1]
