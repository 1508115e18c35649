"""The typed tools over the dual graph: happy paths and typed errors, on the bundled sample filing
(no taxonomy: static tools fall back to the filer's own schema and linkbases) and on a real filing
joined to the real taxonomy."""
from __future__ import annotations

import dataclasses
import json
from decimal import Decimal
from pathlib import Path

import pytest

from auditflow.env.tool_base import Handles, ToolContext
from auditflow.env.tools import ALL_TOOLS, CHECKS, DYNAMIC, STATIC, TOOLS, run_tool
from auditflow.graphs.environment import build_environment

SAMPLE = Path(__file__).resolve().parents[2] / "auditflow" / "samples" / "acme-10k-2024" / "xml"
FY24, FY23 = "2024-01-01..2024-12-31", "2023-01-01..2023-12-31"
REVENUE = "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"
AXIS = "srt:ProductOrServiceAxis"


@pytest.fixture(scope="module")
def sample_env():
    """The hand-made Acme filing: two planted findings (0015, 0126) and one clean 0117 check."""
    return build_environment(SAMPLE)


@pytest.fixture
def ctx(sample_env, data_root):
    """A fresh tool context (fresh handles) on the warm sample environment."""
    return ToolContext(sample_env, data_root)


def call(ctx, name, **args):
    obs = run_tool(ctx, name, args)
    json.dumps(obs)  # always JSON-serialisable
    return obs


def error_type(obs) -> str | None:
    return obs.get("error", {}).get("type")


# -- the registry --------------------------------------------------------------------------------
def test_every_tool_has_a_closed_object_schema_and_a_kind():
    assert [t.name for t in ALL_TOOLS] == list(STATIC + DYNAMIC + CHECKS)
    assert {t.kind for t in ALL_TOOLS} == {"static", "dynamic", "check"}
    for t in ALL_TOOLS:
        s = t.input_schema
        assert s["type"] == "object" and s["additionalProperties"] is False, t.name
        assert set(s["required"]) <= set(s["properties"]), t.name
        assert t.openai_schema()["function"]["parameters"] is s
    assert STATIC == ("search_concepts", "get_concept", "get_calc_children", "get_calc_parents", "get_dimension_members")
    assert DYNAMIC == ("find_facts", "get_fact", "get_fact_history")
    assert CHECKS == ("check_sign", "check_calc_tree", "check_dim_consistency")


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_extra_arguments_are_a_typed_error(ctx, name):
    obs = call(ctx, name, concept="us-gaap:Assets", bogus=1)
    assert error_type(obs) == "bad_arguments"
    assert "bogus" in obs["error"]["message"]


@pytest.mark.parametrize("name", [t.name for t in ALL_TOOLS if t.required])
def test_missing_required_arguments_are_a_typed_error(ctx, name):
    obs = call(ctx, name)
    assert error_type(obs) == "bad_arguments"
    assert "missing required" in obs["error"]["message"]
    assert set(TOOLS[name].required) <= set(obs["error"]["close_matches"])


@pytest.mark.parametrize("arguments", [None, "us-gaap:Assets", [1, 2], {"concept": 7}, {"concept": ""}])
def test_ill_typed_arguments_never_raise(ctx, arguments):
    assert error_type(run_tool(ctx, "get_concept", arguments)) == "bad_arguments"


def test_unknown_tool_is_an_error(ctx):
    obs = run_tool(ctx, "get_everything", {})
    assert error_type(obs) == "bad_arguments" and "search_concepts" in obs["error"]["close_matches"]


# -- name resolution errors, shared by every tool ------------------------------------------------
def test_unknown_concept_has_close_matches(ctx):
    obs = call(ctx, "get_concept", concept="us-gaap:Asets")
    assert error_type(obs) == "unknown_concept"
    assert obs["error"]["close_matches"][0] == "us-gaap:Assets"


@pytest.mark.parametrize("text, best", [("Assets", "us-gaap:Assets"), ("us-gaap_Assets", "us-gaap:Assets"),
                                        ("us-gaap:Assets total", "us-gaap:Assets")])
def test_malformed_qname_suggests_the_prefixed_name(ctx, text, best):
    obs = call(ctx, "get_concept", concept=text)
    assert error_type(obs) == "malformed_qname"
    assert best in obs["error"]["close_matches"]


def test_period_not_in_filing_lists_the_concepts_periods_nearest_first(ctx):
    obs = call(ctx, "find_facts", concept="us-gaap:Assets", period="2024-12-30")
    assert error_type(obs) == "period_not_in_filing"
    assert obs["error"]["close_matches"] == ["2024-12-31", "2023-12-31"]


def test_period_in_another_notation_is_bad_arguments_naming_the_notation(ctx):
    obs = call(ctx, "find_facts", concept="us-gaap:Assets", period="12/31/2024")
    assert error_type(obs) == "bad_arguments"
    assert "YYYY-MM-DD..YYYY-MM-DD" in obs["error"]["message"]


def test_unknown_axis_in_dimensions(ctx):
    obs = call(ctx, "find_facts", concept=REVENUE, dimensions={"srt:ProductOrServicesAxis": "acme:WidgetsMember"})
    assert error_type(obs) == "unknown_concept"
    assert AXIS in obs["error"]["close_matches"]


# -- static tools --------------------------------------------------------------------------------
def test_search_concepts_by_name_and_label(ctx):
    obs = call(ctx, "search_concepts", text="receivable")
    assert obs["source"] == "filing"
    assert obs["concepts"] == [{"concept": "us-gaap:AccountsReceivableNetCurrent", "label": "Accounts receivable, net",
                                "reported": True}]
    assert call(ctx, "search_concepts", text="warranty")["concepts"][0]["concept"] == "acme:WarrantyReserveCurrent"
    # nothing matching is an error (so a model repeating the same search is stopped after two tries)
    assert error_type(call(ctx, "search_concepts", text="zebra crossings")) == "unknown_concept"
    # a question typed whole still finds its label: the period phrase and filler words are left out
    whole = call(ctx, "search_concepts", text="Total accounts receivable, net as of December 31, 2024")
    assert whole["concepts"][0]["concept"] == "us-gaap:AccountsReceivableNetCurrent"
    assert error_type(call(ctx, "search_concepts", text="   ")) == "bad_arguments"
    assert error_type(call(ctx, "search_concepts", text="assets", limit=0)) == "bad_arguments"
    assert error_type(call(ctx, "search_concepts", text="assets", limit="3")) == "bad_arguments"


def test_get_concept_degrades_to_the_filing_and_names_the_rules(ctx):
    obs = call(ctx, "get_concept", concept="us-gaap:AccountsReceivableNetCurrent")
    assert obs["source"] == "filing"
    assert obs["period_type"] == "instant" and obs["kind"] == "line_item" and obs["reported_facts"] == 2
    assert "DQC.US.0015.2944" in obs["rules"]["0015"]
    assert obs["rules"]["0126"] == "calculation component on '0000002 - Statement - Consolidated Balance Sheets'"
    own = call(ctx, "get_concept", concept="acme:WarrantyReserveCurrent")
    assert (own["balance"], own["data_type"], own["label"]) == ("credit", "xbrli:monetaryItemType", "Warranty Reserve, Current")
    assert call(ctx, "get_concept", concept=AXIS)["kind"] == "axis"
    assert call(ctx, "get_concept", concept="acme:WidgetsMember")["kind"] == "member"
    revenue = call(ctx, "get_concept", concept=REVENUE)
    assert revenue["rules"]["0117"].startswith("line item of us-gaap:StatementTable")
    assert "has a table" in revenue["rules"]["0126"]


def test_calc_children_and_parents_per_role_with_weights(ctx):
    obs = call(ctx, "get_calc_children", concept="us-gaap:Assets")
    assert obs["source"] == "filing"
    (role,) = obs["roles"]
    assert role["role"] == "ConsolidatedBalanceSheets" and role["statement_has_table"] is False
    assert role["children"] == [{"concept": c, "weight": "1"} for c in
                                ("us-gaap:AssetsCurrent", "us-gaap:PropertyPlantAndEquipmentNet", "us-gaap:Goodwill")]
    gp = call(ctx, "get_calc_children", concept="us-gaap:GrossProfit", role="ConsolidatedStatementsOfOperations")
    assert gp["roles"][0]["children"] == [{"concept": REVENUE, "weight": "1"},
                                          {"concept": "us-gaap:CostOfGoodsAndServicesSold", "weight": "-1"}]
    assert gp["roles"][0]["statement_has_table"] is True
    parents = call(ctx, "get_calc_parents", concept="us-gaap:CostOfGoodsAndServicesSold")
    assert parents["roles"][0]["parents"] == [{"concept": "us-gaap:GrossProfit", "weight": "-1"}]
    leaf = call(ctx, "get_calc_children", concept="us-gaap:Goodwill")
    assert leaf["roles"] == [] and "no taxonomy loaded" in leaf["note"]


def test_calc_role_must_be_a_role_of_the_filing(ctx):
    obs = call(ctx, "get_calc_children", concept="us-gaap:Assets", role="BalanceSheetz")
    assert error_type(obs) == "bad_arguments"
    assert "ConsolidatedBalanceSheets" in obs["error"]["close_matches"]


def test_dimension_members_of_a_role(ctx):
    obs = call(ctx, "get_dimension_members", role="ConsolidatedStatementsOfOperations")
    (cube,) = obs["cubes"]
    assert cube["table"] == "us-gaap:StatementTable" and cube["closed"] is True
    assert cube["axes"] == [{"axis": AXIS, "domains": ["srt:ProductsAndServicesDomain"],
                             "members": ["acme:GadgetsMember", "acme:WidgetsMember"], "default": "srt:ProductsAndServicesDomain"}]
    assert REVENUE in cube["line_items"]
    by_concept = call(ctx, "get_dimension_members", concept="us-gaap:GrossProfit")
    assert [c["role"] for c in by_concept["cubes"]] == ["ConsolidatedStatementsOfOperations", "RevenueByProductDetails"]
    assert call(ctx, "get_dimension_members", concept="us-gaap:Assets")["cubes"] == []
    missing = call(ctx, "get_dimension_members")
    assert error_type(missing) == "bad_arguments" and "RevenueByProductDetails" in missing["error"]["close_matches"]


# -- dynamic tools -------------------------------------------------------------------------------
def test_find_facts_is_an_exact_filter_with_handles(ctx):
    obs = call(ctx, "find_facts", concept=REVENUE, period=FY24)
    assert obs["count"] == 3
    total, *members = obs["facts"]
    assert total == {"fact": "F1", "period": FY24, "dimensions": {}, "value": "240500000", "unit": "USD", "decimals": -3,
                     "period_text": "year ended December 31, 2024"}
    assert [m["dimensions"][AXIS] for m in members] == ["acme:GadgetsMember", "acme:WidgetsMember"]
    assert all(len(m["members"]) == 1 for m in members)  # each member by the label a statement prints
    plain = call(ctx, "find_facts", concept=REVENUE, period=FY24, dimensions={})
    assert [f["fact"] for f in plain["facts"]] == ["F1"]  # the same fact keeps its handle
    widgets = call(ctx, "find_facts", concept=REVENUE, dimensions={AXIS: "acme:WidgetsMember"})
    assert [f["period"] for f in widgets["facts"]] == [FY23, FY24]
    assert call(ctx, "find_facts", concept="us-gaap:StatementTable")["note"] == "the filing reports no fact of us-gaap:StatementTable"


def test_find_facts_collapses_exact_duplicates(ctx):
    obs = call(ctx, "find_facts", concept="us-gaap:NetIncomeLoss", period=FY24)
    assert obs["count"] == 1 and obs["facts"][0]["duplicates"] == 1


def test_get_fact_by_handle(ctx):
    call(ctx, "find_facts", concept="us-gaap:NetIncomeLoss", period=FY24)
    obs = call(ctx, "get_fact", fact="F1")
    assert obs["concept"] == "us-gaap:NetIncomeLoss" and obs["value"] == "27000000" and obs["duplicates"] == ["F2"]
    assert call(ctx, "get_fact", fact="f1")["fact"] == "F1"
    unknown = call(ctx, "get_fact", fact="F7")
    assert error_type(unknown) == "unknown_fact" and unknown["error"]["close_matches"] == ["F2", "F1"]


def test_fact_history_oldest_first(ctx):
    obs = call(ctx, "get_fact_history", concept="us-gaap:AccountsReceivableNetCurrent")
    assert [(h["period"], h["value"]) for h in obs["history"]] == [("2023-12-31", "21300000"), ("2024-12-31", "-12500000")]
    members = call(ctx, "get_fact_history", concept=REVENUE, dimensions={AXIS: "acme:GadgetsMember"})
    assert [h["value"] for h in members["history"]] == ["75000000", "90500000"]
    by_handle = call(ctx, "get_fact_history", fact=obs["history"][0]["fact"])
    assert by_handle["history"] == obs["history"]
    assert error_type(call(ctx, "get_fact_history")) == "bad_arguments"  # no queried fact in a bare context


# -- checker tools on the sample -----------------------------------------------------------------
def test_check_sign_finds_the_negative_receivable(ctx):
    obs = call(ctx, "check_sign", concept="us-gaap:AccountsReceivableNetCurrent", period="2024-12-31")
    assert obs["outcome"] == "violation" and obs["code"] == "DQC.US.0015.2944"
    assert (obs["fact"], obs["reported"], obs["expected"], obs["tolerance"]) == ("F1", "-12500000", "12500000", "0")
    assert obs["evidence"] == [{"fact": "F1", "concept": "us-gaap:AccountsReceivableNetCurrent", "period": "2024-12-31",
                                "value": "-12500000"}]
    prior = call(ctx, "check_sign", concept="us-gaap:AccountsReceivableNetCurrent", period="2023-12-31")
    assert (prior["outcome"], prior["reason"], prior["expected"]) == ("consistent", "not negative", "21300000")


def test_check_calc_tree_finds_the_assets_total(ctx):
    obs = call(ctx, "check_calc_tree", concept="us-gaap:Assets", period="2024-12-31")
    assert obs["outcome"] == "violation" and obs["code"] == "DQC.US.0126.9590"
    assert (obs["reported"], obs["expected"], obs["tolerance"]) == ("226150000", "216150000", "4000")
    assert obs["statement"] == "0000002 - Statement - Consolidated Balance Sheets"
    assert [(e["fact"], e["concept"], e["value"], e["weight"]) for e in obs["evidence"]] == [
        ("F2", "us-gaap:AssetsCurrent", "70750000", "1"),
        ("F3", "us-gaap:PropertyPlantAndEquipmentNet", "120400000", "1"),
        ("F4", "us-gaap:Goodwill", "25000000", "1"),
    ]


def test_check_calc_tree_on_a_component_returns_the_totals_finding(ctx):
    obs = call(ctx, "check_calc_tree", concept="us-gaap:Goodwill", period="2024-12-31")
    assert obs["fact"] == "F1" and obs["total"] == "F2"
    assert obs["outcome"] == "violation" and obs["expected"] == "216150000"
    assert "component of the checked total F2" in obs["note"]
    assert "F1" in [e["fact"] for e in obs["evidence"]]


def test_check_calc_tree_consistent_total_shows_its_children(ctx):
    obs = call(ctx, "check_calc_tree", concept="us-gaap:AssetsCurrent", period="2024-12-31")
    assert (obs["outcome"], obs["expected"], obs["tolerance"]) == ("consistent", "70750000", "4000")
    assert [e["value"] for e in obs["evidence"]] == ["45000000", "-12500000", "38250000"]


def test_check_calc_tree_on_revenue_is_not_applicable_because_the_statement_has_a_table(ctx):
    obs = call(ctx, "check_calc_tree", concept=REVENUE, period=FY24)
    assert obs["outcome"] == "not_applicable" and obs["code"] is None and obs["evidence"] == []
    assert "has a table" in obs["reason"] and "Consolidated Statements of Operations" in obs["reason"]


def test_check_calc_tree_outside_the_reporting_period(ctx):
    obs = call(ctx, "check_calc_tree", concept="us-gaap:Assets", period="2023-12-31")
    assert obs["outcome"] == "not_applicable"
    assert "reporting period 2024-12-31" in obs["reason"]


def test_check_dim_consistency_on_the_revenue_total(ctx):
    obs = call(ctx, "check_dim_consistency", concept=REVENUE, period=FY24)
    assert (obs["outcome"], obs["reported"], obs["expected"], obs["tolerance"]) == ("consistent", "240500000", "240500000", "2000")
    assert sorted((e["member"], e["value"]) for e in obs["evidence"]) == [("acme:GadgetsMember", "90500000"),
                                                                         ("acme:WidgetsMember", "150000000")]
    assert {e["fact"] for e in obs["evidence"]} == {"F2", "F3"}
    assert obs["reason"].startswith("consistent: members add up to 240,500,000") and "[" not in obs["reason"]


def test_check_dim_consistency_on_a_member_points_to_its_total(ctx):
    obs = call(ctx, "check_dim_consistency", concept=REVENUE, period=FY24, dimensions={AXIS: "acme:WidgetsMember"})
    assert obs["outcome"] == "consistent" and obs["total"] == "F2" and obs["reported"] == "240500000"


def test_checkers_say_why_nothing_applies(ctx):
    sign = call(ctx, "check_sign", concept="us-gaap:NetIncomeLoss", period=FY24)
    assert sign["outcome"] == "not_applicable" and "not on the DQC 0015 non-negative list" in sign["reason"]
    dims = call(ctx, "check_dim_consistency", concept="us-gaap:Assets", period="2024-12-31")
    assert "not a line item of a statement table" in dims["reason"]
    guarded = call(ctx, "check_dim_consistency", concept="us-gaap:GrossProfit", period=FY24)
    assert guarded["outcome"] == "not_applicable" and guarded["reason"].startswith("notes guard")
    text = call(ctx, "check_sign", concept="acme:FinancialHighlightsNarrative", period=FY24)
    assert text["outcome"] == "not_applicable" and "not a number" in text["reason"]


def test_checker_without_a_fact_checks_the_focus(ctx, sample_env):
    assert error_type(call(ctx, "check_sign")) == "bad_arguments"
    focused = ToolContext(sample_env, ctx.data_root, Handles(), focus=sample_env.filing.fact_by_key("f-bs-03"))
    assert call(focused, "check_sign")["outcome"] == "violation"


def test_checker_errors_are_typed(ctx):
    assert error_type(call(ctx, "check_sign", concept="us-gaap:Assets")) == "bad_arguments"  # period missing
    assert error_type(call(ctx, "check_sign", fact="F3")) == "unknown_fact"
    no_fact = call(ctx, "check_sign", concept="us-gaap:Goodwill", period=FY24)  # FY2024 exists, but not for an instant
    assert error_type(no_fact) == "unknown_fact"
    assert no_fact["error"]["close_matches"] == ["2024-12-31", "2023-12-31"]
    wrong_dims = call(ctx, "check_dim_consistency", concept="us-gaap:Assets", period="2024-12-31",
                      dimensions={AXIS: "acme:WidgetsMember"})
    assert error_type(wrong_dims) == "unknown_fact" and wrong_dims["error"]["close_matches"] == []


def test_without_a_data_root_check_sign_says_why(sample_env):
    obs = call(ToolContext(sample_env, None), "check_sign", concept="us-gaap:AccountsReceivableNetCurrent", period="2024-12-31")
    assert obs["outcome"] == "not_applicable" and "data root" in obs["reason"]


def test_duplicate_facts_are_checked_as_one(ctx, sample_env):
    """f-txt-02 repeats f-is-17 (NetIncomeLoss FY2024); 0117 and 0126 keep one of them."""
    dup = sample_env.filing.fact_by_key("f-txt-02")
    focused = ToolContext(sample_env, ctx.data_root, Handles(), focus=dup)
    obs = call(focused, "check_dim_consistency")
    assert obs["fact"] == "F1" and obs["outcome"] == "not_applicable"
    assert obs["reason"].startswith("no member facts")


def test_check_dim_consistency_violation_on_a_perturbed_member(sample_env, data_root):
    filing = sample_env.filing
    bumped = [dataclasses.replace(f, value="160000000") if f.key == "f-is-01" else f for f in filing.facts]
    ctx = ToolContext(build_environment(dataclasses.replace(filing, facts=bumped)), data_root)
    total = call(ctx, "check_dim_consistency", concept=REVENUE, period=FY24)
    assert (total["outcome"], total["code"]) == ("violation", "DQC.US.0117.9574")
    assert (total["reported"], total["expected"], total["tolerance"]) == ("240500000", "250500000", "2000")
    assert [(e["member"], e["value"]) for e in total["evidence"]] == [("acme:WidgetsMember", "160000000"),
                                                                     ("acme:GadgetsMember", "90500000")]
    assert total["reason"].startswith("the members of srt:ProductOrServiceAxis add up to 250500000")
    member = call(ctx, "check_dim_consistency", fact=total["evidence"][0]["fact"])
    assert member["outcome"] == "violation" and member["total"] == total["fact"]


# -- a real filing with the taxonomy ---------------------------------------------------------------
@pytest.fixture(scope="module")
def real_env(data_root, taxonomy):
    tset, graph = taxonomy
    return build_environment(data_root / "filings" / "aapl-10k-2023-09-30", taxonomy_set=tset, taxonomy=graph)


@pytest.fixture
def real(real_env, data_root):
    return ToolContext(real_env, data_root)


def test_real_static_tools_read_the_taxonomy(real):
    concept = call(real, "get_concept", concept="us-gaap:AccountsReceivableNetCurrent")
    assert concept["source"] == "taxonomy"
    assert concept["label"] == "Accounts Receivable, after Allowance for Credit Loss, Current"
    assert concept["labels"]["terseLabel"] == "Accounts receivable, net"
    assert "DQC.US.0015.2944" in concept["rules"]["0015"]
    found = call(real, "search_concepts", text="accounts receivable")
    names = [c["concept"] for c in found["concepts"]]
    assert names[0] == "us-gaap:AccountsReceivableNetCurrent" and len(names) == len(set(names))
    assert "us-gaap:AccountsReceivableGross" in names  # from the taxonomy, not reported by the filer
    calc = call(real, "get_calc_children", concept="us-gaap:Assets")
    assert calc["source"] == "taxonomy+filing"
    assert [r["source"] for r in calc["roles"]][:2] == ["filing", "taxonomy"]
    statement = call(real, "get_calc_children", concept="us-gaap:Assets", role="StatementOfFinancialPositionClassified")
    assert statement["roles"][0]["children"] == [{"concept": "us-gaap:AssetsCurrent", "weight": "1"},
                                                 {"concept": "us-gaap:AssetsNoncurrent", "weight": "1"}]
    # a standard concept the filing never reports resolves through the taxonomy
    assert call(real, "get_concept", concept="us-gaap:AccountsReceivableGross")["reported_facts"] == 0
    assert error_type(call(real, "get_concept", concept="us-gaap:Asets")) == "unknown_concept"


def test_real_checkers_consistent_with_evidence(real):
    assets = call(real, "check_calc_tree", concept="us-gaap:Assets", period="2023-09-30")
    assert assets["outcome"] == "consistent" and assets["expected"] == assets["reported"] == "352583000000"
    assert [e["concept"] for e in assets["evidence"]] == ["us-gaap:AssetsCurrent", "us-gaap:AssetsNoncurrent"]
    cogs = call(real, "check_dim_consistency", concept="us-gaap:CostOfGoodsAndServicesSold", period="2022-09-25..2023-09-30")
    assert cogs["outcome"] == "consistent" and len(cogs["evidence"]) == 2
    assert sum(Decimal(e["value"]) for e in cogs["evidence"]) == Decimal(cogs["expected"]) == Decimal(cogs["reported"])


def test_real_mutated_filing_sign_violation(real_env, taxonomy, data_root):
    tset, graph = taxonomy
    filing = real_env.filing
    target = next(f for f in filing.facts if f.concept.local == "AccountsReceivableNetCurrent"
                  and str(filing.contexts[f.context_id].period) == "2023-09-30")
    flipped = [dataclasses.replace(f, value="-" + f.value) if f.key == target.key else f for f in filing.facts]
    env = build_environment(dataclasses.replace(filing, facts=flipped), taxonomy_set=tset, taxonomy=graph)
    obs = call(ToolContext(env, data_root), "check_sign", concept="us-gaap:AccountsReceivableNetCurrent", period="2023-09-30")
    assert obs["outcome"] == "violation" and obs["code"] == "DQC.US.0015.2944"
    assert obs["expected"] == target.value and obs["reported"] == "-" + target.value


@pytest.mark.slow
def test_consistent_checks_carry_what_the_rule_summed(data_root):
    """The checkers show a consistent check's evidence as the rule recorded it, never rebuilt: on every
    real filing each consistent 0126/0117 check carries its children or members, their sum and the
    allowed difference, and (for 0126) the total is within it."""
    from auditflow.env.check_select import rule_view
    from auditflow.env.names import names
    from auditflow.rules.finding import Outcome

    folders = [p for sub in ("filings", "filings-rolled") for p in sorted((data_root / sub).iterdir()) if p.is_dir()]
    consistent = 0
    for folder in folders:
        ctx = ToolContext(build_environment(folder), data_root)
        facts = names(ctx.env).facts_by_key
        for rule in ("0126", "0117"):
            for records in rule_view(ctx, rule).checks.values():
                for c in records:
                    if c.outcome is not Outcome.CONSISTENT:
                        continue
                    assert c.evidence and c.expected is not None and c.tolerance is not None, (folder.name, rule, c)
                    weights = [e.weight if e.weight is not None else 1 for e in c.evidence]
                    assert sum(w * e.value for w, e in zip(weights, c.evidence)) == c.expected, (folder.name, c)
                    assert all(e.fact_id in facts for e in c.evidence)
                    if rule == "0126":  # 0117's 606 exception may accept a sum outside the tolerance
                        assert abs(facts[c.fact_id].number - c.expected) <= c.tolerance, (folder.name, c.fact_id)
                    consistent += 1
    assert consistent > 0


def test_a_concept_given_as_a_fact_handle_says_how_to_name_the_fact(ctx):
    """The 1.5B model, left to find a fact, called check_sign with {"fact": "us-gaap:Assets"} over and over."""
    obs = call(ctx, "check_sign", fact="us-gaap:Assets")
    assert obs["error"]["type"] == "unknown_fact" and "is a concept, not a fact handle" in obs["error"]["message"]
    assert "concept, period and dimensions" in obs["error"]["message"]
