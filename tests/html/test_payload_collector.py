"""The eval HTML collector keeps one payload per row: rows that share a model and a protocol
(``full`` and ``full+shuffle=1``) must not show each other's evidence."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

from auditflow.cases.settings import RunSettings
from auditflow.html import payload as payload_module
from auditflow.html.payload import PayloadCollector


def test_rows_with_the_same_model_and_protocol_keep_their_own_payloads(monkeypatch) -> None:
    monkeypatch.setattr(payload_module, "case_payload",
                        lambda case, outcome: {"seen_with": outcome, "mismatches": []})
    collector = PayloadCollector(run=lambda case, settings: f"shuffle={settings.shuffle}")
    case = SimpleNamespace(file=Path("cases/a.case.yaml"), index=0)
    plain, shuffled = RunSettings(), replace(RunSettings(), shuffle=1)
    collector(case, plain)
    collector(case, shuffled)
    assert collector.get(plain, case)["seen_with"] == "shuffle=None"
    assert collector.get(shuffled, case)["seen_with"] == "shuffle=1"
    assert collector.get(replace(RunSettings(), shuffle=2), case) is None
