"""Contract tests of the remote adapters over real HTTP: openai, anthropic, an OpenAI-compatible host
(together) and ``openai-compatible`` on both tool-call routes.

Each test starts :class:`http_fakes.FakeAPI` on 127.0.0.1 and points the real provider stack
(langchain-openai / langchain-anthropic, the openai / anthropic SDKs, our cache and adapters) at it. The
server answers in the provider's wire format: tool calls, text, a reply cut off at the token limit, a
refusal, 429 with Retry-After, 500/503, a read timeout, a body that is not JSON, a dropped connection.
Every one ends as a typed outcome: an answer (recorded whole, replayed without the server), a retry that
succeeds, or a :class:`RemoteModelError` naming the endpoint with nothing written to the cache.
Timeouts and retries are cut short through the environment, as a user would set them.
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from auditflow.errors import AuditflowError
from auditflow.llm import factory as factory_mod
from auditflow.llm import specs
from auditflow.llm.factory import make_model_factory
from auditflow.llm.remote import RemoteModelError
from http_fakes import (FakeAPI, Reply, anthropic_error, anthropic_message, openai_completion,
                                  openai_error)

pytest.importorskip("langchain_openai")
pytest.importorskip("langchain_anthropic")

TOOL = {"type": "function", "function": {
    "name": "get_fact", "description": "Read one fact by its handle.",
    "parameters": {"type": "object", "properties": {"fact": {"type": "string"}}, "required": ["fact"]}}}
CALL = {"name": "get_fact", "arguments": {"fact": "F1"}}
TIMEOUT, RETRIES = 0.5, 1


class Wire:
    """One provider's spec, environment and answers in its wire format."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.anthropic = name == "anthropic"
        self.constrained = name == "openai-compatible"  # the default route of a self-hosted server

    def spec(self, api: FakeAPI) -> str:
        return {"openai": "openai:gpt-test", "anthropic": "anthropic:claude-test", "together": "together:org/model",
                "openai-compatible": f"openai-compatible:{api.url}/v1#qwen",
                "openai-compatible+tools": f"openai-compatible+tools:{api.url}/v1#qwen"}[self.name]

    def endpoint(self, api: FakeAPI) -> str:
        return api.url if self.anthropic else f"{api.url}/v1"

    def setup(self, monkeypatch, api: FakeAPI) -> None:
        for var in ("OPENAI_API_BASE", "OPENAI_BASE_URL", "ANTHROPIC_API_URL", "ANTHROPIC_BASE_URL"):
            monkeypatch.delenv(var, raising=False)
        monkeypatch.setenv("AUDITFLOW_LLM_TIMEOUT", str(TIMEOUT))
        monkeypatch.setenv("AUDITFLOW_LLM_MAX_RETRIES", str(RETRIES))
        if self.name == "openai":
            monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
            monkeypatch.setenv("OPENAI_BASE_URL", f"{api.url}/v1")
        elif self.anthropic:
            monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
            monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        elif self.name == "together":
            monkeypatch.setenv("TOGETHER_API_KEY", "tg-test")
            monkeypatch.setitem(specs.OPENAI_HOSTS, "together", (f"{api.url}/v1", "TOGETHER_API_KEY"))

    @property
    def path(self) -> str:
        return "/v1/messages" if self.anthropic else "/v1/chat/completions"

    def tool_answer(self) -> dict:
        if self.anthropic:
            return anthropic_message(tool_use=CALL, stop_reason="tool_use")
        if self.constrained:
            return openai_completion(content='{"name": "get_fact", "arguments": {"fact": "F1"}}')
        return openai_completion(tool_calls=[CALL], finish_reason="tool_calls")

    def text_answer(self, text: str) -> dict:
        return anthropic_message(text=text) if self.anthropic else openai_completion(content=text)

    def cut_off(self) -> dict:
        if self.anthropic:
            return anthropic_message(text='{"name": "get_fact", "argu', stop_reason="max_tokens")
        if self.constrained:
            return openai_completion(content='{"name": "get_fact", "argu', finish_reason="length")
        return openai_completion(tool_calls=[{"name": "get_fact", "arguments": '{"fact": "F'}], finish_reason="length")

    def refusal(self) -> dict:
        if self.anthropic:
            return anthropic_message(text="I can't help with that.", stop_reason="refusal")
        return openai_completion(refusal="I can't help with that.")

    def error(self, status: int) -> dict:
        if self.anthropic:
            kind = {429: "rate_limit_error", 500: "api_error", 503: "overloaded_error"}[status]
            return anthropic_error(f"status {status}", kind)
        return openai_error(f"status {status}", "server_error" if status >= 500 else "requests",
                            "rate_limit_exceeded" if status == 429 else None)


WIRES = ["openai", "anthropic", "together", "openai-compatible", "openai-compatible+tools"]


@pytest.fixture(params=WIRES)
def wire(request) -> Wire:
    factory_mod.clear_inner_models()  # the provider model is built once per spec and process
    yield Wire(request.param)
    factory_mod.clear_inner_models()


def _model(spec: str, cache: Path, mode: str = "once", *, tools: bool = True):
    m = make_model_factory(spec, cache_dir=cache, record_mode=mode, case_id="contract")("junior")
    return m.bind_tools([TOOL]) if tools else m


CONVERSATION = [SystemMessage("You audit one fact."), HumanMessage("Read the fact F1.")]


def _files(cache: Path) -> list[str]:
    return sorted(str(p.relative_to(cache)) for p in cache.rglob("*") if p.is_file()) if cache.exists() else []


def _answered(wire: Wire, monkeypatch, tmp_path, script, *, tools: bool = True) -> tuple[AIMessage, FakeAPI, Path]:
    """Run one call against ``script``; check the whole answer was recorded and replays without the server."""
    cache = tmp_path / "cache"
    with FakeAPI(script) as api:
        wire.setup(monkeypatch, api)
        spec = wire.spec(api)
        got = _model(spec, cache, tools=tools).invoke(CONVERSATION)
    assert all(s.path == wire.path for s in api.seen)
    files = _files(cache)
    assert len([f for f in files if not f.startswith("cases")]) == 1 and len(files) == 2, files  # one entry + manifest
    factory_mod.clear_inner_models()
    replayed = _model(spec, cache, "none", tools=tools).invoke(CONVERSATION)  # the server is gone
    assert (replayed.content, replayed.tool_calls, replayed.invalid_tool_calls) == (
        got.content, got.tool_calls, got.invalid_tool_calls)
    return got, api, cache


def _failed(wire: Wire, monkeypatch, tmp_path, script, kind: str) -> tuple[RemoteModelError, FakeAPI]:
    """Run one call that must fail: a typed error naming the endpoint, nothing in the cache."""
    cache = tmp_path / "cache"
    with FakeAPI(script) as api:
        wire.setup(monkeypatch, api)
        t0 = time.perf_counter()
        with pytest.raises(RemoteModelError) as err:
            _model(wire.spec(api), cache).invoke(CONVERSATION)
        assert time.perf_counter() - t0 < 15  # bounded: no hang
    assert isinstance(err.value, AuditflowError) and err.value.kind == kind, str(err.value)
    assert wire.endpoint(api) in str(err.value) and err.value.endpoint == wire.endpoint(api)
    assert [f for f in _files(cache)] == []  # no entry, no manifest, no temporary file
    return err.value, api


# ---------------------------------------------------------------- answers


def test_a_tool_call_comes_back_as_a_tool_call_on_the_provider_route(wire, monkeypatch, tmp_path):
    got, api, _ = _answered(wire, monkeypatch, tmp_path, [Reply(body=wire.tool_answer())])
    assert [(c["name"], c["args"]) for c in got.tool_calls] == [("get_fact", {"fact": "F1"})]
    sent = api.seen[0].body
    if wire.constrained:  # the constrained route: the tools as a JSON schema, no `tools`
        assert "tools" not in sent and sent["response_format"]["type"] == "json_schema"
        schema = sent["response_format"]["json_schema"]["schema"]
        assert schema["anyOf"][0]["properties"]["name"] == {"const": "get_fact"}
    else:  # the native route: the tool schema in `tools`
        names = [t.get("name") or t["function"]["name"] for t in sent["tools"]]
        assert names == ["get_fact"] and "response_format" not in sent


def test_a_text_answer_comes_back_as_text(wire, monkeypatch, tmp_path):
    got, _, _ = _answered(wire, monkeypatch, tmp_path, [Reply(body=wire.text_answer("Assets are 5."))], tools=False)
    assert got.content == "Assets are 5." and not got.tool_calls


def test_a_reply_cut_off_at_the_token_limit_is_an_invalid_output(wire, monkeypatch, tmp_path):
    got, _, _ = _answered(wire, monkeypatch, tmp_path, [Reply(body=wire.cut_off())])
    assert not got.tool_calls and len(got.invalid_tool_calls) == 1
    error = got.invalid_tool_calls[0]["error"]
    assert "cut off" in error, error


def test_a_refusal_is_an_invalid_output_that_says_so(wire, monkeypatch, tmp_path):
    got, _, _ = _answered(wire, monkeypatch, tmp_path, [Reply(body=wire.refusal())])
    assert not got.tool_calls and "refused" in got.invalid_tool_calls[0]["error"]
    assert "I can't help with that." in got.invalid_tool_calls[0]["error"]


# ---------------------------------------------------------------- retries


def test_a_429_is_retried_after_retry_after_and_succeeds(wire, monkeypatch, tmp_path):
    script = [Reply(429, wire.error(429), {"Retry-After": "1"}), Reply(body=wire.tool_answer())]
    t0 = time.perf_counter()
    got, api, _ = _answered(wire, monkeypatch, tmp_path, script)
    assert len(api.seen) == 2 and time.perf_counter() - t0 >= 0.95  # waited the second it was told to
    assert got.tool_calls[0]["args"] == {"fact": "F1"}


def test_a_503_is_retried_and_succeeds(wire, monkeypatch, tmp_path):
    got, api, _ = _answered(wire, monkeypatch, tmp_path, [Reply(503, wire.error(503)), Reply(body=wire.tool_answer())])
    assert len(api.seen) == 2 and got.tool_calls


def test_a_429_that_persists_ends_as_a_typed_error_after_bounded_retries(wire, monkeypatch, tmp_path):
    err, api = _failed(wire, monkeypatch, tmp_path, [Reply(429, wire.error(429), {"Retry-After": "0"})], "rate_limited")
    assert len(api.seen) == 1 + RETRIES and "429" in str(err)


def test_a_500_that_persists_ends_as_a_typed_error(wire, monkeypatch, tmp_path):
    err, api = _failed(wire, monkeypatch, tmp_path, [Reply(500, wire.error(500))], "server_error")
    assert len(api.seen) == 1 + RETRIES and "HTTP 500" in str(err)


# ---------------------------------------------------------------- broken transports


def test_a_read_timeout_ends_as_a_typed_error(wire, monkeypatch, tmp_path):
    err, api = _failed(wire, monkeypatch, tmp_path, [Reply(body=wire.tool_answer(), delay=5)], "timeout")
    assert len(api.seen) == 1 + RETRIES and "AUDITFLOW_LLM_TIMEOUT" in str(err)


def test_a_body_that_is_not_json_ends_as_a_typed_error(wire, monkeypatch, tmp_path):
    err, _ = _failed(wire, monkeypatch, tmp_path, [Reply(body=b'{"choices": [{"message": ')], "malformed")
    assert "cannot be read" in str(err)


def test_a_dropped_connection_ends_as_a_typed_error(wire, monkeypatch, tmp_path):
    err, api = _failed(wire, monkeypatch, tmp_path, [Reply(drop=True)], "dropped")
    assert len(api.seen) == 1 + RETRIES and "still running" in str(err)


def test_a_server_that_is_gone_ends_as_a_typed_error(wire, monkeypatch, tmp_path):
    cache = tmp_path / "cache"
    api = FakeAPI([Reply(body=wire.tool_answer())])
    wire.setup(monkeypatch, api)
    spec = wire.spec(api)
    api.close()  # the port is closed: connection refused
    with pytest.raises(RemoteModelError) as err:
        _model(spec, cache).invoke(CONVERSATION)
    assert err.value.kind == "unreachable" and wire.endpoint(api) in str(err.value)
    assert "auditflow model serve" in str(err.value) and _files(cache) == []


@pytest.mark.parametrize("var, value", [("AUDITFLOW_LLM_TIMEOUT", "soon"), ("AUDITFLOW_LLM_TIMEOUT", "0"),
                                        ("AUDITFLOW_LLM_MAX_RETRIES", "11"), ("AUDITFLOW_LLM_MAX_RETRIES", "1.5")])
def test_a_bad_timeout_or_retry_setting_is_one_error_before_any_call(monkeypatch, var, value):
    from auditflow.cases.models import check_model_spec
    from auditflow.llm.remote import RemoteSettingsError

    monkeypatch.setenv(var, value)
    with pytest.raises(RemoteSettingsError, match=f"{var}='{value}'.*unset it for the default"):
        check_model_spec("openai-compatible:http://127.0.0.1:9/v1#m", record_mode="once", cache_dir=None)
    check_model_spec("policy", record_mode="once", cache_dir=None)  # no remote model, nothing to read


@pytest.mark.parametrize("host, env_var", [("fireworks", "FIREWORKS_API_KEY"), ("openrouter", "OPENROUTER_API_KEY")])
def test_the_other_hosts_take_the_same_route_with_their_own_key(monkeypatch, tmp_path, host, env_var):
    """fireworks and openrouter are built as together is (one builder); here each sends its own key to
    its own base URL, and a 503 then an answer is retried into the tool call."""
    factory_mod.clear_inner_models()
    wire = Wire("together")
    with FakeAPI([Reply(503, wire.error(503)), Reply(body=wire.tool_answer())]) as api:
        wire.setup(monkeypatch, api)
        monkeypatch.setenv(env_var, f"{host}-key")
        monkeypatch.setitem(specs.OPENAI_HOSTS, host, (f"{api.url}/v1", env_var))
        got = _model(f"{host}:org/model", tmp_path / "cache").invoke(CONVERSATION)
    factory_mod.clear_inner_models()
    assert got.tool_calls[0]["args"] == {"fact": "F1"} and len(api.seen) == 2
    headers = {k.lower(): v for k, v in api.seen[-1].headers.items()}
    assert headers["authorization"] == f"Bearer {host}-key" and api.seen[-1].body["model"] == "org/model"
