"""The ``pytest --auditflow`` plugin: hooks only, each delegating to the session, collector or reporter.

Registered through the ``pytest11`` entry point ``auditflow`` (disable with ``-p no:auditflow``).
State lives in ``config.stash[SESSION_KEY]``; the reporter exists only on the controller.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from auditflow.cases.loader import is_case_file
from pytest_auditflow import hookspecs
from pytest_auditflow.items import RULE_MARKERS, AuditCaseFile
from pytest_auditflow.options import add_options, settings_from_config
from pytest_auditflow.reporter import AuditflowReporter
from pytest_auditflow.session import SESSION_KEY, AuditflowSession, model_note


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "auditflow: an AuditFlow audit case (from a *.case.yaml file)")
    for rule in RULE_MARKERS:
        config.addinivalue_line("markers", f"dqc_{rule}: an AuditFlow case about DQC.US.{rule}")
    state = AuditflowSession(config, settings_from_config(config))
    config.stash[SESSION_KEY] = state
    if state.settings.enabled and not hasattr(config, "workerinput"):
        config.pluginmanager.register(AuditflowReporter(state), "auditflow-reporter")
    if state.settings.enabled:
        _batch_gc(config)
    run = state.settings.run
    if state.settings.enabled and hasattr(config, "workerinput") and run.record_mode != "none" and run.model != "policy":
        # a worker's live-call lines (pytest_auditflow.live); a replay-only run makes no live call
        from pytest_auditflow.live import LiveLines, stderr_writer

        config.add_cleanup(LiveLines(stderr_writer, config).close)


def _batch_gc(config: pytest.Config) -> None:
    """An audit run allocates millions of short-lived objects (facts, observations, messages): a
    young-generation collection every 20,000 allocations instead of 700 spends less time walking
    them (issue 21: about a tenth of a corpus run's CPU). The previous thresholds come back at the end."""
    import gc

    before = gc.get_threshold()
    gc.set_threshold(20_000, 20, 50)
    config.add_cleanup(lambda: gc.set_threshold(*before))


def pytest_report_header(config: pytest.Config) -> str | None:
    state = config.stash.get(SESSION_KEY, None)
    if state is None or not state.settings.enabled:
        return None
    run = state.settings.run
    return (f"auditflow: model {run.model} ({model_note(run)}){_route(run.model)}, config {run.config}, "
            f"record mode {run.record_mode}, cache {run.cache_dir}, data root {run.data_root or 'none'}"
            f"{_in_flight(state.settings.concurrency, run.model)}")


def _in_flight(n: int, model: str) -> str:
    """With ``--auditflow-concurrency`` above 1, how many cases are in flight and what the model does with
    them; nothing at 1 (the header stays as it was)."""
    if n <= 1:
        return ""
    provider = model.split(":", 1)[0].split("+", 1)[0].strip()
    if provider == "local":  # auditflow/llm/local.py: one llama.cpp server with 4 parallel slots
        return (f"; {n} cases in flight: the in-process model decodes up to 4 calls together (llama.cpp's parallel "
                "slots), more wait for a free slot")
    if provider == "hf":
        return f"; {n} cases in flight: a Transformers model answers one call at a time, so their tools overlap, not its calls"
    return f"; {n} cases in flight against the model"


def _route(model: str) -> str:
    """How the model's tool calls travel, from its provider's registry entry (auditflow.llm.specs); nothing
    for the policy or a model a conftest hook provides."""
    try:
        from auditflow.llm.specs import route_note

        return ", " + route_note(model)
    except Exception:  # noqa: BLE001 - not a spec the LLM layer knows
        return ""


def pytest_sessionfinish(session: pytest.Session) -> None:
    state = session.config.stash.get(SESSION_KEY, None)
    if state is not None:
        state.close()  # no case thread outlives the session (-x, or cases started ahead and not reported)


@pytest.hookimpl(tryfirst=True)  # before -k / -m: the subset is drawn from every collected case, as eval draws it
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    state = config.stash.get(SESSION_KEY, None)
    if state is not None and state.settings.enabled and state.settings.subset is not None:
        from pytest_auditflow.subset import deselect_outside_subset

        deselect_outside_subset(state, config, items)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> AuditCaseFile | None:
    state = parent.config.stash.get(SESSION_KEY, None)
    if state is not None and state.settings.enabled and is_case_file(file_path):
        return AuditCaseFile.from_parent(parent, path=file_path)
    return None
