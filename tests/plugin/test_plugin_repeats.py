"""A gate that tells a regression from noise (issue 40, item 7): repeats, pass rates, the bootstrap gate.

The gate's tests use real labels: the `full` row of ``docs/hard/results.json`` on the stratified 60 of
``cases/hard`` (the cases of its ``subset=60`` rows) as the baseline, and candidates made from it by
flipping cases. The repeats test records the sample cases 3 times through the policy over HTTP
(``tests/llm/http_fakes.py``), then replays them with the server gone.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from auditflow.cases.results import baseline_gate

REPO = Path(__file__).resolve().parents[2]
HARD = REPO / "docs" / "hard" / "results.json"


def _baseline_60() -> dict[str, dict]:
    doc = json.loads(HARD.read_text(encoding="utf-8"))
    subset = next(rows for name, rows in doc["records"].items() if "subset=60" in name)
    keys = {r["key"] for r in subset}
    return {r["key"]: {"nodeid": r["key"], "label": r["label"], "passed": r["passed"]}
            for r in doc["records"]["full"] if r["key"] in keys}


def _flip(base: dict[str, dict], worse: int, better: int = 0) -> tuple[list[dict], list[str], list[str]]:
    rows = {k: dict(v) for k, v in base.items()}
    down = [k for k in sorted(rows) if rows[k]["label"] == "A"][:worse]
    up = [k for k in sorted(rows) if rows[k]["label"] != "A"][:better]
    for k in down:
        rows[k].update(label="E", passed=False)
    for k in up:
        rows[k].update(label="A", passed=True)
    return list(rows.values()), down, up


def test_the_gate_passes_the_baseline_against_itself() -> None:
    base = _baseline_60()
    assert len(base) == 60
    gate = baseline_gate(list(base.values()), base, 0.0, alpha=0.05)
    assert gate.ok and gate.regressed == ()
    assert "on 60 shared case(s), allowed drop 0.0%, paired bootstrap p = 1.0000 (alpha 0.05)" in gate.message


def test_the_gate_fails_a_candidate_worse_by_10_cases_of_60_and_lists_the_flips_both_ways() -> None:
    base = _baseline_60()
    rows, down, up = _flip(base, worse=10, better=1)
    gate = baseline_gate(rows, base, 0.05, alpha=0.05)
    assert not gate.ok
    p = float(gate.message.split("paired bootstrap p = ")[1].split()[0])
    assert p < 0.05
    assert set(gate.regressed) == set(down) and len(down) == 10
    regressed, improved = gate.message.split("; regressed: ")[1].split("; improved: ")
    assert all(f"{k} (A->E, passed->failed)" in regressed for k in down)
    assert f"{up[0]} ({base[up[0]]['label']}->A, " in improved  # x->A: listed too


def test_a_drop_the_bootstrap_calls_noise_passes_and_is_still_listed() -> None:
    base = _baseline_60()
    rows, down, _ = _flip(base, worse=2)
    gate = baseline_gate(rows, base, 0.0, alpha=0.05)  # 3.3 points below, beyond a max-drop of 0
    p = float(gate.message.split("paired bootstrap p = ")[1].split()[0])
    assert p >= 0.05 and gate.ok
    assert set(gate.regressed) == set(down)
    assert not baseline_gate(rows, base, 0.0, alpha=1.0).ok  # alpha 1: the drop alone decides


def test_repeats_count_by_their_a_rate() -> None:
    base = {k: {**v, "repeats": 3, "repeat_labels": "A,A,A" if v["label"] == "A" else "E,E,E"}
            for k, v in _baseline_60().items()}
    rows = [dict(r) for r in base.values()]
    flaky = [r for r in rows if r["label"] == "A"][:12]
    for r in flaky:  # each of these cases now fails one run in three
        r["repeat_labels"] = "A,E,A"
    gate = baseline_gate(rows, base, 0.0, alpha=0.05)
    assert {r["nodeid"] for r in flaky} == set(gate.regressed)
    assert "3/3 A->2/3 A" in gate.message


def test_repeats_are_recorded_apart_and_replay_with_pass_rates(data_root: Path, tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "tests" / "llm"))
    pytest.importorskip("langchain_openai")
    from http_fakes import FakeAPI
    from test_http_protocol import policy_reply

    cache = tmp_path / "cache"

    def run(spec: str, mode: str, out: str, *extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "--auditflow", "cases/acme-sample.case.yaml", "-p", "no:cacheprovider",
             "-p", "no:xdist", f"--auditflow-model={spec}", f"--auditflow-record-mode={mode}",
             f"--auditflow-cache-dir={cache}", f"--auditflow-json={tmp_path / out}", f"--auditflow-data-root={data_root}",
             *extra], cwd=REPO, capture_output=True, text=True, timeout=600)

    with FakeAPI(policy_reply) as api:
        spec = f"openai-compatible:{api.url}/v1#policy-over-http"
        single = run(spec, "once", "one.json")
        assert single.returncode == 0, single.stdout[-3000:]
        calls_once = sum(s.path == "/v1/chat/completions" for s in api.seen)
        recorded = run(spec, "once", "rec.json", "--auditflow-repeats=3")
    assert recorded.returncode == 0, recorded.stdout[-3000:]
    # repeat 0 was recorded already (the same keys as a plain run): only repeats 1 and 2 called the model
    assert sum(s.path == "/v1/chat/completions" for s in api.seen) == 3 * calls_once
    replayed = run(spec, "none", "rep.json", "--auditflow-repeats=3")
    assert replayed.returncode == 0, replayed.stdout[-3000:]
    doc = json.loads((tmp_path / "rep.json").read_text())
    assert doc["cache"]["misses"] == 0 and doc["cache"]["writes"] == 0
    assert [(c["repeats"], c["repeat_labels"], c["pass_rate"], c["pass_all"]) for c in doc["cases"]] == \
        [(3, "A,A,A", 1.0, True)] * 5
    assert "repeats 3: pass rate 100.0% (mean per case), pass^3 100.0% (5/5 case(s) passed all 3 runs)" in \
        " ".join(replayed.stdout.split())
    plain = json.loads((tmp_path / "one.json").read_text())["cases"]
    assert all("repeats" not in c and "pass_rate" not in c for c in plain)  # K = 1: rows as before
