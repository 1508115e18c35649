"""A user's own prompt profile, from the pytest.ini of their project (docs/prompt-profiles.md).

The model here is the deterministic policy behind the real LLM cache (keys computed exactly as for a
language model), so the test can record, replay, and then see which calls an edit of the profile
touches: the edited text changes the keys of the calls that carry it, and of no others.
"""
from __future__ import annotations

import json

import pytest
from plugin_cases import ASSETS_OK, case_file

from auditflow.agents.profile import PROFILE_DIR

POLICY_BEHIND_CACHE = """
from auditflow.agents.policy import DeterministicPolicy
from auditflow.llm.cache import CachedChatModel, LLMCache


def pytest_auditflow_make_models(config, spec, cache_dir, record_mode, case_id, stats):
    if spec != "cached-policy":
        return None
    cache = LLMCache(cache_dir, record_mode, case_id=case_id, stats=stats)
    return lambda role: CachedChatModel(role=role, spec=spec, make_inner=lambda: DeterministicPolicy(role=role),
                                        llm_cache=cache)
"""


def _counts(pytester) -> dict:
    data = json.loads((pytester.path / "out.json").read_text())
    return {k: sum(r[f"cache_{k}"] for r in data["cases"]) for k in ("hits", "misses", "writes")}


def test_a_users_profile_file_from_pytest_ini_is_used_recorded_and_replayed(pytester: pytest.Pytester, af_args) -> None:
    guided = (PROFILE_DIR / "guided.yaml").read_text(encoding="utf-8")
    (pytester.path / "prompts").mkdir()
    (pytester.path / "prompts" / "mine.yaml").write_text(guided.replace("profile: guided", "profile: mine"), encoding="utf-8")
    pytester.makeini("[pytest]\nauditflow_prompts = prompts/mine.yaml\nauditflow_cache_dir = llm-cache\n")
    pytester.makeconftest(POLICY_BEHIND_CACHE)
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK))
    args = [*af_args, "--auditflow-model=cached-policy", "--auditflow-json=out.json"]

    recorded = pytester.runpytest(*args, "--auditflow-record-mode=new_episodes")
    recorded.assert_outcomes(passed=1)
    recorded.stdout.fnmatch_lines(["*prompts mine (*)*"])
    first = _counts(pytester)
    assert first["writes"] > 0 and first["hits"] == 0

    replayed = pytester.runpytest(*args)
    replayed.assert_outcomes(passed=1)
    assert _counts(pytester) == {"hits": first["writes"], "misses": 0, "writes": 0}

    # an edit of the reporting rule touches only the calls made after the last required checker ran
    edited = guided.replace("profile: guided", "profile: mine").replace("how_to_report: 'violations_found not empty",
                                                                        "how_to_report: 'If violations_found is not empty")
    assert edited != guided.replace("profile: guided", "profile: mine")
    (pytester.path / "prompts" / "mine.yaml").write_text(edited, encoding="utf-8")
    after = pytester.runpytest(*args)
    after.assert_outcomes(failed=1)  # a miss in replay mode, saying how to re-record
    counts = _counts(pytester)
    assert counts["misses"] >= 1 and counts["hits"] >= 1, counts


def test_a_bad_profile_is_one_usage_error(pytester: pytest.Pytester, af_args) -> None:
    pytester.makefile(".yaml", bad="profile: x\nversion: 1\n")
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK))
    result = pytester.runpytest(*af_args, "--auditflow-model=policy", f"--auditflow-prompts={pytester.path / 'bad.yaml'}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--auditflow-prompts*bad.yaml: missing field 'system.roles'*"])
