"""``auditflow model serve``: the installed local model behind an OpenAI-compatible HTTP API on 127.0.0.1.

The ``local`` extra's xllamacpp wheel is llama.cpp's server, so this machine can run, offline, what teams
run in production: a model behind ``/v1/chat/completions``. The server is built from the same parameters
as the in-process model (:func:`auditflow.llm.local._server_params`: the same GGUF, greedy sampling with
top_k 1 and seed 0, the GGUF's own chat template, 8192 tokens per conversation slot), with a port, a
number of conversation slots (``--parallel``: requests decoded together) and no API key (it listens on
127.0.0.1 only). Clients reach it through the ``openai-compatible`` provider; its spec is printed.

Problems that stop it starting (a busy port, a model that is not installed, a bad ``--parallel``) are
:class:`ServeError`\\ s: one line, exit code 2 (docs/local-llm.md, "Serving the model over HTTP").
"""
from __future__ import annotations

import errno
import signal
import socket
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from auditflow.errors import AuditflowError

HOST = "127.0.0.1"
DEFAULT_PORT = 8080  # llama-server's own default: a stable spec, so recordings made against it replay
MAX_PARALLEL = 16
N_CTX = 8192  # tokens per conversation slot, as the in-process model (auditflow.llm.local.LocalChatModel)


class ServeError(AuditflowError):
    """The model server cannot start: a busy port, a model not installed, a bad setting."""


@dataclass(frozen=True, slots=True)
class ServeSettings:
    size: str = "1.5b"
    port: int = DEFAULT_PORT
    parallel: int = 1
    threads: int = 2
    n_ctx: int = N_CTX
    cache_dir: str | None = None

    @property
    def model_name(self) -> str:
        return f"qwen2.5-coder-{self.size}"

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    @property
    def spec(self) -> str:
        """The model spec clients use (``--auditflow-model`` / ``--model``)."""
        return f"openai-compatible:{self.base_url}#{self.model_name}"


def parse_count(text: Any, what: str, low: int, high: int) -> int:
    """An integer option from the command line, or a :class:`ServeError` saying what is allowed."""
    try:
        value = int(str(text).strip())
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise ServeError(f"{what} {text!r} is not a whole number from {low} to {high}")
    return value


def check_port(port: int) -> None:
    """Fail with a clear message when ``port`` on 127.0.0.1 is taken (llama.cpp only says 'failed to init')."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # as the server binds: connections of a stopped server waiting out TIME_WAIT do not block the port
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
            s.listen(1)
        except OSError as exc:
            why = "is in use by another process" if exc.errno == errno.EADDRINUSE else f"cannot be opened ({exc.strerror})"
            raise ServeError(f"port {port} on {HOST} {why}: choose another with --port, e.g. --port {port + 1}") from None


def free_port() -> int:
    """A port on 127.0.0.1 that is free now (for tests and ``--port 0``)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def model_file(settings: ServeSettings) -> Path:
    from auditflow.llm.install import MODELS, model_path

    if settings.size not in MODELS:
        raise ServeError(f"no local model {settings.size!r}: choose one of {', '.join(sorted(MODELS))}")
    path = model_path(settings.size, cache_dir=settings.cache_dir)
    if path is None:
        raise ServeError(f"the local model {settings.size} is not installed: run  auditflow model install {settings.size}")
    return path


def start(settings: ServeSettings, stop: threading.Event | None = None) -> Any:
    """Start llama.cpp's server and wait until it has loaded the model and answers ``/health`` (or until
    ``stop`` is set); returns the server."""
    from auditflow.llm.local import _import_xllamacpp, _server_params

    path = model_file(settings)
    xl = _import_xllamacpp()
    check_port(settings.port)
    params = _server_params(xl, str(path), n_threads=settings.threads, n_ctx=settings.n_ctx,
                            n_slots=settings.parallel, seed=0)
    params.api_keys = []  # any local client may call it (it listens on 127.0.0.1 only)
    params.port, params.hostnames = settings.port, [HOST]
    params.model_alias = {settings.model_name}
    params.endpoint_props = True  # clients may read the server's settings (slots, context)
    params.endpoint_metrics = True  # /metrics: prompt tokens read and decoded (benchmarks/bench_serve_concurrency.py)
    try:
        server = xl.Server(params)
    except Exception as exc:  # noqa: BLE001 - llama.cpp reports every start failure as a RuntimeError
        raise ServeError(f"llama.cpp could not start a server for {path.name} on port {settings.port}: {exc}") from None
    wait_healthy(settings.port, stop=stop)
    return server


def wait_healthy(port: int, *, timeout: float = 300.0, stop: threading.Event | None = None) -> None:
    """Poll ``/health`` until the server says ok: it listens at once and answers 503 while it loads."""
    deadline = time.monotonic() + timeout
    while stop is None or not stop.is_set():
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/health", timeout=5) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise ServeError(f"the model server on port {port} did not finish loading within {timeout:.0f} s")
        time.sleep(0.2)


def serve(settings: ServeSettings, say: Callable[[str], None], *, stop: threading.Event | None = None) -> int:
    """Serve until Ctrl-C, SIGTERM or ``stop``; ``say`` prints one line. Returns the exit code (0)."""
    stop = stop or threading.Event()
    t0 = time.perf_counter()
    check_port(settings.port)  # the one-line errors come before anything is printed
    model_file(settings)
    say(f"loading {settings.model_name} for {settings.base_url} ({settings.parallel} parallel "
        f"slot{'s' if settings.parallel != 1 else ''}, {settings.n_ctx} tokens each) ...")
    # llama.cpp loads the model holding the interpreter lock, so no Python signal handler could run
    # before it is done: until then SIGTERM keeps its default action (the process ends at once, there
    # is nothing to clean up), and Ctrl-C takes effect when the load returns.
    previous, server = None, None
    try:
        server = start(settings, stop)
        previous = _on_sigterm(stop)
        say(f"model spec: {settings.spec}")
        say(f"ready in {time.perf_counter() - t0:.1f} s; Ctrl-C or SIGTERM stops it")
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        server = None  # noqa: F841 - the server stops when its last reference goes
    say("stopped")
    return 0


def _on_sigterm(stop: threading.Event):
    """SIGTERM sets ``stop`` (only the main thread may install a handler; elsewhere it is left alone)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
