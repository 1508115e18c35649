"""Remote models (OpenAI, Anthropic, OpenAI-compatible hosts and servers): bounded waits, typed failures.

A model behind HTTP fails in ways an in-process one does not: rate limits, overloaded servers, read
timeouts, bodies that are not JSON, connections that drop. The provider SDKs (openai, anthropic) already
retry 429, 408, 409 and 5xx answers and dropped connections with exponential backoff, and honour a
``Retry-After`` header of up to a minute; :func:`settings` bounds that (how many retries, how long one
request may take) so a dead server cannot hang a run. What is still failing after the retries reaches
:class:`RemoteChatModel`, which turns it into a :class:`RemoteModelError` naming the endpoint, the kind
of failure and what to do: a typed error, so a case ends with the S label and ``auditflow audit`` with
exit code 2, and, since the cache writes an entry only after a whole answer, nothing partial is recorded.

Answers that arrive whole but say no (a refusal, a reply cut off at the token limit) are not errors:
they come back as a reply without a tool call and with the reason in ``invalid_tool_calls``, which the
junior loop feeds back like any unreadable output (docs/local-llm.md, "Remote models").
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, ClassVar

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field

from auditflow.llm.errors import ModelCallError, PicklableError

TIMEOUT_ENV = "AUDITFLOW_LLM_TIMEOUT"
RETRIES_ENV = "AUDITFLOW_LLM_MAX_RETRIES"
# A served 1.5B model on two cores with four conversations in flight takes minutes for a long prompt;
# a hosted model answers in seconds. The bound is for a server that stopped answering.
DEFAULT_TIMEOUT = 600.0
DEFAULT_RETRIES = 3
MAX_RETRIES = 10


class RemoteSettingsError(PicklableError):
    """An environment variable that sets the remote models' timeout or retries holds a bad value."""


class RemoteModelError(ModelCallError):
    """A remote model call failed after its retries: ``kind`` says how, ``endpoint`` where."""

    def __init__(self, kind: str, endpoint: str, detail: str, *, model: str = "") -> None:
        what = f" ({model})" if model else ""
        super().__init__(f"the model endpoint {endpoint}{what}: {detail}. {_ADVICE.get(kind, _ADVICE['failed'])}")
        self.kind, self.endpoint, self.detail, self.model = kind, endpoint, detail, model


_ADVICE = {
    "unreachable": "Start the server (auditflow model serve) or check the URL; a replay with record mode none needs no server",
    "dropped": "The server closed the connection mid-answer; check that it is still running, then rerun with record mode once",
    "timeout": f"Raise {TIMEOUT_ENV} (seconds) if the server is only slow, or check that it is still running",
    "rate_limited": f"The provider kept refusing for the rate limit; wait, lower the concurrency, or raise {RETRIES_ENV}",
    "server_error": "The server failed; rerun later with record mode once (only the missing calls are made)",
    "rejected": "The server refused the request; check the API key, the model name and the URL",
    "malformed": "The answer was not the provider's JSON; check that the URL points at an OpenAI- or Anthropic-style API",
    "failed": "Rerun with --debug for the traceback",
}


@dataclass(frozen=True, slots=True)
class RemoteSettings:
    """How long one request may take (seconds) and how many times a failed one is retried."""

    timeout: float = DEFAULT_TIMEOUT
    max_retries: int = DEFAULT_RETRIES


def settings() -> RemoteSettings:
    """The settings from ``AUDITFLOW_LLM_TIMEOUT`` and ``AUDITFLOW_LLM_MAX_RETRIES`` (defaults otherwise)."""
    return RemoteSettings(_number(TIMEOUT_ENV, DEFAULT_TIMEOUT, float, 0.01, 24 * 3600),
                          _number(RETRIES_ENV, DEFAULT_RETRIES, int, 0, MAX_RETRIES))


def _number(var: str, default, kind, low, high):
    text = os.environ.get(var, "").strip()
    if not text:
        return default
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise RemoteSettingsError(f"{var}={text!r} is not a{'n integer' if kind is int else ' number'} from "
                                  f"{low} to {high}; unset it for the default ({default})")
    return value


# ---------------------------------------------------------------- failures


def classify(exc: BaseException) -> tuple[str, str]:
    """(kind, detail) of a provider SDK's exception (openai and anthropic share the class names)."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    status = getattr(exc, "status_code", None)
    if any("Timeout" in n for n in names):
        return "timeout", "no answer within the request timeout"
    if names & {"APIConnectionError", "ConnectionError"}:
        cause = exc.__cause__ or exc.__context__
        while cause is not None and type(cause).__name__ not in ("ConnectError", "RemoteProtocolError", "ReadError"):
            cause = cause.__cause__ or cause.__context__
        if cause is not None and type(cause).__name__ == "ConnectError":
            return "unreachable", f"cannot connect ({_short(cause)})"
        return "dropped", f"the connection dropped before a whole answer ({_short(cause or exc)})"
    if status == 429 or "RateLimitError" in names:
        return "rate_limited", f"HTTP 429 {_body(exc)}"
    if isinstance(status, int) and status >= 500:
        return "server_error", f"HTTP {status} {_body(exc)}"
    if isinstance(status, int):
        return "rejected", f"HTTP {status} {_body(exc)}"
    if names & {"APIResponseValidationError", "JSONDecodeError", "ValidationError"} or isinstance(exc, ValueError):
        return "malformed", f"the answer cannot be read ({type(exc).__name__}: {_short(exc)})"
    return "failed", f"{type(exc).__name__}: {_short(exc)}"


def _short(exc: Any, limit: int = 200) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[:limit] + "..."


def _body(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        body = err.get("message", err) if isinstance(err, dict) else err
    return _short(body if body is not None else getattr(exc, "message", exc))


# ---------------------------------------------------------------- answers that say no


def finish_reason(msg: AIMessage) -> str | None:
    meta = msg.response_metadata or {}
    return meta.get("finish_reason") or meta.get("stop_reason")


def refusal_text(msg: AIMessage) -> str | None:
    """The refusal an answer carries: OpenAI's ``refusal`` field, Anthropic's ``stop_reason: refusal``,
    or a ``content_filter`` finish."""
    refusal = (msg.additional_kwargs or {}).get("refusal")
    if isinstance(refusal, str) and refusal.strip():
        return refusal.strip()
    if finish_reason(msg) in ("refusal", "content_filter"):
        return _text(msg.content).strip() or f"(finish reason {finish_reason(msg)})"
    return None


def diagnose(msg: AIMessage, *, position: int) -> AIMessage:
    """An answer that refused, or was cut off at the token limit, as a reply with no tool call and the
    reason as an invalid call (what the junior loop feeds back); other answers unchanged."""
    refusal = refusal_text(msg)
    reason = finish_reason(msg)
    if refusal is not None:
        why = f"the model refused to answer: {_short(refusal)}"
        content = _text(msg.content) or refusal
    elif reason in ("length", "max_tokens"):
        why = f"the reply was cut off at the token limit (finish reason {reason}) before the call was complete"
        content = _text(msg.content)
    else:
        return msg
    bad = {"name": None, "args": None, "id": f"call_{position}", "error": why, "type": "invalid_tool_call"}
    return AIMessage(content=content, invalid_tool_calls=[bad], response_metadata=dict(msg.response_metadata or {}),
                     usage_metadata=msg.usage_metadata)


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content
                       if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text"))
    return "" if content is None else str(content)


def _cut_off_answer(exc: BaseException) -> AIMessage | None:
    """The openai SDK's structured-output path raises on a ``length`` or ``content_filter`` finish
    (``LengthFinishReasonError``...) with the whole completion attached: that is an answer, not a failure."""
    completion = getattr(exc, "completion", None)
    choices = getattr(completion, "choices", None)
    if not choices:
        return None
    message = choices[0].message
    content = getattr(message, "content", None) or ""
    meta = {"finish_reason": choices[0].finish_reason, "model_name": getattr(completion, "model", None)}
    extra = {"refusal": message.refusal} if getattr(message, "refusal", None) else {}
    return AIMessage(content=content, response_metadata=meta, additional_kwargs=extra)


# ---------------------------------------------------------------- the guard around a provider model


class RemoteChatModel(BaseChatModel):
    """A provider's chat model whose failures become :class:`RemoteModelError` naming ``endpoint``.

    ``bind_tools`` is passed through at call time (the native route); ``response_format`` call
    arguments too (the constrained route: :class:`~auditflow.llm.toolcalls.ToolCallingAdapter` sends
    them because ``supports_json_schema`` is set).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: Any
    endpoint: str
    spec: str = ""
    tools: list = Field(default_factory=list)
    tool_kwargs: dict = Field(default_factory=dict)

    supports_json_schema: ClassVar[bool] = True

    @property
    def _llm_type(self) -> str:
        return "auditflow-remote"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"spec": self.spec, "endpoint": self.endpoint}

    def bind_tools(self, tools, **kwargs):
        return self.model_copy(update={"tools": list(tools), "tool_kwargs": dict(kwargs)})

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs) -> ChatResult:  # noqa: ARG002
        model = self.inner.bind_tools(self.tools, **self.tool_kwargs) if self.tools else self.inner
        try:
            out = model.invoke(list(messages), stop=stop, **kwargs)
        except Exception as exc:  # noqa: BLE001 - every provider failure becomes one typed error
            out = _cut_off_answer(exc)
            if out is None:
                kind, detail = classify(exc)
                raise RemoteModelError(kind, self.endpoint, detail, model=self.spec) from exc
        if not isinstance(out, AIMessage):
            raise RemoteModelError("malformed", self.endpoint, f"the answer is a {type(out).__name__}, not a message",
                                   model=self.spec)
        position = sum(isinstance(m, AIMessage) for m in messages) + 1
        return ChatResult(generations=[ChatGeneration(message=diagnose(out, position=position))])


def endpoint_of(model: Any, fallback: str) -> str:
    """The base URL a built provider model sends to (``OPENAI_BASE_URL`` or ``ANTHROPIC_BASE_URL`` may
    have set it), else ``fallback``."""
    for attr in ("openai_api_base", "anthropic_api_url"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value.rstrip("/")
    for attr in ("root_client", "_client"):
        url = getattr(getattr(model, attr, None), "base_url", None)
        if url:
            return str(url).rstrip("/")
    return fallback
