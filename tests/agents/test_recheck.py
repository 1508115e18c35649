"""When the Senior finds that two searching auditors checked different facts, the audit re-opens: each
is offered both facts (its own and its colleague's) as ready calls, in a fixed order, and must run every
required tool again on the one it now chooses. The choice stays the model's; the harness only shows
what is in dispute."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from auditflow.agents.audit import run_audit
from auditflow.agents.policy import DeterministicPolicy
from auditflow.agents.profile import builtin_profile
from auditflow.agents.prompts import read_payload
from auditflow.agents.protocol import recheck_offer
from auditflow.env.names import names
from auditflow.env.query import AuditQuery
from auditflow.env.session import REQUIRED, AuditSession
from auditflow.env.tools import CHECKS
from auditflow.graphs.environment import build_environment

from test_protocol import SAMPLE  # noqa: E402 - the bundled sample filing

GUIDED = builtin_profile("guided")  # re-opening is off in guided (docs/hard/results-notes.md)
RECHECKING = replace(GUIDED, search=replace(GUIDED.search, recheck_on_conflict=True))
QUESTION = AuditQuery("acme", form="text", text="Total assets as of December 31, 2024", case_id="acme-assets-words")
WRONG_YEAR = {"concept": "us-gaap:Assets", "period": "2023-12-31"}


def _session(role: str = "compliance") -> AuditSession:
    return AuditSession(build_environment(SAMPLE), QUESTION, role, data_root=None)


def test_the_offer_reopens_the_audit_and_shows_both_facts_in_words():
    session = _session()
    for tool in CHECKS:
        assert "error" not in session.call(tool, WRONG_YEAR)
    assert session.missing() == []
    mine = session.checked_fact()["key"]
    other = next(k for k in names(session.ctx.env).facts_by_key if k != mine  # the colleague's 2024 fact
                 and session.fact_name(k)["concept"] == "us-gaap:Assets" and session.fact_name(k)["period"] == "2024-12-31")
    offer = recheck_offer(session, tuple(sorted((mine, other))), RECHECKING)
    assert session.missing() == list(REQUIRED["compliance"]) == offer["still_required"]
    assert offer["question"] == QUESTION.text and offer["choose"] == GUIDED.search.options_note
    words = {o["is"]: session.fact_key(o["arguments"]["fact"]) for o in offer["next_call_options"]}
    assert words == {"as of December 31, 2023": mine, "as of December 31, 2024": other}
    assert {o["name"] for o in offer["next_call_options"]} == {"check_sign"}  # compliance's first tool
    # the order is the facts' keys', whoever chose which
    assert [session.fact_key(o["arguments"]["fact"]) for o in offer["next_call_options"]] == sorted((mine, other))


def test_no_offer_without_a_conflict_or_without_search_guidance():
    session = _session()
    session.call("check_sign", WRONG_YEAR)
    assert recheck_offer(session, (), RECHECKING) is None
    assert recheck_offer(session, ("a", "b"), builtin_profile("plain")) is None
    assert session.missing() == ["check_calc_tree", "check_dim_consistency"]  # nothing re-opened


class OptionTaker(BaseChatModel):
    """Round 1: the scripted calls; then, like a guided model, copies ``next_call`` and, offered options,
    takes the one whose words contain ``prefer``; given neither (feedback alone), repeats its last call,
    as the recorded 1.5B model resubmitted its report."""

    role: str
    script: list[dict[str, Any]]
    prefer: str
    _pos: int = PrivateAttr(default=0)
    _offers: list = PrivateAttr(default_factory=list)
    _last: dict = PrivateAttr(default_factory=dict)

    @property
    def _llm_type(self) -> str:
        return "option-taking test double"

    def bind_tools(self, tools, **kwargs):  # noqa: ARG002
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:  # noqa: ARG002
        payload = read_payload(messages[-1].content)
        if self._pos < len(self.script):
            call = self.script[self._pos]
        elif payload.get("next_call_options"):
            self._offers.append(payload)
            call = next(o for o in payload["next_call_options"] if self.prefer in o["is"])
        else:
            call = payload.get("next_call") or self._last
        self._pos, self._last = self._pos + 1, call
        tool_call = {"name": call["name"], "args": call.get("arguments") or {}, "id": f"{self.role}-{self._pos}",
                     "type": "tool_call"}
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="", tool_calls=[tool_call]))])


def _audit(profile=RECHECKING):
    made: dict[str, OptionTaker] = {}

    def models(role: str):
        if role != "compliance":
            return DeterministicPolicy(role=role)
        made[role] = OptionTaker(role=role, prefer="2024",
                                 script=[{"name": t, "arguments": WRONG_YEAR} for t in CHECKS])
        return made[role]

    return run_audit(build_environment(SAMPLE), QUESTION, config="full", models=models, profile=profile), made


def test_auditors_that_checked_different_facts_choose_again_and_audit_the_chosen_fact_in_full():
    result, made = _audit()
    first, second = result.reviews
    assert first.conflict_source == "wrong_period" and not first.accepted
    assert second.accepted, second.reason
    (offer,) = made["compliance"]._offers
    assert sorted(o["is"] for o in offer["next_call_options"]) == ["as of December 31, 2023", "as of December 31, 2024"]
    compliance = next(t for t in result.transcripts if t.role == "compliance").rounds[1]
    ran = [s.tool_call.tool for s in compliance if s.kind == "tool_call"]
    assert ran == list(CHECKS)  # every checker again, on the fact chosen
    assert (result.decision, result.reported_value) == ("violation", 226150000)


def test_a_profile_without_recheck_gives_the_feedback_alone():
    profile = GUIDED
    assert not profile.search.recheck_on_conflict
    made: dict[str, Any] = {}

    class Recorder(OptionTaker):
        def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # noqa: ARG002
            if isinstance(messages[-1], HumanMessage) and "senior_feedback" in messages[-1].content:
                made["feedback"] = json.loads(messages[-1].content)
            return super()._generate(messages)

    def models(role: str):
        if role != "compliance":
            return DeterministicPolicy(role=role)
        return Recorder(role=role, prefer="2024", script=[{"name": t, "arguments": WRONG_YEAR} for t in CHECKS])

    result = run_audit(build_environment(SAMPLE), QUESTION, config="full", models=models, profile=profile)
    assert set(made["feedback"]) == {"round", "senior_feedback"}
    assert not result.reviews[-1].accepted  # each stands by its fact: no verdict


def test_both_auditors_read_the_same_feedback_naming_the_facts_not_who_chose_which():
    result, made = _audit()
    first = result.reviews[0]
    assert set(first.feedback) == {"compliance", "forensic"}
    text = first.feedback["compliance"]
    assert text == first.feedback["forensic"]
    assert "colleague" not in text and "You checked" not in text
    assert "us-gaap:Assets for 2023-12-31 (205000000)" in text and "us-gaap:Assets for 2024-12-31 (226150000)" in text


def test_a_profile_that_rechecks_needs_the_seniors_text_for_it(tmp_path):
    import pytest

    from auditflow.agents.profile import ProfileError, load_profile

    text = (Path(__file__).resolve().parents[2] / "auditflow" / "agents" / "profiles" / "guided.yaml").read_text()
    text = text.replace("recheck_on_conflict: false", "recheck_on_conflict: true")
    cut = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("facts_in_dispute:")) + "\n"
    (tmp_path / "mine.yaml").write_text(cut, encoding="utf-8")
    with pytest.raises(ProfileError, match="facts_in_dispute"):
        load_profile(str(tmp_path / "mine.yaml"))
