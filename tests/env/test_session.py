"""An auditor's session: the queried fact as F1, role tool sets, required-tool gating, repeated
failures, a byte-identical transcript, and the time a whole protocol takes on a warm environment."""
from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import pytest

from auditflow.env.query import AuditQuery
from auditflow.env.session import REQUIRED, ROLE_TOOLS, AuditSession, tool_schemas
from auditflow.env.tools import CHECKS, DYNAMIC, STATIC
from auditflow.graphs.environment import build_environment

SAMPLE = Path(__file__).resolve().parents[2] / "auditflow" / "samples" / "acme-10k-2024" / "xml"
AR = AuditQuery("acme", "us-gaap:AccountsReceivableNetCurrent", "2024-12-31", rule_hint="0015", case_id="acme-ar")
REVENUE = AuditQuery("acme", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "2024-01-01..2024-12-31")
FORENSIC_PROTOCOL = [
    ("get_fact_history", {}),
    ("check_sign", {"fact": "F1"}),
    ("check_calc_tree", {}),
    ("check_dim_consistency", {"fact": "F1"}),
]


@pytest.fixture(scope="module")
def env():
    return build_environment(SAMPLE)


@pytest.fixture
def session(env, data_root):
    return AuditSession(env, AR, "forensic", data_root=data_root)


def test_roles_and_required_tools():
    assert ROLE_TOOLS["compliance"] == STATIC + CHECKS
    assert ROLE_TOOLS["forensic"] == ROLE_TOOLS["single"] == STATIC + DYNAMIC + CHECKS
    assert REQUIRED["compliance"] == ("check_sign", "check_calc_tree", "check_dim_consistency")
    assert REQUIRED["forensic"] == REQUIRED["single"] == REQUIRED["compliance"] + ("get_fact_history",)
    schemas = tool_schemas("compliance")
    assert [s["function"]["name"] for s in schemas] == list(ROLE_TOOLS["compliance"])
    assert all(s["type"] == "function" and s["function"]["parameters"]["additionalProperties"] is False for s in schemas)
    json.dumps(tool_schemas("single"))


def test_bad_roles_are_programming_errors(env):
    with pytest.raises(ValueError, match="unknown auditor role"):
        AuditSession(env, AR, "senior", data_root=None)
    with pytest.raises(ValueError, match="not tools of the compliance role"):
        AuditSession(env, AR, "compliance", data_root=None, required=("get_fact_history",))


def test_the_queried_fact_is_f1(session):
    opening = session.opening()
    assert opening["queried_fact"] == {"fact": "F1", "concept": "us-gaap:AccountsReceivableNetCurrent", "period": "2024-12-31",
                                       "dimensions": {}, "value": "-12500000", "unit": "USD", "decimals": -3}
    assert opening["still_required"] == list(REQUIRED["forensic"])
    assert session.fact_key("F1") == "f-bs-03"


def test_a_dimensional_query_resolves_its_member(env, data_root):
    q = AuditQuery("acme", REVENUE.concept, REVENUE.period, (("srt:ProductOrServiceAxis", "acme:GadgetsMember"),))
    s = AuditSession(env, q, "forensic", data_root=data_root)
    assert s.fact_key("F1") == "f-is-03"


def test_duplicates_resolve_to_the_first(env, data_root):
    s = AuditSession(env, AuditQuery("acme", "us-gaap:NetIncomeLoss", "2024-01-01..2024-12-31"), "forensic", data_root=data_root)
    assert s.fact_key("F1") == "f-is-17"


def test_a_query_without_a_fact_still_gives_a_working_session(env, data_root):
    s = AuditSession(env, AuditQuery("acme", "us-gaap:Assets", "2022-12-31"), "forensic", data_root=data_root)
    opening = s.opening()
    assert opening["queried_fact"] is None and "2022-12-31" in opening["note"]
    assert s.focus is None
    assert s.call("check_sign", {})["error"]["type"] == "bad_arguments"
    assert s.call("find_facts", {"concept": "us-gaap:Assets"})["count"] == 2


def test_every_observation_says_what_is_still_required(session):
    seen = []
    for tool, args in FORENSIC_PROTOCOL:
        obs = session.call(tool, args)
        assert "error" not in obs, obs
        seen.append(obs["still_required"])
    assert seen == [
        ["check_sign", "check_calc_tree", "check_dim_consistency"],
        ["check_calc_tree", "check_dim_consistency"],
        ["check_dim_consistency"],
        [],
    ]


def test_premature_final_is_refused_with_exactly_the_missing_tools(session):
    session.call("check_sign", {})
    refused = session.final({"decision": "violation"})
    assert refused == {"refused": True, "missing_tools": ["check_calc_tree", "check_dim_consistency", "get_fact_history"],
                       "still_required": ["check_calc_tree", "check_dim_consistency", "get_fact_history"],
                       "message": "final report refused: run check_calc_tree, check_dim_consistency, get_fact_history first"}
    for tool, args in FORENSIC_PROTOCOL:
        session.call(tool, args)
    assert session.final({"decision": "violation"}) == {"accepted": True, "still_required": []}
    assert session.counters == {"tool_calls": 5, "tool_errors": 0, "refused_finals": 1, "accepted_finals": 1}
    assert session.report == {"decision": "violation"}
    assert [t["tool"] for t in session.transcript] == ["check_sign", "final_report"] + [t for t, _ in FORENSIC_PROTOCOL] + ["final_report"]
    assert [t["step"] for t in session.transcript] == list(range(1, 8))


def test_an_erroring_check_does_not_count(session):
    obs = session.call("check_sign", {"concept": "us-gaap:AccountsReceivable", "period": "2024-12-31"})
    assert obs["error"]["type"] == "unknown_concept"
    assert "check_sign" in obs["still_required"]
    assert session.final({})["missing_tools"][0] == "check_sign"


def test_compliance_auditor_cannot_search_facts(env, data_root):
    s = AuditSession(env, AR, "compliance", data_root=data_root)
    obs = s.call("find_facts", {"concept": "us-gaap:Assets"})
    assert obs["error"]["type"] == "tool_not_allowed"
    assert obs["error"]["close_matches"] == list(ROLE_TOOLS["compliance"])
    assert obs["still_required"] == list(REQUIRED["compliance"])
    assert s.call("no_such_tool", {})["error"]["type"] == "tool_not_allowed"
    for tool in REQUIRED["compliance"]:
        assert s.call(tool, {})["fact"] == "F1"
    assert s.final({"decision": "violation"})["accepted"] is True


def test_gating_can_be_disabled(env, data_root):
    s = AuditSession(env, AR, "forensic", data_root=data_root, required=())
    assert s.opening()["still_required"] == []
    assert s.final({"decision": "consistent"}) == {"accepted": True, "still_required": []}


def test_third_identical_failing_call_is_refused(session):
    bad = {"concept": "us-gaap:Asets", "period": "2024-12-31"}
    first, second, third = (session.call("check_calc_tree", bad) for _ in range(3))
    assert first["error"]["type"] == second["error"]["type"] == "unknown_concept"
    assert third["error"]["type"] == "repeated_failure"
    assert "check_calc_tree" in third["still_required"]
    assert session.call("check_calc_tree", {"concept": "us-gaap:Assets", "period": "2024-12-31"})["outcome"] == "violation"
    assert session.counters["tool_errors"] == 3


def test_final_report_must_be_an_object(session):
    assert session.final("violation")["error"]["type"] == "bad_arguments"


def _run(env, data_root) -> str:
    s = AuditSession(env, AR, "forensic", data_root=data_root)
    s.final({"decision": "violation"})
    for tool, args in FORENSIC_PROTOCOL + [("find_facts", {"concept": "us-gaap:AssetsCurrent"}),
                                           ("get_concept", {"concept": "Assets"}),
                                           ("check_calc_tree", {"concept": "us-gaap:Goodwill", "period": "2024-12-31"})]:
        s.call(tool, args)
    s.final({"decision": "violation", "expected": "12500000"})
    return json.dumps(s.transcript, sort_keys=True)


def test_same_calls_give_a_byte_identical_transcript(env, data_root):
    first = _run(env, data_root)
    assert _run(env, data_root) == first
    assert _run(build_environment(SAMPLE), data_root) == first  # a fresh environment too
    assert "f-bs-" not in first  # raw XBRL fact ids never reach the model


def test_the_whole_protocol_is_fast_on_a_warm_environment(env, data_root):
    _run(env, data_root)  # warm: rules run once per environment
    per_case, per_call = [], []
    for _ in range(20):
        t = time.perf_counter()
        s = AuditSession(env, AR, "forensic", data_root=data_root)
        s.opening()
        for tool, args in FORENSIC_PROTOCOL:
            s.call(tool, args)
        assert s.final({"decision": "violation"})["accepted"]
        per_case.append(time.perf_counter() - t)
        per_call.extend(s.timings)
    print(f"protocol per case: median {statistics.median(per_case) * 1000:.2f} ms; "
          f"per call: median {statistics.median(per_call) * 1000:.3f} ms, max {max(per_call) * 1000:.3f} ms")
    assert statistics.median(per_case) < 0.050
    assert statistics.median(per_call) < 0.005


def test_concurrent_cases_on_one_environment_agree(data_root, monkeypatch):
    """Up to 8 cases run at once on a shared environment: each rule still runs once, and every
    session sees the same observations."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import auditflow.env.check_select as check_select

    runs, lock, real_run = [], threading.Lock(), check_select.run_rules

    def counting(env, rules, *, data_root):
        with lock:
            runs.append(rules)
        time.sleep(0.01)  # widen the window in which a second thread could start the same rule
        return real_run(env, rules, data_root=data_root)

    monkeypatch.setattr(check_select, "run_rules", counting)
    fresh = build_environment(SAMPLE)
    with ThreadPoolExecutor(max_workers=8) as pool:
        transcripts = list(pool.map(lambda _: _run(fresh, data_root), range(8)))
    assert len(set(transcripts)) == 1
    assert sorted(runs) == [("0015",), ("0117",), ("0126",)]
