"""The paper's baselines (docs/baselines.md) on the bundled sample filing.

Each baseline replays a call the local model made on ``acme-assets-calc`` (recorded in the committed
cache ``cases/llm-cache``; the provider model is never built), and the tests prove what the
configuration promises: a retrieval baseline reads only its context (one call, no tool), and
``herculean`` never runs a checker (it cannot: a checker it names is refused). The contexts are checked
on the real sample: each retriever must put the audited total in front of the model.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

from auditflow.agents.audit import run_audit
from auditflow.agents.baselines import graph, tree, vanilla
from auditflow.agents.baselines.prompts import baseline_prompts
from auditflow.agents.configs import get_config
from auditflow.agents.profile import ProfileError, load_profile
from auditflow.cases.loader import load_case_file
from auditflow.cases.runner import case_environment, run_case
from auditflow.cases.settings import RunSettings
from auditflow.env.tool_base import ToolContext
from auditflow.env.tools import CHECKS
from auditflow.llm import factory

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / "cases" / "llm-cache"
SAMPLE_CASES = REPO / "cases" / "acme-sample.case.yaml"
MODEL = "local:qwen2.5-coder-1.5b"
RAG = ("vanilla-rag", "graphrag", "treerag")


def _explode(spec):
    raise AssertionError("the provider model was built: the baseline's call is not in the committed cache")


def _case():
    return next(c for c in load_case_file(SAMPLE_CASES) if c.id == "acme-assets-calc")


def _replay(config: str, data_root: Path, monkeypatch):
    monkeypatch.setattr(factory, "inner_model", _explode)
    outcome = run_case(_case(), RunSettings(model=MODEL, config=config, record_mode="none", cache_dir=CACHE,
                                            data_root=data_root))
    assert outcome.error is None, outcome.error
    assert outcome.cache["misses"] == 0 and outcome.cache["writes"] == 0 and outcome.cache["hits"] >= 1
    return outcome


def _tool_calls(result) -> list[str]:
    return [s.tool_call.tool for t in result.transcripts for r in t.rounds for s in r
            if s.tool_call is not None and s.kind in ("tool_call", "invalid_output")]


@pytest.mark.parametrize("config", RAG)
def test_a_retrieval_baseline_reads_only_its_context_one_recorded_call(config, data_root, monkeypatch):
    outcome = _replay(config, data_root, monkeypatch)
    result = outcome.result
    assert outcome.cache["hits"] == 1  # one model call, replayed
    assert result.config == config and [t.role for t in result.transcripts] == [config]
    assert _tool_calls(result) == [] and result.transcripts[0].tool_calls == 0
    steps = result.transcripts[0].rounds[0]
    assert steps[0].kind == "message" and steps[0].content.startswith("context: ")
    assert "F1" in steps[0].content  # the handed-over total is in what the model read


def test_herculean_never_calls_a_checker_in_its_recorded_run(data_root, monkeypatch):
    outcome = _replay("herculean", data_root, monkeypatch)
    calls = _tool_calls(outcome.result)
    assert calls and not set(calls) & set(CHECKS)  # it read the filing with its own tools, no checker
    assert outcome.result.config == "herculean" and outcome.result.reviews == ()


class _Scripted:
    """A chat model that emits the given tool calls in turn (the last one repeats)."""

    def __init__(self, calls):
        self.calls, self.seen = list(calls), []

    def bind_tools(self, tools):
        self.seen = [t["function"]["name"] for t in tools]
        return self

    def invoke(self, messages):
        name, args = self.calls.pop(0) if len(self.calls) > 1 else self.calls[0]
        return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": "c"}])


def test_herculean_is_offered_no_checker_and_one_it_names_is_refused(data_root):
    env = case_environment(_case(), data_root=data_root)
    report = {"decision": "violation", "triggered_rules": ["DQC.US.0126.9590"], "reported_value": "226150000",
              "expected_value": "216150000", "confidence": 0.9, "evidence": ["F1"]}
    model = _Scripted([("check_calc_tree", {"fact": "F1"}), ("get_calc_children", {"concept": "us-gaap:Assets"}),
                       ("final_report", report)])
    result = run_audit(env, _case().audit_query(), config="herculean",
                       models=lambda role: model, data_root=data_root, profile="guided")
    assert not set(model.seen) & set(CHECKS) and "find_facts" in model.seen
    steps = [s for r in result.transcripts[0].rounds for s in r]
    assert steps[0].kind == "invalid_output" and "not a tool of" in (steps[0].tool_call.error or "")
    # nothing but the model's own report decides: no checker verdict, no Senior
    assert result.decision == "violation" and result.expected_value == 216150000 and result.fusion is not None
    assert result.fact["concept"] == "us-gaap:Assets" and result.fact["period"] == "2024-12-31"


@pytest.mark.parametrize("config", (*RAG, "herculean"))
def test_every_baseline_is_a_configuration_without_checks_gating_or_senior(config):
    cfg = get_config(config)
    assert (cfg.baseline, cfg.checks, cfg.gating, cfg.senior, cfg.roles) == (config, False, False, False, (config,))


def _sample_ctx(data_root) -> ToolContext:
    return ToolContext(case_environment(_case(), data_root=data_root), data_root)


def test_each_retriever_puts_the_audited_total_before_the_model(data_root):
    question = "Total assets as of December 31, 2024"
    ctx = _sample_ctx(data_root)
    assert "226150000" in vanilla.context(ctx, question)
    ctx = _sample_ctx(data_root)
    text = graph.context(ctx, question, focus=None, tools=1)
    assert "concept: " in text and "(us-gaap:Assets)" in text and "calculation children: +1" in text
    assert "226150000" in text
    ctx = _sample_ctx(data_root)
    role, path = tree.walk(ctx, question)
    assert path[-1].local == "Assets" and "balance" in ctx.env.role_definition(role).lower()
    assert "226150000" in tree.context(ctx, question)


def test_the_walk_ignores_dates_and_period_words():
    assert tree.naming_words("Cost of sales for the fiscal year ended September 25, 2021") == "Cost sales"


def test_the_baselines_prompts_are_beside_the_profiles_not_in_them():
    for name in ("guided", "plain", "natural"):
        prompts = baseline_prompts(load_profile(name))
        assert set(prompts.task) == {"vanilla-rag", "graphrag", "treerag", "herculean"}
    raw = (REPO / "auditflow" / "agents" / "profiles" / "guided.yaml").read_text(encoding="utf-8")
    assert "vanilla-rag" not in raw  # the profile's bytes (and every recorded digest) are unchanged


def test_a_users_profile_file_is_refused_for_a_baseline_saying_why(tmp_path, data_root):
    mine = tmp_path / "mine.yaml"
    mine.write_bytes((REPO / "auditflow" / "agents" / "profiles" / "guided.yaml").read_bytes().replace(
        b"profile: guided", b"profile: mine"))
    env = case_environment(_case(), data_root=data_root)
    with pytest.raises(ProfileError, match="built-in"):
        run_audit(env, _case().audit_query(), config="vanilla-rag",
                  data_root=data_root, profile=str(mine))


def test_the_policy_cannot_verify_without_checkers_and_says_so(data_root):
    env = case_environment(_case(), data_root=data_root)
    for config in (*RAG, "herculean"):
        result = run_audit(env, _case().audit_query(), config=config,
                           data_root=data_root)
        assert result.decision == "unable_to_verify", config
        assert json.loads(result.canonical_json())["config"] == config
