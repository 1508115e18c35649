"""Run one audit case end to end: sessions, the protocol graph, fusion of what the auditors found.

This is the single entry point the CLI, the pytest plugin and the evaluation use. It returns an
:class:`AuditResult` whose canonical JSON is byte-identical for the same inputs and model outputs.

No checker runs here on the harness's own behalf (docs/protocol.md): the checkers' authority reaches
fusion only through the checker observations in the auditors' own transcripts, for the fact each
auditor audited. An auditor that never ran a checker gives fusion nothing authoritative.
"""
from __future__ import annotations

import time
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Callable

from auditflow.agents.arbitration import arbitrate, kept_roles, standing_dispute
from auditflow.agents.configs import ProtocolConfig, get_config
from auditflow.agents.direct import answer_once
from auditflow.agents.fusion import TotalConflictError, fuse_reports
from auditflow.agents.junior import JuniorTurn
from auditflow.agents.policy import DeterministicPolicy
from auditflow.agents.profile import PromptProfile, load_profile
from auditflow.agents.protocol import RunContext, compiled_graph
from auditflow.agents.reports import AgentTranscript, AuditResult, EvidenceStep, fusion_input
from auditflow.contract import InvalidReportError, normalise_number
from auditflow.agents.senior import describe_fact, grounded
from auditflow.env.query import AuditQuery, QueryError
from auditflow.env.session import AuditSession
from auditflow.env.tool_base import ToolContext, ToolError
from auditflow.env.tools import CHECKS as CHECK_TOOLS
from auditflow.graphs.environment import AuditEnvironment

ModelFactory = Callable[[str], object]  # role -> langchain chat model


def policy_models(role: str) -> DeterministicPolicy:
    return DeterministicPolicy(role=role)


def _session(env, query, role, cfg: ProtocolConfig, data_root, shuffle: int | None, tools: int = 1) -> AuditSession:
    s = AuditSession(env, query, role, data_root=data_root, required=None if cfg.gating else (), shuffle=shuffle,
                     tools=tools)
    if not cfg.checks:
        s.allowed = tuple(t for t in s.allowed if t not in CHECK_TOOLS)
        s.required = tuple(t for t in s.required if t not in CHECK_TOOLS)
    if s.focus is None and not s.searching:  # nothing to find and no fact: gating would refuse every report
        s.required = ()
    return s


def check_query(env: AuditEnvironment, query: AuditQuery, *, allow_missing: bool = False) -> None:
    """Refuse, with close matches, a structured or FinMR query whose concept, period or dimensions the
    filing does not have: a typo must be an input error, never a silent unable_to_verify. A FinMR
    question whose fact is missing or ambiguous is left to the auditors; ``allow_missing`` (a case that
    expects "not found") lets a structured query name a fact that is not there."""
    if query.form == "text":
        return
    ctx = ToolContext(env)
    from auditflow.env.names import resolve_concept, resolve_dimensions, resolve_period

    try:
        concept = resolve_concept(ctx, query.concept)
        period = resolve_period(ctx, query.period, concept=concept)
        dims = resolve_dimensions(ctx, dict(query.dimensions))
    except ToolError as exc:
        if allow_missing:
            return
        near = f"; close matches: {', '.join(exc.close_matches)}" if exc.close_matches else ""
        raise QueryError(f"query {query.concept} @ {query.period}: {exc.message}{near}") from None
    if query.form == "structured" and not allow_missing and not env.facts(concept, period=period, dimensions=dims):
        from auditflow.env.names import dims_json

        others = sorted({str(ctx.env.filing.contexts[f.context_id].period) + "".join(
            f" [{a}={m}]" for a, m in dims_json(ctx, ctx.env.filing.contexts[f.context_id].dimensions).items())
            for f in env.facts(concept)})
        near = f"; it is reported for: {', '.join(others[:5])}" if others else ""
        raise QueryError(f"the filing has no fact of {query.concept} for {query.period} with "
                         f"{dict(query.dimensions) or 'no dimensions'}{near}")


def run_audit(env: AuditEnvironment, query: AuditQuery, *, config: str | ProtocolConfig = "full",
              models: ModelFactory = policy_models, data_root: Path | None = None,
              profile: PromptProfile | str | None = None, shuffle: int | None = None,
              allow_missing: bool = False) -> AuditResult:
    """Audit ``query`` on ``env``. ``profile``: the prompt profile (a built-in name, a path, or one
    already loaded; default ``guided``). ``shuffle``: a seed that permutes every list the tools show."""
    t0 = time.perf_counter()
    cfg = get_config(config) if isinstance(config, str) else config
    prof = profile if isinstance(profile, PromptProfile) else load_profile(profile)
    check_query(env, query, allow_missing=allow_missing)
    if cfg.direct:
        turns = {"direct": [_direct_turn(env, query, models("direct"), data_root, prof)]}
        rounds, reviews, found, audited, worked = 1, [], {}, {}, {}
        handles: dict[str, dict] = {}
        arbitration = None
    elif cfg.baseline:  # docs/baselines.md: the model's report is the audit, no checker, no Senior
        from auditflow.agents.baselines import run_baseline

        run = run_baseline(cfg.baseline, env, query, model=models(cfg.baseline), data_root=data_root, profile=prof,
                           shuffle=shuffle)
        turns, rounds, reviews, found, audited = {run.role: [run.turn]}, 1, [], {}, {}
        worked = {run.role: run.fact} if run.fact else {}
        handles, arbitration = {run.role: run.handles}, None
    else:
        sessions = {r: _session(env, query, r, cfg, data_root, shuffle, prof.tools) for r in cfg.roles}
        ctx = RunContext(sessions=sessions, models={r: models(r) for r in cfg.roles}, config=cfg,
                         rule_hint=query.rule_hint, profile=prof)
        state = compiled_graph(tuple(cfg.roles)).invoke(
            {"round": 1, "reports": {}, "turns": {}, "reviews": []},
            config={"configurable": {"auditflow": ctx}, "recursion_limit": 12 * (cfg.max_rounds + 1)},
        )
        turns, rounds, reviews = state["turns"], state.get("round", 1), state.get("reviews", [])
        found = ctx.workpapers()
        audited = {r: s.checked_fact() for r, s in sessions.items()}
        # without checkers nothing is examined: a report is about the fact its author was handed or chose
        worked = {} if cfg.checks else {r: s.worked_fact() for r, s in sessions.items()}
        handles = {r: _fact_names(s) for r, s in sessions.items()}
        arbitration = _arbitration(cfg, prof, query, sessions, audited, reviews, models)
    result = _assemble(query, cfg, turns, rounds, reviews, found, audited, handles, worked,
                       chosen_key=arbitration[1] if arbitration else None)
    result = replace(result, profile=prof.stamp(), shuffle=shuffle, arbitration=arbitration[0] if arbitration else None)
    elapsed = time.perf_counter() - t0  # no checker runs after the protocol any more: the two are one span
    return replace(result, timings={"protocol_s": elapsed, "total_s": elapsed})


def _arbitration(cfg: ProtocolConfig, profile: PromptProfile, query: AuditQuery, sessions: dict, audited: dict,
                 reviews, models: ModelFactory):
    """The Senior's choice when the rounds ran out on two auditors that examined different facts for a
    question (:mod:`auditflow.agents.arbitration`): (the record, the chosen fact's key), or None when
    there is no such dispute or nothing to ask."""
    if not cfg.senior or not query.question:
        return None
    keys = standing_dispute(reviews, audited)
    if keys is None:
        return None
    return arbitrate(models("senior"), sessions, audited, keys, query.question, profile)


def _fact_names(session: AuditSession) -> dict[str, dict]:
    """Handle -> the fact as a reader names it (concept, period, dimensions, value), for this session."""
    return {handle: session.fact_name(key) for handle, key in session.handles().items()}


def authority(found: dict, audited: dict) -> str | None:
    """The checkers' verdict as the auditors' own transcripts give it, or None.

    Only auditors that ran every checker on the fact they audited count. When they all audited the
    same fact and their checkers agree, that is the authoritative verdict; when they audited different
    facts (or, impossibly, disagree on one), no verdict is authoritative and fusion weighs the reports.
    """
    papers = {r: p for r, p in found.items() if p is not None and audited.get(r)}
    keys = {audited[r]["key"] for r in papers}
    decisions = {p.decision for p in papers.values()}
    return decisions.pop() if len(keys) == 1 and len(decisions) == 1 else None


def _assemble(query, cfg: ProtocolConfig, turns: dict, rounds: int, reviews, found: dict, audited: dict,
              handles: dict, worked: dict, *, chosen_key: str | None = None) -> AuditResult:
    """``chosen_key``: the fact the Senior chose between two in dispute; only the reports (and checker
    results) of the auditors that examined it decide the audit. ``worked``: in a configuration without
    checkers, the fact each auditor's report is about (``AuditSession.worked_fact``); empty otherwise."""
    finals = {r: ts[-1].report for r, ts in sorted(turns.items())}
    valid = {r: rep for r, rep in finals.items() if rep is not None}
    if chosen_key is not None:
        kept = kept_roles(audited, chosen_key)
        valid = {r: rep for r, rep in valid.items() if r in kept}
        found = {r: p for r, p in found.items() if r in kept}
        audited = {r: f for r, f in audited.items() if r in kept}
    transcripts = tuple(AgentTranscript.from_rounds(r, [t.steps for t in ts]) for r, ts in sorted(turns.items()))
    invalid = any(t.invalid_outputs for ts in turns.values() for t in ts)
    tools_run = {t.role: t.tools_run for t in transcripts}
    verdict = authority(found, audited) if cfg.checks else None
    if verdict == "unable_to_verify":  # no checker applied: nothing definite to pin the decision to
        verdict = None
    decision, chosen, fusion, conflict = _decide(cfg, valid, tools_run, verdict, found=found)
    values = _values_of(decision, chosen, found, audited)
    fact = audited.get(chosen.role) if chosen is not None else None
    if fact is None and values is not None:
        fact = values[3]
    if fact is None and chosen is not None:
        fact = worked.get(chosen.role)
    rules, reported, expected = values[:3] if values else (
        (chosen.triggered_rules, chosen.reported_value, chosen.expected_value) if chosen else ((), None, None))
    return AuditResult(
        query=query.to_json(), config=cfg.name, decision=decision, triggered_rules=rules,
        reported_value=reported, expected_value=expected,
        evidence_path=_named_path(chosen.evidence_path, handles.get(chosen.role, {})) if chosen else (),
        credibility=fusion.credibility if fusion else (chosen.confidence if chosen else 0.0),
        conflict=conflict,
        bel=fusion.bel if fusion else 0.0, pl=fusion.pl if fusion else 1.0, betp=fusion.betp if fusion else 0.0,
        rounds=rounds, reports=tuple(valid.values()), reviews=tuple(reviews), transcripts=transcripts,
        invalid_output=invalid, structural_failure=not valid, fusion=fusion,
        fact={k: v for k, v in fact.items() if k != "key"} if fact else None,
    )


def _values_of(decision: str, chosen, found: dict, audited: dict) -> tuple | None:
    """(rules, reported, expected, fact) from the checker observations of an auditor whose own checkers
    gave ``decision`` on the fact it audited (the chosen report's author first): the final result's
    codes and values come from the environment, never from a report that contradicts it. None when no
    auditor's checkers back the decision (no checkers, or none ran)."""
    order = ([chosen.role] if chosen is not None else []) + sorted(found)
    for role in order:
        papers, fact = found.get(role), audited.get(role)
        if papers is None or fact is None or papers.decision != decision:
            continue
        if decision == "violation":
            first = sorted(papers.violations, key=lambda o: str(o.get("code")))[0]
            return (tuple(sorted(papers.codes)), normalise_number(first.get("reported")),
                    normalise_number(first.get("expected")), fact)
        value = _fact_number(fact)
        return (), value, (value if decision == "consistent" else None), fact
    return None


def _fact_number(fact: dict) -> Decimal | None:
    """The audited fact's value as a number, or None when it has none: searching by words, an auditor may
    choose a text block (a note titled like the line item it was asked about). The audit still names the
    fact it examined and is judged like any other; the note's markup is not a report's malformed number,
    so it must not end the audit as invalid input."""
    try:
        return normalise_number(fact.get("value"))
    except InvalidReportError:
        return None


def _named_path(path, names: dict) -> tuple[EvidenceStep, ...]:
    """The evidence path with every fact handle replaced by the fact as a reader names it (concept,
    period, dimensions, value): handles are per session, and a reader, a report or a diff must be able
    to follow the path."""
    def name(h):
        return describe_fact(names[h]) if isinstance(h, str) and h in names else h

    out = []
    for step in path:
        args = {k: name(v) if k == "fact" else v for k, v in step.arguments.items()}
        out.append(EvidenceStep(step.tool, args, step.summary, tuple(name(h) for h in step.facts)))
    return tuple(out)


def _decide(cfg: ProtocolConfig, valid: dict, tools_run: dict, verdict: str | None, *, found: dict) -> tuple:
    """(decision, the report whose values are shown, fusion result, conflict K).

    ``verdict``: the checkers' outcome as the auditors' own transcripts give it (:func:`authority`),
    or None. ``found``: role -> the :class:`~auditflow.agents.senior.Workpapers` of its own checker
    runs (None or absent: not every checker ran on its fact, nothing to hold the report to). The Senior
    sends an ungrounded report back; if it is still ungrounded when the rounds run out, fusion
    discounts it.
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
    chosen = max(agreeing, key=lambda rep: (grounded(rep, found.get(rep.role)) and found.get(rep.role) is not None,
                                            rep.confidence)) if agreeing else None
    return fusion.decision, chosen, fusion, fusion.conflict


def _direct_turn(env, query: AuditQuery, model, data_root, profile: PromptProfile) -> JuniorTurn:
    """Direct LLM: the relevant filing excerpt in the prompt, one answer, no tools to look anything up.

    The answer is asked for as a call of the one tool final_report, so every provider returns it the
    same way and a constrained local model writes the report's schema instead of free prose.
    """
    s = AuditSession(env, query, "single", data_root=data_root, required=(), tools=profile.tools)
    opening = s.opening()
    payload = {"task": profile.direct_task, "queried_fact": opening.get("queried_fact"), "excerpt": _excerpt(s)}
    if opening.get("question"):
        payload["question"] = opening["question"]
    return answer_once(model, system=profile.direct_system, payload=payload, role="direct", profile=profile)


EXCERPT_CONCEPTS = 3


def _excerpt(s: AuditSession) -> dict:
    """What a reader of the statement would see around the fact: its history, calc neighbours, members.
    For a question nothing resolved, the statement lines its words point to: the facts of the concepts a
    search for the question finds (a baseline without tools still gets the page it would read)."""
    if s.focus is None and s.searching:
        found = s.call("search_concepts", {"text": s.query.question, "limit": EXCERPT_CONCEPTS})
        lines = [s.call("find_facts", {"concept": c["concept"]}) for c in found.get("concepts", [])]
        for obs in [found, *lines]:
            obs.pop("still_required", None)
        return {"concepts": found.get("concepts", []), "facts": lines}
    if s.focus is None:
        return {}
    out = {"history": s.call("get_fact_history", {"fact": "F1"})}
    concept = s.opening()["queried_fact"]["concept"]
    out["calculation_children"] = s.call("get_calc_children", {"concept": concept})
    for k in out.values():
        k.pop("still_required", None)
    return out
