"""Issue 21, third round: a load runs with the cyclic collector paused, and restores it.

The pause is only sound because a load makes no reference cycles (reference counting frees all it
drops); the last test checks that on real filings.
"""
from __future__ import annotations

import gc
import threading

import pytest

from auditflow.errors import InputError
from auditflow.xbrl import loader
from auditflow.xbrl.gc_pause import collector_paused


@pytest.fixture(autouse=True)
def _collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_is_off_during_a_load_and_on_after(data_root, monkeypatch):
    seen = []
    real = loader.find_entry_documents
    monkeypatch.setattr(loader, "find_entry_documents", lambda src: seen.append(gc.isenabled()) or real(src))
    loader.load_filing(data_root / "filings" / "aapl-10k-2023-09-30")
    assert seen == [False] and gc.isenabled()


def test_a_failed_load_restores_it_and_a_disabled_collector_stays_disabled(tmp_path):
    with pytest.raises(InputError):
        loader.load_filing(tmp_path / "missing")
    assert gc.isenabled()
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_overlapping_pauses_in_threads_restore_it_once_the_last_ends():
    inside, release = threading.Barrier(3), threading.Event()

    def load():
        with collector_paused():
            inside.wait()
            release.wait()

    threads = [threading.Thread(target=load) for _ in range(2)]
    for t in threads:
        t.start()
    inside.wait()
    assert not gc.isenabled()
    release.set()
    for t in threads:
        t.join()
    assert gc.isenabled()


@pytest.mark.parametrize("name", ["filings/aapl-10k-2023-09-30", "filings/aeon-10q-2023-09-30",
                                  "filings-rolled/bxp-10q-2025-06-30"])
def test_a_load_leaves_no_reference_cycles_behind(data_root, name):
    loader.load_filing(data_root / name)  # imports and memos first
    gc.collect()
    gc.disable()
    filing = loader.load_filing(data_root / name)
    assert filing.facts and gc.collect() == 0


def test_the_collector_is_off_while_rules_run_and_on_after(data_root, monkeypatch):
    from auditflow.graphs.environment import build_environment
    from auditflow.rules import registry
    from auditflow.rules.runner import run_rules

    import dataclasses

    seen = []
    spec = registry.get("DQC.US.0015")
    watched = dataclasses.replace(spec, run=lambda env, res: seen.append(gc.isenabled()) or spec.run(env, res))
    monkeypatch.setattr(registry, "get", lambda rule: watched)
    env = build_environment(data_root / "filings" / "aapl-10k-2023-09-30", filing_cache=False)
    run_rules(env, ["DQC.US.0015"], data_root=data_root)
    assert seen == [False] and gc.isenabled()


@pytest.mark.parametrize("name", ["filings/aapl-10k-2023-09-30", "filings/aeon-10q-2023-09-30"])
def test_the_rules_leave_no_reference_cycles_behind(data_root, name):
    from auditflow.graphs.environment import build_environment
    from auditflow.rules.runner import parse_rules, run_rules

    every = parse_rules("all")
    env = build_environment(data_root / name, filing_cache=False)
    run_rules(env, every, data_root=data_root)  # imports and memos first
    env = build_environment(data_root / name, filing_cache=False)
    gc.collect()
    gc.disable()
    assert run_rules(env, every, data_root=data_root).results and gc.collect() == 0
