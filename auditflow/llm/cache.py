"""A disk cache of LLM calls: replay makes audits reproducible, reviewable and free in CI.

langchain's own cache does not fit (docs/pytest-plugin-notes.md, "Agent layer and caching"): its key
holds tool schemas in bind order and memory addresses, and a hit injects usage data that changes
the next turn. Our key is :class:`auditflow.llm.cachekey.CacheKey`.

One entry is one human-readable JSON file ``<dir>/<key[:2]>/<key>.json`` (reviewable in a pull
request), written atomically (temp file in the same folder, fsync, ``os.replace``) so concurrent
writers, xdist workers included, never leave a partial file. An entry that does not parse, or whose
request no longer hashes to its key, is a miss, never a crash. ``<dir>/cases/<case>.keys`` lists the
keys each case recorded, one per line, appended before each entry is written so that concurrent writers
and ``kill -9`` never leave an entry its case does not list (``<dir>/cases/<case>.json``, the list that
earlier versions rewrote whole, is still read; docs/reliability.md, "The LLM cache and model
replies"). Record modes follow VCR: ``none`` replays only (a miss is a :class:`CacheMissError` naming
case, role, key and how to re-record), ``once`` records a case that has no entries yet and replays a
recorded one, ``new_episodes`` replays hits and records misses,
``all`` always calls and overwrites. :class:`CachedChatModel` puts a chat model behind the cache.
"""
from __future__ import annotations

import json
import os
import re
import stat
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field

from auditflow.llm.errors import ModelCallError, PicklableError
from auditflow.llm.cachekey import (CacheKey, check_entry, escape_surrogates, response_from_json, response_to_json,
                                    sha256_hex)
from auditflow.llm.stats import CacheStats
from auditflow.llm.toolcalls import normalise_tools, recover_tool_call

RECORD_MODES: tuple[str, ...] = ("none", "once", "new_episodes", "all")
ENTRY_FORMAT = 1
RERECORD_HINT = ("re-record it with --auditflow-record-mode new_episodes (pytest) or --record-mode new_episodes "
                 "(auditflow CLI), which calls the model for missing entries and keeps the others")
_KEY = re.compile(r"^[0-9a-f]{64}$")
CASES_DIR = "cases"
KEYS_SUFFIX = ".keys"  # <dir>/cases/<case>.keys: the append-only list of a case's keys
INTERRUPTED_SUFFIX = ".interrupted"  # <dir>/cases/<case>.interrupted: its recording was cut short (LLMCache)
JUDGE_DIR = "judge"  # the LLM judge's own cache folder inside the cache directory


class CacheError(PicklableError):
    """The LLM call cache cannot do what the record mode asks."""


class CacheMissError(CacheError):
    """Replay-only mode and no usable entry for this call: a real model call would be needed."""

    def __init__(self, *, case_id: str | None, role: str, key: str, model: str, mode: str, reason: str,
                 directory: Path) -> None:
        super().__init__(
            f"LLM cache miss for case {case_id or '(no case id)'}, role {role}, model {model}: key {key} "
            f"({reason}) in {directory}, record mode {mode!r} replays only. The prompt, tools or model changed "
            f"since the cache was recorded, or the case was never recorded; {RERECORD_HINT}."
        )
        self.case_id, self.role, self.key, self.model, self.mode, self.reason = case_id, role, key, model, mode, reason


class CacheWriteError(CacheError):
    """A record mode needs to write an entry and the cache directory is not writable."""


# -- files ---------------------------------------------------------------------------------------

def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` so that readers see the old file or the whole new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def entry_path(directory: Path, key: str) -> Path:
    if not _KEY.match(key):  # keys name files: nothing but a sha256 may reach the file system
        raise ValueError(f"not a cache key (64 lowercase hex digits): {key!r}")
    return Path(directory) / key[:2] / f"{key}.json"


def _case_stem(case_id: str | None) -> str:
    name = case_id or "_no_case"
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:100]
    if safe != name:
        safe = f"{safe}-{sha256_hex(name)[:8]}"
    return safe


def case_manifest_path(directory: Path, case_id: str | None) -> Path:
    """``<dir>/cases/<case>.json``: the keys a case recorded, as a JSON list that earlier versions
    rewrote whole on each write (and so lost keys to concurrent writers). Read, never written now;
    ``prune`` still drops deleted keys from it."""
    return Path(directory) / CASES_DIR / f"{_case_stem(case_id)}.json"


def case_keys_path(directory: Path, case_id: str | None) -> Path:
    """``<dir>/cases/<case>.keys``: the keys a case recorded, one per line, only ever appended to."""
    return Path(directory) / CASES_DIR / f"{_case_stem(case_id)}{KEYS_SUFFIX}"


_KEY_AT_END = re.compile(rb"[0-9a-f]{64}$")


def read_manifest(path: Path) -> dict:
    """A legacy ``<case>.json`` manifest (``{"case_id": ..., "keys": [...]}``), or {} if unreadable."""
    try:
        obj = json.loads(_read_entry_file(path).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return obj if isinstance(obj, dict) and isinstance(obj.get("keys"), list) else {}


def read_keys_log(path: Path) -> list[str]:
    """The keys of a ``<case>.keys`` log, deduplicated, in the order first written.

    A line is a key; a writer killed inside its ``write`` (which a local file system does not show, but
    a network one may) leaves a prefix of its line. A line shorter than a key is such a prefix and is
    skipped; a longer one is a prefix followed by the next writer's whole key, which is its last 64
    characters. Anything else (a hand edit) is skipped, never an error.
    """
    try:
        data = _read_entry_file(path)  # a regular file of bounded size, as an entry
    except OSError:
        return []
    seen: dict[str, None] = {}
    for line in data.split(b"\n"):
        m = _KEY_AT_END.search(line.strip())
        if m:
            seen.setdefault(m.group().decode("ascii"), None)
    return list(seen)


def manifest_keys(directory: Path | str, case_id: str | None) -> set[str]:
    """Every key a case's manifest lists: its ``.keys`` log and its legacy ``.json`` list together."""
    keys = {k for k in read_manifest(case_manifest_path(Path(directory), case_id)).get("keys", [])
            if isinstance(k, str) and _KEY.match(k)}
    return keys | set(read_keys_log(case_keys_path(Path(directory), case_id)))


def models_recorded(directory: Path | str, case_id: str | None) -> set[str]:
    """The model specs a case's recorded entries were made with (unreadable entries are passed over).

    A replay that misses for a case with no entry of its model at all is not a stale recording but a
    case that model never ran, e.g. one outside the eval subset a served model was recorded on; the
    plugin's failure text says so (pytest_auditflow/failure.py)."""
    models = set()
    for key in manifest_keys(directory, case_id):
        try:
            entry = json.loads(_read_entry_file(entry_path(Path(directory), key)).decode("utf-8"))
        except (OSError, ValueError, RecursionError):
            continue
        if isinstance(entry, dict) and isinstance(entry.get("model"), str):
            models.add(entry["model"])
    return models


def append_key(path: Path, key: str) -> None:
    """Append ``key`` as one whole line: the file is opened ``O_APPEND`` and the line handed to one
    ``write``, so concurrent writers (threads, processes, xdist workers) each add their line and none
    rewrites another's, and a ``kill -9`` loses at most the line being written (see
    :func:`read_keys_log`). A line torn that way is ended first, so the next key stays whole.
    Synced to disk, as the entry is."""
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags, 0o644)
    try:
        line = key.encode("ascii") + b"\n"
        if not _ends_a_line(fd):
            line = b"\n" + line
        if os.write(fd, line) != len(line):  # a regular file takes a 66-byte write whole, or raises
            raise OSError(f"short write to {path}")
        os.fsync(fd)
    finally:
        os.close(fd)


def _ends_a_line(fd: int) -> bool:
    """Whether the file is empty or its last byte is a newline. Reads through lseek + read (Windows has
    no pread); an ``O_APPEND`` write goes to the end wherever the offset was left."""
    size = os.fstat(fd).st_size
    if not size:
        return True
    os.lseek(fd, size - 1, os.SEEK_SET)
    return os.read(fd, 1) == b"\n"


def _dump_pretty(obj: Any) -> str:
    """Readable JSON; a lone surrogate from a model is escaped (UTF-8 cannot write it, and the answer
    was paid for)."""
    return escape_surrogates(json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False)) + "\n"


MAX_ENTRY_BYTES = 64 * 1024 * 1024  # an entry file larger than this is a miss (the largest recorded is < 1 MB)
TEMP_GRACE_SECONDS = 300  # a temporary file older than this was left by a killed writer: prune removes it


def _read_entry_file(path: Path) -> bytes:
    """An entry's bytes, refusing what is not a regular file (a symlink to /dev/zero would read forever)
    and what is larger than MAX_ENTRY_BYTES. Raises OSError (FileNotFoundError when missing)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"not a regular file: {path}")
        if st.st_size > MAX_ENTRY_BYTES:
            raise OSError(f"the entry is {st.st_size} bytes (more than {MAX_ENTRY_BYTES})")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(MAX_ENTRY_BYTES + 1)
    finally:
        os.close(fd)


class LLMCache:
    """One case's view of a cache directory in one record mode; shared by the case's roles (thread-safe)."""

    def __init__(self, directory: Path | str, mode: str = "none", *, case_id: str | None = None,
                 stats: CacheStats | None = None) -> None:
        if mode not in RECORD_MODES:
            raise CacheError(f"unknown record mode {mode!r}: choose one of {', '.join(RECORD_MODES)}")
        self.directory, self.mode, self.case_id = Path(directory), mode, case_id
        self.stats = stats if stats is not None else CacheStats()
        self._writable: bool | None = None
        # VCR "once": decided when the case starts, so its own first writes do not end the recording. A case
        # whose recording a failing endpoint cut short (a killed server) records again: what it has replays,
        # and only its missing calls reach the model; the mark is set again if the endpoint fails again.
        interrupted = self._interrupted_path()
        self._once_records = mode == "once" and (not self.case_recorded() or interrupted.is_file())
        if mode == "once" and interrupted.is_file():
            interrupted.unlink(missing_ok=True)

    def _interrupted_path(self) -> Path:
        """``cases/<case>.interrupted``: this case's recording was cut short by a failing model endpoint."""
        keys = case_keys_path(self.directory, self.case_id)
        return keys.with_name(keys.name[: -len(KEYS_SUFFIX)] + INTERRUPTED_SUFFIX)

    def _mark_interrupted(self) -> None:
        try:
            path = self._interrupted_path()
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
        except OSError:
            pass  # then ``once`` replays what was recorded and names the missing call, as before

    @property
    def records(self) -> bool:
        return self.mode in ("new_episodes", "all") or self._once_records

    def case_recorded(self) -> bool:
        """Whether this case recorded an entry that still exists. A key is listed before its entry is
        written, so a writer killed between the two leaves a listed key without an entry: that alone
        does not make the case recorded (``once`` records it again)."""
        return any(entry_path(self.directory, k).is_file() for k in manifest_keys(self.directory, self.case_id))

    def read(self, key: str) -> tuple[AIMessage | None, str]:
        """(the replayed message, "") or (None, why it is a miss). Never raises on a bad entry."""
        path = entry_path(self.directory, key)
        try:
            data = _read_entry_file(path)
        except FileNotFoundError:
            return None, "no entry"
        except OSError as exc:  # a symlink, FIFO or device is refused: a miss
            return None, f"the entry cannot be read: {exc}"
        if len(data) > MAX_ENTRY_BYTES:
            return None, self._corrupt(path, "the entry is too large")
        try:
            entry = json.loads(data.decode("utf-8"))
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError included
            return None, self._corrupt(path, f"the entry is not valid JSON (truncated?): {str(exc)[:200]}")
        try:
            problem = check_entry(entry, key)
            message = None if problem else response_from_json(entry["response"])
        except Exception as exc:  # noqa: BLE001 - whatever else a hand-edited entry holds is a miss, not a crash
            problem, message = f"the entry cannot be replayed ({type(exc).__name__})", None
        if problem or message is None:
            return None, self._corrupt(path, problem or "the entry cannot be replayed")
        return message, ""

    def _corrupt(self, path: Path, why: str) -> str:
        """Count a corrupt entry; in a record mode move it aside (it is rewritten after the call)."""
        self.stats.count("corrupt")
        if self.records:
            try:
                os.replace(path, path.with_name(path.name + ".corrupt"))
            except OSError:
                pass  # the new entry's os.replace overwrites it anyway
        return why

    def ensure_writable(self) -> None:
        """Fail before the model is called, not after: a recorded answer must not be thrown away."""
        if self._writable:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, probe = tempfile.mkstemp(dir=self.directory, prefix=".probe.", suffix=".tmp")
            os.close(fd)
            os.unlink(probe)
        except OSError as exc:
            raise CacheWriteError(
                f"cannot write the LLM cache at {self.directory}: {exc}. Record mode {self.mode!r} needs to write "
                "entries: make the directory writable, pass another --auditflow-cache-dir / --cache-dir, "
                "or replay only with record mode none"
            ) from exc
        self._writable = True

    def write(self, key: str, request: dict, response: dict, *, role: str, model: str) -> None:
        entry = {"format": ENTRY_FORMAT, "key": key, "role": role, "model": model, "case_id": self.case_id,
                 # metadata for reviewers only: nothing replayed or compared depends on it
                 "created": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
                 "request": request, "response": response}
        try:
            self._add_to_manifest(key)  # first: an entry never exists that its case does not list
            atomic_write_text(entry_path(self.directory, key), _dump_pretty(entry))
        except OSError as exc:
            raise CacheWriteError(f"cannot write the LLM cache entry {key} under {self.directory}: {exc}") from exc
        self.stats.count("writes", key)

    def _add_to_manifest(self, key: str) -> None:
        """List ``key`` in the case's ``.keys`` log unless the case lists it already (``all`` re-records
        the same keys). Two writers may both find it missing and both append it: a duplicate line,
        which readers drop. Nothing is read-modified-written, so nothing written by another is lost."""
        if key not in manifest_keys(self.directory, self.case_id):
            append_key(case_keys_path(self.directory, self.case_id), key)

    def get_or_call(self, key: str, request: dict, call: Callable[[], Any], *, role: str, model: str) -> AIMessage:
        """Replay the entry for ``key``, or (in a record mode) call the model and record its answer."""
        reason = "record mode all re-records every call"
        if self.mode != "all":
            msg, reason = self.read(key)
            if msg is not None:
                self.stats.count("hits", key)
                return msg
        self.stats.count("misses", key)
        if not self.records:
            if self.mode == "once":
                reason += "; the case was recorded before, so record mode once replays only"
            raise CacheMissError(case_id=self.case_id, role=role, key=key, model=model, mode=self.mode,
                                 reason=reason, directory=self.directory)
        self.ensure_writable()
        try:
            answer = call()
        except Exception as exc:
            # a case cut short after some of its calls were recorded: the next ``once`` records the rest (a case
            # with nothing recorded records anyway, so it gets no mark)
            if self.mode == "once" and isinstance(exc, ModelCallError) and self.case_recorded():
                self._mark_interrupted()
            raise
        response = response_to_json(answer)
        self.write(key, request, response, role=role, model=model)
        return response_from_json(response)


# -- housekeeping --------------------------------------------------------------------------------

def cache_roots(directory: Path | str) -> list[Path]:
    """The cache folder and the LLM judge's, which is kept apart inside it (``<dir>/judge``)."""
    root = Path(directory)
    return [root] + ([root / JUDGE_DIR] if (root / JUDGE_DIR).is_dir() else [])


def iter_entries(directory: Path | str):
    """Every entry file ``<dir>/<xx>/<key>.json`` of one cache folder (the judge's is a separate folder)."""
    root = Path(directory)
    if not root.is_dir():
        return
    for shard in sorted(root.iterdir()):
        if shard.is_dir() and re.fullmatch(r"[0-9a-f]{2}", shard.name):
            yield from sorted(p for p in shard.iterdir() if p.is_file() and not p.name.startswith("."))


def temp_files(directory: Path | str, *, older_than: float = 0.0) -> list[Path]:
    """Temporary files (``.<name>.<random>.tmp``) in the cache folders: a writer killed between
    creating and renaming one (``kill -9``) leaves it behind. Those modified less than ``older_than``
    seconds ago may still be in use by a live writer."""
    now = time.time()
    out = []
    for root in cache_roots(directory):
        folders = [root, root / CASES_DIR] + ([p for p in sorted(root.iterdir()) if p.is_dir() and re.fullmatch(
            r"[0-9a-f]{2}", p.name)] if root.is_dir() else [])
        for folder in folders:
            if not folder.is_dir():
                continue
            for p in sorted(folder.glob(".*.tmp")):
                try:
                    st = p.lstat()
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode) and now - st.st_mtime >= older_than:
                    out.append(p)
    return out


def unused_entries(directory: Path | str, used_keys) -> list[Path]:
    """Entries no run used (given the union of every run's used keys), quarantined corrupt files, and
    temporary files left by killed writers; the judge's folder included."""
    used = set(used_keys)
    return [p for root in cache_roots(directory) for p in iter_entries(root)
            if p.name.endswith(".corrupt") or (p.suffix == ".json" and p.stem not in used)
            ] + temp_files(directory, older_than=TEMP_GRACE_SECONDS)


def prune(directory: Path | str, used_keys) -> int:
    """Delete unused entries and drop them from the case manifests; returns how many files went.

    ``used_keys`` must be the union over every run that should keep its entries (the pytest plugin
    merges its workers' :class:`CacheStats`): an entry outside it is deleted.
    """
    removed = unused_entries(directory, used_keys)
    for p in removed:
        p.unlink(missing_ok=True)
    gone = {p.stem for p in removed if p.suffix == ".json"}
    for root in cache_roots(directory):
        _drop_from_manifests(root, gone)
    for shard in {p.parent for p in removed}:
        try:
            shard.rmdir()  # only if now empty
        except OSError:
            pass
    return len(removed)


def _drop_from_manifests(root: Path, gone: set[str]) -> None:
    """Drop deleted keys, and keys whose entry was never written (a writer killed between the two), from
    the legacy lists and the logs of one cache folder. A log is rewritten here (whole, atomically), the
    one place it is not appended to: prune deletes entries, so no recording runs meanwhile."""
    folder = root / CASES_DIR

    def kept(k) -> bool:
        return isinstance(k, str) and k not in gone and bool(_KEY.match(k)) and entry_path(root, k).is_file()

    for m in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        data = read_manifest(m)
        keys = sorted({k for k in data.get("keys", []) if kept(k)})
        if not keys:
            m.unlink(missing_ok=True)
        elif keys != data.get("keys"):
            atomic_write_text(m, _dump_pretty({**data, "keys": keys}))
    for log in sorted(folder.glob(f"*{KEYS_SUFFIX}")) if folder.is_dir() else []:
        listed = read_keys_log(log)
        keys = [k for k in listed if kept(k)]
        if not keys:
            log.unlink(missing_ok=True)
        elif keys != listed:
            atomic_write_text(log, "".join(k + "\n" for k in keys))


def recorded_cases(folder: Path) -> set[str]:
    """The cases with a manifest (a ``.keys`` log, a legacy ``.json`` list, or both) in ``<dir>/cases``."""
    if not folder.is_dir():
        return set()
    return {p.name[: -len(p.suffix)] for p in folder.iterdir()
            if p.suffix in (".json", KEYS_SUFFIX) and not p.name.startswith(".")}


def summary(directory: Path | str) -> dict[str, Any]:
    """Entries, bytes and recorded cases per cache folder (for a ``cache stats`` command)."""
    out = {}
    for root in cache_roots(directory):
        files = [p for p in iter_entries(root) if p.suffix == ".json"]
        cases = recorded_cases(root / CASES_DIR)
        out[root.name if root != Path(directory) else "auditors"] = {
            "entries": len(files), "bytes": sum(p.stat().st_size for p in files), "cases": len(cases)}
    temps = temp_files(directory)
    if temps:  # left by killed writers; 'cache prune' removes those older than TEMP_GRACE_SECONDS
        out["temporary_files"] = {"files": len(temps), "bytes": sum(p.lstat().st_size for p in temps)}
    return out


# -- the chat model behind the cache ---------------------------------------------------------------

class CachedChatModel(BaseChatModel):
    """A role's chat model behind the cache: replays or calls (and records) per :class:`LLMCache` mode.

    The provider model is built by ``make_inner`` on the first real call only, so a warm replay loads
    no local model, imports no provider package and needs no API key. ``key_material(tools)`` adds
    what a wrapper changes about the request (the tool-call adapter's prompt and schema hashes).
    Recorded and replayed answers both come back through the entry's JSON form, so a recording run
    and its replay produce identical messages. Without ``llm_cache`` every call goes to the model.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    role: str
    spec: str
    make_inner: Callable[[], Any]
    llm_cache: Any = None  # LLMCache | None
    key_material: Callable[[list], dict] | None = None
    tools: list[dict] = Field(default_factory=list)
    tool_kwargs: dict = Field(default_factory=dict)
    cache: bool | None = False  # langchain's own LLM cache stays out of this model
    repeat: int = 0  # which repeat of the case (--auditflow-repeats): in the key when > 0, so 0 keeps every old key

    @property
    def _llm_type(self) -> str:
        return "auditflow-cached"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"role": self.role, "spec": self.spec}

    def bind_tools(self, tools, **kwargs):
        """Keep the tools (sorted by name, so bind order changes neither key nor request)."""
        return self.model_copy(update={"tools": normalise_tools(list(tools)), "tool_kwargs": dict(kwargs)})

    def cache_key(self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any) -> CacheKey:
        extra = dict(self.key_material(self.tools)) if self.key_material and self.tools else {}
        for name, value in (("stop", stop), ("tool_kwargs", self.tool_kwargs), ("call_kwargs", kwargs)):
            if value:
                extra[name] = json.loads(json.dumps(value, sort_keys=True, default=str))
        if self.repeat:
            extra["repeat"] = self.repeat
        return CacheKey.compute(role=self.role, model=self.spec, messages=list(messages), tools=self.tools, extra=extra)

    def _call(self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict) -> Any:
        inner = self.make_inner()
        bound = inner.bind_tools(self.tools, **self.tool_kwargs) if self.tools else inner
        round_ = sum(isinstance(m, AIMessage) for m in messages) + 1
        t0 = time.perf_counter()
        out = bound.invoke(list(messages), stop=stop, **kwargs)
        self._report_live(round_, out, time.perf_counter() - t0)
        return recover_tool_call(out, self.tools, round_)

    def _report_live(self, round_: int, out: Any, seconds: float) -> None:
        """Count a call that reached the model in its case's totals and tell the progress listeners
        (auditflow.llm.progress); a replay never gets here, so replayed results do not change."""
        from auditflow.llm.progress import LiveTotals, emit, live_totals, usage_of

        cache = self.llm_cache
        totals = live_totals(cache.stats) if cache is not None else None
        prompt, completion = usage_of(out)
        call = (totals or LiveTotals()).add(
            case_id=getattr(cache, "case_id", None), role=self.role, seconds=seconds, prompt_tokens=prompt,
            completion_tokens=completion, round=round_)
        emit(call)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:  # noqa: ARG002
        def call() -> Any:
            return self._call(messages, stop, kwargs)

        if self.llm_cache is None:
            msg = response_from_json(response_to_json(call()))
        else:
            key = self.cache_key(messages, stop, **kwargs)
            msg = self.llm_cache.get_or_call(key.key, key.request, call, role=self.role, model=self.spec)
        return ChatResult(generations=[ChatGeneration(message=msg)])
