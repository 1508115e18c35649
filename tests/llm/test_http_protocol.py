"""The whole protocol over real HTTP through the ``openai-compatible`` provider, and the first live run.

The server is :class:`http_fakes.FakeAPI` on 127.0.0.1 answering ``/v1/chat/completions`` with what
the deterministic policy would call next (``llm_fakes.TextPolicyModel`` reading the conversation as it
arrives over the wire), so the audit, the plugin and the cache run exactly as against a served model,
without one. With a real served model: ``test_model_serve.py`` and the end-to-end test.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from http_fakes import FakeAPI, Reply, openai_completion
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from llm_fakes import TextPolicyModel

from auditflow.cli.main import main
from auditflow.llm import factory

pytest.importorskip("langchain_openai")

REPO = Path(__file__).resolve().parents[2]
SAMPLE_XML = REPO / "auditflow" / "samples" / "acme-10k-2024" / "xml"
ASSETS = ["--concept", "us-gaap:Assets", "--period", "2024-12-31", "--rule", "0126", "--format", "json"]
WIRE_ROLES = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage,
              "tool": lambda content: ToolMessage(content, tool_call_id="wire")}


def policy_reply(number: int, body: dict) -> Reply:  # noqa: ARG001
    """What the policy calls next, from the OpenAI messages the client sent (the JSON-schema route
    sends earlier calls as the assistant's JSON text and their results as ``tool`` messages, as the
    in-process model reads them); ``GET /v1/models`` lists it."""
    if body is None:
        return Reply(body={"object": "list", "data": [{"id": "policy-over-http", "object": "model"}]})
    messages = [WIRE_ROLES[m["role"]](m["content"] or "") for m in body["messages"]]
    assert body["response_format"]["type"] == "json_schema"  # the constrained route
    return Reply(body=openai_completion(content=TextPolicyModel().invoke(messages).content, model=body["model"]))


@pytest.fixture(autouse=True)
def _fresh_models(monkeypatch):
    monkeypatch.setenv("AUDITFLOW_LLM_TIMEOUT", "30")
    factory.clear_inner_models()
    yield
    factory.clear_inner_models()


def _audit(spec: str, cache: Path, data_root: Path, *extra: str) -> int:
    return main(["audit", str(SAMPLE_XML), *ASSETS, "--model", spec, "--cache-dir", str(cache),
                 "--data-root", str(data_root), *extra])


def _entries(cache: Path) -> list[Path]:
    return sorted(p for p in cache.glob("??/*.json"))


def test_a_first_live_audit_calls_the_model_once_and_records(data_root, tmp_path, capsys):
    """``auditflow audit --model SPEC`` without a record mode: the first run calls the server and
    records every call; the second replays them all, with the server gone, to the same result."""
    cache = tmp_path / "cache"
    with FakeAPI(policy_reply) as api:
        spec = f"openai-compatible:{api.url}/v1#policy-over-http"
        assert _audit(spec, cache, data_root) == 1  # a violation, as with the policy in-process
        first = capsys.readouterr().out
    calls = len(api.seen)
    assert calls >= 3 and len(_entries(cache)) == calls  # every call recorded, whole
    assert all(s.path == "/v1/chat/completions" for s in api.seen)
    factory.clear_inner_models()
    assert _audit(spec, cache, data_root) == 1  # the server is closed: a replay, or this would fail
    assert capsys.readouterr().out == first
    result = json.loads(first)
    assert (result["decision"], result["triggered_rules"]) == ("violation", ["DQC.US.0126.9590"])
    entry = json.loads(_entries(cache)[0].read_text())
    assert entry["model"] == spec and entry["request"]["extra"]["tool_route"] == "json-schema"


def test_replay_only_with_nothing_recorded_names_the_flag_to_add(data_root, tmp_path, capsys):
    with FakeAPI(policy_reply) as api:
        spec = f"openai-compatible:{api.url}/v1#policy-over-http"
        assert _audit(spec, tmp_path / "empty", data_root, "--record-mode", "none") == 2
    err = capsys.readouterr().err
    assert err.startswith("auditflow: error: ") and len(err.strip().splitlines()) == 1
    assert f"A server answers at {api.url}/v1" in err and "--record-mode once" in err
    assert "--auditflow-record-mode once" in err
    assert [s.path for s in api.seen] == ["/v1/models"]  # the probe only: no model call


def test_the_plugin_records_over_http_and_replays_to_the_same_results(data_root, tmp_path):
    """``pytest --auditflow`` with the openai-compatible spec: record mode once against the server, then
    none with the server closed: the same per-case results, 0 misses; the header names the route."""
    cache, results = tmp_path / "cache", [tmp_path / "once.json", tmp_path / "none.json"]

    def run(spec: str, mode: str, out: Path) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "--auditflow", "cases/acme-sample.case.yaml", "-p", "no:cacheprovider",
             "-p", "no:xdist", f"--auditflow-model={spec}", f"--auditflow-record-mode={mode}",
             f"--auditflow-cache-dir={cache}", f"--auditflow-json={out}", f"--auditflow-data-root={data_root}"],
            cwd=REPO, capture_output=True, text=True, timeout=600)

    with FakeAPI(policy_reply) as api:
        spec = f"openai-compatible:{api.url}/v1#policy-over-http"
        recorded = run(spec, "once", results[0])
    assert recorded.returncode == 0, recorded.stdout[-3000:] + recorded.stderr[-2000:]
    assert "tool calls by json-schema (constrained response_format JSON schema)" in recorded.stdout
    replayed = run(spec, "none", results[1])
    assert replayed.returncode == 0, replayed.stdout[-3000:] + replayed.stderr[-2000:]
    assert " 0 misses, 0 writes" in replayed.stdout
    rows = [[(c["case_id"], c["label"], c.get("decision")) for c in json.loads(p.read_text())["cases"]] for p in results]
    assert rows[0] == rows[1] and len(rows[0]) == 5 and len(api.seen) > 5


def test_an_installed_local_model_with_nothing_recorded_names_the_flag(monkeypatch, tmp_path):
    from auditflow.cases.errors import ModelSpecError
    from auditflow.cases.models import check_model_spec
    from auditflow.llm import install

    monkeypatch.setattr(install, "model_path", lambda size, cache_dir=None: tmp_path / f"{size}.gguf")
    with pytest.raises(ModelSpecError) as err:
        check_model_spec("local:qwen2.5-coder-1.5b", record_mode="none", cache_dir=tmp_path)
    assert "The model is installed. To call the model and record its answers, add --auditflow-record-mode once " \
           "(pytest) or --record-mode once" in str(err.value)
    monkeypatch.setattr(install, "model_path", lambda size, cache_dir=None: None)
    with pytest.raises(ModelSpecError) as err:
        check_model_spec("local:qwen2.5-coder-1.5b", record_mode="none", cache_dir=tmp_path)
    assert "The model is installed" not in str(err.value) and "--auditflow-record-mode once" in str(err.value)


@pytest.mark.parametrize("fault", ["server_error", "refusal"])
def test_a_case_against_a_failing_endpoint_ends_with_the_s_label(data_root, tmp_path, monkeypatch, fault):
    """A case whose server keeps failing ends as S with a typed error naming the endpoint and nothing
    recorded; one whose model keeps refusing ends as S through the protocol's invalid-output path."""
    from auditflow.cases.loader import load_case_file
    from auditflow.cases.runner import run_case
    from auditflow.cases.settings import RunSettings

    monkeypatch.setenv("AUDITFLOW_LLM_TIMEOUT", "2")
    monkeypatch.setenv("AUDITFLOW_LLM_MAX_RETRIES", "1")
    case = load_case_file(REPO / "cases" / "acme-sample.case.yaml")[0]
    reply = (Reply(503, {"error": {"message": "overloaded", "type": "server_error"}}) if fault == "server_error"
             else Reply(body=openai_completion(refusal="I can't help with that.")))
    cache = tmp_path / "cache"
    with FakeAPI([reply]) as api:
        spec = f"openai-compatible:{api.url}/v1#m"
        outcome = run_case(case, RunSettings(model=spec, record_mode="once", cache_dir=cache, data_root=data_root))
    assert outcome.judgement.label == "S" and not outcome.passed
    if fault == "server_error":
        assert outcome.error_kind == "model" and f"{api.url}/v1" in outcome.error and "HTTP 503" in outcome.error
        assert len(api.seen) in (2, 4)  # one call (or the two juniors' first calls at once), each tried twice
        assert not _entries(cache) and not list(cache.glob("cases/*"))
    else:
        assert outcome.error is None and outcome.result is not None and len(_entries(cache)) == len(api.seen)


def test_eval_records_over_http_and_replays_to_the_same_tables(data_root, tmp_path, capsys):
    """``auditflow eval --model openai-compatible:...`` records with new_episodes against the server and
    replays with none, the server gone, to the same results table."""
    cache = tmp_path / "cache"
    cases = str(REPO / "cases" / "acme-sample.case.yaml")

    def run(spec: str, mode: str, out: Path) -> int:
        return main(["eval", cases, "--configs", "full", "--model", spec, "--record-mode", mode, "--cache-dir",
                     str(cache), "--data-root", str(data_root), "--out", str(out), "--bootstrap", "50", "--no-charts"])

    with FakeAPI(policy_reply) as api:
        spec = f"openai-compatible:{api.url}/v1#policy-over-http"
        assert run(spec, "new_episodes", tmp_path / "live") == 0
    assert 5 < len(_entries(cache)) <= len(api.seen)  # two cases may ask one same first call: one entry
    factory.clear_inner_models()
    assert run(spec, "none", tmp_path / "replay") == 0
    capsys.readouterr()
    rows = [[(r["key"], r["label"], r["decision"]) for r in json.loads((tmp_path / d / "results.json").read_text())["records"]["full"]]
            for d in ("live", "replay")]
    assert rows[0] == rows[1] and len(rows[0]) == 5
