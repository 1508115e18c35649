"""The case manifest of the LLM cache under concurrent writers and ``kill -9`` (issue 44, item 13).

Before, each write re-read the case's ``<case>.json`` key list and replaced it whole: of 16 processes
recording one case, the last replace won and the other writers' keys were lost (102 of 510 kept), and a
writer killed between its entry and its list lost its key. Now a key is appended, as one whole line,
to ``<case>.keys`` before its entry is written. These tests hold the guarantee: the manifest lists every
key whose entry exists (docs/reliability.md, "The LLM cache and model replies").
"""
from __future__ import annotations

import json
import multiprocessing
import os
import random
import shutil
import signal
import time
from pathlib import Path

import pytest

from auditflow.llm.cache import (
    CacheWriteError, LLMCache, append_key, case_keys_path, case_manifest_path, entry_path, iter_entries, manifest_keys, prune,
    read_keys_log, read_manifest, summary, temp_files,
)
from auditflow.llm.cachekey import sha256_hex

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "cases" / "llm-cache"
FORK = "fork" in multiprocessing.get_all_start_methods()
needs_fork = pytest.mark.skipif(not FORK, reason="the writers are forked (no fork on this platform)")


def _key(text: str) -> str:
    return sha256_hex(text)


def _write(cache: LLMCache, text: str) -> str:
    key = _key(text)
    # a few KB per entry, as a real answer: the write (temp file, fsync, rename) is not instantaneous
    cache.write(key, {"prompt": text}, {"content": text + " " + "x" * 4000}, role="forensic", model="test:m")
    return key


def _writer(directory: str, case_id: str, prefix: str, n: int | None, barrier=None) -> None:
    """Record ``n`` entries (forever if None) into one case; run in a forked process."""
    if barrier is not None:
        barrier.wait()
    cache = LLMCache(Path(directory), "new_episodes", case_id=case_id)
    i = 0
    while n is None or i < n:
        _write(cache, f"{prefix} {i}")
        i += 1


def _entry_keys_by_case(directory: Path) -> dict[str, set[str]]:
    """The keys whose entries exist, by the case each entry names (every entry is checked whole)."""
    out: dict[str, set[str]] = {}
    for p in iter_entries(directory):
        entry = json.loads(p.read_text(encoding="utf-8"))  # an entry is whole or absent, never torn
        assert entry["key"] == p.stem
        out.setdefault(entry["case_id"], set()).add(p.stem)
    return out


def _unlisted(directory: Path) -> dict[str, set[str]]:
    """Keys whose entry exists and whose case's manifest does not list them: must be empty."""
    return {case: missing for case, keys in _entry_keys_by_case(directory).items()
            if (missing := keys - manifest_keys(directory, case))}


@needs_fork
def test_sixteen_concurrent_writer_processes_lose_no_key(tmp_path) -> None:
    ctx = multiprocessing.get_context("fork")
    writers, per_writer = 16, 32
    barrier = ctx.Barrier(writers)
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), "one-case", f"w{w}", per_writer, barrier))
             for w in range(writers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * writers
    written = {_key(f"w{w} {i}") for w in range(writers) for i in range(per_writer)}
    assert {p.stem for p in iter_entries(tmp_path)} == written
    assert manifest_keys(tmp_path, "one-case") == written  # all 512 (the old list kept about a fifth)
    assert _unlisted(tmp_path) == {}
    log = case_keys_path(tmp_path, "one-case").read_text(encoding="utf-8")
    assert log.endswith("\n") and set(log.splitlines()) == written  # whole lines only


@needs_fork
def test_a_hundred_writers_killed_mid_write_lose_no_key(tmp_path) -> None:
    """100 ``kill -9``s, ten writers at a time on two cases, each killed 5-80 ms into its writes (inside
    the key append, the entry's temp file or fsync, or between them), then 16 writers to completion."""
    ctx = multiprocessing.get_context("fork")
    rng = random.Random(44)
    started = time.monotonic()
    for round_ in range(10):
        procs = [ctx.Process(target=_writer, args=(str(tmp_path), f"case-{w % 2}", f"r{round_}w{w}", None))
                 for w in range(10)]
        for p in procs:
            p.start()
        deadline = time.monotonic()
        for p in sorted(procs, key=lambda _: rng.random()):
            time.sleep(max(0.0, deadline + rng.uniform(0.005, 0.08) - time.monotonic()))
            os.kill(p.pid, signal.SIGKILL)
        for p in procs:
            p.join(30)
        assert [p.exitcode for p in procs] == [-signal.SIGKILL] * 10  # killed, none had finished
    survivors = [ctx.Process(target=_writer, args=(str(tmp_path), f"case-{w % 2}", f"s{w}", 8)) for w in range(16)]
    for p in survivors:
        p.start()
    for p in survivors:
        p.join(120)
    assert [p.exitcode for p in survivors] == [0] * 16
    by_case = _entry_keys_by_case(tmp_path)
    assert sum(map(len, by_case.values())) > 16 * 8  # the killed writers wrote entries too
    assert _unlisted(tmp_path) == {}
    # what the kills left: listed keys without an entry (killed after the append), temp files (killed
    # inside an entry's write); both harmless, neither an entry missing from its manifest
    listed = manifest_keys(tmp_path, "case-0") | manifest_keys(tmp_path, "case-1")
    print(f"\n{sum(map(len, by_case.values()))} entries, all listed; {len(listed - set().union(*by_case.values()))} "
          f"listed keys without an entry; {len(temp_files(tmp_path))} temp files; {time.monotonic() - started:.1f} s")


def test_a_torn_line_loses_only_itself(tmp_path) -> None:
    """A writer killed inside its ``write`` leaves part of a line: the reader skips it, the next writer
    ends it first, and a key glued to such a part is still read whole."""
    a, b, c, d = (_key(x) for x in "abcd")
    log = tmp_path / "cases" / "t.keys"
    log.parent.mkdir()
    log.write_text(a + "\n" + b[:30])  # b torn
    append_key(log, c)
    assert log.read_text() == f"{a}\n{b[:30]}\n{c}\n"
    assert read_keys_log(log) == [a, c]
    with log.open("a") as f:
        f.write(d[:10] + a + "\n" + "not a key\n\n")  # a part glued to a whole key (no newline between)
    assert read_keys_log(log) == [a, c]
    append_key(log, d)
    assert read_keys_log(log) == [a, c, d]


def test_a_key_is_listed_once_and_before_its_entry(tmp_path, monkeypatch) -> None:
    cache = LLMCache(tmp_path, "all", case_id="c")
    order = []
    import auditflow.llm.cache as cache_mod

    real_append, real_write = cache_mod.append_key, cache_mod.atomic_write_text
    monkeypatch.setattr(cache_mod, "append_key", lambda *a: (order.append("key"), real_append(*a)))
    monkeypatch.setattr(cache_mod, "atomic_write_text", lambda *a: (order.append("entry"), real_write(*a)))
    for _ in range(3):  # record mode all rewrites the entry; the key is appended the first time only
        key = _write(cache, "same")
    assert order == ["key", "entry", "entry", "entry"]
    assert case_keys_path(tmp_path, "c").read_text() == key + "\n"


def test_a_listed_key_without_an_entry_does_not_make_a_case_recorded(tmp_path) -> None:
    """A writer killed between its key and its entry: ``once`` records the case again."""
    append_key(case_keys_path(tmp_path, "c"), _key("lost"))
    assert LLMCache(tmp_path, "once", case_id="c").records
    kept = _write(LLMCache(tmp_path, "new_episodes", case_id="c"), "kept")
    assert not LLMCache(tmp_path, "once", case_id="c").records
    assert prune(tmp_path, {kept}) == 0  # no entry to delete; the key without one leaves the manifest
    assert case_keys_path(tmp_path, "c").read_text() == kept + "\n"


# -- the committed cache's manifests, written by earlier versions, are still read ---------------------

def _committed_manifests() -> list[Path]:
    return sorted((COMMITTED / "cases").glob("*.json"))


@pytest.mark.skipif(not (COMMITTED / "cases").is_dir(), reason="no committed cache")
def test_every_committed_json_manifest_is_read_and_lists_existing_entries() -> None:
    manifests = _committed_manifests()
    assert manifests
    for m in manifests:
        data = read_manifest(m)
        keys = manifest_keys(COMMITTED, data["case_id"])
        # a case recorded again later (another configuration) lists its new keys in its .keys log beside it
        assert case_manifest_path(COMMITTED, data["case_id"]) == m and set(data["keys"]) <= keys, m.name
        assert all(entry_path(COMMITTED, k).is_file() for k in keys), m.name
        assert LLMCache(COMMITTED, "once", case_id=data["case_id"]).records is False  # recorded: replay only


@pytest.mark.skipif(not (COMMITTED / "cases").is_dir(), reason="no committed cache")
def test_a_legacy_manifest_grows_through_the_log_and_prunes(tmp_path) -> None:
    """A committed case recorded again with new_episodes: its .json is kept as is, the new key goes to
    its .keys, the manifest is both; prune drops a deleted key from either."""
    m = _committed_manifests()[0]
    data = read_manifest(m)
    (tmp_path / "cases").mkdir()
    shutil.copy2(m, tmp_path / "cases" / m.name)
    for k in data["keys"]:
        entry_path(tmp_path, k).parent.mkdir(exist_ok=True)
        shutil.copy2(entry_path(COMMITTED, k), entry_path(tmp_path, k))
    before = m.read_bytes()
    new = _write(LLMCache(tmp_path, "new_episodes", case_id=data["case_id"]), "a new call")
    assert (tmp_path / "cases" / m.name).read_bytes() == before
    assert manifest_keys(tmp_path, data["case_id"]) == set(data["keys"]) | {new}
    assert summary(tmp_path)["auditors"]["cases"] == 1  # one case, in two files
    dropped = data["keys"][0]
    assert prune(tmp_path, set(data["keys"][1:]) | {new}) == 1
    assert manifest_keys(tmp_path, data["case_id"]) == set(data["keys"][1:]) | {new}
    assert prune(tmp_path, set(data["keys"][1:])) == 1
    assert not case_keys_path(tmp_path, data["case_id"]).exists() and dropped not in manifest_keys(
        tmp_path, data["case_id"])


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_manifest_that_is_not_a_regular_file_is_read_as_empty(tmp_path) -> None:
    """A ``.keys`` or ``.json`` symlinked to /dev/zero would read forever: it lists nothing instead, and
    a write refuses to follow it (a typed ``CacheWriteError``, not a file written through the link)."""
    (tmp_path / "cases").mkdir()
    case_keys_path(tmp_path, "c").symlink_to("/dev/zero")
    case_manifest_path(tmp_path, "c").symlink_to("/dev/zero")
    assert manifest_keys(tmp_path, "c") == set()
    with pytest.raises(CacheWriteError, match="cannot write the LLM cache entry"):
        _write(LLMCache(tmp_path, "new_episodes", case_id="c"), "x")
