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
