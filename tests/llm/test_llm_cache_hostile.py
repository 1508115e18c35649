"""Issue 18, defect 9: the LLM cache under hostile or damaged entries.

Surrogates are escaped (and ordinary keys unchanged: checked against the committed cases/llm-cache),
a bad entry is a miss, orphan temporary files are shown and pruned, irregular files are refused.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from auditflow.llm.cache import LLMCache, entry_path, prune, summary, temp_files
from auditflow.llm.cachekey import CacheKey, check_entry, request_key, response_to_json

COMMITTED = Path(__file__).resolve().parents[2] / "cases" / "llm-cache"
LONE = "\ud83d"  # half of a surrogate pair, as a model may emit


def _key(text: str) -> CacheKey:
    return CacheKey.compute(role="compliance", model="m", messages=[SystemMessage("sys"), HumanMessage(text)], tools=[])


def test_9_a_lone_surrogate_in_a_reply_is_recorded_and_replayed(tmp_path):
    cache = LLMCache(tmp_path, "new_episodes", case_id="c")
    k = _key("audit F1")
    msg = cache.get_or_call(k.key, k.request, lambda: AIMessage(f"odd {LONE} text"), role="compliance", model="m")
    assert msg.content == f"odd {LONE} text"
    replayed, why = LLMCache(tmp_path, "none", case_id="c").read(k.key)
    assert why == "" and replayed.content == f"odd {LONE} text"
    assert "\\ud83d" in entry_path(tmp_path, k.key).read_text(encoding="utf-8")


def test_9_a_lone_surrogate_in_a_request_has_a_key_that_its_entry_reproduces(tmp_path):
    k = _key(f"audit {LONE}")
    cache = LLMCache(tmp_path, "new_episodes", case_id="c")
    cache.get_or_call(k.key, k.request, lambda: AIMessage("ok"), role="compliance", model="m")
    assert LLMCache(tmp_path, "none", case_id="c").read(k.key)[1] == ""


def test_9_keys_of_ordinary_text_are_unchanged_for_every_committed_entry():
    entries = [p for p in COMMITTED.rglob("*.json") if len(p.parent.name) == 2]
    assert len(entries) > 1000
    for p in entries:
        entry = json.loads(p.read_text(encoding="utf-8"))
        assert request_key(entry["request"]) == p.stem, p


def _write(tmp_path: Path, key: CacheKey, response: dict) -> None:
    path = entry_path(tmp_path, key.key)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"format": 1, "key": key.key, "request": key.request, "response": response}))


@pytest.mark.parametrize("response", [
    {"content": [1, 2], "tool_calls": []},
    {"content": "x", "tool_calls": [], "invalid_tool_calls": [{"name": "a", "args": "{", "id": "1", "error": "e", "x": 1}]},
    {"content": "x", "tool_calls": [{"name": "a", "args": {}, "id": 5}]},
])
def test_9_a_malformed_entry_is_a_miss_not_a_crash(tmp_path, response):
    k = _key("audit F1")
    _write(tmp_path, k, response)
    msg, why = LLMCache(tmp_path, "none").read(k.key)
    assert msg is None and "malformed" in why
    assert check_entry({"key": k.key, "request": k.request, "response": response}, k.key)


def test_9_a_symlinked_entry_to_dev_zero_is_refused(tmp_path):
    k = _key("audit F1")
    path = entry_path(tmp_path, k.key)
    path.parent.mkdir(parents=True)
    path.symlink_to("/dev/zero")
    started = time.monotonic()
    msg, why = LLMCache(tmp_path, "none").read(k.key)
    assert msg is None and "cannot be read" in why and time.monotonic() - started < 5


def test_9_a_fifo_entry_is_refused(tmp_path):
    k = _key("audit F1")
    path = entry_path(tmp_path, k.key)
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    msg, why = LLMCache(tmp_path, "none").read(k.key)
    assert msg is None and "not a regular file" in why


def test_9_orphan_temp_files_are_shown_by_stats_and_removed_by_prune(tmp_path):
    k = _key("audit F1")
    LLMCache(tmp_path, "new_episodes", case_id="c").get_or_call(
        k.key, k.request, lambda: AIMessage("ok"), role="compliance", model="m")
    shard = entry_path(tmp_path, k.key).parent
    old = shard / f".{k.key}.json.abc123.tmp"
    fresh = shard / f".{k.key}.json.def456.tmp"
    old.write_text("{partial")
    fresh.write_text("{partial")
    past = time.time() - 3600
    os.utime(old, (past, past))
    assert summary(tmp_path)["temporary_files"] == {"files": 2, "bytes": 16}
    assert temp_files(tmp_path, older_than=300) == [old]
    prune(tmp_path, {k.key})
    assert not old.exists() and fresh.exists()  # a live writer's file is left alone
    assert entry_path(tmp_path, k.key).exists()


def test_9_temp_files_are_ignored_by_git():
    root = Path(__file__).resolve().parents[2]
    assert ".*.tmp" in (root / ".gitignore").read_text().splitlines()


def test_9_response_to_json_keeps_only_the_known_keys_of_invalid_calls():
    msg = AIMessage("x", invalid_tool_calls=[{"name": "a", "args": "{", "id": "1", "error": "e", "type": "invalid_tool_call"}])
    assert set(response_to_json(msg)["invalid_tool_calls"][0]) == {"name", "args", "id", "error"}
