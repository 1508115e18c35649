"""What an auditor reads of a tool result: the trimmed view, where to go next, and the final summary."""
from __future__ import annotations

from auditflow.agents.observations import guided_view, model_view
from auditflow.agents.profile import builtin_profile

GUIDED = builtin_profile("guided")
HOW_TO_REPORT = GUIDED.how_to_report

FOCUS = {"fact": "F1", "value": "226150000", "concept": "us-gaap:Assets"}


def checker(tool, rule, outcome, **extra):
    obs = {"rule": rule, "outcome": outcome, "fact": "F1", "code": None, "reported": "226150000", "expected": None,
           "reason": "prose the model does not need", **extra}
    return {"tool": tool, "observation": obs}


def test_a_checker_result_keeps_what_a_decision_needs_and_drops_its_prose():
    obs = {"rule": "0126", "outcome": "violation", "code": "DQC.US.0126.9590", "reported": "226150000",
           "expected": "216150000", "reason": "the total is not the sum", "tolerance": "0.5",
           "evidence": [{"fact": "F2"}, {"fact": "F3"}, {"fact": "F2"}], "statement": "long title", "extra": None}
    assert model_view(obs) == {"rule": "0126", "outcome": "violation", "code": "DQC.US.0126.9590",
                               "reported": "226150000", "expected": "216150000", "facts": ["F2", "F3"]}


def test_a_checker_that_did_not_apply_says_only_so():
    """No code, no expected value, and F1's value is already known: ~15 tokens less per such result."""
    obs = {"rule": "0015", "outcome": "not_applicable", "fact": "F1", "code": None, "reported": "226150000",
           "expected": None, "reason": "the concept may be negative"}
    assert model_view(obs) == {"rule": "0015", "outcome": "not_applicable", "fact": "F1"}
    consistent = dict(obs, outcome="consistent", expected="226150000")
    assert model_view(consistent)["code"] is None and model_view(consistent)["reported"] == "226150000"


def test_while_tools_are_required_the_next_one_is_offered_ready_to_copy():
    obs = {"rule": "0015", "outcome": "not_applicable", "still_required": ["check_calc_tree", "check_dim_consistency"]}
    view = guided_view(obs, [], focus=FOCUS, profile=GUIDED)
    assert view["next_call"] == {"name": "check_calc_tree", "arguments": {"fact": "F1"}}
    assert "violations_found" not in view and "how_to_report" not in view


def summary(*steps):
    last = dict(steps[-1]["observation"], still_required=[])
    return guided_view(last, list(steps), focus=FOCUS, profile=GUIDED)


def test_the_last_result_lists_violations_and_passed_rules_from_every_checker_of_the_conversation():
    view = summary(checker("check_sign", "0015", "not_applicable"),
                   checker("check_calc_tree", "0126", "violation", code="DQC.US.0126.9590", expected="216150000"),
                   checker("check_dim_consistency", "0117", "consistent", expected="226150000"))
    assert view["violations_found"] == [{"code": "DQC.US.0126.9590", "reported": "226150000", "expected": "216150000"}]
    assert view["consistent_found"] == ["0117"]
    assert view["next_call"] == {"name": "final_report"} and view["F1_value"] == "226150000"
    assert view["how_to_report"] == HOW_TO_REPORT


def test_a_passed_check_is_named_even_when_the_last_checker_did_not_apply():
    # the 1.5B model wrote unable_to_verify here when only the last outcome was in front of it
    view = summary(checker("check_calc_tree", "0126", "consistent", expected="226150000"),
                   checker("check_dim_consistency", "0117", "not_applicable"))
    assert view["violations_found"] == [] and view["consistent_found"] == ["0126"]
    assert view["outcome"] == "not_applicable"  # the last result itself is still shown as it was


def test_nothing_applied_leaves_both_lists_empty():
    view = summary(checker("check_sign", "0015", "not_applicable"), checker("check_calc_tree", "0126", "not_applicable"))
    assert view["violations_found"] == [] and view["consistent_found"] == []
