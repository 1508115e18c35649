"""The ``natural`` profile's guided search (auditflow.agents.natural_options): the resolvers lead, and
the facts to choose from come ordered and described by their answers, on real filings; the model
still chooses; ``guided`` is untouched."""
from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage

from auditflow.agents.audit import run_audit
from auditflow.agents.natural_options import natural_options
from auditflow.agents.observations import search_options
from auditflow.agents.profile import builtin_profile
from auditflow.agents.prompts import opening_message, read_payload
from auditflow.env.query import AuditQuery
from auditflow.graphs.environment import build_environment
from auditflow.llm.toolcalls import offered_calls

GIVE_UP = {"decision": "unable_to_verify", "triggered_rules": [], "reported_value": None, "expected_value": None,
           "confidence": 0.0, "evidence": [], "rationale": "scripted"}


class Chooser:
    """A scripted model: among offered calls it takes ``pick(options)``, else the ready ``next_call``;
    it keeps every observation it read."""

    def __init__(self, pick=lambda options: options[0]):
        self.pick, self.read, self.n = pick, [], 0

    def bind_tools(self, tools):
        self.tools = tools
        return self

    def invoke(self, messages):
        self.n += 1
        payload = read_payload(messages[-1].content)
        self.read.append(payload)
        offered = offered_calls(messages, self.tools)
        nxt = payload.get("next_call") or {}
        call = self.pick(offered) if offered else {"name": nxt.get("name", "final_report"), "arguments": nxt.get("arguments")}
        args = call["arguments"] or GIVE_UP if call["name"] == "final_report" else call["arguments"]
        return AIMessage(content="", tool_calls=[{"name": call["name"], "args": args, "id": f"c{self.n}"}])


@pytest.fixture(scope="module")
def envs(data_root, taxonomy):
    tset, graph = taxonomy
    cache: dict = {}

    def get(folder: str):
        if folder not in cache:
            cache[folder] = build_environment(data_root / "filings" / folder, taxonomy_set=tset, taxonomy=graph)
        return cache[folder]
    return get


def audit(envs, data_root, folder, question, profile="natural", pick=lambda o: o[0]):
    model = Chooser(pick)
    result = run_audit(envs(folder), AuditQuery(folder, form="text", text=question), config="single-agent",
                       models=lambda role: model, data_root=data_root, profile=builtin_profile(profile))
    return result, model


def fact_options(model) -> list[dict]:
    """The options offered after find_facts: those that name a fact handle."""
    return next(p["next_call_options"] for p in model.read
                if any("fact" in (o.get("arguments") or {}) for o in p.get("next_call_options") or []))


def test_the_opening_offers_the_search_and_the_period_resolution_and_guided_only_the_search():
    opening = {"question": "Tesla's capex in H1 2024", "queried_fact": None, "still_required": ["check_sign"],
               "tools": ["search_concepts", "resolve_period", "resolve_member", "find_facts"], "role": "single"}
    natural = json.loads(opening_message(opening, rule_hint=None, profile=builtin_profile("natural")))
    assert natural["next_call_options"] == [
        {"name": "search_concepts", "arguments": {"text": "Tesla's capex in H1 2024"}},
        {"name": "resolve_period", "arguments": {"phrase": "Tesla's capex in H1 2024"}}]
    guided = json.loads(opening_message(opening, rule_hint=None, profile=builtin_profile("guided")))
    assert guided["next_call_options"] == [{"name": "search_concepts", "arguments": {"text": "Tesla's capex in H1 2024"}}]


def test_the_period_the_resolver_ranks_first_leads_the_facts_with_its_reason(envs, data_root):
    result, model = audit(envs, data_root, "tsla-10q-2024-06-30", "Tesla's capital expenditures in the first half of 2024")
    called = [s.tool_call.tool for t in result.transcripts for r in t.rounds for s in r if s.tool_call is not None]
    assert called[:3] == ["search_concepts", "resolve_period", "find_facts"]
    assert (result.fact["concept"], result.fact["period"]) == ("us-gaap:PaymentsToAcquirePropertyPlantAndEquipment",
                                                               "2024-01-01..2024-06-30")
    # find_facts asked for the period resolve_period ranked first
    find = next(s.tool_call for t in result.transcripts for r in t.rounds for s in r
                if s.tool_call is not None and s.tool_call.tool == "find_facts")
    assert find.arguments["period"] == "2024-01-01..2024-06-30"
    assert "first half of 2024" in fact_options(model)[0]["why"]


def test_members_named_are_resolved_and_their_fact_is_offered_first_in_the_questions_words(envs, data_root):
    question = "Net sales in Greater China for fiscal 2023"
    result, model = audit(envs, data_root, "aapl-10k-2023-09-30", question)
    called = [s.tool_call for t in result.transcripts for r in t.rounds for s in r if s.tool_call is not None]
    assert [c.tool for c in called[:4]] == ["search_concepts", "resolve_period", "resolve_member", "find_facts"]
    assert called[2].arguments == {"phrase": "greater china"}
    options = fact_options(model)
    assert len(options) > 1  # the model chooses among them
    assert options[0]["is"] == "Greater China Segment, year ended September 30, 2023 (the question's 'greater china')"
    assert options[0]["why"].startswith("fiscal 2023 = fiscal year 2023")
    assert options[1]["is"] == "year ended September 30, 2023"  # the total, then the other members
    assert result.fact["dimensions"] == {"us-gaap:StatementBusinessSegmentsAxis": "aapl:GreaterChinaSegmentMember"}


def test_the_model_still_chooses_another_option_is_audited_as_chosen(envs, data_root):
    question = "Net sales in Greater China for fiscal 2023"

    def second_fact(options):
        return options[1] if any("fact" in o["arguments"] for o in options) else options[0]
    result, _ = audit(envs, data_root, "aapl-10k-2023-09-30", question, pick=second_fact)
    assert result.fact["dimensions"] == {} and result.fact["period"] == "2022-09-25..2023-09-30"


def test_guided_on_the_same_question_reads_the_guided_options(envs, data_root):
    question = "Net sales in Greater China for fiscal 2023"
    result, model = audit(envs, data_root, "aapl-10k-2023-09-30", question, profile="guided")
    called = {s.tool_call.tool for t in result.transcripts for r in t.rounds for s in r if s.tool_call is not None}
    assert not called & {"resolve_period", "resolve_member"}
    assert all("why" not in o and "(the question's" not in str(o.get("is"))
               for p in model.read for o in p.get("next_call_options") or [])


def test_no_fact_for_the_resolved_period_offers_the_other_concepts_then_this_one_for_every_period():
    profile = builtin_profile("natural")
    steps = [
        {"tool": "search_concepts", "arguments": {"text": "q"}, "observation": {"concepts": [
            {"concept": "us-gaap:Revenues", "label": "Revenues", "reported": True}]}},
        {"tool": "resolve_period", "arguments": {"phrase": "q"}, "observation": {"read": "fiscal 2023", "candidates": [
            {"rank": 1, "period": "2022-10-01..2023-09-30", "in_filing": True, "reason": "fiscal 2023 = ..."}]}},
        {"tool": "find_facts", "arguments": {"concept": "us-gaap:Revenues", "period": "2022-10-01..2023-09-30"},
         "observation": {"concept": "us-gaap:Revenues", "facts": [], "count": 0}},
    ]
    allowed = ("search_concepts", "resolve_period", "resolve_member", "find_facts", "get_fact_history", "check_sign")

    def choices(step):
        return search_options(step, "single", allowed, ["get_fact_history", "check_sign"], profile)
    offered, instead = natural_options(steps, allowed, "q", choices)
    assert instead and offered == [{"is": "us-gaap:Revenues for every period", "name": "find_facts",
                                    "arguments": {"concept": "us-gaap:Revenues"}}]
    # with another hit, that one first, for the period resolved
    steps[0]["observation"]["concepts"].append({"concept": "us-gaap:SalesRevenueNet", "label": "Sales", "reported": True})
    offered, _ = natural_options(steps, allowed, "q", choices)
    assert [(o["arguments"]["concept"], o["arguments"].get("period")) for o in offered] == [
        ("us-gaap:SalesRevenueNet", "2022-10-01..2023-09-30"), ("us-gaap:Revenues", None)]
    # before that listing, the search's concept is offered with the period resolved first
    offered, instead = natural_options(steps[:2], allowed, "q", choices)
    assert instead and offered[0]["arguments"] == {"concept": "us-gaap:Revenues", "period": "2022-10-01..2023-09-30"}


def test_member_words_the_concepts_own_label_holds_do_not_reorder_its_facts(envs, data_root):
    # the search reads "services" as a member's word, but it is the line item's: the total leads
    question = "Apple Cost of Goods and Services Sold for fiscal year 2021"
    result, model = audit(envs, data_root, "aapl-10k-2022-09-24", question)
    assert fact_options(model)[0]["is"] == "year ended September 25, 2021"
    assert (result.fact["period"], result.fact["dimensions"]) == ("2020-09-27..2021-09-25", {})


def test_the_search_stems_alike_in_threads_as_eval_jobs_runs_cases():
    # eval --jobs 2 runs two cases' searches at once: a shared Snowball stemmer corrupted itself
    # ("IndexError: string index out of range" as a search_concepts observation)
    import threading

    from auditflow.env.search import stems
    texts = [f"payments to acquire property plant and equipment {i} accumulated depreciation amortization "
             f"receivables written off contributions distributions {i}" for i in range(300)]
    want = [stems(t) for t in texts]
    got: dict[int, list] = {}
    errors: list[BaseException] = []

    def work(k):
        try:
            got[k] = [stems(t) for t in texts]
        except BaseException as exc:  # noqa: BLE001 - the failure under test
            errors.append(exc)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and all(g == want for g in got.values())
