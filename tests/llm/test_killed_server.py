"""A model server killed mid-run (issue 40, item 8), and the rerun that finishes the recording.

The server is the policy over HTTP (``http_fakes.FakeAPI`` with ``test_http_protocol.policy_reply``).
It dies in the middle of the suite's 9th model call, in the middle of a case: that call's connection
drops and every later connection is refused. Then it is restarted on the same port (the endpoint is
part of the model spec, so of every cache key) and the suite is rerun with record mode ``once``.
"""
from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from http_fakes import FakeAPI, Reply
from test_http_protocol import REPO, policy_reply

pytest.importorskip("langchain_openai")
KILLED_AT = 9  # the 9th chat call: the first case's calls (11 each) are not all recorded yet


def _run(spec: str, cache: Path, out: Path, data_root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--auditflow", "cases/acme-sample.case.yaml", "-p", "no:cacheprovider",
         "-p", "no:xdist", f"--auditflow-model={spec}", "--auditflow-record-mode=once", f"--auditflow-cache-dir={cache}",
         f"--auditflow-json={out}", f"--auditflow-data-root={data_root}"],
        cwd=REPO, capture_output=True, text=True, timeout=600,
        env={**__import__("os").environ, "AUDITFLOW_LLM_MAX_RETRIES": "1", "AUDITFLOW_LLM_TIMEOUT": "10"})


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("??/*.json"))


def test_a_killed_server_ends_the_rest_as_typed_errors_and_a_rerun_makes_only_the_missing_calls(data_root, tmp_path):
    cache = tmp_path / "cache"
    chats = []

    def dying(number: int, body) -> Reply:
        if body is None:
            return policy_reply(number, body)
        chats.append(number)
        if len(chats) == KILLED_AT:
            threading.Thread(target=api.close, daemon=True).start()  # no new connection from now on
        if len(chats) >= KILLED_AT:  # and a kept-alive connection gets no answer either
            return Reply(drop=True)
        return policy_reply(number, body)

    api = FakeAPI(dying)
    port = api.port
    spec = f"openai-compatible:{api.url}/v1#policy-over-http"
    try:
        killed = _run(spec, cache, tmp_path / "killed.json", data_root)
    finally:
        api.close()
    out = killed.stdout
    assert killed.returncode == 1, out[-3000:] + killed.stderr[-2000:]
    assert "Traceback" not in out + killed.stderr
    rows = json.loads((tmp_path / "killed.json").read_text())["cases"]
    failed = [r for r in rows if not r["passed"]]
    assert failed and all(r["label"] == "S" and r["error_kind"] == "model" for r in failed)
    assert all(f"127.0.0.1:{port}" in r["error"] for r in failed)  # each names the endpoint
    text = " ".join(out.split())  # the report wraps its lines to the terminal
    assert text.count("the model endpoint failed under") == 1
    assert f"the model endpoint failed under {len(failed)} case(s), which ended without an answer (S): " in text
    assert "rerun with --auditflow-record-mode once: what was recorded replays and only the missing calls" in text
    # no partial entry: every entry on disk is whole JSON holding an answer, and no temporary file is left
    written = _entries(cache)
    assert len(written) == KILLED_AT - 1
    assert all("response" in json.loads(p.read_text()) for p in written)
    assert not list(cache.rglob("*.tmp"))

    # the server restarted on the same port: the rerun replays the 8 recorded calls and makes the others
    with FakeAPI(policy_reply, port=port) as again:
        rerun = _run(spec, cache, tmp_path / "rerun.json", data_root)
    assert rerun.returncode == 0, rerun.stdout[-3000:]
    doc = json.loads((tmp_path / "rerun.json").read_text())
    made = sum(s.path == "/v1/chat/completions" for s in again.seen)
    # every call made wrote a new entry (a recorded call made again would rewrite its own): only the missing ones
    assert doc["cache"]["writes"] == made and len(_entries(cache)) == KILLED_AT - 1 + made
    assert doc["cache"]["hits"] >= KILLED_AT - 1 and doc["cache"]["misses"] == made
    assert all(r["passed"] for r in doc["cases"])
