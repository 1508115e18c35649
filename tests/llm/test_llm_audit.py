"""Whole audits through the LLM layer on the bundled sample filing.

* A recording run with a text-only model (tool calls written as text in five styles, parsed by the
  adapter), then a warm replay whose model fails on any call: zero calls, byte-identical artifact.
* Models that emit garbage, a tool nobody has, truncated JSON: the run finishes, nothing crashes,
  the case is labelled a structural failure with invalid outputs.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import Field

from auditflow.agents.audit import run_audit
from auditflow.env.query import AuditQuery
from auditflow.graphs.environment import build_environment
from auditflow.llm import factory as factory_mod
from auditflow.llm.cache import CacheMissError, LLMCache, iter_entries
from auditflow.llm.factory import RoleModels, make_model_factory
from auditflow.llm.stats import CacheStats
from auditflow.llm.toolcalls import ToolCallingAdapter, key_material
from llm_fakes import BadTextModel, ExplodingModel, NativeToolModel, TextPolicyModel, explode

SAMPLE = Path(__file__).resolve().parents[2] / "auditflow" / "samples" / "acme-10k-2024" / "xml"
AR = AuditQuery("acme", "us-gaap:AccountsReceivableNetCurrent", "2024-12-31", rule_hint="0015", case_id="acme-ar")
REVENUE = AuditQuery("acme", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "2024-01-01..2024-12-31",
                     case_id="acme-revenue")


@pytest.fixture(scope="module")
def env():
    return build_environment(SAMPLE)


def _text_models(cache: LLMCache | None, make_inner) -> RoleModels:
    return RoleModels("local:scripted-text-model", make_inner, cache, key_material)


@pytest.mark.parametrize("query", [AR, REVENUE], ids=["violation", "consistent"])
@pytest.mark.parametrize("config", ["full", "single-agent", "no-fusion"])
def test_warm_replay_makes_no_call_and_reproduces_the_artifact(env, data_root, tmp_path, query, config):
    inner = TextPolicyModel()
    rec_stats = CacheStats()
    recording = _text_models(LLMCache(tmp_path, "new_episodes", case_id=query.case_id, stats=rec_stats),
                             lambda: ToolCallingAdapter(inner=inner))
    first = run_audit(env, query, config=config, models=recording, data_root=data_root)
    assert len(inner.calls) == rec_stats.writes == rec_stats.misses > 0 and rec_stats.hits == 0
    assert not first.structural_failure and not first.invalid_output
    assert first.decision == run_audit(env, query, config=config, data_root=data_root).decision  # as the policy decides
    assert all(fmt is not None and "anyOf" in fmt["json_schema"]["schema"] for _, fmt in inner.calls)

    replay_stats = CacheStats()
    replaying = _text_models(LLMCache(tmp_path, "none", case_id=query.case_id, stats=replay_stats),
                             lambda: ToolCallingAdapter(inner=ExplodingModel()))
    again = run_audit(env, query, config=config, models=replaying, data_root=data_root)
    assert again.canonical_json() == first.canonical_json()
    assert replay_stats.hits == rec_stats.writes and replay_stats.misses == 0
    assert replay_stats.used_keys == rec_stats.used_keys == {p.stem for p in iter_entries(tmp_path)}


def test_the_public_factory_records_and_replays_a_local_spec(env, data_root, tmp_path, monkeypatch):
    """make_model_factory end to end: a local spec (its own history rendering), a per-process model."""
    inner = TextPolicyModel()
    monkeypatch.setattr(factory_mod, "build_chat_model", lambda spec: inner)
    factory_mod.clear_inner_models()
    spec = "local:qwen2.5-coder-1.5b"
    try:
        stats = CacheStats()
        rec = make_model_factory(spec, cache_dir=tmp_path, record_mode="once", case_id=AR.case_id, stats=stats)
        first = run_audit(env, AR, models=rec, data_root=data_root)
        assert stats.writes == len(inner.calls) > 0 and first.decision == "violation"
        monkeypatch.setattr(factory_mod, "build_chat_model", explode)
        factory_mod.clear_inner_models()
        replay_stats = CacheStats()
        again = run_audit(env, AR, data_root=data_root, models=make_model_factory(
            spec, cache_dir=tmp_path, record_mode="none", case_id=AR.case_id, stats=replay_stats))
        assert again.canonical_json() == first.canonical_json() and replay_stats.misses == 0
        entry = json.loads(next(iter_entries(tmp_path)).read_text())
        assert entry["model"] == spec and entry["case_id"] == AR.case_id
        assert entry["request"]["extra"]["render_history"] is False
    finally:
        factory_mod.clear_inner_models()


def test_a_replay_miss_stops_the_case_with_the_fix(env, data_root, tmp_path):
    models = _text_models(LLMCache(tmp_path, "none", case_id="acme-ar"), explode)
    with pytest.raises(CacheMissError, match=r"case acme-ar, role (compliance|forensic).*--record-mode new_episodes"):
        run_audit(env, AR, models=models, data_root=data_root)


@pytest.mark.parametrize("kind", ["garbage", "wrong_tool", "truncated", "empty"])
@pytest.mark.parametrize("config", ["full", "single-agent", "direct-llm"])
def test_unusable_outputs_end_in_a_structural_failure_not_a_crash(env, data_root, kind, config):
    models = _text_models(None, lambda: ToolCallingAdapter(inner=BadTextModel(kind=kind)))
    result = run_audit(env, AR, config=config, models=models, data_root=data_root)
    assert result.structural_failure and result.invalid_output
    assert result.decision == "unable_to_verify" and result.reports == ()
    assert all(t.invalid_outputs >= 1 and t.tool_calls == 0 for t in result.transcripts)
    json.loads(result.canonical_json())


class FirstGarbage(BadTextModel):
    """Truncated JSON on its first reply, then the policy's calls: a model that recovers."""

    seen: list = Field(default_factory=list)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append(list(messages))
        if any(m.type == "ai" for m in messages):
            return TextPolicyModel()._generate(messages, stop, run_manager, **kwargs)
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_one_invalid_output_is_fed_back_and_the_model_recovers(env, data_root, tmp_path):
    inner = FirstGarbage(kind="truncated")
    cache = LLMCache(tmp_path, "new_episodes", case_id="acme-ar")
    result = run_audit(env, AR, models=_text_models(cache, lambda: ToolCallingAdapter(inner=inner)), data_root=data_root)
    assert result.invalid_output and not result.structural_failure and result.decision == "violation"
    assert all(t.invalid_outputs == 1 for t in result.transcripts)
    first_steps = [t.rounds[0][0] for t in result.transcripts]
    assert all(s.kind == "invalid_output" and s.content.startswith('{"name": "check_sign"') for s in first_steps)
    feedback = [json.loads(m.content) for m in inner.seen[-1] if m.type == "human" and "invalid_output" in m.content]
    assert "cut off" in feedback[0]["error"]["message"]  # the parser's diagnosis, not a generic line
    again = run_audit(env, AR, data_root=data_root,
                      models=_text_models(LLMCache(tmp_path, "none", case_id="acme-ar"), explode))
    assert again.canonical_json() == result.canonical_json()  # invalid outputs replay too


@pytest.mark.parametrize("tool", ["delete_filing", "get_fact_history"])
def test_a_native_call_of_a_tool_the_role_may_not_use_is_an_invalid_output(env, data_root, tool):
    """get_fact_history exists but is not a Compliance tool: the session refuses it (tool_not_allowed)
    and the run counts it as an invalid output; two in a row end the turn."""
    models = RoleModels("test:native", lambda: NativeToolModel(tool=tool), None)
    result = run_audit(env, AR, config="full", models=models, data_root=data_root)
    compliance = next(t for t in result.transcripts if t.role == "compliance")
    assert compliance.invalid_outputs >= 2 and compliance.tool_calls == 0
    step = compliance.rounds[0][0]
    assert step.kind == "invalid_output" and step.tool_call.result["error"]["type"] == "tool_not_allowed"
    assert result.invalid_output and result.structural_failure  # forensic loops on one tool, never reports
