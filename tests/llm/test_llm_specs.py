"""Model spec strings and provider adapters: parsing, and the errors for a missing package or key.

The provider packages are optional extras and are not installed here: absence is the real state,
and a fake module stands in for a package when the key check or the constructor call is tested.
"""
from __future__ import annotations

import sys
import types

import pytest

from auditflow.errors import AuditflowError
from auditflow.llm.specs import (
    PROVIDERS, MissingCredentialsError, ModelSpec, ModelSpecError, ProviderUnavailableError, build_chat_model,
)
from auditflow.llm.toolcalls import ToolCallingAdapter


@pytest.mark.parametrize("text, provider, model, base_url", [
    ("local:qwen2.5-coder-1.5b", "local", "qwen2.5-coder-1.5b", None),
    ("openai:gpt-4o", "openai", "gpt-4o", None),
    ("anthropic:claude-sonnet-4-6", "anthropic", "claude-sonnet-4-6", None),
    ("openrouter:qwen/qwen-2.5-coder-32b-instruct", "openrouter", "qwen/qwen-2.5-coder-32b-instruct", None),
    ("together:meta-llama/Llama-3.3-70B-Instruct-Turbo", "together", "meta-llama/Llama-3.3-70B-Instruct-Turbo", None),
    ("fireworks:accounts/fireworks/models/qwen2p5-72b", "fireworks", "accounts/fireworks/models/qwen2p5-72b", None),
    ("openai-compatible:http://127.0.0.1:8080/v1#qwen", "openai-compatible", "qwen", "http://127.0.0.1:8080/v1"),
    ("hf:Qwen/Qwen2.5-0.5B-Instruct", "hf", "Qwen/Qwen2.5-0.5B-Instruct", None),
    (" OpenAI : gpt-4o-mini ", "openai", "gpt-4o-mini", None),
])
def test_spec_parsing_round_trips(text, provider, model, base_url):
    spec = ModelSpec.parse(text)
    assert (spec.provider, spec.model, spec.base_url) == (provider, model, base_url)
    assert ModelSpec.parse(str(spec)) == spec


def test_text_only_and_in_process_providers():
    assert ModelSpec.parse("local:qwen2.5-coder-1.5b").text_only and ModelSpec.parse("hf:x").in_process
    # Transformers models take turns; the local llama.cpp server batches its slots itself
    assert ModelSpec.parse("hf:x").serialised and not ModelSpec.parse("local:qwen2.5-coder-1.5b").serialised
    assert not ModelSpec.parse("openai:gpt-4o").text_only


@pytest.mark.parametrize("text, match", [
    ("gpt-4o", "not of the form provider:model"),
    ("ollama:llama3", "unknown model provider 'ollama'"),
    ("openai:", "names no model"),
    ("openai-compatible:http://host/v1", "openai-compatible:URL#model"),
])
def test_bad_specs_list_the_valid_providers(text, match):
    with pytest.raises(ModelSpecError, match=match) as err:
        ModelSpec.parse(text)
    assert isinstance(err.value, AuditflowError)
    if "provider" in match or "form" in match:
        assert all(p in str(err.value) for p in PROVIDERS)


def _absent(monkeypatch, *modules):
    for m in modules:
        monkeypatch.setitem(sys.modules, m, None)  # import raises ImportError


@pytest.mark.parametrize("spec, package, extra", [
    ("openai:gpt-4o", "langchain-openai", "openai"),
    ("openrouter:x/y", "langchain-openai", "openai"),
    ("together:x", "langchain-openai", "openai"),
    ("fireworks:x", "langchain-openai", "openai"),
    ("openai-compatible:http://h:1/v1#m", "langchain-openai", "openai"),
    ("anthropic:claude-sonnet-4-6", "langchain-anthropic", "anthropic"),
    ("hf:Qwen/Qwen2.5-0.5B-Instruct", "langchain-huggingface", "hf"),
])
def test_a_missing_package_names_the_extra(monkeypatch, spec, package, extra):
    _absent(monkeypatch, "langchain_openai", "langchain_anthropic", "langchain_huggingface")
    with pytest.raises(ProviderUnavailableError) as err:
        build_chat_model(spec)
    assert package in str(err.value) and f"pip install 'pytest-auditflow[{extra}]'" in str(err.value)


def test_the_local_model_missing_names_the_local_extra(monkeypatch):
    _absent(monkeypatch, "auditflow.llm.local")
    with pytest.raises(ProviderUnavailableError, match=r"pip install 'pytest-auditflow\[local\]'"):
        build_chat_model("local:qwen2.5-coder-1.5b")


class _FakeChat:
    def __init__(self, **kwargs):
        self.kwargs = kwargs


@pytest.fixture
def fake_providers(monkeypatch):
    """Stand-in provider packages that record how the chat model was constructed."""
    for name, cls in (("langchain_openai", "ChatOpenAI"), ("langchain_anthropic", "ChatAnthropic")):
        mod = types.ModuleType(name)
        setattr(mod, cls, _FakeChat)
        monkeypatch.setitem(sys.modules, name, mod)
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "TOGETHER_API_KEY", "FIREWORKS_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


@pytest.mark.parametrize("spec, env_var", [
    ("openai:gpt-4o", "OPENAI_API_KEY"), ("anthropic:claude-sonnet-4-6", "ANTHROPIC_API_KEY"),
    ("openrouter:a/b", "OPENROUTER_API_KEY"), ("together:a", "TOGETHER_API_KEY"), ("fireworks:a", "FIREWORKS_API_KEY"),
])
def test_a_missing_key_names_the_variable(fake_providers, spec, env_var):
    with pytest.raises(MissingCredentialsError, match=env_var) as err:
        build_chat_model(spec)
    assert err.value.env_var == env_var
    fake_providers.setenv(env_var, "sk-test")
    model = build_chat_model(spec)
    assert model.kwargs["api_key"] == "sk-test" and model.kwargs["temperature"] == 0


def test_hosted_openai_compatible_providers_get_their_base_url(fake_providers):
    fake_providers.setenv("OPENROUTER_API_KEY", "k")
    assert build_chat_model("openrouter:qwen/q").kwargs["base_url"] == "https://openrouter.ai/api/v1"
    m = build_chat_model("openai-compatible:http://127.0.0.1:8080/v1#qwen")  # no key needed for a local server
    assert m.kwargs == {"model": "qwen", "temperature": 0, "base_url": "http://127.0.0.1:8080/v1", "api_key": "none",
                        "max_tokens": 512, "timeout": 600.0, "max_retries": 3}  # bounded: a dead server cannot hang a run


def test_the_factory_wraps_text_only_models_in_the_adapter(monkeypatch):
    from auditflow.llm import factory

    class FakeLocal:
        def __init__(self, *, model_name):
            self.model_name = model_name

    mod = types.ModuleType("auditflow.llm.local")
    mod.LocalChatModel = FakeLocal
    monkeypatch.setitem(sys.modules, "auditflow.llm.local", mod)
    factory.clear_inner_models()
    try:
        inner = factory.inner_model("local:qwen2.5-coder-0.5b")
        assert isinstance(inner, ToolCallingAdapter) and inner.inner.model_name == "qwen2.5-coder-0.5b"
        # llama.cpp batches its slots itself (auditflow.llm.local limits requests in flight)
        assert inner.call_lock is None and inner.render_history is False
        assert factory.inner_model("local:qwen2.5-coder-0.5b") is inner  # one instance per process
    finally:
        factory.clear_inner_models()
