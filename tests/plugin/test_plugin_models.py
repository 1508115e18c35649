"""The model spec is checked once per session, before any case runs; this repository replays the local model.

A spec every case would fail with (no provider, an unknown local model, or in replay mode a model the
cache holds no call of) is one usage error, not one failure per case. In this repository the ini's
``auditflow_model`` is the local 1.5B model, replayed from ``cases/llm-cache/`` with neither the
``local`` extra (xllamacpp) nor the model installed, as in CI.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from plugin_cases import ASSETS_OK, case_file

from auditflow.cases.models import LOCAL_MODELS, check_model_spec
from auditflow.llm.local import MODEL_NAMES

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("spec,says", [
    ("gpt-4o", "unknown model 'gpt-4o': model spec 'gpt-4o' is not of the form provider:model*"),
    ("local:qwen2.5-coder-7b", "unknown local model 'qwen2.5-coder-7b' *runs qwen2.5-coder-1.5b or qwen2.5-coder-0.5b*"),
    ("hf:foo/bar", "unknown model 'hf:foo/bar' for a replay: the LLM cache * holds no recorded call of it (it holds "
                   "local:qwen2.5-coder-1.5b (1 calls))*"),
    ("anthropic:claude-x", "unknown model 'anthropic:claude-x' for a replay*"),
])
def test_an_unknown_model_is_one_usage_error_before_any_case_runs(pytester: pytest.Pytester, af_args, spec, says) -> None:
    cache = pytester.mkdir("llm-cache") / "ab"
    cache.mkdir()
    (cache / ("ab" + "0" * 62 + ".json")).write_text('{"case_id": "x", "model": "local:qwen2.5-coder-1.5b"}')
    pytester.makefile(".case.yaml", acme=case_file(*(ASSETS_OK.replace("assets-calc", f"case-{i}") for i in range(5))))
    result = pytester.runpytest_subprocess(*af_args, f"--auditflow-model={spec}", "--auditflow-cache-dir=llm-cache",
                                           "-n", "2", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --auditflow-model / ini auditflow_model: {says}"])
    assert "case-0" not in result.stdout.str()  # nothing ran


def test_a_recording_mode_needs_what_calls_the_model(monkeypatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(Exception, match="langchain_anthropic|ANTHROPIC_API_KEY"):
        check_model_spec("anthropic:claude-x", record_mode="new_episodes", cache_dir=None)
    check_model_spec("policy", record_mode="none", cache_dir=None)


def test_the_local_model_names_agree() -> None:
    assert LOCAL_MODELS == MODEL_NAMES


def test_this_repository_replays_the_local_model_by_default_without_its_runtime() -> None:
    """`pytest --auditflow cases/...` here: the ini's local 1.5B model, replayed, with xllamacpp unimportable."""
    code = ("import sys; sys.modules['xllamacpp'] = None; import pytest; "
            "sys.exit(pytest.main(['--auditflow', 'cases/acme-sample.case.yaml', '-p', 'no:cacheprovider', "
            "'-p', 'no:xdist', '-W', 'ignore::pytest.PytestAssertRewriteWarning']))")
    run = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "auditflow: model local:qwen2.5-coder-1.5b (replaying recorded LLM calls)" in run.stdout  # the header
    assert " 0 misses, 0 writes" in run.stdout and " 0 hits," not in run.stdout


POLICY_AS_A_MODEL = """
def pytest_auditflow_make_models(config, spec, cache_dir, record_mode, case_id, stats):
    from auditflow.agents.audit import policy_models
    return policy_models if spec == "fake:live" else None
"""


def test_recording_shows_progress_case_by_case(pytester: pytest.Pytester, af_args) -> None:
    """A live model takes tens of seconds a case: the run says which case it records, and when it is done."""
    pytester.makeconftest(POLICY_AS_A_MODEL)
    pytester.makefile(".case.yaml", acme=case_file(ASSETS_OK))
    result = pytester.runpytest(*af_args, "--auditflow-model=fake:live", "--auditflow-record-mode=new_episodes",
                                "--auditflow-cache-dir=llm-cache")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["auditflow: recording acme.case.yaml::assets-calc (started *)",
                                 "auditflow: recorded acme.case.yaml::assets-calc in *s: 0 LLM call(s) recorded, "
                                 "0 replayed (1 case(s) done)"])
    replay = pytester.runpytest(*af_args, "--auditflow-model=fake:live", "--auditflow-cache-dir=llm-cache")
    assert "auditflow: recording" not in replay.stdout.str()  # replay mode: nothing to report
