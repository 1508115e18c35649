"""A scripted HTTP API on 127.0.0.1 for the remote adapters' contract tests, and the providers' wire formats.

:class:`FakeAPI` is a stdlib ``ThreadingHTTPServer`` in a thread. Each request takes the next
:class:`Reply` of its script: a status, a JSON body (or raw bytes), headers, a delay (a read timeout
on the client's side) or a dropped connection. The tests stop it; a delay never outlives ``close``.

The payloads below are written by us from each provider's documented format: OpenAI's chat completion
object (``choices[].message.tool_calls``, ``refusal``, ``finish_reason`` ``length``), its error object,
and Anthropic's Messages API (``content`` blocks of type ``text`` / ``tool_use``, ``stop_reason``
``max_tokens`` / ``refusal``, ``{"type": "error", ...}``).
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # a dict (sent as JSON) or bytes (sent as they are)
    headers: dict = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering
    drop: bool = False  # close the connection without an answer


@dataclass
class Seen:
    path: str
    headers: dict
    body: Any


class FakeAPI:
    """``FakeAPI(script)`` where ``script`` is a list of replies (one per request; the last one repeats)
    or a function ``(number, request JSON) -> Reply``; ``port`` restarts a server where a closed one was."""

    def __init__(self, script: list[Reply] | Callable[[int, Any], Reply], port: int = 0) -> None:
        self.script = script
        self.seen: list[Seen] = []
        self._stop = threading.Event()
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):  # noqa: N802
                self._answer(None)

            def do_POST(self):  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw
                self._answer(body)

            def _answer(self, body):
                api.seen.append(Seen(self.path, dict(self.headers), body))
                reply = api.reply(len(api.seen) - 1, body)
                if reply.delay:
                    api._stop.wait(reply.delay)
                if reply.drop:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                data = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (its read timeout)
                    self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)  # a port again: a server restarted
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def reply(self, number: int, body: Any) -> Reply:
        if callable(self.script):
            return self.script(number, body)
        return self.script[min(number, len(self.script) - 1)]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self._stop.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def __enter__(self) -> FakeAPI:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ---------------------------------------------------------------- OpenAI chat completions


def openai_completion(*, content: str | None = None, tool_calls: list[dict] | None = None, refusal: str | None = None,
                      finish_reason: str = "stop", model: str = "m") -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [{"id": f"call_{i}", "type": "function",
                                  "function": {"name": c["name"], "arguments": c["arguments"] if isinstance(
                                      c["arguments"], str) else json.dumps(c["arguments"])}}
                                 for i, c in enumerate(tool_calls)]
    if refusal is not None:
        message["refusal"] = refusal
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": model,
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19}}


def openai_error(message: str, kind: str, code: str | None = None) -> dict:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


# ---------------------------------------------------------------- Anthropic messages


def anthropic_message(*, text: str | None = None, tool_use: dict | None = None, stop_reason: str = "end_turn",
                      model: str = "claude-test") -> dict:
    content: list[dict] = []
    if text is not None:
        content.append({"type": "text", "text": text})
    if tool_use is not None:
        content.append({"type": "tool_use", "id": "toolu_01", "name": tool_use["name"], "input": tool_use["arguments"]})
    return {"id": "msg_01", "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": stop_reason, "stop_sequence": None, "usage": {"input_tokens": 12, "output_tokens": 7}}


def anthropic_error(message: str, kind: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}}
