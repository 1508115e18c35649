"""Run one audit case end to end: sessions, the protocol graph, the authoritative checker, fusion.

This is the single entry point the CLI, the pytest plugin and the evaluation use. It returns an
:class:`AuditResult` whose canonical JSON is byte-identical for the same inputs and model outputs.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Callable

from langchain_core.messages import HumanMessage, SystemMessage

from auditflow.agents.configs import ProtocolConfig, get_config
from auditflow.agents.fusion import TotalConflictError, fuse_reports
from auditflow.agents.junior import JuniorTurn
from auditflow.agents.policy import DeterministicPolicy
from auditflow.agents.prompts import FINAL_REPORT, final_report_tool
from auditflow.agents.protocol import RunContext, compiled_graph
from auditflow.agents.reports import (
    JUNIOR_REPORT_SCHEMA, AgentTranscript, AuditResult, InvalidReportError, TranscriptStep, fusion_input, normalise_number,
    parse_junior_report,
)
from auditflow.agents.senior import grounded
from auditflow.env.check_tools import verdict_of
from auditflow.env.query import AuditQuery
from auditflow.env.session import AuditSession
from auditflow.env.tools import CHECKS as CHECK_TOOLS
from auditflow.graphs.environment import AuditEnvironment

ModelFactory = Callable[[str], object]  # role -> langchain chat model


def policy_models(role: str) -> DeterministicPolicy:
    return DeterministicPolicy(role=role)


def _session(env, query, role, cfg: ProtocolConfig, data_root) -> AuditSession:
    s = AuditSession(env, query, role, data_root=data_root, required=None if cfg.gating else ())
    if not cfg.checks:
        s.allowed = tuple(t for t in s.allowed if t not in CHECK_TOOLS)
        s.required = tuple(t for t in s.required if t not in CHECK_TOOLS)
    if s.focus is None:  # no tool can run on a fact that is not there: gating would refuse every report
        s.required = ()
    return s


def checker_verdict(env, query, data_root) -> tuple[str | None, dict]:
    """The deterministic checkers' verdict on the queried fact: authoritative in fusion."""
    s = AuditSession(env, query, "single", data_root=data_root, required=())
    if s.focus is None:
        return None, {}
    outs = {t: s.call(t, {"fact": "F1"}) for t in CHECK_TOOLS}
    return verdict_of(outs.values()), outs


def run_audit(env: AuditEnvironment, query: AuditQuery, *, config: str | ProtocolConfig = "full",
              models: ModelFactory = policy_models, data_root: Path | None = None) -> AuditResult:
    t0 = time.perf_counter()
    cfg = get_config(config) if isinstance(config, str) else config
    if cfg.direct:
        turns = {"direct": [_direct_turn(env, query, models("direct"), data_root)]}
        rounds, reviews, found = 1, [], {}
    else:
        sessions = {r: _session(env, query, r, cfg, data_root) for r in cfg.roles}
        ctx = RunContext(sessions=sessions, models={r: models(r) for r in cfg.roles}, config=cfg, rule_hint=query.rule_hint)
        state = compiled_graph(tuple(cfg.roles)).invoke(
            {"round": 1, "reports": {}, "turns": {}, "reviews": []},
            config={"configurable": {"auditflow": ctx}, "recursion_limit": 12 * (cfg.max_rounds + 1)},
        )
        turns, rounds, reviews = state["turns"], state.get("round", 1), state.get("reviews", [])
        found = ctx.workpapers()
    t1 = time.perf_counter()
    verdict, outs = checker_verdict(env, query, data_root) if cfg.checks else (None, {})
    result = _assemble(query, cfg, turns, rounds, reviews, (verdict, outs), found)
    return _with_timings(result, {"protocol_s": t1 - t0, "total_s": time.perf_counter() - t0})


def _with_timings(result: AuditResult, timings: dict) -> AuditResult:
    from dataclasses import replace

    return replace(result, timings=timings)


def _assemble(query, cfg: ProtocolConfig, turns: dict, rounds: int, reviews, checker: tuple,
              found: dict) -> AuditResult:
    finals = {r: ts[-1].report for r, ts in sorted(turns.items())}
    valid = {r: rep for r, rep in finals.items() if rep is not None}
    transcripts = tuple(AgentTranscript.from_rounds(r, [t.steps for t in ts]) for r, ts in sorted(turns.items()))
    invalid = any(t.invalid_outputs for ts in turns.values() for t in ts)
    tools_run = {t.role: t.tools_run for t in transcripts}
    decision, chosen, fusion, conflict = _decide(cfg, valid, tools_run, *checker, found=found)
    return AuditResult(
        query=query.to_json(), config=cfg.name, decision=decision,
        triggered_rules=chosen.triggered_rules if chosen else (),
        reported_value=chosen.reported_value if chosen else None,
        expected_value=chosen.expected_value if chosen else None,
        evidence_path=chosen.evidence_path if chosen else (),
        credibility=fusion.credibility if fusion else (chosen.confidence if chosen else 0.0),
        conflict=conflict,
        bel=fusion.bel if fusion else 0.0, pl=fusion.pl if fusion else 1.0, betp=fusion.betp if fusion else 0.0,
        rounds=rounds, reports=tuple(valid.values()), reviews=tuple(reviews), transcripts=transcripts,
        invalid_output=invalid, structural_failure=not valid, fusion=fusion,
    )


def _decide(cfg: ProtocolConfig, valid: dict, tools_run: dict, verdict: str | None, outs: dict, *,
            found: dict) -> tuple:
    """(decision, the report whose values are shown, fusion result, conflict K).

    ``found``: role -> the :class:`~auditflow.agents.senior.Workpapers` of its own checker runs (None
    or absent: not every checker ran, nothing to hold the report to). The Senior sends an ungrounded
    report back; if it is still ungrounded when the rounds run out, fusion discounts it.
    """
    if not valid:
        return "unable_to_verify", None, None, 0.0
    if not cfg.fusion:  # the Senior picks one report: the most confident, the first role on a tie
        chosen = max(valid.values(), key=lambda rep: rep.confidence)
        return chosen.decision, chosen, None, 0.0
    required = CHECK_TOOLS if cfg.checks else ()
    inputs = [fusion_input(rep, required_tools=required, tools_run=tools_run[r], grounded=grounded(rep, found.get(r)))
              for r, rep in valid.items()]
    try:
        fusion = fuse_reports(inputs, verdict if cfg.checks else None)
    except TotalConflictError:  # K = 1 (possible without checks): nothing to fuse, escalate
        return "unable_to_verify", None, None, 1.0
    agreeing = [rep for rep in valid.values() if rep.decision == fusion.decision]
    chosen = max(agreeing, key=lambda rep: (_matches_checker(rep, verdict, outs), rep.confidence)) if agreeing else None
    return fusion.decision, chosen, fusion, fusion.conflict


def _matches_checker(report, verdict: str | None, outs: dict) -> bool:
    """Whether a report carries the checkers' own rules and expected value: among reports with the
    fused decision, one that copies the authoritative checker wins over a more confident one that does not."""
    if verdict is None or report.decision != verdict:
        return False
    fired = [o for o in outs.values() if o.get("outcome") == "violation"]
    if verdict != "violation":
        return not report.triggered_rules and report.expected_value == report.reported_value
    expected = {normalise_number(o.get("expected")) for o in fired}
    return set(report.triggered_rules) == {o["code"] for o in fired if o.get("code")} and report.expected_value in expected


def _direct_turn(env, query: AuditQuery, model, data_root) -> JuniorTurn:
    """Direct LLM: the relevant filing excerpt in the prompt, one answer, no tools to look anything up.

    The answer is asked for as a call of the one tool final_report, so every provider returns it the
    same way and a constrained local model writes the report's schema instead of free prose.
    """
    s = AuditSession(env, query, "single", data_root=data_root, required=())
    payload = {"task": ("Audit the queried fact from the excerpt: is it consistent with the DQC rules 0015 (sign), "
                        "0126 (calculation) and 0117 (members)? Answer with final_report."),
               "queried_fact": s.opening().get("queried_fact"), "excerpt": _excerpt(s)}
    turn = JuniorTurn()
    if isinstance(model, DeterministicPolicy):
        text = model.direct_answer(payload)
    else:
        bound = model.bind_tools([final_report_tool(JUNIOR_REPORT_SCHEMA)])
        msg = bound.invoke([SystemMessage("You are an XBRL auditor."), HumanMessage(json.dumps(payload, sort_keys=True))])
        calls = [c for c in getattr(msg, "tool_calls", None) or [] if c.get("name") == FINAL_REPORT]
        text = json.dumps(calls[0].get("args") or {}, sort_keys=True) if calls else str(msg.content)
    try:
        turn.report = parse_junior_report(json.loads(text), "direct")
        turn.steps.append(TranscriptStep("final_report", content=text))
    except (ValueError, InvalidReportError) as exc:
        turn.invalid_outputs = 1
        turn.structural_failure = True
        turn.steps.append(TranscriptStep("invalid_output", content=f"{exc}: {text[:500]}"))
    return turn


def _excerpt(s: AuditSession) -> dict:
    """What a reader of the statement would see around the fact: its history, calc neighbours, members."""
    if s.focus is None:
        return {}
    out = {"history": s.call("get_fact_history", {"fact": "F1"})}
    concept = s.opening()["queried_fact"]["concept"]
    out["calculation_children"] = s.call("get_calc_children", {"concept": concept})
    for k in out.values():
        k.pop("still_required", None)
    return out
