"""Run damaged filings through what ``auditflow check`` runs, plus the filing graph, one forked child
per input with memory and time limits, and sort the outcomes into classes.

Outcome classes:

* ``result``: the rules ran (findings or not);
* ``typed error``: an :class:`~auditflow.errors.AuditflowError` (what the CLI reports with exit 2);
* ``untyped crash``: any other exception, or a child killed by a signal;
* ``hang``: the child passed the time limit and was killed;
* ``memory``: MemoryError under the address-space limit, or a peak resident size over ``PEAK_LIMIT_MB``;
* ``leak``: the child opened the canary folder beside the input, wrote the canary's secret to its
  output, or touched the network (recorded by a ``sys.addaudithook`` hook in the child).

The parent imports AuditFlow and opens the taxonomy packages once; each child is a ``fork`` of it, so an
input costs milliseconds of start-up. The peak is the child's ``ru_maxrss`` less its resident size at
the fork (what the input made it grow by), plus ``FRESH_PROCESS_MB`` for a fresh process's own start. See docs/reliability.md.
"""
from __future__ import annotations

import json
import os
import random
import resource
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
from argparse import Namespace
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator

from tests.fuzz.damage import CANARY_TOKEN, KINDS, make_input

REPO = Path(__file__).resolve().parents[2]
SAMPLES = (REPO / "auditflow" / "samples" / "acme-10k-2024" / "xml", REPO / "auditflow" / "samples" / "acme-10k-2024" / "inline")
PEAK_LIMIT_MB = 500  # the bar of issue 18: no input may need more
FRESH_PROCESS_MB = 100  # a fresh `auditflow check` process before it reads a filing is well under this
ADDRESS_SPACE_HEADROOM = 1536 << 20  # RLIMIT_AS is the parent's size plus this (a blow-up fails fast)
CLASSES = ("result", "typed error", "untyped crash", "hang", "memory", "leak")


@dataclass
class Outcome:
    index: int
    source: str
    kind: str
    family: str
    outcome: str = ""
    seconds: float = 0.0
    peak_mb: float = 0.0
    detail: str = ""
    names_file: bool = True  # a typed error that names a file (or, for a whole-input problem, the input)


@dataclass
class Plan:
    """Which inputs to make: ``count`` draws of (source, kind) from ``seed``."""

    sources: list[Path]
    count: int
    seed: int = 18
    kinds: tuple[str, ...] = tuple(KINDS)

    def __iter__(self) -> Iterator[tuple[int, Path, str, random.Random]]:
        rng = random.Random(self.seed)
        for i in range(self.count):
            kind = self.kinds[i % len(self.kinds)] if i < len(self.kinds) else rng.choice(self.kinds)
            source = self.sources[i % len(self.sources)] if i < len(self.sources) else rng.choice(self.sources)
            yield i, source, kind, random.Random(f"{self.seed}/{i}/{kind}/{source.name}")


def real_filings(data_root: Path | None) -> list[Path]:
    """The real filing folders under the data root (none when it is absent)."""
    if data_root is None:
        return []
    return sorted(p for folder in ("filings", "filings-rolled") if (data_root / folder).is_dir()
                  for p in (data_root / folder).iterdir() if p.is_dir())


class Checker:
    """What ``auditflow check`` runs (every registered rule) plus the filing graph, set up once."""

    def __init__(self, data_root: Path | None) -> None:
        from auditflow.cli.context import environment_factory
        from auditflow.rules.runner import parse_rules

        args = Namespace(data_root=str(data_root) if data_root else None, taxonomy=[], no_taxonomy=data_root is None)
        self.factory = environment_factory(args, taxonomy_graph=False, filing_graph=True)
        self.rules = parse_rules("all")
        for sample in SAMPLES:  # warm the caches (rule resources, taxonomy lookups) once: children inherit them
            self.check(sample)

    def check(self, path: Path) -> dict:
        from auditflow.rules.runner import run_rules

        env = self.factory.build(str(path))
        report = run_rules(env, self.rules, data_root=self.factory.data_root)
        text = json.dumps(report.to_json(), sort_keys=True, default=str)
        return {"findings": sum(len(r.findings) for r in report.results.values()), "text": text}


def run_one(checker: Checker, path: Path, outcome: Outcome, *, timeout: float) -> Outcome:
    """Check ``path`` in a forked child under the limits; fill and return ``outcome``."""
    read_fd, write_fd = os.pipe()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_fd)
        _child(checker, path, write_fd)
    os.close(write_fd)
    chunks: list[bytes] = []
    status, usage, killed = 0, None, False
    deadline = started + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0 and not killed:
            os.kill(pid, signal.SIGKILL)
            killed = True
        ready, _, _ = select.select([read_fd], [], [], max(0.0, min(left, 0.5)) if not killed else 0.5)
        if ready:
            data = os.read(read_fd, 65536)
            if data:
                chunks.append(data)
                continue
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
    os.close(read_fd)
    outcome.seconds = round(time.monotonic() - started, 3)
    report = _parse(b"".join(chunks))
    # the child's own growth over the process it was forked from (whose pages ru_maxrss also counts: an
    # xdist worker that loaded taxonomies earlier would otherwise make every input look 400 MB big), plus
    # what a fresh `auditflow check` process needs before it reads anything
    start_kb = (report or {}).get("rss_start_kb") or 0
    outcome.peak_mb = round(FRESH_PROCESS_MB + max(0, usage.ru_maxrss - start_kb) / 1024, 1) if usage else 0.0
    if killed:
        outcome.outcome, outcome.detail = "hang", f"killed after {timeout:.0f} s"
    elif report is None:
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        outcome.outcome = "untyped crash"
        outcome.detail = f"child died (signal {sig})" if sig else f"child exited {os.WEXITSTATUS(status)} without a report"
    else:
        outcome.outcome, outcome.detail = report["outcome"], report.get("detail", "")
        outcome.names_file = report.get("names_file", True)
        if report.get("leaks"):
            outcome.outcome, outcome.detail = "leak", "; ".join(report["leaks"])[:500]
    if outcome.outcome in ("result", "typed error") and outcome.peak_mb > PEAK_LIMIT_MB:
        outcome.outcome, outcome.detail = "memory", f"peak {outcome.peak_mb} MB"
    return outcome


def _parse(data: bytes) -> dict | None:
    try:
        return json.loads(data.decode("utf-8"))
    except ValueError:
        return None


def _child(checker: Checker, path: Path, fd: int) -> None:
    code = 0
    try:
        start_kb = _status_kb("VmRSS:")
        report = _child_run(checker, path)
        report["rss_start_kb"] = start_kb
        os.write(fd, json.dumps(report).encode("utf-8", errors="replace")[:60000])
    except BaseException:  # noqa: BLE001 - the report could not be written: the parent classifies
        code = 3
    finally:
        os._exit(code)


def _child_run(checker: Checker, path: Path) -> dict:
    from auditflow.errors import AuditflowError

    os.environ["AUDITFLOW_FILING_CACHE"] = "off"
    soft = _vm_bytes() + ADDRESS_SPACE_HEADROOM
    resource.setrlimit(resource.RLIMIT_AS, (soft, soft))
    canary = str(path.parent / "canary")
    leaks: list[str] = []

    def hook(event: str, args: tuple) -> None:
        if event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
            target = os.fsdecode(args[0])
            if os.path.realpath(target).startswith(canary):
                leaks.append(f"opened {target}")
        elif event.startswith("socket.") and event in ("socket.connect", "socket.getaddrinfo", "socket.sendto"):
            leaks.append(f"network: {event} {args[1:2]!r}")

    sys.addaudithook(hook)
    try:
        result = checker.check(path)
        out = {"outcome": "result", "detail": f"{result['findings']} findings"}
        text = result["text"]
    except AuditflowError as exc:
        text = str(exc)
        names = any(getattr(exc, a, None) for a in ("path", "file", "url")) or any(
            part in text for part in (path.name, "filing/", ".xml", ".xsd", ".htm", ".zip"))
        out = {"outcome": "typed error", "detail": f"{type(exc).__name__}: {text[:300]}", "names_file": bool(names)}
    except MemoryError:
        text = ""
        out = {"outcome": "memory", "detail": "MemoryError"}
    except BaseException as exc:  # noqa: BLE001 - what the fuzz run is looking for
        text = str(exc)[:1000]
        tb = traceback.extract_tb(exc.__traceback__)[-3:]
        where = " <- ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(tb))
        out = {"outcome": "untyped crash", "detail": f"{type(exc).__name__}: {text[:200]} at {where}"}
    if CANARY_TOKEN in text:
        leaks.append("the canary's secret is in the output")
    out["leaks"] = leaks
    return out


def _status_kb(field_name: str) -> int:
    """A ``/proc/self/status`` field in kB (0 where there is none)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field_name):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _vm_bytes() -> int:
    return _status_kb("VmSize:") * 1024 or 1 << 30


@dataclass
class Run:
    outcomes: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> dict:
        by_class = Counter(o.outcome for o in self.outcomes)
        families = sorted({o.family for o in self.outcomes})
        return {
            "inputs": len(self.outcomes),
            "by_outcome": {c: by_class.get(c, 0) for c in CLASSES},
            "by_family": {f: dict(Counter(o.outcome for o in self.outcomes if o.family == f)) for f in families},
            "by_source": dict(Counter("sample" if "samples" in o.source else "real" for o in self.outcomes)),
            "typed_errors_without_file": sum(1 for o in self.outcomes if o.outcome == "typed error" and not o.names_file),
            "peak_mb_max": max((o.peak_mb for o in self.outcomes), default=0.0),
            "seconds_max": max((o.seconds for o in self.outcomes), default=0.0),
            "seconds_total": round(self.seconds, 1),
        }

    def bad(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.outcome in ("untyped crash", "hang", "memory", "leak")]


def run_plan(plan: Plan, *, data_root: Path | None, timeout: float = 60.0, workdir: Path | None = None,
             progress=None) -> Run:
    """Generate and check every input of ``plan`` one after the other (each in its own child)."""
    checker = Checker(data_root)
    run = Run()
    started = time.monotonic()
    base = Path(tempfile.mkdtemp(prefix="auditflow-fuzz-", dir=workdir))
    try:
        for i, source, kind, rng in plan:
            work = base / f"{i:05d}"
            family = KINDS[kind][0]
            outcome = Outcome(i, str(source), kind, family)
            try:
                path = make_input(source, kind, rng, work)
            except Exception as exc:  # noqa: BLE001 - a generator bug is reported, not hidden
                outcome.outcome, outcome.detail = "untyped crash", f"generator: {type(exc).__name__}: {exc}"
            else:
                run_one(checker, path, outcome, timeout=timeout)
            run.outcomes.append(outcome)
            shutil.rmtree(work, ignore_errors=True)
            if progress:
                progress(outcome)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    run.seconds = time.monotonic() - started
    return run


def as_json(run: Run) -> dict:
    return {"summary": run.summary(), "outcomes": [asdict(o) for o in run.outcomes]}
