"""Plain-words questions read as an auditor writes them: a period phrase run on after a label is
"for the three months ended ..." but "as of ..." for a balance, never "for the as of ..."."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from auditflow.cases.questions import _after_label

REPO = Path(__file__).resolve().parents[2]


def test_a_duration_takes_for_the_and_an_instant_does_not():
    assert _after_label("three months ended June 30, 2025") == "for the three months ended June 30, 2025"
    assert _after_label("period from January 1, 2025 to June 30, 2025").startswith("for the period from")
    assert _after_label("as of June 30, 2025") == "as of June 30, 2025"
    assert _after_label("forever") == "forever"


@pytest.mark.parametrize("corpus", ["hard", "hard-holdout"])
def test_no_committed_question_says_for_the_as_of(corpus):
    texts = [case["query"]["text"] for path in sorted((REPO / "cases" / corpus).glob("*.case.yaml"))
             for case in yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]
             if isinstance(case.get("query"), dict) and "text" in case["query"]]
    assert len(texts) >= 20
    assert [t for t in texts if "for the as of" in t or "for the forever" in t] == []


def test_a_question_never_uses_a_label_another_fact_of_its_period_and_members_carries(data_root):
    """On hi's FY2020 10-K "Fair value of plan assets" labels two pension concepts, both reported for
    September 30, 2019 under Domestic Plan: worded so, the question would name two facts. The generator
    takes another of the concept's labels, or its standard label when the filer has no other."""
    import random

    from auditflow.cases.filings import resolve_filing
    from auditflow.graphs.factory import shared_environment
    from auditflow.cases.model import CaseQuery
    from auditflow.cases.questions import labels_sharing_the_context, text_question
    from auditflow.env.names import resolve_concept, resolve_dimensions
    from auditflow.env.tool_base import ToolContext

    env = shared_environment(resolve_filing("hi-10k-2020-09-30", case_dir=REPO, data_root=data_root))
    ctx = ToolContext(env)
    meant = "us-gaap:DefinedBenefitPlanPensionPlansWithAccumulatedBenefitObligationsInExcessOfPlanAssetsAggregateFairValueOfPlanAssets"
    dims = {"us-gaap:RetirementPlanSponsorLocationAxis": "us-gaap:DomesticPlanMember"}
    concept, members = resolve_concept(ctx, meant), resolve_dimensions(ctx, dims)
    assert "Fair value of plan assets" in labels_sharing_the_context(ctx, concept, "2019-09-30", members)
    query = CaseQuery(meant, "2019-09-30", tuple(dims.items()))
    asked = {text_question(ctx, query, random.Random(seed)) for seed in range(8)}
    assert not any(q.startswith("Fair value of plan assets") or "fair value of plan assets (" in q.lower() for q in asked)
    assert all("Plan with Accumulated Benefit Obligation in Excess of Plan Assets" in q for q in asked)
    # and the other way round: a question about the other concept may not use it either
    other = resolve_concept(ctx, "us-gaap:DefinedBenefitPlanFairValueOfPlanAssets")
    assert "Fair value of plan assets" in labels_sharing_the_context(ctx, other, "2019-09-30", members)
