"""``auditflow check --list-rules`` (id, title, version, forms, needs, level, whether it runs here) and a
rule registered with a ``cannot_run`` reason: listed with it, never run, reported as not run everywhere."""
from __future__ import annotations

import csv
import json

import pytest

from auditflow.cli.main import main
from auditflow.graphs.factory import SAMPLE
from auditflow.rules import registry
from auditflow.rules.registry import FORM_LOOKUP_2026, Need, RuleSpec

UNRUNNABLE = "9901"
REASON = "needs the US-GAAP element schema (balance types)"


def _never_called(env, resources):
    raise AssertionError("a rule with a cannot_run reason must not be run")


@pytest.fixture
def unrunnable(monkeypatch) -> RuleSpec:
    """A registered rule that cannot run on our material (registered for this test only)."""
    registry.rules()  # discover the real rules first, so the fake one is added to the full registry
    spec = RuleSpec(id=UNRUNNABLE, title="Balance types of standard concepts",
                    messages={f"DQC.US.{UNRUNNABLE}.1": "{concept} has the wrong balance"},
                    needs=frozenset({Need.ELEMENT_PROPS, Need.FACTS}), run=_never_called, cannot_run=REASON,
                    level=registry.Level.WARNING)
    monkeypatch.setitem(registry._REGISTRY, UNRUNNABLE, spec)
    return spec


def listed(capsys, *args: str) -> list[dict]:
    assert main(["check", "--list-rules", "--format", "json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_lists_every_rule_with_version_forms_needs_level_and_whether_it_runs(capsys, data_root):
    rows = listed(capsys, "--data-root", str(data_root))
    assert [r["rule"] for r in rows] == [s.name for s in registry.rules().values()]
    with (data_root / FORM_LOOKUP_2026).open(newline="", encoding="utf-8") as fh:
        table = {row["RuleNumber"].strip(): row["ApplicableForms"] for row in csv.DictReader(fh)}
    for row in rows:
        spec = registry.get(row["rule"])
        assert row["title"] == spec.title and row["version"] == spec.version_text
        assert row["needs"] == sorted(n.value for n in spec.needs) and row["level"] == spec.level.value
        assert row["runs"] is (not spec.cannot_run) and row["not_run"] == (spec.cannot_run or None)
        if spec.form_lookup == FORM_LOOKUP_2026:  # the forms are the rule's row, or every form without one
            want = sorted({f.strip() for f in table[spec.id].split(",")}) if spec.id in table else "every form"
            assert row["forms"] == want, row["rule"]
    assert next(r for r in rows if r["rule"] == "DQC.US.0004")["forms"][:2] == ["10-K", "10-K/A"]
    assert next(r for r in rows if r["rule"] == "DQC.US.0015")["version"] == registry.get("0015").version_text


def test_without_a_data_root_the_forms_are_unknown_and_rules_that_need_it_do_not_run(capsys, monkeypatch, tmp_path):
    from auditflow import dataroot

    monkeypatch.delenv("AUDITFLOW_DATA_ROOT", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(dataroot, "repo_data_root", lambda: tmp_path / "none")
    monkeypatch.setattr(dataroot, "user_cache_data_root", lambda: tmp_path / "none")
    rows = {r["rule"]: r for r in listed(capsys)}
    assert rows["DQC.US.0004"]["runs"] is False and "data root" in rows["DQC.US.0004"]["not_run"]
    assert rows["DQC.US.0126"]["runs"] is True  # 0126 runs without one (its entry says so)
    assert all(isinstance(r["forms"], str) and r["forms"].startswith("unknown") for r in rows.values())


def test_the_table_shows_the_same_columns(capsys, data_root):
    assert main(["check", "--list-rules", "--data-root", str(data_root), "--rules", "4,15"]) == 0
    out = capsys.readouterr().out
    for text in ("version", "forms", "level", "runs here", "DQC.US.0004", "DQC.US.0015", "DQC 29.0.0RC2", "forms)"):
        assert text in out, text


def test_an_unrunnable_rule_is_listed_with_its_reason(capsys, data_root, unrunnable):
    row = next(r for r in listed(capsys, "--data-root", str(data_root)) if r["rule"] == unrunnable.name)
    assert (row["runs"], row["not_run"], row["level"], row["forms"]) == (False, REASON, "warning", "every form")
    assert main(["check", "--list-rules", "--data-root", str(data_root), "--rules", UNRUNNABLE]) == 0
    assert "no: needs the US-GAAP element schema" in " ".join(capsys.readouterr().out.split())


def test_an_unrunnable_rule_is_reported_as_not_run_and_never_called(capsys, data_root, unrunnable):
    base = ["check", str(SAMPLE), "--data-root", str(data_root), "--no-taxonomy", "--exit-zero", "--rules", "all"]
    assert main([*base, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)["filings"][0]
    assert doc["not_run"][UNRUNNABLE] == REASON
    assert set(doc["not_run"]) == {r for r, s in registry.rules().items() if s.cannot_run}
    assert doc["checked"][UNRUNNABLE] == 0 and doc["not_applicable"][UNRUNNABLE] == 1
    assert main([*base, "--format", "log"]) == 0
    lines = [x for x in capsys.readouterr().out.splitlines() if f"[{unrunnable.name}]" in x]
    assert lines == [f"[WARNING] [{unrunnable.name}] not run: {REASON} (rule version: DQC 29.0.0RC2) - acme-10k-2024"]
    assert main(base) == 0
    table = " ".join(capsys.readouterr().out.split())
    assert f"{unrunnable.name} not run: {REASON}" in table
