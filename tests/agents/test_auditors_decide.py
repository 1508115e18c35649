"""The auditors decide (docs/protocol.md): no checker runs on the harness's behalf, questions in three
forms, prompts from a profile file, seeded order.

The scripted models here never call a checker: whatever they claim, no configuration may give them a
checker-backed decision. The query forms run end to end with the deterministic policy on the bundled
sample and on a real filing; each form's ambiguity (same label under other members, the same concept
in several periods, a label the filing does not use) is exercised.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

from auditflow.agents.audit import run_audit
from auditflow.agents.configs import CONFIGS
from auditflow.agents.profile import ProfileError, builtin_profile, load_profile
from auditflow.env.query import AuditQuery, QueryError
from auditflow.graphs.environment import build_environment

from test_protocol import SAMPLE, Scripts, call, report  # noqa: E402 - the same scripted doubles

TOTAL = "226150000"


@pytest.fixture(scope="module")
def env():
    return build_environment(SAMPLE)


def liar(role: str) -> list[AIMessage]:
    """Looks at the fact, never at a checker, and claims a violation with an invented code."""
    look = [call("get_fact_history", fact="F1")] if role != "compliance" else [call("get_concept", concept="us-gaap:Assets")]
    return look + [report(rules=("DQC.US.0126.9590",), expected="1")] * 30  # refused while gated: enough to run out the budget


@pytest.mark.parametrize("config", sorted(c for c in CONFIGS if c != "direct-llm"))
def test_a_model_that_never_calls_a_checker_gets_no_checker_backed_decision(env, data_root, config):
    roles = ("single",) if config == "single-agent" else ("compliance", "forensic")
    models = Scripts(**{r: liar(r) for r in roles})
    result = run_audit(env, AuditQuery("acme", "us-gaap:Assets", "2024-12-31"), config=config, models=models,
                       data_root=data_root)
    ran = {s.tool_call.tool for t in result.transcripts for r in t.rounds for s in r if s.tool_call is not None}
    assert not ran & {"check_sign", "check_calc_tree", "check_dim_consistency"}
    if CONFIGS[config].checks:
        assert result.fact is None  # no checker examined a fact, so nothing is checker-backed
    else:  # nothing could be examined: the report is about the fact the question handed over
        assert result.fact == {"concept": "us-gaap:Assets", "period": "2024-12-31", "dimensions": {}, "value": TOTAL}
    if result.fusion is not None:
        assert result.fusion.checker_outcome is None
    # the harness neither ran a checker nor pinned the decision: any value shown is the model's own
    assert result.expected_value in (None, 1)


def ask(env, data_root, text, form="text"):
    return run_audit(env, AuditQuery("acme", form=form, text=text), data_root=data_root)


def test_a_plain_words_question_is_found_by_label_period_and_member(env, data_root):
    total = ask(env, data_root, "Total assets as of December 31, 2024")
    assert total.fact["concept"] == "us-gaap:Assets" and total.decision == "violation"
    widgets = ask(env, data_root, "Widgets revenue, year ended December 31, 2024")
    assert widgets.fact["dimensions"] == {"srt:ProductOrServiceAxis": "acme:WidgetsMember"}
    whole = ask(env, data_root, "Revenue for the year ended December 31, 2024")
    assert whole.fact["dimensions"] == {}  # the same label under other members is not the one meant
    prior = ask(env, data_root, "Revenue for the year ended December 31, 2023")
    assert prior.fact["period"] == "2023-01-01..2023-12-31"  # the same concept in another period


def test_a_label_the_filing_does_not_use_finds_nothing(env, data_root):
    result = ask(env, data_root, "Deferred unicorn revenue, year ended December 31, 2024")
    assert result.decision == "unable_to_verify" and result.fact is None


def test_a_finmr_question_resolves_the_one_non_dimensional_fact(env, data_root):
    q = "What's the reported value of us-gaap:Assets in the Instance document for the period 2024-12-31?"
    result = ask(env, data_root, q, form="finmr")
    assert result.fact == {"concept": "us-gaap:Assets", "period": "2024-12-31", "dimensions": {}, "value": TOTAL}
    assert result.query["form"] == "finmr" and result.query["concept"] == "us-gaap:Assets"
    with pytest.raises(QueryError, match="close matches"):
        ask(env, data_root, q.replace("Assets", "Asets"), form="finmr")


def test_the_three_forms_on_a_real_filing(data_root):
    from auditflow.graphs.factory import shared_environment
    from auditflow.graphs.factory import locate_filing

    env = shared_environment(locate_filing("aapl-10k-2023-09-30", data_root))
    forms = {
        "structured": AuditQuery("aapl", "us-gaap:CostOfGoodsAndServicesSold", "2022-09-25..2023-09-30"),
        "finmr": AuditQuery("aapl", form="finmr", text="What's the reported value of us-gaap:CostOfGoodsAndServicesSold "
                                                       "in the Instance document for the period 2022-09-25 to 2023-09-30?"),
        "text": AuditQuery("aapl", form="text", text="Cost of sales, year ended September 30, 2023"),
    }
    facts = {name: run_audit(env, q, data_root=data_root).fact for name, q in forms.items()}
    assert {f["period"] for f in facts.values()} == {"2022-09-25..2023-09-30"}
    assert {f["concept"] for f in facts.values()} == {"us-gaap:CostOfGoodsAndServicesSold"}


def test_shuffled_observations_are_a_seeded_permutation_with_handles_after_it(env, data_root):
    from auditflow.env.session import AuditSession

    def shown(seed):
        s = AuditSession(env, AuditQuery("acme", form="text", text="Revenue"), "forensic", data_root=data_root, shuffle=seed)
        obs = s.call("find_facts", {"concept": "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"})
        return [(f["fact"], f["period"], tuple(f["dimensions"].items())) for f in obs["facts"]]

    plain, one, again = shown(None), shown(1), shown(1)
    assert one == again and sorted(x[1:] for x in one) == sorted(x[1:] for x in plain) and one != plain
    assert [h for h, *_ in one] == [f"F{i + 1}" for i in range(len(one))]  # handles follow the order shown
    a = ask(env, data_root, "Widgets revenue, year ended December 31, 2024")
    b = run_audit(env, AuditQuery("acme", form="text", text="Widgets revenue, year ended December 31, 2024"),
                  data_root=data_root, shuffle=1)
    assert (a.fact, a.decision) == (b.fact, b.decision) and b.shuffle == 1


def test_profiles_are_files_and_a_bad_one_names_its_field(tmp_path):
    guided, plain = builtin_profile("guided"), builtin_profile("plain")
    assert guided.next_call and guided.violations_found and not plain.next_call and plain.view == "full"
    assert load_profile(None, model="local:qwen2.5-coder-1.5b").name == "guided"
    assert load_profile(None, model="openai:gpt-4o").name == "plain"
    # the profile follows the model, not the transport: a bundled model served over HTTP reads what it
    # reads in-process; any other model behind an OpenAI-compatible server is taken as a hosted one
    assert load_profile(None, model="openai-compatible:http://127.0.0.1:8080/v1#qwen2.5-coder-1.5b").name == "guided"
    assert load_profile(None, model="openai-compatible:http://127.0.0.1:8080/v1#llama-3-70b").name == "plain"
    assert load_profile(None, model="openai-compatible+tools:http://127.0.0.1:8080/v1#Qwen2.5-Coder-0.5B").name == "guided"
    assert load_profile(None, model="openai:qwen2.5-coder-1.5b").name == "plain"  # a hosted provider, not a served one
    mine = tmp_path / "mine.yaml"
    from auditflow.agents.profile import PROFILE_DIR
    mine.write_text((PROFILE_DIR / "guided.yaml").read_text().replace("profile: guided", "profile: mine"))
    assert load_profile(str(mine)).name == "mine" and load_profile(str(mine)).sha256 != guided.sha256
    bad = tmp_path / "bad.yaml"
    bad.write_text("profile: x\nversion: 1\nsystem: {task: t}\n")
    with pytest.raises(ProfileError, match="bad.yaml: missing field 'system.roles'"):
        load_profile(str(bad))
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("a: &a [1]\nb: [*a, *a]\n")
    with pytest.raises(ProfileError, match="aliases"):
        load_profile(str(bomb))


def test_a_plain_profile_changes_only_what_the_model_reads(env, data_root):
    a = run_audit(env, AuditQuery("acme", "us-gaap:Assets", "2024-12-31"), data_root=data_root, profile="guided")
    b = run_audit(env, AuditQuery("acme", "us-gaap:Assets", "2024-12-31"), data_root=data_root, profile="plain")
    assert (a.decision, a.expected_value) == (b.decision, b.expected_value)
    assert a.profile["name"] == "guided" and b.profile["name"] == "plain"


def test_a_report_that_lies_after_checking_cannot_set_the_final_codes_or_values(env, data_root):
    """Issue 18, defect 13: both auditors run every checker on F1 (a DQC 0126 violation), then report
    "consistent" — one with an invented code on the side. The decision, the codes and the values of
    the final result come from their checker observations, never from the reports that contradict them."""
    from test_protocol import CALC, checked

    lie = report(decision="consistent", rules=(), reported="226150000", expected="226150000")
    invent = report(decision="violation", rules=("DQC.US.9999.1",), reported="1", expected="2")
    forensic_first = [call("get_fact_history", fact="F1")]
    models = Scripts(compliance=checked(*[lie] * 4), forensic=forensic_first + checked(*[invent] * 4))
    result = run_audit(env, AuditQuery("acme", "us-gaap:Assets", "2024-12-31"), models=models, data_root=data_root)
    assert result.decision == "violation"
    assert result.triggered_rules == (CALC,)
    assert (result.reported_value, result.expected_value) == (226150000, 216150000)
    assert result.fact["concept"] == "us-gaap:Assets"


def test_without_checkers_a_report_is_about_the_fact_its_author_chose(env, data_root):
    """no-checks examines nothing, so the audit's fact is the one the chosen report's author named last
    (here by get_fact_history); without it every no-checks audit of a question would be about no fact."""
    concept = "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"
    said = report(rules=(), decision="consistent", reported="1", expected="1")
    forensic = [call("search_concepts", text="Revenue"), call("find_facts", concept=concept),
                call("get_fact_history", fact="F2"), *[said] * 20]
    compliance = [report(decision="unable_to_verify", rules=(), reported=None, expected=None)] * 20
    query = AuditQuery("acme", form="text", text="Revenue for the year ended December 31, 2023")
    result = run_audit(env, query, config="no-checks", models=Scripts(forensic=forensic, compliance=compliance),
                       data_root=data_root)
    assert result.fact == {"concept": concept, "period": "2024-01-01..2024-12-31", "dimensions": {},
                           "value": "240500000"}  # the fact it chose: another period than the question's
    assert (result.decision, result.reported_value) == ("consistent", 1)  # the model's own, unchecked
