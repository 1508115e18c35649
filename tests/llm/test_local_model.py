"""The local model (Qwen2.5-Coder via xllamacpp).

Tests marked ``local_model`` run the real 1.5B model; they are skipped only when it is not installed
(``auditflow model install 1.5b``). The unmarked tests use a fake runtime and always run: message
rendering, the constraint, load-once and the per-slot limit on requests in flight, and the error messages.
"""
from __future__ import annotations

import json
import sys
import threading
import time
import types
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

import auditflow
from auditflow.llm import local
from auditflow.llm.install import model_path
from auditflow.llm.local import LocalChatModel, LocalModelError

SAMPLE = Path(auditflow.__file__).parent / "samples" / "acme-10k-2024" / "xml"


# ---------------------------------------------------------------- without the model


def test_messages_render_for_the_qwen_template():
    msgs = [SystemMessage("sys"), HumanMessage("look at F1"),
            AIMessage("", tool_calls=[{"name": "get_fact", "args": {"fact": "F1"}, "id": "call_1"}]),
            ToolMessage('{"value": "-5"}', tool_call_id="call_1"), AIMessage("plain text")]
    assert local.to_openai_messages(msgs) == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "look at F1"},
        {"role": "assistant", "content": '{"name": "get_fact", "arguments": {"fact": "F1"}}'},
        {"role": "tool", "content": '{"value": "-5"}', "tool_call_id": "call_1"},
        {"role": "assistant", "content": "plain text"},
    ]


def test_response_format_accepts_a_raw_schema_or_a_ready_one():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    wrapped = local.to_response_format(schema)
    assert wrapped["type"] == "json_schema" and wrapped["json_schema"]["schema"] == schema
    ready = {"type": "json_schema", "json_schema": {"name": "tool_call", "schema": schema}}
    assert local.to_response_format(ready) == ready
    assert local.to_response_format(json.dumps(schema)) == wrapped
    assert local.to_response_format(None) is None


def test_request_is_greedy_and_constrained(monkeypatch):
    monkeypatch.setattr(local, "has_llguidance", lambda: False)
    m = LocalChatModel(max_tokens=64)
    req = m.build_request([HumanMessage("hi")], response_format={"type": "object"})
    assert (req["temperature"], req["top_k"], req["seed"], req["max_tokens"]) == (0.0, 1, 0, 64)
    assert req["response_format"]["json_schema"]["schema"] == {"type": "object"}
    monkeypatch.setattr(local, "has_llguidance", lambda: True)
    req = m.build_request([HumanMessage("hi")], response_format={"type": "object"})
    assert "response_format" not in req and req["grammar"].startswith("%llguidance")
    assert '"whitespace_flexible": false' in req["grammar"]
    assert "grammar" not in m.build_request([HumanMessage("hi")]) and LocalChatModel.supports_json_schema


class FakeServer:
    """Counts overlapping calls: the per-slot limit must keep them at ``n_slots``."""

    def __init__(self, params=None) -> None:
        self.active = self.peak = self.calls = 0
        self.guard = threading.Lock()

    def handle_chat_completions(self, req):
        with self.guard:
            self.active += 1
            self.peak = max(self.peak, self.active)
            self.calls += 1
        time.sleep(0.05)
        with self.guard:
            self.active -= 1
        return {"choices": [{"message": {"content": '{"ok": true}'}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}, "timings": {"cache_n": 0}}


@pytest.fixture
def fake_runtime(tmp_path, monkeypatch):
    built: list[FakeServer] = []

    class FakeParams:
        def __init__(self):
            self.model = types.SimpleNamespace(path="")
            self.cpuparams = types.SimpleNamespace(n_threads=0)
            self.cpuparams_batch = types.SimpleNamespace(n_threads=0)
            self.sampling = types.SimpleNamespace(temp=1.0, top_k=40, seed=0)

    def server(params):
        time.sleep(0.05)  # a slow load: concurrent first calls must still load once
        built.append(FakeServer(params))
        return built[-1]

    fake = types.SimpleNamespace(CommonParams=FakeParams, Server=server, json_schema_to_grammar=lambda s: "root ::= x")
    monkeypatch.setitem(sys.modules, "xllamacpp", fake)
    monkeypatch.setattr(local, "_SERVERS", {})
    monkeypatch.setattr(local, "_IN_FLIGHT", {})
    gguf = tmp_path / "fake.gguf"
    gguf.write_bytes(b"GGUF")
    return LocalChatModel(model_path=str(gguf)), built


def test_one_load_per_process_and_no_more_requests_in_flight_than_slots(fake_runtime):
    model, built = fake_runtime
    model = model.model_copy(update={"n_slots": 2})  # two conversations batched, the rest wait
    out: list = []
    threads = [threading.Thread(target=lambda: out.append(model.invoke([HumanMessage("x")]))) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(built) == 1 and built[0].calls == 6 and built[0].peak == 2
    assert {m.content for m in out} == {'{"ok": true}'} and out[0].usage_metadata["output_tokens"] == 4


def test_a_server_error_is_reported(fake_runtime, monkeypatch):
    model, built = fake_runtime
    model.load()
    monkeypatch.setattr(built[0], "handle_chat_completions", lambda req: {"code": 400, "message": "the request exceeds the available context size"})
    with pytest.raises(LocalModelError, match="raise n_ctx"):
        model.invoke([HumanMessage("x")])


def test_clear_errors_without_runtime_or_model(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # import fails
    with pytest.raises(LocalModelError, match=r"pip install 'pytest-auditflow\[local\]'"):
        LocalChatModel(model_path=str(tmp_path)).check()
    monkeypatch.setenv("AUDITFLOW_MODEL_DIR", str(tmp_path / "empty"))
    with pytest.raises(LocalModelError, match="auditflow model install 0.5b"):
        LocalChatModel(model_name="qwen2.5-coder-0.5b").resolve_path()


# ---------------------------------------------------------------- with the real 1.5B model


@pytest.fixture(scope="module")
def installed_1_5b() -> Path:
    try:
        import xllamacpp  # noqa: F401
    except ImportError:
        pytest.skip("the local model runtime is not installed: pip install 'pytest-auditflow[local]'")
    path = model_path("1.5b")
    if path is None:
        pytest.skip("the local 1.5B model is not installed: run  auditflow model install 1.5b")
    return path


@pytest.mark.local_model
def test_constrained_decoding_returns_json_matching_the_schema(installed_1_5b):
    schema = {"type": "object", "additionalProperties": False, "required": ["sign", "value"],
              "properties": {"sign": {"enum": ["positive", "negative"]}, "value": {"type": "integer"}}}
    model = LocalChatModel(model_name="qwen2.5-coder-1.5b", max_tokens=48)
    prompt = [HumanMessage("Accounts receivable is reported as -12500000. Give its sign and its value as JSON.")]
    first = model.invoke(prompt, response_format=schema)
    answer = json.loads(first.content)
    assert set(answer) == {"sign", "value"} and answer["sign"] in ("positive", "negative")
    assert isinstance(answer["value"], int)
    assert model.invoke(prompt, response_format=schema).content == first.content  # greedy: the same again


@pytest.mark.local_model
def test_the_1_5b_model_audits_a_sign_flip_end_to_end(installed_1_5b, data_root, tmp_path):
    from auditflow.agents.audit import run_audit
    from auditflow.env.query import AuditQuery
    from auditflow.graphs.environment import build_environment
    from auditflow.llm.factory import make_model_factory

    env = build_environment(SAMPLE)
    query = AuditQuery("sample", "us-gaap:AccountsReceivableNetCurrent", "2024-12-31", rule_hint="0015")
    LocalChatModel(model_name="qwen2.5-coder-1.5b").load()  # time the case, not the load
    models = make_model_factory("local:qwen2.5-coder-1.5b", cache_dir=tmp_path, record_mode="all")
    t0 = time.perf_counter()
    result = run_audit(env, query, models=models, data_root=data_root)  # the DQC 0015 list lives there
    seconds = time.perf_counter() - t0
    steps = sum(len(r) for t in result.transcripts for r in t.rounds)
    print(f"\nlocal 1.5B, sign-flip case: {seconds:.1f} s for {steps} steps in {result.rounds} round(s)")
    transcript = json.dumps([t.to_json() for t in result.transcripts], default=str)[:4000]
    assert result.decision == "violation", transcript
    assert result.triggered_rules == ("DQC.US.0015.2944",), transcript
    assert result.reported_value == -12500000 and result.expected_value == 12500000
    assert not result.structural_failure
