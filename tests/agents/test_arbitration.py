"""The Senior's choice: when the rounds run out on two auditors that checked different facts for a
question, a model call of the Senior reads the question and the two facts' words and chooses one; the
audit is then the report of the auditor that examined it, held to that auditor's checkers."""
from __future__ import annotations

import json
from dataclasses import replace

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from auditflow.agents.arbitration import CHOOSE_FACT, choose_fact_tool, standing_dispute
from auditflow.agents.audit import run_audit
from auditflow.agents.policy import DeterministicPolicy, choose_offered
from auditflow.agents.profile import builtin_profile
from auditflow.agents.prompts import read_payload
from auditflow.agents.reports import AuditResult, SeniorReview
from auditflow.env.tools import CHECKS
from auditflow.graphs.environment import build_environment
from auditflow.llm.toolcalls import offered_calls, offered_format

from test_protocol import SAMPLE  # noqa: E402 - the bundled sample filing
from test_recheck import QUESTION, WRONG_YEAR, OptionTaker

GUIDED = builtin_profile("guided")
WITHOUT = replace(GUIDED, arbitration=None)
WORDS = {"as of December 31, 2023", "as of December 31, 2024"}


class Senior(BaseChatModel):
    """The Senior's model: chooses the option whose words hold ``prefer`` (or, with ``answer``, writes that
    text instead of a call) and keeps what it read."""

    prefer: str = "2024"
    answer: str | None = None
    _read: list = PrivateAttr(default_factory=list)
    _tools: list = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted senior"

    def bind_tools(self, tools, **kwargs):  # noqa: ARG002
        self._tools.append(tools)
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:  # noqa: ARG002
        self._read.append(list(messages))
        if self.answer is None:
            option = next(o for o in read_payload(messages[-1].content)["next_call_options"] if self.prefer in o["is"])
            msg = AIMessage(content="", tool_calls=[{"name": CHOOSE_FACT, "args": option["arguments"], "id": "s1",
                                                     "type": "tool_call"}])
        else:
            msg = AIMessage(content=self.answer)
        return ChatResult(generations=[ChatGeneration(message=msg)])


def _audit(senior=None, profile=GUIDED, shuffle=None) -> AuditResult:
    """Compliance checks the prior year's assets and stands by them; forensic (the policy) the year asked."""
    def models(role: str):
        if role == "compliance":
            return OptionTaker(role=role, prefer="2023", script=[{"name": t, "arguments": WRONG_YEAR} for t in CHECKS])
        if role == "senior" and senior is not None:
            return senior
        return DeterministicPolicy(role=role)

    return run_audit(build_environment(SAMPLE), QUESTION, config="full", models=models, profile=profile, shuffle=shuffle)


def test_the_senior_chooses_and_the_audit_is_the_chosen_facts_auditors():
    senior = Senior()
    result = _audit(senior)
    assert not result.reviews[-1].accepted and result.reviews[-1].conflict_source == "wrong_period"
    arb = result.arbitration
    assert set(arb.offered) == WORDS and arb.offered[arb.chosen] == "as of December 31, 2024"
    assert arb.chosen_fact == {"concept": "us-gaap:Assets", "period": "2024-12-31", "dimensions": {}, "value": "226150000"}
    assert result.fact == arb.chosen_fact
    assert [r.role for r in result.reports] == ["forensic"]  # the report on the chosen fact
    assert {t.role for t in result.transcripts} == {"compliance", "forensic"}  # both audits stay on record
    assert (result.decision, result.reported_value) == ("violation", 226150000)
    assert result.conflict == 0.0  # one report, pinned by its author's checkers


def test_choosing_the_other_fact_gives_the_other_auditors_audit():
    result = _audit(Senior(prefer="2023"))
    assert result.arbitration.offered[result.arbitration.chosen] == "as of December 31, 2023"
    assert result.fact["period"] == "2023-12-31"
    assert [r.role for r in result.reports] == ["compliance"]


def test_the_senior_reads_the_question_and_the_facts_words_not_their_values():
    senior = Senior()
    _audit(senior)
    (messages,) = senior._read
    assert isinstance(messages[0], SystemMessage) and messages[0].content == GUIDED.arbitration.system
    payload = read_payload(messages[1].content)
    assert set(payload) == {"question", "next_call_options", "choose"}
    assert payload["question"] == QUESTION.text and payload["choose"] == GUIDED.arbitration.choose
    assert {o["is"] for o in payload["next_call_options"]} == WORDS
    assert [o["arguments"] for o in payload["next_call_options"]] == [{"fact": "A"}, {"fact": "B"}]
    assert "205000000" not in messages[1].content and "226150000" not in messages[1].content
    assert senior._tools == [[choose_fact_tool()]]


def test_a_local_model_is_held_to_the_two_offers_after_copying_the_question():
    senior = Senior()
    _audit(senior)
    (messages,) = senior._read
    calls = offered_calls(messages, [choose_fact_tool()])
    assert {c["is"] for c in calls} == WORDS and {c["question"] for c in calls} == {QUESTION.text}
    shapes = offered_format(calls)["json_schema"]["schema"]["anyOf"]
    assert [s["properties"]["looking_for"] for s in shapes] == [{"const": QUESTION.text}] * 2
    assert [s["properties"]["arguments"] for s in shapes] == [{"const": {"fact": "A"}}, {"const": {"fact": "B"}}]


def test_an_answer_naming_neither_fact_is_recorded_and_the_dispute_is_fused_as_before():
    result = _audit(Senior(answer="I think the second one"))
    assert result.arbitration.chosen is None and result.arbitration.answer == "I think the second one"
    before = _audit(profile=WITHOUT)
    assert before.arbitration is None
    assert (result.decision, result.fact, result.reports) == (before.decision, before.fact, before.reports)


def test_the_policy_chooses_by_the_questions_words_whatever_the_order():
    result = _audit()  # the policy as Senior
    assert result.fact["period"] == "2024-12-31"
    shuffled = [_audit(shuffle=seed) for seed in range(4)]
    assert {r.arbitration.offered for r in shuffled} == {tuple(sorted(WORDS)), tuple(sorted(WORDS, reverse=True))}
    assert {r.fact["period"] for r in shuffled} == {"2024-12-31"}
    options = [{"is": w, "name": CHOOSE_FACT, "arguments": {"fact": i}} for i, w in zip("AB", sorted(WORDS))]
    for order in (options, options[::-1]):
        assert choose_offered("Total assets as of December 31, 2024", order)["is"] == "as of December 31, 2024"
    members = [{"is": "East, as of December 31, 2024", "arguments": {}}, {"is": "as of December 31, 2024", "arguments": {}}]
    for order in (members, members[::-1]):
        assert choose_offered("Total assets as of December 31, 2024", order)["is"] == "as of December 31, 2024"
        assert choose_offered("Total assets East as of December 31, 2024", order)["is"] == "East, as of December 31, 2024"


def test_no_choice_without_a_standing_dispute_or_without_the_profiles_text():
    accepted = SeniorReview(round=1, accepted=True)
    assert standing_dispute([accepted], {"a": {"key": "k1"}, "b": {"key": "k2"}}) is None
    calc = SeniorReview(round=2, accepted=False, conflict_source="incomplete_calculation_neighbourhood")
    assert standing_dispute([calc], {"a": {"key": "k1"}, "b": {"key": "k2"}}) is None
    facts = SeniorReview(round=2, accepted=False, conflict_source="wrong_period", different_facts=True)
    assert standing_dispute([facts], {"a": {"key": "k2"}, "b": {"key": "k1"}}) == ("k1", "k2")
    assert standing_dispute([facts], {"a": {"key": "k1"}, "b": None}) is None
    senior = Senior()
    assert _audit(senior, profile=WITHOUT).arbitration is None and senior._read == []


def test_the_choice_is_in_the_artifact_only_when_made():
    made = _audit(Senior())
    assert AuditResult.from_json(json.loads(made.canonical_json())) == made
    assert json.loads(made.canonical_json())["arbitration"]["chosen"] in (0, 1)
    assert "arbitration" not in json.loads(_audit(profile=WITHOUT).canonical_json())



def test_the_failure_text_and_the_html_report_say_what_the_senior_chose():
    from types import SimpleNamespace

    from auditflow.html.suite_page import arbitration
    from pytest_auditflow.failure import senior_lines

    made = _audit(Senior())
    lines = senior_lines(SimpleNamespace(result=made), SimpleNamespace(run=SimpleNamespace(config="full")))
    assert lines[-1].startswith("  the Senior's choice between ") and lines[-1].endswith(': chose "as of December 31, 2024"')
    shown = arbitration(json.loads(made.canonical_json()))
    assert set(shown["offered"]) == WORDS and shown["chosen"] == "as of December 31, 2024"
    garbled = _audit(Senior(answer="no idea"))
    assert "named neither fact (answered 'no idea')" in senior_lines(
        SimpleNamespace(result=garbled), SimpleNamespace(run=SimpleNamespace(config="full")))[-1]
    assert arbitration(json.loads(garbled.canonical_json()))["chosen"] is None
    assert arbitration(json.loads(_audit(profile=WITHOUT).canonical_json())) is None


def test_the_html_report_renders_the_choice():
    from auditflow.html.suite_page import render_suite

    made = json.loads(_audit(Senior()).canonical_json())
    entry = {"key": "x::c", "config": "full", "rule": "0126", "label": "A", "passed": True, "verdict_right": True,
             "case_id": "c", "file": "x", "model": "m",
             "payload": {"case": {"id": "c"}, "expect": {"decision": "violation"}, "actual": {"decision": "violation"},
                         "mismatches": [], "result": made}}
    html = render_suite([entry], title="t", settings={})
    assert '<p class="arbitration">The Senior' in html
    assert "<b>&ldquo;as of December 31, 2024&rdquo;</b>" in html
    assert ">arbitration<" not in html  # shown in its place, not again among the fields listed as they are
