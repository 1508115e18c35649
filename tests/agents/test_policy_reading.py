"""The deterministic policy reading questions by meaning (auditflow.agents.policy_reading), switched on
by a tool set that offers resolve_period and resolve_member (the ``natural`` profile's): issue 46's four
example questions on the real filings they name, member questions, a shuffled run, and the switch left
off (tool set 1, the recorded profiles)."""
from __future__ import annotations

import pytest

from auditflow.agents.audit import run_audit
from auditflow.agents.profile import builtin_profile
from auditflow.env import tools as registry
from auditflow.env.query import AuditQuery
from auditflow.graphs.environment import build_environment

@pytest.fixture
def natural():
    """The ``natural`` profile: its tool set offers the resolvers, and that switches the reading on."""
    profile = builtin_profile("natural")
    offered = registry.tool_set(profile.tools).by_name
    assert {"resolve_period", "resolve_member", "search_concepts"} <= set(offered)
    return profile


@pytest.fixture(scope="module")
def envs(data_root, taxonomy):
    tset, graph = taxonomy
    cache: dict = {}

    def get(folder: str):
        if folder not in cache:
            cache[folder] = build_environment(data_root / "filings" / folder, taxonomy_set=tset, taxonomy=graph)
        return cache[folder]
    return get


def audit(envs, data_root, folder, question, profile, **kw):
    return run_audit(envs(folder), AuditQuery(folder, form="text", text=question), data_root=data_root, profile=profile, **kw)


def called(result) -> set[str]:
    return {s.tool_call.tool for t in result.transcripts for r in t.rounds for s in r if s.tool_call is not None}


@pytest.mark.parametrize("folder, question, concept, period", [
    ("aapl-10q-2023-07-01", "How much did Apple spend repurchasing its own stock in the first nine months of fiscal 2023?",
     "us-gaap:PaymentsForRepurchaseOfCommonStock", "2022-09-25..2023-07-01"),
    ("amzn-10k-2022-12-31", "Total current assets on the December 31, 2022 balance sheet", "us-gaap:AssetsCurrent", "2022-12-31"),
    ("tsla-10q-2024-06-30", "Tesla's capital expenditures in the first half of 2024",
     "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment", "2024-01-01..2024-06-30"),
    ("nflx-10q-2024-09-30", "Cash spent on share repurchases in the nine months ended September 30, 2024",
     "us-gaap:PaymentsForRepurchaseOfCommonStock", "2024-01-01..2024-09-30"),
])
def test_the_issues_four_questions(envs, data_root, natural, folder, question, concept, period):
    result = audit(envs, data_root, folder, question, natural)
    assert result.fact is not None and (result.fact["concept"], result.fact["period"], result.fact["dimensions"]) == (
        concept, period, {})
    assert result.decision == "consistent" and str(result.reported_value) == result.fact["value"]
    assert {"resolve_period", "search_concepts", "find_facts"} <= called(result)


def test_a_segment_member_on_the_axis_the_line_item_uses(envs, data_root, natural):
    result = audit(envs, data_root, "aapl-10k-2023-09-30", "Greater China net sales for fiscal 2022", natural)
    assert result.fact["concept"] == "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"
    assert result.fact["period"] == "2021-09-26..2022-09-24"
    assert result.fact["dimensions"] == {"us-gaap:StatementBusinessSegmentsAxis": "aapl:GreaterChinaSegmentMember"}
    assert "resolve_member" in called(result)


def test_a_shuffled_run_picks_the_same_fact(envs, data_root, natural):
    question = "iPhone net sales in fiscal 2023"
    plain = audit(envs, data_root, "aapl-10k-2023-09-30", question, natural)
    shuffled = audit(envs, data_root, "aapl-10k-2023-09-30", question, natural, shuffle=7)
    assert plain.fact == shuffled.fact
    assert plain.fact["dimensions"] == {"srt:ProductOrServiceAxis": "aapl:IPhoneMember"}


def test_tool_set_1_keeps_the_template_reader(envs, data_root):
    """Without the resolvers (the guided profile, tool set 1) the policy reads as it always has: the
    question in the generator's words is found, the one in an analyst's words is not, and no resolver runs."""
    template = audit(envs, data_root, "tsla-10q-2024-06-30", "Purchases of property and equipment excluding finance "
                     "leases, net of sales, six months ended June 30, 2024", "guided")
    assert template.fact["concept"] == "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment"
    natural_words = audit(envs, data_root, "tsla-10q-2024-06-30", "Tesla's capital expenditures in the first half of 2024",
                          "guided")
    assert natural_words.fact is None
    assert not {"resolve_period", "resolve_member"} & (called(template) | called(natural_words))


def test_a_line_item_whose_words_are_also_a_members_label(envs, data_root, natural):
    """Tesla labels a member of its income-statement axis "Cost of revenues": the question means the line
    item, so its total is audited, not a member's fact."""
    result = audit(envs, data_root, "tsla-10q-2024-06-30", "Tesla's total cost of revenues in H1 2024", natural)
    assert (result.fact["concept"], result.fact["period"], result.fact["dimensions"]) == (
        "us-gaap:CostOfRevenue", "2024-01-01..2024-06-30", {})
