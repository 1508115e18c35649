"""Model spec strings and the provider adapters behind them.

One string names a model everywhere (CLI, pytest options, cache entries): ``provider:model``, e.g.
``local:qwen2.5-coder-1.5b``, ``openai:gpt-4o``, ``anthropic:claude-sonnet-4-6``,
``openai-compatible:http://host:port/v1#model``. Every provider lives behind an optional extra, so
the core install needs none of them, and a replay from the cache never builds a provider at all.
Missing packages and keys are reported as :class:`~auditflow.errors.AuditflowError`\\ s that say
which ``pip install`` or which environment variable fixes them.
"""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import Any, Callable

from auditflow.llm.errors import PicklableError

# provider -> (pip extra, env var holding the key or None, base URL for OpenAI-compatible hosts or None)
OPENAI_HOSTS: dict[str, tuple[str, str]] = {
    "openrouter": ("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
    "together": ("https://api.together.xyz/v1", "TOGETHER_API_KEY"),
    "fireworks": ("https://api.fireworks.ai/inference/v1", "FIREWORKS_API_KEY"),
}
PROVIDERS: tuple[str, ...] = ("local", "openai", "anthropic", *OPENAI_HOSTS, "openai-compatible", "hf")

# How a provider's model makes a tool call (docs/local-llm.md, "Tool-call routes"):
TOOLS = "tools"  # native: the request carries `tools`, the answer `tool_calls` / tool-use blocks
JSON_SCHEMA = "json-schema"  # constrained: the tools as an anyOf JSON schema in `response_format`, JSON text back
TEXT = "text"  # the tools in the prompt and JSON in the reply text, read leniently (no constraint)
ROUTES: dict[str, str] = {
    TOOLS: "native tools/tool_calls",
    JSON_SCHEMA: "constrained response_format JSON schema",
    TEXT: "JSON in the reply text, read leniently",
}
# provider -> its default route first, then the others a spec may choose with ``provider+route:``
PROVIDER_ROUTES: dict[str, tuple[str, ...]] = {
    "local": (JSON_SCHEMA,), "hf": (TEXT,),
    "openai": (TOOLS, JSON_SCHEMA), "anthropic": (TOOLS,),
    **{host: (TOOLS, JSON_SCHEMA) for host in OPENAI_HOSTS},
    # a self-hosted server (llama.cpp, vLLM, Ollama, LM Studio) honours response_format with a JSON
    # schema, while whether it returns tool_calls depends on the server's flags and the model's chat
    # template (llama.cpp serving Qwen2.5-Coder writes the call as text): constrained by default
    "openai-compatible": (JSON_SCHEMA, TOOLS),
}
# How a constrained route (json-schema, text) shows the model its earlier calls and their results
# (docs/local-llm.md, "Tool-call routes"): as plain text (calls as JSON, results as user messages: any
# chat API takes them), left to the in-process model's own chat template, or as the in-process model
# shows them, calls as the assistant's JSON text and results as ``tool`` messages. A self-hosted server
# applies the model's chat template, so the last makes a served model read what it reads in-process.
HISTORY_TEXT, HISTORY_TEMPLATE, HISTORY_TOOL_ROLE = True, False, "tool-role"  # values kept in cache keys
PROVIDER_HISTORY: dict[str, bool | str] = {"local": HISTORY_TEMPLATE, "openai-compatible": HISTORY_TOOL_ROLE}
# Providers whose models answer in text only: they get the constrained JSON tool-call adapter.
TEXT_ONLY_PROVIDERS = frozenset({"local", "hf"})
# In-process models: one instance per process (one llama.cpp server / torch model).
IN_PROCESS_PROVIDERS = frozenset({"local", "hf"})
# Of those, the ones whose calls must take turns (a torch model is not thread-safe; llama.cpp's
# server batches its slots).
SERIALISED_PROVIDERS = frozenset({"hf"})
EXTRA = {"local": "local", "openai": "openai", "anthropic": "anthropic", "openrouter": "openai",
         "together": "openai", "fireworks": "openai", "openai-compatible": "openai", "hf": "hf"}


class ModelSpecError(PicklableError):
    """A model spec string that does not name a known provider and a model."""


class ProviderUnavailableError(PicklableError):
    """The package a provider needs is not installed (install the matching extra)."""

    def __init__(self, provider: str, package: str, cause: BaseException | None = None) -> None:
        extra = EXTRA.get(provider, provider)
        why = f" ({cause})" if cause else ""
        super().__init__(
            f"the {provider!r} model provider needs the package {package}, which is not importable{why}. "
            f"Install it with: pip install 'pytest-auditflow[{extra}]'"
        )
        self.provider, self.package, self.extra = provider, package, extra


class MissingCredentialsError(PicklableError):
    """The API key a provider needs is not set in the environment."""

    def __init__(self, provider: str, env_var: str) -> None:
        super().__init__(
            f"the {provider!r} model provider needs an API key in the environment variable {env_var}, which is "
            f"not set. Export {env_var}=... (or replay recorded calls with --record-mode none, which needs no key)"
        )
        self.provider, self.env_var = provider, env_var


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A parsed model spec. ``str(spec)`` gives back the canonical text (used in cache keys).

    ``route`` is empty for the provider's default tool-call route (``PROVIDER_ROUTES``); a spec may
    choose another one the provider allows with ``provider+route:model``, e.g.
    ``openai-compatible+tools:http://host:8000/v1#model`` for a server that returns ``tool_calls``.
    """

    provider: str
    model: str
    base_url: str | None = None
    route: str = ""

    @classmethod
    def parse(cls, text: str) -> ModelSpec:
        """``provider[+route]:model``; for ``openai-compatible`` the model is ``URL#model``."""
        if not isinstance(text, str) or ":" not in text:
            raise ModelSpecError(f"model spec {text!r} is not of the form provider:model; {_valid()}")
        provider, _, rest = text.strip().partition(":")
        provider, _, route = provider.strip().lower().partition("+")
        rest = rest.strip()
        if provider not in PROVIDERS:
            raise ModelSpecError(f"unknown model provider {provider!r} in {text!r}; {_valid()}")
        allowed = PROVIDER_ROUTES[provider]
        if route and route not in allowed:
            raise ModelSpecError(f"{text!r}: the {provider} provider makes tool calls by "
                                 f"{' or '.join(allowed)}, not {route!r} (write {provider}:... for {allowed[0]}"
                                 + (f", {provider}+{allowed[1]}:... for {allowed[1]})" if len(allowed) > 1 else ")"))
        route = "" if route == allowed[0] else route  # the default route is spelled without a suffix
        if provider == "openai-compatible":
            url, sep, model = rest.rpartition("#")
            if not sep or not url or not model:
                raise ModelSpecError(f"{text!r}: write openai-compatible:URL#model, e.g. "
                                     "openai-compatible:http://localhost:8080/v1#qwen2.5-coder-1.5b")
            return cls(provider, model.strip(), url.strip(), route)
        if not rest:
            raise ModelSpecError(f"model spec {text!r} names no model after {provider}:; {_valid()}")
        return cls(provider, rest, None, route)

    def __str__(self) -> str:
        head = f"{self.provider}+{self.route}" if self.route else self.provider
        if self.provider == "openai-compatible":
            return f"{head}:{self.base_url}#{self.model}"
        return f"{head}:{self.model}"

    @property
    def tool_route(self) -> str:
        """How this model makes tool calls: ``tools``, ``json-schema`` or ``text`` (``ROUTES``)."""
        return self.route or PROVIDER_ROUTES[self.provider][0]

    @property
    def endpoint(self) -> str:
        """Where calls go, for error messages: the base URL, or the provider's name."""
        if self.base_url:
            return self.base_url
        if self.provider in OPENAI_HOSTS:
            return OPENAI_HOSTS[self.provider][0]
        return {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}.get(
            self.provider, f"{self.provider} (in this process)")

    @property
    def history(self) -> bool | str:
        """How a constrained route renders earlier calls and results (``PROVIDER_HISTORY``; text otherwise)."""
        return PROVIDER_HISTORY.get(self.provider, HISTORY_TEXT)

    @property
    def text_only(self) -> bool:
        """Whether the model answers in text only (tool calls go through constrained JSON)."""
        return self.provider in TEXT_ONLY_PROVIDERS

    @property
    def in_process(self) -> bool:
        return self.provider in IN_PROCESS_PROVIDERS

    @property
    def serialised(self) -> bool:
        """Whether calls into the model must take turns: Transformers models are not thread-safe.
        The local llama.cpp server batches its conversation slots itself (``auditflow.llm.local``)."""
        return self.provider in SERIALISED_PROVIDERS


def route_note(spec: ModelSpec | str) -> str:
    """One phrase for report headers: how the model's tool calls travel, e.g.
    ``tool calls by json-schema (constrained response_format JSON schema)``."""
    parsed = spec if isinstance(spec, ModelSpec) else ModelSpec.parse(spec)
    return f"tool calls by {parsed.tool_route} ({ROUTES[parsed.tool_route]})"


def _valid() -> str:
    return ("valid providers: " + ", ".join(PROVIDERS) + " (e.g. local:qwen2.5-coder-1.5b, openai:gpt-4o, "
            "openai-compatible:http://host:port/v1#model; provider+tools: or provider+json-schema: chooses the "
            "tool-call route) or the word policy for the deterministic backend")


def _import(provider: str, module: str) -> Any:
    """Import a provider package, turning its absence into the install hint."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ProviderUnavailableError(provider, module.split(".")[0].replace("_", "-"), exc) from exc


def _key(provider: str, env_var: str) -> str:
    value = os.environ.get(env_var, "").strip()
    if not value:
        raise MissingCredentialsError(provider, env_var)
    return value


def _local(spec: ModelSpec):
    try:
        module = importlib.import_module("auditflow.llm.local")
        cls = module.LocalChatModel
    except (ImportError, AttributeError) as exc:
        raise ProviderUnavailableError("local", "xllamacpp", exc) from exc
    return cls(model_name=spec.model)


def _limits() -> dict[str, Any]:
    """Timeout and retries of a remote provider's client (auditflow.llm.remote.settings)."""
    from auditflow.llm.remote import settings

    s = settings()
    return {"timeout": s.timeout, "max_retries": s.max_retries}


# A self-hosted server may decode until its context is full when nothing bounds a reply; the local
# model's own cap (auditflow.llm.local.LocalChatModel.max_tokens) bounds a served model's replies too.
SERVED_MAX_TOKENS = 512


def _openai(spec: ModelSpec):
    return _import("openai", "langchain_openai").ChatOpenAI(model=spec.model, temperature=0,
                                                            api_key=_key("openai", "OPENAI_API_KEY"), **_limits())


def _openai_host(spec: ModelSpec):
    url, env_var = OPENAI_HOSTS[spec.provider]
    cls = _import(spec.provider, "langchain_openai").ChatOpenAI
    return cls(model=spec.model, temperature=0, base_url=url, api_key=_key(spec.provider, env_var), **_limits())


def _openai_compatible(spec: ModelSpec):
    cls = _import("openai-compatible", "langchain_openai").ChatOpenAI
    key = os.environ.get("OPENAI_API_KEY", "").strip() or "none"  # local servers accept any key
    return cls(model=spec.model, temperature=0, base_url=spec.base_url, api_key=key, max_tokens=SERVED_MAX_TOKENS,
               **_limits())


def _anthropic(spec: ModelSpec):
    cls = _import("anthropic", "langchain_anthropic").ChatAnthropic
    return cls(model=spec.model, temperature=0, api_key=_key("anthropic", "ANTHROPIC_API_KEY"), **_limits())


def _hf(spec: ModelSpec):
    """A Transformers pipeline on this machine, greedy, wrapped as a chat model (text out)."""
    mod = _import("hf", "langchain_huggingface")
    _import("hf", "transformers")
    llm = mod.HuggingFacePipeline.from_model_id(
        model_id=spec.model, task="text-generation",
        pipeline_kwargs={"do_sample": False, "max_new_tokens": 512, "return_full_text": False},
    )
    return mod.ChatHuggingFace(llm=llm)


BUILDERS: dict[str, Callable[[ModelSpec], Any]] = {
    "local": _local, "openai": _openai, "anthropic": _anthropic, "openrouter": _openai_host,
    "together": _openai_host, "fireworks": _openai_host, "openai-compatible": _openai_compatible, "hf": _hf,
}


def build_chat_model(spec: ModelSpec | str):
    """The provider's langchain chat model for ``spec`` (not wrapped: no cache, no tool adapter).

    Raises :class:`ProviderUnavailableError` or :class:`MissingCredentialsError` with the fix.
    """
    parsed = spec if isinstance(spec, ModelSpec) else ModelSpec.parse(spec)
    return BUILDERS[parsed.provider](parsed)
