"""The LLM call cache: the canonical key, VCR record modes, corrupt entries, an unwritable directory,
eight processes recording at once, statistics and pruning."""
from __future__ import annotations

import json
import multiprocessing
import os
from unittest.mock import ANY

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from auditflow.env.session import tool_schemas
from auditflow.llm import cache as cache_mod
from auditflow.llm.cache import (
    CachedChatModel, CacheError, CacheMissError, CacheWriteError, LLMCache, case_keys_path, case_manifest_path,
    entry_path, iter_entries, manifest_keys, prune, read_keys_log, summary, unused_entries,
)
from auditflow.llm.cachekey import CacheKey
from auditflow.llm.stats import CacheStats
from llm_fakes import explode, record_worker

TOOLS = tool_schemas("compliance")


def _history(*, ids: str = "a", usage: bool = False) -> list:
    extra = {"usage_metadata": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
             "response_metadata": {"model_name": "x", "seconds": 1.23}} if usage else {}
    return [
        SystemMessage("You are the Compliance Auditor."),
        HumanMessage('{"task": "audit F1"}', id=f"human-{ids}"),
        AIMessage("", id=f"run-{ids}", tool_calls=[{"name": "check_sign", "args": {"fact": "F1"}, "id": f"call_{ids}"}], **extra),
        ToolMessage('{"outcome": "violation"}', tool_call_id=f"call_{ids}", id=f"tool-{ids}"),
    ]


def _key(messages=None, *, tools=TOOLS, role="compliance", model="local:qwen2.5-coder-1.5b", extra=None) -> str:
    return CacheKey.compute(role=role, model=model, messages=messages or _history(), tools=tools, extra=extra).key


# -- the key -------------------------------------------------------------------------------------

def test_ids_and_usage_do_not_change_the_key():
    assert _key(_history(ids="a")) == _key(_history(ids="zz9", usage=True))


def test_tool_order_does_not_change_the_key_but_a_schema_does():
    assert _key(tools=list(reversed(TOOLS))) == _key()
    changed = json.loads(json.dumps(TOOLS))
    changed[0]["function"]["description"] += " (reworded)"
    assert _key(tools=changed) != _key()
    assert _key(tools=TOOLS[:-1]) != _key()


@pytest.mark.parametrize("change", ["role", "model", "system", "content", "args", "extra"])
def test_what_the_model_reads_changes_the_key(change):
    msgs = _history()
    kw = {}
    if change == "role":
        kw["role"] = "forensic"
    elif change == "model":
        kw["model"] = "local:qwen2.5-coder-0.5b"
    elif change == "system":
        msgs[0] = SystemMessage("You are the Forensic Auditor.")
    elif change == "content":
        msgs[3] = ToolMessage('{"outcome": "consistent"}', tool_call_id="call_a")
    elif change == "args":
        msgs[2] = AIMessage("", tool_calls=[{"name": "check_sign", "args": {"fact": "F2"}, "id": "call_a"}])
    else:
        kw["extra"] = {"response_format_sha256": "0" * 64}
    assert _key(msgs, **kw) != _key()


def test_the_request_is_readable():
    req = CacheKey.compute(role="compliance", model="m:x", messages=_history(), tools=TOOLS).request
    assert req["system"] == "You are the Compliance Auditor."
    assert req["messages"][1] == {"type": "ai", "content": "", "tool_calls": [{"name": "check_sign", "args": {"fact": "F1"}}]}
    assert req["tools"]["names"] == sorted(t["function"]["name"] for t in TOOLS)


# -- record modes --------------------------------------------------------------------------------

class Calls:
    """A model stand-in that counts calls and answers with a numbered tool call."""

    def __init__(self):
        self.n = 0

    def __call__(self):
        self.n += 1
        return AIMessage(content=f"answer {self.n}", id="volatile", usage_metadata={"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
                         tool_calls=[{"name": "check_sign", "args": {"fact": "F1"}, "id": f"call_{self.n}"}])


def _ask(cache: LLMCache, call, messages=None, role="compliance"):
    k = CacheKey.compute(role=role, model="m:x", messages=messages or _history(), tools=TOOLS)
    return cache.get_or_call(k.key, k.request, call, role=role, model="m:x"), k.key


def test_new_episodes_records_misses_and_replays_hits(tmp_path):
    calls, stats = Calls(), CacheStats()
    c = LLMCache(tmp_path, "new_episodes", case_id="c1", stats=stats)
    first, key = _ask(c, calls)
    again, _ = _ask(c, calls)
    assert calls.n == 1 and first == again
    assert (first.content, first.tool_calls[0]["id"], first.id) == ("answer 1", "call_1", None)
    assert (stats.hits, stats.misses, stats.writes) == (1, 1, 1) and stats.used_keys == {key}
    entry = json.loads(entry_path(tmp_path, key).read_text())
    assert entry["case_id"] == "c1" and entry["role"] == "compliance" and entry["request"]["messages"]
    assert "usage" not in json.dumps(entry["response"])
    assert case_keys_path(tmp_path, "c1").read_text() == key + "\n" and manifest_keys(tmp_path, "c1") == {key}
    assert not case_manifest_path(tmp_path, "c1").exists()  # the legacy list is read, never written


def test_none_replays_and_a_miss_names_case_role_key_and_the_fix(tmp_path):
    _, key = _ask(LLMCache(tmp_path, "new_episodes", case_id="c1"), Calls())
    replay = LLMCache(tmp_path, "none", case_id="c1")
    assert _ask(replay, explode)[0].content == "answer 1"
    other = _history()
    other[1] = HumanMessage("a prompt nobody recorded")
    with pytest.raises(CacheMissError) as err:
        _ask(replay, explode, other, role="forensic")
    msg = str(err.value)
    assert "case c1" in msg and "role forensic" in msg and err.value.key in msg and err.value.key != key
    assert "--auditflow-record-mode new_episodes" in msg and "--record-mode new_episodes" in msg


def test_once_records_a_new_case_and_replays_a_recorded_one(tmp_path):
    calls = Calls()
    first = LLMCache(tmp_path, "once", case_id="c1")
    _ask(first, calls)
    other = _history()
    other[1] = HumanMessage("second turn")
    _ask(first, calls, other)  # still recording: the case had no entries when it started
    assert calls.n == 2
    later = LLMCache(tmp_path, "once", case_id="c1")
    assert _ask(later, explode)[0].content == "answer 1"
    other[1] = HumanMessage("third")
    with pytest.raises(CacheMissError, match="record mode once replays only"):
        _ask(later, explode, other)
    _ask(LLMCache(tmp_path, "once", case_id="c2"), calls, other)  # another case records
    assert calls.n == 3


def test_all_always_calls_and_overwrites(tmp_path):
    calls, stats = Calls(), CacheStats()
    c = LLMCache(tmp_path, "all", case_id="c1", stats=stats)
    _ask(c, calls)
    msg, key = _ask(c, calls)
    assert calls.n == 2 and msg.content == "answer 2" and stats.hits == 0 and stats.writes == 2
    assert _ask(LLMCache(tmp_path, "none"), explode)[0].content == "answer 2"


def test_unknown_mode():
    with pytest.raises(CacheError, match="none, once, new_episodes, all"):
        LLMCache("x", "rewrite")


# -- damage --------------------------------------------------------------------------------------

@pytest.mark.parametrize("damage", ["truncate", "empty", "binary", "edited_request", "bad_calls", "deep"])
def test_a_corrupt_entry_is_a_miss_never_a_crash(tmp_path, damage):
    _, key = _ask(LLMCache(tmp_path, "new_episodes"), Calls())
    path = entry_path(tmp_path, key)
    text = path.read_text()
    entry = json.loads(text)
    if damage == "truncate":
        path.write_text(text[: len(text) // 2])
    elif damage == "empty":
        path.write_text("")
    elif damage == "binary":
        path.write_bytes(b"\xff\xfe\x00garbage")
    elif damage == "edited_request":
        entry["request"]["role"] = "forensic"
        path.write_text(json.dumps(entry))
    elif damage == "bad_calls":
        entry["response"]["tool_calls"] = [{"name": 3}]
        path.write_text(json.dumps(entry))
    else:
        path.write_text("[" * 100_000)
    stats = CacheStats()
    with pytest.raises(CacheMissError) as err:
        _ask(LLMCache(tmp_path, "none", stats=stats), explode)
    assert err.value.reason != "no entry" and stats.corrupt == 1
    assert path.exists()  # replay-only never touches the cache
    calls = Calls()
    msg, _ = _ask(LLMCache(tmp_path, "new_episodes"), calls)  # re-recorded
    assert calls.n == 1 and msg.content == "answer 1"
    assert path.with_name(path.name + ".corrupt").exists()
    assert _ask(LLMCache(tmp_path, "none"), explode)[0].content == "answer 1"


def test_an_unwritable_cache_fails_before_the_model_is_called(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory should be")
    with pytest.raises(CacheWriteError, match="cannot write the LLM cache"):
        _ask(LLMCache(blocker, "new_episodes"), explode)


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root ignores directory permissions")
def test_a_read_only_directory(tmp_path):
    _ask(LLMCache(tmp_path, "new_episodes"), Calls())
    for d in (tmp_path, *[p for p in tmp_path.iterdir() if p.is_dir()]):
        d.chmod(0o555)
    try:
        assert _ask(LLMCache(tmp_path, "none"), explode)[0].content == "answer 1"
        other = _history()
        other[1] = HumanMessage("new")
        with pytest.raises(CacheWriteError, match="make the directory writable"):
            _ask(LLMCache(tmp_path, "new_episodes"), explode, other)
    finally:
        for d in (tmp_path, *[p for p in tmp_path.iterdir() if p.is_dir()]):
            d.chmod(0o755)


def test_replay_never_writes(tmp_path, monkeypatch):
    """Replay works where nothing may be written (also as root, where chmod does not stop writes)."""
    _ask(LLMCache(tmp_path, "new_episodes"), Calls())

    def refuse(*a, **k):
        raise PermissionError("read-only")

    monkeypatch.setattr(cache_mod, "atomic_write_text", refuse)
    monkeypatch.setattr(cache_mod.tempfile, "mkstemp", refuse)
    for mode in ("none", "once", "new_episodes"):
        assert _ask(LLMCache(tmp_path, mode, case_id="c9" if mode == "once" else None), explode)[0].content == "answer 1"


# -- processes -----------------------------------------------------------------------------------

def test_eight_processes_recording_into_one_directory(tmp_path):
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    n_shared, n_own = 6, 3
    with ctx.Pool(8) as pool:
        results = pool.starmap_async(record_worker, [(str(tmp_path), w, n_shared, n_own) for w in range(8)]).get(timeout=300)
    total = CacheStats()
    for r in results:
        total.merge(r)
    assert len(total.used_keys) == n_shared + 8 * n_own
    files = list(iter_entries(tmp_path))
    assert sorted(p.stem for p in files) == sorted(total.used_keys)
    assert [p for p in tmp_path.rglob("*") if p.is_file() and (p.suffix not in (".json", ".keys")
                                                               or p.name.startswith("."))] == []
    listed = set()
    for p in files:
        entry = json.loads(p.read_text())
        assert entry["key"] == p.stem
        assert p.stem in manifest_keys(tmp_path, entry["case_id"])  # every entry is listed under its case
    for m in (tmp_path / "cases").iterdir():
        assert m.suffix == ".keys"
        lines = m.read_text().splitlines()
        assert lines and set(lines) == set(read_keys_log(m))  # whole lines (two writers may both add a key)
        listed.update(lines)
    assert listed == total.used_keys
    assert total.hits + total.misses == 8 * (2 * n_shared + n_own) and total.corrupt == 0


# -- statistics and pruning ----------------------------------------------------------------------

def test_stats_merge_and_serialise():
    a, b = CacheStats(), CacheStats()
    a.count("hits", "k1")
    b.count("misses", "k2")
    b.count("writes", "k2")
    merged = CacheStats.from_json(json.loads(json.dumps(a.to_json()))).merge(b)
    assert merged.to_json() == {"hits": 1, "misses": 1, "writes": 1, "corrupt": 0, "used_keys": ["k1", "k2"]}
    with pytest.raises(ValueError):
        a.count("evictions")


def test_prune_removes_unused_entries_and_updates_manifests(tmp_path):
    keys = []
    for i, folder in enumerate([tmp_path, tmp_path, tmp_path, tmp_path / "judge", tmp_path / "judge"]):
        msgs = _history()
        msgs[1] = HumanMessage(f"prompt {i}")
        keys.append(_ask(LLMCache(folder, "new_episodes", case_id=f"c{i}"), Calls(), msgs)[1])
    used = keys[:2] + keys[3:4]
    (entry_path(tmp_path, keys[0]).with_suffix(".json.corrupt")).write_text("{")
    assert summary(tmp_path) == {"auditors": {"entries": 3, "bytes": ANY, "cases": 3},
                                 "judge": {"entries": 2, "bytes": ANY, "cases": 2}}
    assert sorted(p.name for p in unused_entries(tmp_path, used)) == sorted(
        [f"{keys[2]}.json", f"{keys[4]}.json", f"{keys[0]}.json.corrupt"])
    assert prune(tmp_path, used) == 3
    assert sorted(p.stem for p in iter_entries(tmp_path)) == sorted(keys[:2])
    assert [p.stem for p in iter_entries(tmp_path / "judge")] == [keys[3]]
    assert not case_keys_path(tmp_path, "c2").exists() and manifest_keys(tmp_path, "c1") == {keys[1]}
    assert not case_keys_path(tmp_path / "judge", "c4").exists()
    assert prune(tmp_path, used) == 0


# -- the chat model behind the cache -------------------------------------------------------------

def test_cached_chat_model_replays_exactly_what_it_recorded(tmp_path):
    from llm_fakes import NativeToolModel

    def model(mode, make_inner):
        return CachedChatModel(role="forensic", spec="test:native", make_inner=make_inner,
                               llm_cache=LLMCache(tmp_path, mode)).bind_tools(TOOLS)

    recorded = model("new_episodes", lambda: NativeToolModel()).invoke(_history())
    replayed = model("none", explode).invoke(_history(ids="other"))
    assert replayed.content == recorded.content and replayed.tool_calls == recorded.tool_calls
    assert recorded.tool_calls[0]["id"] == "nat_2"


def test_errors_survive_pickling(tmp_path):
    """Pools send a worker's exception back pickled; an unpicklable one hangs the pool."""
    import pickle

    from auditflow.llm.specs import MissingCredentialsError, ProviderUnavailableError
    from auditflow.llm.toolcalls import InvalidToolCall

    miss = CacheMissError(case_id="c1", role="forensic", key="ab" * 32, model="m:x", mode="none", reason="no entry",
                          directory=tmp_path)
    errors = [miss, CacheWriteError("cannot write"), MissingCredentialsError("openai", "OPENAI_API_KEY"),
              ProviderUnavailableError("hf", "langchain-huggingface"),
              InvalidToolCall("not_json", "no JSON", text="hi", allowed=("a",))]
    for err in errors:
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and str(back) == str(err) and back.__dict__ == err.__dict__
    assert pickle.loads(pickle.dumps(miss)).key == "ab" * 32


def test_both_model_failures_share_one_base():
    """A remote endpoint failing and the local model failing are one kind for the cache and the case label."""
    import pickle

    from auditflow.cases.models import is_model_error
    from auditflow.llm.errors import ModelCallError
    from auditflow.llm.local import LocalModelError
    from auditflow.llm.remote import RemoteModelError

    failures = [RemoteModelError("timeout", "http://127.0.0.1:1/v1", "no answer", model="m:x"),
                LocalModelError("the local model qwen failed: out of memory")]
    for err in failures:
        assert isinstance(err, ModelCallError) and is_model_error(err)
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and str(back) == str(err) and back.__dict__ == err.__dict__
    assert not is_model_error(CacheWriteError("cannot write"))


def test_the_cache_command_prunes_with_the_union_of_used_keys(tmp_path, capsys):
    from auditflow.llm.cache_cmd import main

    cache_dir = tmp_path / "cache"
    keys = []
    for i in range(3):
        msgs = _history()
        msgs[1] = HumanMessage(f"prompt {i}")
        keys.append(_ask(LLMCache(cache_dir, "new_episodes", case_id=f"c{i}"), Calls(), msgs)[1])
    (tmp_path / "run1.json").write_text(json.dumps({"hits": 1, "used_keys": keys[:1]}))
    (tmp_path / "run2.json").write_text(json.dumps({"cache": {"used_keys": keys[1:2]}}))
    used = ["--used", str(tmp_path / "run1.json"), "--used", str(tmp_path / "run2.json")]
    assert main(["cache", "prune", str(cache_dir), *used, "--dry-run"]) == 0
    assert keys[2] in capsys.readouterr().out and len(list(iter_entries(cache_dir))) == 3
    assert main(["cache", "prune", str(cache_dir), *used]) == 0
    assert "removed 1 unused" in capsys.readouterr().out
    assert main(["cache", "stats", str(cache_dir)]) == 0
    assert json.loads(capsys.readouterr().out)["auditors"]["entries"] == 2
    from auditflow.cli.main import main as auditflow_main  # the same command, mounted in the CLI

    assert auditflow_main(["cache", "stats", str(cache_dir)]) == 0
    assert json.loads(capsys.readouterr().out)["auditors"]["entries"] == 2
    (tmp_path / "bad.json").write_text('{"nothing": 1}')
    assert main(["cache", "prune", str(cache_dir), "--used", str(tmp_path / "bad.json")]) == 2
    assert "used_keys" in capsys.readouterr().err


def test_models_recorded_names_the_models_of_a_case_s_entries(tmp_path) -> None:
    """What the plugin's cache-miss hint reads: which models a case has recorded calls of. An entry that is
    missing or not JSON is passed over, and a case with no log has none."""
    from auditflow.llm.cache import case_keys_path, entry_path, models_recorded

    keys = [f"{i:064x}" for i in (1, 2, 3, 4)]
    for key, model in zip(keys, ("local:qwen2.5-coder-1.5b", "openai-compatible:http://127.0.0.1:8080/v1#m",
                                 "local:qwen2.5-coder-1.5b")):
        path = entry_path(tmp_path, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"key": key, "model": model}))
    entry_path(tmp_path, keys[2]).write_text("{not json")  # a hand-mangled entry
    log = case_keys_path(tmp_path, "case-a")
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("".join(k + "\n" for k in keys))  # keys[3] has no entry file
    assert models_recorded(tmp_path, "case-a") == {"local:qwen2.5-coder-1.5b",
                                                   "openai-compatible:http://127.0.0.1:8080/v1#m"}
    assert models_recorded(tmp_path, "case-b") == set()
