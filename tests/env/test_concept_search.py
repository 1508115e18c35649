"""Concept search by meaning (tool set 2) on real filings joined to the real taxonomy, and the tool-set
version a prompt profile chooses (version 1 stays what the recordings read).

Each question below is worded as an auditor or analyst types it, never as the generator's templates
do: the four examples of issue 46, then one question per label role, phrased like the filer's label of
that role with a period around it (docs/query-forms.md, "Concept search")."""
from __future__ import annotations

import json

import pytest

from auditflow.agents.profile import PROFILE_DIR, ProfileError, builtin_profile, parse_profile
from auditflow.env.names import names
from auditflow.env.query import AuditQuery
from auditflow.env.search import Company, read_query
from auditflow.env.session import ROLE_TOOLS, AuditSession
from auditflow.env.tool_base import ToolContext
from auditflow.env.tools import TOOLS, TOOLSET_V1, TOOLSET_V2, run_tool, tool_set
from auditflow.graphs.environment import build_environment
from auditflow.llm.cachekey import CacheKey

_ENVS: dict = {}


@pytest.fixture(scope="module")
def env_of(data_root, taxonomy):
    """A real filing's environment with the taxonomy, loaded once per module."""
    tset, graph = taxonomy

    def load(folder: str):
        if folder not in _ENVS:
            _ENVS[folder] = build_environment(data_root / "filings" / folder, taxonomy_set=tset, taxonomy=graph)
        return _ENVS[folder]

    return load


def search(env, text: str, *, version=TOOLSET_V2, limit: int = 10) -> dict:
    obs = run_tool(ToolContext(env), "search_concepts", {"text": text, "limit": limit}, tools=version)
    json.dumps(obs)
    return obs


def ranked(obs: dict) -> list[str]:
    return [h["concept"] for h in obs.get("concepts", [])]


# -- the four questions of issue 46 ------------------------------------------------------------------
EXAMPLES = [
    ("tsla-10q-2024-06-30", "Tesla's capital expenditures in the first half of 2024",
     "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment"),
    ("aapl-10q-2023-07-01", "How much did Apple spend repurchasing its own stock in the first nine months of fiscal 2023?",
     "us-gaap:PaymentsForRepurchaseOfCommonStock"),
    ("aapl-10k-2023-09-30", "How much did Apple spend repurchasing its own stock in fiscal 2023?",
     "us-gaap:PaymentsForRepurchaseOfCommonStock"),
    ("amzn-10k-2022-12-31", "Total current assets on the December 31, 2022 balance sheet", "us-gaap:AssetsCurrent"),
    ("nflx-10k-2023-12-31", "Total current assets on the December 31, 2022 balance sheet", "us-gaap:AssetsCurrent"),
    ("nflx-10q-2024-09-30", "Cash spent on share repurchases in the nine months ended September 30, 2024",
     "us-gaap:PaymentsForRepurchaseOfCommonStock"),
]


@pytest.mark.parametrize("folder, question, concept", EXAMPLES)
def test_the_issue_questions_find_their_concept_in_the_top_three(env_of, folder, question, concept):
    obs = search(env_of(folder), question)
    assert concept in ranked(obs)[:3], (question, ranked(obs)[:5])
    hit = next(h for h in obs["concepts"] if h["concept"] == concept)
    assert hit["reported"] is True and hit["why"]


@pytest.mark.parametrize("folder, question, concept", EXAMPLES[:1] + EXAMPLES[-1:])
def test_version_1_still_misses_them(env_of, folder, question, concept):
    """Tool set 1 is unchanged: the questions that drove version 2 still find nothing useful there."""
    obs = search(env_of(folder), question, version=TOOLSET_V1)
    assert concept not in ranked(obs)[:3]


# -- one question per label role ----------------------------------------------------------------------
ROLES = [
    # (role, filing, question worded like the filer's label of that role, concept)
    ("label", "nflx-10q-2024-09-30", "Income tax expense (benefit) for the nine months ended September 30, 2024",
     "us-gaap:IncomeTaxExpenseBenefit"),
    ("terseLabel", "aapl-10k-2023-09-30", "Proceeds from sales of marketable securities in fiscal 2023",
     "us-gaap:ProceedsFromSaleOfAvailableForSaleSecuritiesDebt"),
    ("verboseLabel", "aapl-10k-2023-09-30", "What was the amount of share repurchases, excluding excise tax, in fiscal 2023?",
     "us-gaap:StockRepurchasedAndRetiredDuringPeriodValue"),
    ("totalLabel", "tsla-10q-2024-06-30", "Net income attributable to common stockholders in the second quarter of 2024",
     "us-gaap:NetIncomeLoss"),
    ("negatedLabel", "nflx-10q-2024-09-30", "Purchases of property and equipment during the first nine months of 2024",
     "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment"),
    ("negatedTerseLabel", "nflx-10q-2024-09-30", "Taxes paid related to net share settlement of equity awards, Q3 2024",
     "us-gaap:PaymentsRelatedToTaxWithholdingForShareBasedCompensation"),
    ("periodStartLabel", "nflx-10q-2024-09-30", "Cash, cash equivalents and restricted cash at the beginning of 2024",
     "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents"),
    ("periodEndLabel", "tsla-10q-2024-06-30", "Cash and cash equivalents and restricted cash at the end of June 2024",
     "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsIncludingDisposalGroupAndDiscontinuedOperations"),
]


@pytest.mark.parametrize("role, folder, question, concept", ROLES, ids=[r[0] for r in ROLES])
def test_a_question_worded_like_a_label_role_finds_its_concept_first(env_of, role, folder, question, concept):
    env = env_of(folder)
    n = names(env)
    q = next(q for q in n.known if n.qstr(q) == concept)
    assert role in n.labels[q], f"{folder}: {concept} has no {role} (the test's premise)"
    obs = search(env, question)
    assert ranked(obs)[0] == concept, (question, ranked(obs)[:5])


def test_the_hit_says_which_label_matched_and_why(env_of):
    obs = search(env_of("nflx-10q-2024-09-30"), "Purchases of property and equipment in 2024")
    top = obs["concepts"][0]
    assert top["matched_label"] == "Purchases of property and equipment"
    assert top["why"].startswith("negated label, 3 of 3 words"), top["why"]
    assert "reported" in top["why"] and "on a statement" in top["why"]
    assert set(top) == {"concept", "label", "reported", "matched_label", "why"}  # short and flat


def test_shorthand_is_named_in_the_observation(env_of):
    obs = search(env_of("tsla-10q-2024-06-30"), "capex, first half of 2024")
    assert "capex" in obs["shorthand"] and ranked(obs)[0] == "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment"


@pytest.mark.parametrize("question, reported, declared", [
    # the same filer label on both: the us-gaap concept the facts use and an extension with no fact, which its
    # statement presents (without the boost the extension ranks first)
    ("Issuance of common stock for debt settlement", "us-gaap:StockIssuedDuringPeriodValueNewIssues",
     "gahc:IssuanceOfCommonStockForDebtSettlementValue"),
    # the same words in another order: without the boost the unreported "Debt Forgiveness" ranks first
    ("Debt forgiveness", "gahc:ForgivenessOfDebt", "gahc:DebtForgiveness"),
])
def test_reported_concepts_outrank_unreported_twins(env_of, question, reported, declared):
    """Boost: a concept the filing reports beats one it only declares, the words being equal. GAHC's 10-Q
    declares concepts it reports no fact of next to the ones it does, under the same words."""
    obs = search(env_of("gahc-10q-2024-09-30"), question)
    hits = {h["concept"]: h for h in obs["concepts"]}
    assert reported in hits and declared in hits, ranked(obs)
    assert hits[reported]["reported"] is True and hits[declared]["reported"] is False
    words = {q: hits[q]["why"].split(", ")[1].split(";")[0] for q in (reported, declared)}
    assert words[reported] == words[declared], words  # "3 of 3 words" both: twins by the question's words
    assert ranked(obs).index(reported) < ranked(obs).index(declared), ranked(obs)


def test_the_question_is_read_without_period_filler_and_company():
    apple = Company(frozenset({"apple", "aapl"}), frozenset({"apple", "inc", "aapl"}))
    q = read_query("How much did Apple spend repurchasing its own stock in the first nine months of fiscal 2023?", apple)
    assert q.words == ("spend", "repurchasing", "own", "stock")
    assert [p for p, _ in q.shorthand] == ["spend", "repurchasing its own stock"]
    tesla = Company(frozenset({"tesla", "tsla"}), frozenset({"tesla", "inc", "tsla"}))
    q = read_query("Tesla's SG&A and R&D for Q2 2024", tesla)
    assert {p for p, _ in q.shorthand} == {"sg&a", "r&d"} and "tesla" not in q.words
    # the name's other words go only with the name: "Inc" is a word of a question that does not name Tesla
    assert "inc" in read_query("Inc revenue", tesla).words and "inc" not in read_query("Tesla Inc revenue", tesla).words
    q = read_query("Greater China net sales for fiscal 2022", members=("greater china", "china"))
    assert q.member_words == ("greater china",) and len(q.units()) == 1  # the question is about net sales
    q = read_query("Cost of sales, year ended September 30, 2023")  # the longest shorthand is read once
    assert [p for p, _ in q.shorthand] == ["cost of sales"]  # not also "sales"


def test_nothing_found_is_a_typed_error(data_root):
    env = build_environment(data_root / "filings" / "tsla-10q-2024-06-30")  # no taxonomy: nothing to top up from
    obs = search(env, "zebra quokka")
    assert obs["error"]["type"] == "unknown_concept" and "zebra quokka" in obs["error"]["message"]
    assert search(env, "   ")["error"]["type"] == "bad_arguments"


# -- the tool-set version ---------------------------------------------------------------------------------
def test_version_1_is_the_registry_as_recorded():
    assert TOOLSET_V1.by_name == TOOLS
    assert tool_set(1) is TOOLSET_V1 and tool_set(2) is TOOLSET_V2
    with pytest.raises(ValueError, match="no tool set version 3"):
        tool_set(3)
    assert TOOLSET_V2.names("static") == ("search_concepts", "get_concept", "get_calc_children", "get_calc_parents",
                                          "get_dimension_members", "resolve_period", "resolve_member")
    assert TOOLSET_V2.dynamic == TOOLSET_V1.dynamic and TOOLSET_V2.checks == TOOLSET_V1.checks
    assert TOOLSET_V2.by_name["search_concepts"].input_schema["required"] == ["text"]
    assert TOOLSET_V2.by_name["search_concepts"].description != TOOLS["search_concepts"].description


def test_sessions_bind_the_profiles_tool_set(env_of):
    env = env_of("aapl-10k-2023-09-30")
    query = AuditQuery("aapl", form="text", text="Total current assets as of September 30, 2023")
    for role in ROLE_TOOLS:
        v1 = AuditSession(env, query, role, data_root=None)
        v2 = AuditSession(env, query, role, data_root=None, tools=2)
        assert v1.tool_schemas() == [TOOLS[t].openai_schema() for t in ROLE_TOOLS[role]]  # as recorded
        assert set(v1.allowed) <= set(v2.allowed) and v1.required == v2.required
        assert v2.call("search_concepts", {"text": query.text})["concepts"][0]["concept"] == "us-gaap:AssetsCurrent"
        keys = {CacheKey.compute(role=role, model="m", messages=[], tools=s.tool_schemas()).key for s in (v1, v2)}
        assert len(keys) == 2  # another tool set is another request: its calls never replay version 1's


def test_the_profile_chooses_the_tool_set_and_stamps_it_only_when_not_1():
    guided, natural = builtin_profile("guided"), builtin_profile("natural")
    assert guided.tools == 1 and builtin_profile("plain").tools == 1
    assert set(guided.stamp()) == {"name", "sha256", "source"}  # as recorded before tool sets existed
    assert natural.tools == 2 and natural.stamp()["tools"] == "2"
    raw = (PROFILE_DIR / "natural.yaml").read_bytes().replace(b"\ntools: 2\n", b"\ntools: 7\n")
    with pytest.raises(ProfileError, match=r"mine\.yaml: tools must be a tool-set version, one of 1, 2; got 7"):
        parse_profile(raw, "mine.yaml")
    assert parse_profile(raw.replace(b"\ntools: 7\n", b"\n"), "mine.yaml").tools == 1


def test_the_policy_asked_a_question_defaults_to_natural():
    from auditflow.agents.profile import load_profile

    assert load_profile(None, model="policy", question=True).name == "natural"
    assert load_profile(None, model="policy").name == "guided"  # case runs and structured queries: as before
    assert load_profile(None, model="local:qwen2.5-coder-1.5b", question=True).name == "guided"  # recordings replay
    assert load_profile("guided", model="policy", question=True).name == "guided"  # a named profile wins


@pytest.mark.parametrize("folder, question, concept, period", [
    ("tsla-10q-2024-06-30", "Tesla's capital expenditures in the first half of 2024",
     "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment", "2024-01-01..2024-06-30"),
    ("amzn-10k-2022-12-31", "Total current assets on the December 31, 2022 balance sheet", "us-gaap:AssetsCurrent",
     "2022-12-31"),
])
def test_auditflow_audit_question_answers_in_an_auditors_words(data_root, capsys, folder, question, concept, period):
    """``auditflow audit --question`` with its default backend (the policy) and no --prompts: issue 46's
    questions are answered (tests/agents/test_policy_reading.py runs all four through run_audit)."""
    from auditflow.cli.main import main

    code = main(["audit", str(data_root / "filings" / folder), "--question", question, "--format", "json",
                 "--data-root", str(data_root)])
    result = json.loads(capsys.readouterr().out)
    assert (result["fact"]["concept"], result["fact"]["period"], result["fact"]["dimensions"]) == (concept, period, {})
    assert result["profile"]["name"] == "natural" and result["profile"]["tools"] == "2"
    assert code == 0 and result["decision"] == "consistent"
