"""Live progress (issue 40, item 5): a line per live model call, a bar with rate and ETA, per-case totals.

The server is the policy over HTTP of ``test_http_protocol.py`` (``http_fakes.FakeAPI``), whose answers
carry OpenAI's ``usage`` (12 prompt and 7 completion tokens a call), so the tokens a line shows are the
provider's. Every check is also made of the replay: it shows no line and adds no field.
"""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from http_fakes import FakeAPI, Reply
from test_http_protocol import ASSETS, REPO, SAMPLE_XML, policy_reply

pytest.importorskip("langchain_openai")
AUDITFLOW = [sys.executable, "-c", "import sys; from auditflow.cli.main import main; sys.exit(main(sys.argv[1:]))"]


def test_a_live_audit_prints_its_first_progress_line_within_5_s_of_its_first_model_call(data_root, tmp_path):
    first_call: list[float] = []

    def slow_policy(number: int, body) -> Reply:
        if body is not None and not first_call:
            first_call.append(time.monotonic())
        reply = policy_reply(number, body)
        reply.delay = 0.3 if body is not None else 0.0  # a model that takes its time: the run lasts seconds
        return reply

    lines: list[tuple[float, str]] = []
    with FakeAPI(slow_policy) as api:
        spec = f"openai-compatible:{api.url}/v1#policy-over-http"
        proc = subprocess.Popen(
            [*AUDITFLOW, "audit", str(SAMPLE_XML), *ASSETS, "--model", spec,
             "--cache-dir", str(tmp_path / "cache"), "--data-root", str(data_root)],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        reader = threading.Thread(target=lambda: lines.extend((time.monotonic(), ln) for ln in proc.stderr))
        reader.start()
        out = proc.stdout.read()
        proc.wait(timeout=300)
        reader.join(timeout=10)
        finished = time.monotonic()
    assert proc.returncode == 1, out  # a violation
    calls = [(t, ln) for t, ln in lines if ln.startswith("auditflow: live call ")]
    assert first_call and calls, lines
    assert calls[0][0] - first_call[0] < 5.0
    assert calls[0][0] < finished - 1.0  # shown while the audit runs, not at its end
    assert len(calls) == sum(s.path == "/v1/chat/completions" for s in api.seen)  # one line per model call
    assert "forensic round 1, 12 prompt + 7 completion tokens" in "".join(ln for _, ln in calls) or \
        "compliance round 1, 12 prompt + 7 completion tokens" in "".join(ln for _, ln in calls)
    # the same audit replayed: no line
    replay = subprocess.run([*AUDITFLOW, "audit", str(SAMPLE_XML), *ASSETS, "--model", spec,
                             "--cache-dir", str(tmp_path / "cache"), "--data-root", str(data_root)],
                            cwd=REPO, capture_output=True, text=True, timeout=300)
    assert replay.returncode == 1 and "live call" not in replay.stderr and replay.stdout == out


def test_the_plugin_shows_live_calls_a_bar_and_per_case_totals_and_cost_only_when_live(data_root, tmp_path):
    cache = tmp_path / "cache"

    def run(spec: str, mode: str, out: Path, *extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "--auditflow", "cases/acme-sample.case.yaml", "-p", "no:cacheprovider",
             "-p", "no:xdist", f"--auditflow-model={spec}", f"--auditflow-record-mode={mode}",
             f"--auditflow-cache-dir={cache}", f"--auditflow-json={out}", f"--auditflow-data-root={data_root}",
             f"--auditflow-html={out.with_suffix('.html')}", *extra],
            cwd=REPO, capture_output=True, text=True, timeout=600)

    with FakeAPI(policy_reply) as api:
        spec = f"openai-compatible:{api.url}/v1#policy-over-http"
        live = run(spec, "once", tmp_path / "live.json", "--auditflow-concurrency=2",
                   "--auditflow-price-input=2.5", "--auditflow-price-output=10")
    assert live.returncode == 0, live.stdout[-3000:] + live.stderr[-2000:]
    # with 2 cases in flight a line may follow pytest's own progress dot on the same terminal line
    call_lines = ["auditflow: live call " + ln for ln in live.stdout.split("auditflow: live call ")[1:]]
    assert len(call_lines) == sum(s.path == "/v1/chat/completions" for s in api.seen)
    assert any(" 12 prompt + 7 completion tokens, " in ln for ln in call_lines)
    assert "auditflow: " in live.stdout and "5/5 cases, " in live.stdout and " a minute ETA 0:00:00" in live.stdout
    rows = json.loads((tmp_path / "live.json").read_text())["cases"]
    for r in rows:
        assert r["llm_calls"] > 0 and r["llm_prompt_tokens"] == 12 * r["llm_calls"]
        assert r["llm_completion_tokens"] == 7 * r["llm_calls"]
        assert r["llm_cost"] == round((12 * 2.5 + 7 * 10) * r["llm_calls"] / 1e6, 6)
    assert "live model calls: " in live.stdout and ", cost 0.00" in live.stdout
    assert "live model calls" in (tmp_path / "live.html").read_text()

    replay = run(spec, "none", tmp_path / "replay.json")
    assert replay.returncode == 0, replay.stdout[-3000:]
    assert "live call" not in replay.stdout and "live model calls" not in replay.stdout and "ETA" not in replay.stdout
    replayed = json.loads((tmp_path / "replay.json").read_text())["cases"]
    assert not any(k.startswith("llm_") for r in replayed for k in r)
    assert "live model calls" not in (tmp_path / "replay.html").read_text()
