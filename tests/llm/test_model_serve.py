"""``auditflow model serve``: the one-line errors (exit 2) without a model, and, with the 0.5B model
installed, a real llama.cpp server on a free port that answers a tool call through the
``openai-compatible`` provider and stops cleanly on SIGTERM."""
from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from auditflow.cli.main import main
from auditflow.llm.serve import ServeSettings, free_port


def _one_line_error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "" and len(lines) == 1 and lines[0].startswith("auditflow: error: "), err
    return lines[0]


@pytest.mark.parametrize("value", ["0", "17", "four", "-1"])
def test_a_bad_parallel_is_one_line_with_exit_2(capsys, value):
    assert "--parallel" in _one_line_error(capsys, ["model", "serve", "0.5b", "--parallel", value])


def test_a_bad_port_is_one_line_with_exit_2(capsys):
    assert "--port '70000'" in _one_line_error(capsys, ["model", "serve", "--port", "70000"])


def test_a_busy_port_is_one_line_with_exit_2(capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        line = _one_line_error(capsys, ["model", "serve", "0.5b", "--port", str(port)])
    assert f"port {port} on 127.0.0.1 is in use" in line and "--port" in line


def test_a_missing_model_is_one_line_with_exit_2(capsys, tmp_path):
    line = _one_line_error(capsys, ["model", "serve", "0.5b", "--port", str(free_port()), "--cache-dir", str(tmp_path)])
    assert "not installed" in line and "auditflow model install 0.5b" in line


def test_an_unknown_size_is_one_line_with_exit_2(capsys):
    assert "choose one of 0.5b, 1.5b" in _one_line_error(capsys, ["model", "serve", "7b", "--port", str(free_port())])


def test_the_printed_spec_is_the_openai_compatible_one():
    assert ServeSettings("1.5b", 8123, 4).spec == "openai-compatible:http://127.0.0.1:8123/v1#qwen2.5-coder-1.5b"


# ---------------------------------------------------------------- with the 0.5B model


def installed_0_5b() -> Path:
    try:
        import xllamacpp  # noqa: F401
    except ImportError:
        pytest.skip("the local model runtime is not installed: pip install 'pytest-auditflow[local]'")
    from auditflow.llm.install import model_path

    path = model_path("0.5b")
    if path is None:
        pytest.skip("the local 0.5B model is not installed: run  auditflow model install 0.5b")
    return path


CLI = "import sys; from auditflow.cli.main import main; sys.exit(main())"


class Served:
    """``auditflow model serve`` as a subprocess; waits for its ready line (the spec is the line before)."""

    def __init__(self, size: str = "0.5b", parallel: int = 2, timeout: float = 150) -> None:
        self.port = free_port()
        self.log = []
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CLI, "model", "serve", size, "--port", str(self.port),
             "--parallel", str(parallel)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.log.append(line.rstrip())
            if line.startswith("ready"):
                self.spec = next(x.removeprefix("model spec: ") for x in self.log if x.startswith("model spec: "))
                return
        self.stop()
        pytest.fail("the model server did not become ready:\n" + "\n".join(self.log))

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                out, _ = self.proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                out, _ = self.proc.communicate()
            self.log += (out or "").splitlines()
        return self.proc.returncode


@pytest.mark.local_model
def test_the_served_model_answers_a_tool_call_and_stops_on_sigterm(tmp_path):
    installed_0_5b()
    from langchain_core.messages import HumanMessage, SystemMessage

    from auditflow.llm.factory import clear_inner_models, make_model_factory

    served = Served()
    try:
        assert served.spec == f"openai-compatible:http://127.0.0.1:{served.port}/v1#qwen2.5-coder-0.5b"
        tool = {"type": "function", "function": {"name": "get_fact", "description": "Read one fact by its handle.",
                "parameters": {"type": "object", "properties": {"fact": {"type": "string"}}, "required": ["fact"]}}}
        clear_inner_models()
        model = make_model_factory(served.spec, cache_dir=tmp_path, record_mode="once", case_id="serve")("junior")
        got = model.bind_tools([tool]).invoke([SystemMessage("You audit facts."), HumanMessage("Read the fact F1.")])
        assert [c["name"] for c in got.tool_calls] == ["get_fact"], got  # constrained: always a call
    finally:
        clear_inner_models()
        code = served.stop()
    assert code == 0 and served.log[-1] == "stopped", served.log
