"""Search guidance of the guided profile: ready calls to choose from while an auditor looks for the
fact a question names, the constraint that holds a text-only model to them, and the stall cut.

The harness never chooses: every candidate the last tool showed is offered, in the tool's order."""
from __future__ import annotations

import json

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from auditflow.agents.junior import MAX_STALLED_STEPS, run_turn
from auditflow.agents.observations import guided_view, ready_report, search_options
from auditflow.agents.profile import builtin_profile
from auditflow.agents.prompts import opening_message
from auditflow.env.session import ROLE_TOOLS, AuditSession
from auditflow.env.query import AuditQuery
from auditflow.graphs.environment import build_environment
from auditflow.llm.toolcalls import LOOKING_FOR, offered_calls, offered_format, parse_tool_call

from test_protocol import SAMPLE  # noqa: E402 - the bundled sample filing

GUIDED = builtin_profile("guided")
PLAIN = builtin_profile("plain")
REQUIRED = ["check_sign", "check_calc_tree", "check_dim_consistency", "get_fact_history"]

SEARCH = {"tool": "search_concepts", "arguments": {"text": "Cost of sales, year ended September 30, 2023"},
          "observation": {"concepts": [
              {"concept": "us-gaap:CostOfGoodsAndServicesSold", "label": "Cost of Goods and Services Sold",
               "matched_label": "Cost of sales", "reported": True},
              {"concept": "us-gaap:CostOfRevenue", "label": "Cost of Revenue", "reported": False},
              {"concept": "us-gaap:OperatingLeaseCost", "label": "Operating Lease, Cost", "reported": True}]}}
FIND = {"tool": "find_facts", "arguments": {"concept": "us-gaap:CostOfGoodsAndServicesSold"},
        "observation": {"facts": [
            {"fact": "F1", "period": "2021-09-26..2022-09-24", "period_text": "year ended September 24, 2022", "dimensions": {}},
            {"fact": "F2", "period": "2022-09-25..2023-09-30", "period_text": "year ended September 30, 2023",
             "dimensions": {"srt:ProductOrServiceAxis": "us-gaap:ServiceMember"}, "members": ["Service [Member]"]}]}}


def options(step, role="forensic", required=REQUIRED):
    return search_options(step, role, ROLE_TOOLS[role], list(required), GUIDED)


def test_after_a_search_every_reported_hit_is_offered_in_the_tools_order_with_its_label():
    assert options(SEARCH) == [
        {"is": "Cost of sales", "name": "find_facts", "arguments": {"concept": "us-gaap:CostOfGoodsAndServicesSold"},
         "label": "Cost of Goods and Services Sold"},
        {"is": "Operating Lease, Cost", "name": "find_facts", "arguments": {"concept": "us-gaap:OperatingLeaseCost"}}]


def test_a_role_that_cannot_browse_facts_is_offered_its_first_checker_on_each_hit():
    offered = options(SEARCH, role="compliance", required=REQUIRED[:3])
    assert [o["name"] for o in offered] == ["check_sign", "check_sign"]
    assert offered[0]["arguments"] == {"concept": "us-gaap:CostOfGoodsAndServicesSold"}


def test_after_find_facts_each_fact_is_offered_in_words_as_a_statement_heads_it():
    offered = options(FIND)
    assert offered == [
        {"is": "year ended September 24, 2022", "name": "get_fact_history", "arguments": {"fact": "F1"}},
        {"is": "Service, year ended September 30, 2023", "name": "get_fact_history", "arguments": {"fact": "F2"}}]


def test_an_error_naming_periods_offers_the_same_call_with_each_period():
    step = {"tool": "check_sign", "arguments": {"concept": "us-gaap:Revenues"},
            "observation": {"error": {"type": "bad_arguments", "message": "give period together with concept",
                                      "close_matches": ["2023-09-30", "2022-10-01..2023-09-30"]}}}
    assert options(step, role="compliance", required=REQUIRED[:3]) == [
        {"is": "as of September 30, 2023", "name": "check_sign", "arguments": {"concept": "us-gaap:Revenues", "period": "2023-09-30"}},
        {"is": "year ended September 30, 2023", "name": "check_sign",
         "arguments": {"concept": "us-gaap:Revenues", "period": "2022-10-01..2023-09-30"}}]


def test_options_are_capped_and_absent_once_nothing_is_required_or_the_step_offers_no_candidates():
    many = {"tool": "find_facts", "observation": {"facts": [
        {"fact": f"F{i}", "period": "2023-09-30", "period_text": "as of September 30, 2023"} for i in range(1, 30)]}}
    assert len(options(many)) == GUIDED.search.max_options
    assert options({"tool": "get_fact_history", "arguments": {"fact": "F1"}, "observation": {"history": []}}) == []
    view = guided_view(dict(FIND["observation"], still_required=[]), [FIND], focus=None, profile=GUIDED,
                       role="forensic", allowed=ROLE_TOOLS["forensic"])
    assert "next_call_options" not in view


def test_the_view_offers_options_in_place_of_the_lists_they_repeat_and_restates_the_question():
    view = guided_view(dict(FIND["observation"], still_required=REQUIRED), [SEARCH, FIND], focus=None, profile=GUIDED,
                       role="forensic", allowed=ROLE_TOOLS["forensic"], question="Cost of sales, FY2023")
    assert "facts" not in view and len(view["next_call_options"]) == 2
    assert view["question"] == "Cost of sales, FY2023" and view["choose"] == GUIDED.search.options_note
    # plain offers nothing: a capable model plans its own search
    plain = guided_view(dict(FIND["observation"], still_required=REQUIRED), [SEARCH, FIND], focus=None, profile=PLAIN,
                        role="forensic", allowed=ROLE_TOOLS["forensic"], question="Cost of sales, FY2023")
    assert "next_call_options" not in plain and "facts" in plain


def test_once_a_fact_is_chosen_the_next_required_tool_is_offered_on_it():
    step = {"tool": "get_fact_history", "arguments": {"fact": "F2"}, "observation": {"history": []}}
    view = guided_view({"history": [], "still_required": REQUIRED[:3]}, [SEARCH, FIND, step], focus=None, profile=GUIDED,
                       chosen="F2", role="forensic", allowed=ROLE_TOOLS["forensic"])
    assert view["next_call"] == {"name": "check_sign", "arguments": {"fact": "F2"}}


def test_a_searching_auditor_is_offered_the_report_its_checkers_imply_on_the_fact_it_chose():
    target = {"fact": "F3", "value": "100"}
    assert ready_report([], ["0015"], target) == {"decision": "consistent", "triggered_rules": [], "reported_value": "100",
                                                  "expected_value": "100", "confidence": 1.0, "evidence": ["F3"]}
    found = [{"code": "DQC.US.0126.9590", "reported": "100", "expected": "90"}]
    assert ready_report(found, ["0015"], target)["decision"] == "violation"
    assert ready_report([], [], target)["expected_value"] is None
    # the summary and the offered report count only the checkers run on the chosen fact
    other = {"tool": "check_sign", "observation": {"rule": "0015", "outcome": "violation", "code": "X", "fact": "F2"}}
    mine = {"tool": "check_calc_tree", "observation": {"rule": "0126", "outcome": "consistent", "fact": "F3"}}
    view = guided_view({"still_required": []}, [other, mine], focus=None, profile=GUIDED, target=target, role="forensic",
                       allowed=ROLE_TOOLS["forensic"])
    assert view["violations_found"] == [] and view["next_call"]["arguments"]["decision"] == "consistent"


def test_a_searching_opening_offers_the_search_for_the_questions_own_words_and_plain_offers_none():
    opening = {"role": "compliance", "tools": list(ROLE_TOOLS["compliance"]), "queried_fact": None,
               "question": "Cost of sales, FY2023", "still_required": REQUIRED[:3]}
    payload = json.loads(opening_message(opening, rule_hint=None, profile=GUIDED))
    assert payload["next_call_options"] == [{"name": "search_concepts", "arguments": {"text": "Cost of sales, FY2023"}}]
    assert "next_call" not in payload
    assert "next_call_options" not in json.loads(opening_message(opening, rule_hint=None, profile=PLAIN))


# -- the constraint ------------------------------------------------------------------------------------
TOOLS = [{"type": "function", "function": {"name": n, "parameters": {"type": "object", "properties": {}}}}
         for n in ("find_facts", "get_fact_history", "search_concepts")]


def test_the_latest_observations_options_are_the_only_calls_a_constrained_model_may_write():
    offered = options(FIND)
    msgs = [SystemMessage("s"), HumanMessage("{}"), AIMessage("", tool_calls=[{"name": "find_facts", "args": {}, "id": "c1"}]),
            ToolMessage(json.dumps({"next_call_options": offered, "question": "Service, FY2023"}), tool_call_id="c1")]
    calls = offered_calls(msgs, TOOLS)
    assert [c["arguments"] for c in calls] == [{"fact": "F1"}, {"fact": "F2"}]
    schema = offered_format(calls)["json_schema"]["schema"]
    first = schema["anyOf"][0]["properties"]
    assert list(first) == [LOOKING_FOR, "is", "name", "arguments"]  # the words before the choice
    assert first[LOOKING_FOR] == {"const": "Service, FY2023"}  # the question, copied right before choosing
    assert first["arguments"] == {"const": {"fact": "F1"}}
    # with no question restated, the model writes its own words
    calls[0]["question"] = calls[1]["question"] = None
    assert offered_format(calls)["json_schema"]["schema"]["anyOf"][0]["properties"][LOOKING_FOR]["type"] == "string"
    # what the model writes under that constraint parses as the call it chose
    text = json.dumps({LOOKING_FOR: "Service, FY2023", "is": offered[1]["is"], "name": "get_fact_history",
                       "arguments": {"fact": "F2"}})
    assert parse_tool_call(text, ["get_fact_history"]) == ("get_fact_history", {"fact": "F2"})


def test_no_constraint_once_the_model_replied_or_when_an_option_names_an_unbound_tool():
    offered = options(FIND)
    tool_msg = ToolMessage(json.dumps({"next_call_options": offered}), tool_call_id="c1")
    assert offered_calls([tool_msg, AIMessage("{}")], TOOLS) is None
    unbound = ToolMessage(json.dumps({"next_call_options": [{"name": "check_sign", "arguments": {}}]}), tool_call_id="c1")
    assert offered_calls([unbound], TOOLS) is None
    assert offered_calls([ToolMessage(json.dumps({"facts": []}), tool_call_id="c1")], TOOLS) is None
    # a single option needs no words before it
    single = offered_format([{"is": None, "name": "search_concepts", "arguments": {"text": "x"}}])
    assert list(single["json_schema"]["schema"]["anyOf"][0]["properties"]) == ["name", "arguments"]


# -- the stall cut ---------------------------------------------------------------------------------------
class Repeating:
    """A model that makes the same kind of call again and again: ``call(n)`` is its n-th (name, args);
    by default it asks for fact handles that do not exist."""

    def __init__(self, call=lambda n: ("get_fact", {"fact": f"F{90 + n % 2}"})):
        self.calls = 0
        self._call = call

    def invoke(self, messages):
        self.calls += 1
        name, args = self._call(self.calls)
        return AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"c{self.calls}"}])


def test_a_turn_that_moves_nothing_ends_after_a_few_steps_not_at_its_budget():
    session = AuditSession(build_environment(SAMPLE), AuditQuery("acme", form="text", text="Revenue"), "forensic",
                           data_root=None)
    model = Repeating()
    turn = run_turn(model, session, [HumanMessage("{}")], profile=GUIDED)
    assert model.calls == MAX_STALLED_STEPS and turn.report is None and turn.structural_failure


def test_an_error_naming_member_sets_offers_the_same_call_with_each_as_dimensions():
    step = {"tool": "check_sign", "arguments": {"concept": "us-gaap:PlanAssets", "period": "2019-09-30"},
            "observation": {"error": {"type": "unknown_fact", "message": "reported under these members",
                                      "close_matches": ["us-gaap:PlanAxis=us-gaap:DomesticPlanMember",
                                                        "us-gaap:PlanAxis=us-gaap:ForeignPlanMember, srt:X=srt:YMember"]}}}
    offered = options(step, role="compliance", required=REQUIRED[:3])
    assert offered[0] == {"is": "us-gaap:DomesticPlanMember", "name": "check_sign", "arguments": {
        "concept": "us-gaap:PlanAssets", "period": "2019-09-30", "dimensions": {"us-gaap:PlanAxis": "us-gaap:DomesticPlanMember"}}}
    assert offered[1]["arguments"]["dimensions"] == {"us-gaap:PlanAxis": "us-gaap:ForeignPlanMember", "srt:X": "srt:YMember"}


def test_a_selector_without_dimensions_for_a_fact_reported_only_under_members_is_told_the_members(data_root):
    from auditflow.graphs.factory import shared_environment
    from auditflow.graphs.factory import locate_filing

    env = shared_environment(locate_filing("hi-10k-2020-09-30", data_root))
    session = AuditSession(env, AuditQuery("hi", form="text", text="Fair value of plan assets (Domestic Plan), as of "
                                                                   "September 30, 2019"), "compliance", data_root=data_root)
    concept = "us-gaap:DefinedBenefitPlanFairValueOfPlanAssets"
    obs = session.call("check_sign", {"concept": concept, "period": "2019-09-30"})
    assert "under these members" in obs["error"]["message"]
    domestic = "us-gaap:RetirementPlanSponsorLocationAxis=us-gaap:DomesticPlanMember"
    assert domestic in obs["error"]["close_matches"]
    offered = options(session.transcript[-1], role="compliance", required=REQUIRED[:3])
    chosen = next(o for o in offered if o["is"] == "us-gaap:DomesticPlanMember")
    assert "error" not in session.call(chosen["name"], chosen["arguments"])


def test_without_gating_the_search_still_offers_its_candidates_with_the_tool_the_role_would_run():
    assert [o["name"] for o in options(FIND, required=[])] == ["get_fact_history", "get_fact_history"]
    assert [o["name"] for o in options(SEARCH, role="compliance", required=[])] == ["check_sign", "check_sign"]
    view = guided_view(dict(FIND["observation"], still_required=[]), [SEARCH, FIND], focus=None, profile=GUIDED,
                       role="forensic", allowed=ROLE_TOOLS["forensic"], gated=False)
    assert len(view["next_call_options"]) == 2
    # a role with nothing it could run on a fact (no-checks Compliance) is offered nothing
    static = tuple(t for t in ROLE_TOOLS["compliance"] if not t.startswith("check_"))
    assert search_options(SEARCH, "compliance", static, [], GUIDED) == []


def test_with_the_fact_handed_over_a_repeated_call_ends_the_turn_too():
    session = AuditSession(build_environment(SAMPLE), AuditQuery("acme", "us-gaap:Assets", "2024-12-31"), "compliance",
                           data_root=None)
    assert not session.searching
    model = Repeating(lambda n: ("check_sign", {"fact": "F1"}))  # a checker on F1, then the same again
    turn = run_turn(model, session, [HumanMessage("{}")], profile=GUIDED)
    # the first call moves the audit (a checker ran), the next MAX_STALLED_STEPS repeat it: far below 14
    assert model.calls == 1 + MAX_STALLED_STEPS and turn.report is None and turn.structural_failure
