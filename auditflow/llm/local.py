"""The local model: Qwen2.5-Coder GGUF run in-process by ``xllamacpp`` (optional extra ``pytest-auditflow[local]``).

:class:`LocalChatModel` is a langchain chat model that turns a conversation into one OpenAI-style
``handle_chat_completions`` request on an embedded llama.cpp server and returns the text as an
``AIMessage``. It does not parse tool calls: small models are reliable only under *constrained
decoding*, so the caller (``auditflow.llm.toolcalls.ToolCallingAdapter``) passes a JSON schema as
``response_format`` and parses the JSON that comes back.

* Greedy and seeded: temperature 0, top_k 1, a fixed seed.
* One instance per GGUF file per process, loaded lazily on the first call (module-level registry
  guarded by a lock).
* The embedded server keeps one KV-cache slot per conversation (``n_slots``), so alternating
  auditors each reuse their own prompt prefix instead of re-reading the whole conversation, and it
  decodes the slots' requests in one batch: the two juniors of a case (langgraph runs them in
  threads) generate side by side, about a fifth more tokens a second on two cores than in turn
  (docs/benchmarks.md). At most ``n_slots`` requests are in flight per server; more would evict a
  conversation's prompt cache, so further callers wait.
* llama.cpp's server also listens on a random 127.0.0.1 port; we never use it, and lock it with a
  random API key (no web UI, no slot endpoint), so other local processes cannot drive the model.
* Greedy decoding is repeatable run to run, but reusing the prompt cache can change the last bits of
  the logits, so the exact text may differ between a cold and a warm conversation; the LLM call
  cache (record/replay) is what makes a run byte-for-byte repeatable.
"""
from __future__ import annotations

import json
import secrets
import threading
import time
from pathlib import Path
from typing import Any, ClassVar, Mapping

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from auditflow.llm.errors import ModelCallError
from auditflow.llm.install import get_spec, model_path as installed_model_path
from auditflow.llm.toolcalls import render_tool_call

MODEL_NAMES = ("qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b")
INSTALL_EXTRA = "pip install 'pytest-auditflow[local]'"

_LOAD_LOCK = threading.Lock()  # guards the registry while a model loads
_SERVERS: dict[str, Any] = {}  # resolved GGUF path -> xllamacpp.Server
_IN_FLIGHT: dict[str, threading.BoundedSemaphore] = {}  # resolved GGUF path -> one permit per slot
LOAD_SECONDS: dict[str, float] = {}  # resolved GGUF path -> seconds the load took


class LocalModelError(ModelCallError):
    """The local model cannot run: runtime missing, model not installed, or a failed request."""


def _import_xllamacpp():
    try:
        import xllamacpp
    except ImportError as exc:
        raise LocalModelError(f"the local model needs the xllamacpp runtime: {INSTALL_EXTRA}") from exc
    return xllamacpp


def _server_params(xl, path: str, *, n_threads: int, n_ctx: int, n_slots: int, seed: int):
    p = xl.CommonParams()
    p.model.path = path
    p.n_parallel = max(1, n_slots)
    p.n_ctx = n_ctx * p.n_parallel  # split evenly: every slot gets n_ctx tokens
    p.cpuparams.n_threads = n_threads
    p.cpuparams_batch.n_threads = n_threads
    p.sampling.temp, p.sampling.top_k, p.sampling.seed = 0.0, 1, seed
    p.use_jinja = True  # the GGUF's own Qwen chat template (renders tool results as <tool_response>)
    p.verbosity = -1
    p.api_keys = [secrets.token_hex(32)]  # the HTTP listener is unused: nobody else may call it
    p.ui, p.endpoint_slots = False, False
    return p


def get_server(path: str, *, n_threads: int = 2, n_ctx: int = 8192, n_slots: int = 4, seed: int = 0):
    """The process's single server for ``path``, loaded on first use (later settings are ignored)."""
    server = _SERVERS.get(path)
    if server is not None:
        return server
    with _LOAD_LOCK:
        if path not in _SERVERS:
            xl = _import_xllamacpp()
            t0 = time.perf_counter()
            try:
                _SERVERS[path] = xl.Server(_server_params(xl, path, n_threads=n_threads, n_ctx=n_ctx, n_slots=n_slots, seed=seed))
            except Exception as exc:  # noqa: BLE001 - llama.cpp reports load failures as plain exceptions
                raise LocalModelError(f"{path}: llama.cpp could not load this GGUF: {exc}") from exc
            LOAD_SECONDS[path] = time.perf_counter() - t0
            _IN_FLIGHT[path] = threading.BoundedSemaphore(max(1, n_slots))
        return _SERVERS[path]


def in_flight_limit(path: str) -> threading.BoundedSemaphore:
    """The permits of the server for ``path``: one request per conversation slot at a time."""
    with _LOAD_LOCK:
        return _IN_FLIGHT.setdefault(path, threading.BoundedSemaphore(1))


# ---------------------------------------------------------------- messages and schemas


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks: keep the text ones
        return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content)
    return str(content)


def to_openai_messages(messages: list[BaseMessage]) -> list[dict]:
    """langchain messages -> OpenAI chat messages the Qwen chat template handles.

    Earlier tool calls become the assistant's JSON text (what constrained decoding produced), and
    tool results become ``tool`` messages, which the template wraps in ``<tool_response>`` tags.
    """
    out: list[dict] = []
    for m in messages:
        if isinstance(m, SystemMessage):
            out.append({"role": "system", "content": _text(m.content)})
        elif isinstance(m, AIMessage):
            text = "\n".join(render_tool_call(c) for c in m.tool_calls) if m.tool_calls else _text(m.content)
            out.append({"role": "assistant", "content": text})
        elif isinstance(m, ToolMessage):
            out.append({"role": "tool", "content": _text(m.content), "tool_call_id": str(m.tool_call_id)})
        elif isinstance(m, HumanMessage):
            out.append({"role": "user", "content": _text(m.content)})
        else:  # ChatMessage and friends
            role = getattr(m, "role", "user")
            out.append({"role": role if role in ("system", "user", "assistant", "tool") else "user", "content": _text(m.content)})
    return out


def to_response_format(spec: Any) -> dict | None:
    """A JSON schema (dict, JSON text or pydantic class) or a ready ``response_format`` -> ``response_format``."""
    if spec is None:
        return None
    if hasattr(spec, "model_json_schema"):
        spec = spec.model_json_schema()
    if isinstance(spec, (str, bytes)):
        spec = json.loads(spec)
    if not isinstance(spec, Mapping):
        raise TypeError(f"response_format must be a JSON schema or a response_format dict, not {type(spec).__name__}")
    if spec.get("type") == "json_object" or (spec.get("type") == "json_schema" and "json_schema" in spec):
        return dict(spec)
    return {"type": "json_schema", "json_schema": {"name": "response", "schema": dict(spec)}}


COMPACT_JSON = {"whitespace_flexible": False, "key_separator": ": ", "item_separator": ", "}
_LLGUIDANCE: list[bool] = []


def has_llguidance() -> bool:
    """Whether this xllamacpp build compiles JSON schemas with llguidance (it then takes formatting options)."""
    if not _LLGUIDANCE:
        try:
            _LLGUIDANCE.append(_import_xllamacpp().json_schema_to_grammar({"type": "object"}).startswith("%llguidance"))
        except (LocalModelError, ValueError):
            _LLGUIDANCE.append(False)
    return _LLGUIDANCE[0]


def compact_grammar(schema: Mapping[str, Any]) -> str:
    """An llguidance grammar for ``schema`` that allows no optional whitespace: one-line JSON, the
    same shape as the calls rendered back into the history, and about a third fewer tokens to generate."""
    return "%llguidance {}\nstart: %json " + json.dumps({**schema, "x-guidance": COMPACT_JSON}, ensure_ascii=False)


# ---------------------------------------------------------------- the chat model


class LocalChatModel(BaseChatModel):
    """Qwen2.5-Coder (1.5B, or 0.5B for smoke tests) in-process, greedy, up to ``n_slots`` requests at once."""

    model_name: str = "qwen2.5-coder-1.5b"
    model_path: str | None = None  # default: the installed model (auditflow model install)
    cache_dir: str | None = None  # where installed models live (default $AUDITFLOW_MODEL_DIR or ~/.cache/...)
    n_threads: int = 2
    n_ctx: int = 8192  # tokens per conversation slot
    n_slots: int = 4  # conversations decoded together, each keeping its prompt cache: two cases' juniors
    max_tokens: int = 512
    seed: int = 0
    response_format: Any = None  # default constraint; a call's response_format kwarg overrides it
    compact_json: bool = True  # constrain to one-line JSON (llguidance builds only; else response_format as is)

    supports_json_schema: ClassVar[bool] = True

    @property
    def _llm_type(self) -> str:
        return "auditflow-local-llamacpp"

    @property
    def size(self) -> str:
        return get_spec(self.model_name.removesuffix("-instruct")).size

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name, "sha256": get_spec(self.size).sha256, "n_ctx": self.n_ctx,
                "max_tokens": self.max_tokens, "seed": self.seed, "temperature": 0, "top_k": 1,
                "compact_json": self.compact_json}

    def resolve_path(self) -> str:
        """The GGUF to load; a clear error when it is not installed."""
        if self.model_path:
            if not Path(self.model_path).is_file():
                raise LocalModelError(f"{self.model_path}: no such model file")
            return str(Path(self.model_path).resolve())
        found = installed_model_path(self.size, cache_dir=self.cache_dir)
        if found is None:
            raise LocalModelError(f"the local model {self.model_name} is not installed: run  auditflow model install {self.size}")
        return str(found.resolve())

    def check(self) -> str:
        """Fail early (runtime and model present) without loading; returns the GGUF path."""
        _import_xllamacpp()
        return self.resolve_path()

    def load(self):
        """Load (once per process) and return the embedded server."""
        return self._served()[1]

    def _served(self) -> tuple[str, Any]:
        """(GGUF path, its server): the path keys the server's per-slot request limit."""
        path = self.check()
        return path, get_server(path, n_threads=self.n_threads, n_ctx=self.n_ctx, n_slots=self.n_slots, seed=self.seed)

    def build_request(self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any) -> dict:
        req: dict[str, Any] = {
            "messages": to_openai_messages(messages),
            "max_tokens": int(kwargs.get("max_tokens") or self.max_tokens),
            "temperature": 0.0, "top_k": 1, "seed": self.seed, "stream": False,
        }
        fmt = to_response_format(kwargs.get("response_format", self.response_format))
        schema = (fmt.get("json_schema") or {}).get("schema") if fmt else None
        if schema is not None and self.compact_json and has_llguidance():
            req["grammar"] = compact_grammar(schema)
        elif fmt is not None:
            req["response_format"] = fmt
        if stop:
            req["stop"] = list(stop)
        return req

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager=None, **kwargs: Any) -> ChatResult:  # noqa: ARG002
        path, server = self._served()
        req = self.build_request(list(messages), stop, **kwargs)
        with in_flight_limit(path):
            t0 = time.perf_counter()
            res = server.handle_chat_completions(req)
            seconds = time.perf_counter() - t0
        return ChatResult(generations=[ChatGeneration(message=self._message(res, seconds))])

    def _message(self, res: Any, seconds: float) -> AIMessage:
        if not isinstance(res, dict) or not res.get("choices"):
            err = res.get("error", res) if isinstance(res, dict) else res
            msg = err.get("message", err) if isinstance(err, dict) else err
            hint = " (raise n_ctx)" if "context" in str(msg) else ""
            raise LocalModelError(f"the local model {self.model_name} failed: {msg}{hint}")
        choice = res["choices"][0]
        usage = res.get("usage") or {}
        t = res.get("timings") or {}
        return AIMessage(
            content=str((choice.get("message") or {}).get("content") or ""),
            usage_metadata={"input_tokens": int(usage.get("prompt_tokens", 0)), "output_tokens": int(usage.get("completion_tokens", 0)),
                            "total_tokens": int(usage.get("total_tokens", 0))},
            response_metadata={"model_name": self.model_name, "finish_reason": choice.get("finish_reason"), "seconds": round(seconds, 3),
                               "cached_tokens": t.get("cache_n"), "prompt_ms": t.get("prompt_ms"), "predicted_ms": t.get("predicted_ms")},
        )

    def bind_tools(self, tools, **kwargs):  # noqa: ARG002
        raise NotImplementedError(
            "LocalChatModel returns text: wrap it in auditflow.llm.toolcalls.ToolCallingAdapter, which constrains "
            "the output with a JSON schema of the tools and parses the tool call.")
