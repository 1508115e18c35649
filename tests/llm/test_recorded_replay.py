"""The committed recordings of the real local model replay exactly, with no model at all.

``cases/llm-cache/`` holds every call the Qwen2.5-Coder-1.5B model made while auditing the cases in
``cases/*.case.yaml`` (and whatever else was recorded there), and ``cases/llm-recordings.json`` is
the plugin's results file of those recording runs: per case, the model, the configuration and the
sha256 of the ``AuditResult`` canonical JSON. Replaying from the cache must:

* make zero model calls (the provider model is replaced by one that fails the test when called, and
  the cache reports no miss and no write);
* give byte-identical ``AuditResult`` artifacts (the same digest as the recording run).

CI runs this without the ``local`` extra or the model installed: a replay needs neither.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from auditflow.cases.loader import load_case_file
from auditflow.cases.runner import run_case
from auditflow.cases.settings import RunSettings
from auditflow.llm import factory
from llm_fakes import explode

REPO = Path(__file__).resolve().parents[2]
RECORDINGS = REPO / "cases" / "llm-recordings.json"
CACHE = REPO / "cases" / "llm-cache"


def _recorded() -> list[dict]:
    if not RECORDINGS.is_file():
        return []
    rows = json.loads(RECORDINGS.read_text(encoding="utf-8"))["cases"]
    return [r for r in rows if r.get("model", "policy") != "policy" and r.get("result_sha256")]


RECORDED = _recorded()


def test_the_recordings_exist_and_are_the_local_model():
    assert RECORDED, f"{RECORDINGS} lists no recorded case: record with --auditflow-model local:qwen2.5-coder-1.5b"
    assert {r["model"] for r in RECORDED} == {"local:qwen2.5-coder-1.5b"}
    assert CACHE.is_dir() and any(CACHE.glob("??/*.json"))


@pytest.mark.parametrize("row", RECORDED, ids=lambda r: f"{r['config']}::{r['case_id']}")
def test_a_recorded_case_replays_byte_identical_with_zero_model_calls(row, data_root, monkeypatch):
    monkeypatch.setattr(factory, "inner_model", lambda spec: explode())  # building it fails the test
    case = next(c for c in load_case_file(REPO / row["file"]) if c.id == row["case_id"])
    settings = RunSettings(model=row["model"], config=row["config"], record_mode="none", cache_dir=CACHE,
                           data_root=data_root)
    outcome = run_case(case, settings)
    assert outcome.error is None, outcome.error
    assert outcome.cache["misses"] == 0 and outcome.cache["writes"] == 0 and outcome.cache["hits"] > 0
    digest = hashlib.sha256(outcome.result.canonical_json().encode()).hexdigest()
    assert digest == row["result_sha256"], "the replayed AuditResult differs from the recording run's"
    assert (outcome.judgement.label, outcome.result.decision) == (row["label"], row["decision"])
