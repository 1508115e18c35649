"""The checker tools of the agent rules (auditflow.rules.registry.agent_tools): check_sign (DQC 0015),
check_calc_tree (0126), check_dim_consistency (0117). Rules beyond these are not offered to auditors.

Each wraps the deterministic rule for the queried fact and returns one flat observation:
``rule, fact, outcome, code, reported, expected, tolerance, statement, evidence, reason`` (plus
``total`` and ``note`` when the fact is a component of a checked total). The outcome is the
rule's: an agent can read it, not argue with it. Called without a fact, a checker checks the
queried fact (F1), the one the case is about.
"""
from __future__ import annotations

import re
from typing import Any

from auditflow.env.check_select import Selection, rule_view, select
from auditflow.env.facts import fact_period, fact_value, resolve_fact
from auditflow.env.names import names, role_title
from auditflow.env.scope import calc_places, in_period, nonneg_list, reporting_period_0126
from auditflow.env.tool_base import CONCEPT_ARG, DIMENSIONS_ARG, FACT_ARG, PERIOD_ARG, Tool, ToolContext, object_schema
from auditflow.errors import AuditflowError
from auditflow.rules.finding import EvidenceItem, Finding, dec_str
from auditflow.rules.registry import agent_rules, agent_tools
from auditflow.rules.statements import statement_cubes
from auditflow.xbrl.model import Fact
from auditflow.xbrl.qname import QName

_WHERE_SUFFIX = re.compile(r"\s*\[[^\]]*\]$")  # 0117 appends "[statement; cube; axis; ...]" to its reasons
_TOKEN = re.compile(r"[^\s,;()\[\]]+")


def _checker(rule: str):
    def run(ctx: ToolContext, args: dict) -> dict:
        fact = resolve_fact(ctx, args)
        return observation(ctx, rule, fact, select(ctx, rule, fact))

    return run


def observation(ctx: ToolContext, rule: str, fact: Fact, sel: Selection) -> dict[str, Any]:
    handle = ctx.handles.handle(fact)
    component = sel.kind in ("component", "component_consistent")
    total = ctx.handles.handle(names(ctx.env).facts_by_key[sel.total_key]) if component else None  # F1, then the total
    obs: dict[str, Any] = {
        "rule": rule, "fact": handle, "outcome": "not_applicable", "code": None,
        "reported": fact_value(fact), "expected": None, "tolerance": None, "statement": None, "evidence": [], "reason": "",
    }
    if sel.finding is not None:
        _from_finding(ctx, obs, sel.finding)
    elif sel.kind in ("consistent", "component_consistent"):
        _from_consistent(ctx, obs, rule, sel)
    else:
        obs["reason"] = _strip(ctx, sel.record.reason) if sel.record is not None and sel.record.reason else na_reason(ctx, rule, fact)
    if component:
        obs["total"] = total
        obs["note"] = f"this fact is a component of the checked total {total}; reported, expected and code are the total's"
    elif sel.total_key is not None and sel.total_key != fact.key and sel.kind != "not_applicable":
        twin = ctx.handles.handle(names(ctx.env).facts_by_key[sel.total_key])
        obs["note"] = f"checked on {twin}, an exact duplicate of this fact"
    return obs


def _from_finding(ctx: ToolContext, obs: dict, f: Finding) -> None:
    obs.update(outcome="violation", code=f.code, reported=dec_str(f.reported), expected=dec_str(f.expected),
               tolerance=dec_str(f.tolerance), statement=f.role, evidence=[_evidence(ctx, e) for e in f.evidence])
    diff = dec_str(abs(f.reported - f.expected)) if f.reported is not None and f.expected is not None else None
    gap = f"{obs['expected']}, not {obs['reported']}: difference {diff} exceeds the allowed {obs['tolerance']}"
    if f.rule == "0015":
        obs["reason"] = "negative value of a concept on the DQC 0015 list; expected is the value without its sign"
    elif f.rule == "0126":
        obs["reason"] = f"the calculation children add up to {gap}"
    else:
        axis = next((names(ctx.env).qstr(e.axis) for e in f.evidence if e.axis is not None), "the axis")
        obs["reason"] = f"the members of {axis} add up to {gap}"


def _from_consistent(ctx: ToolContext, obs: dict, rule: str, sel: Selection) -> None:
    total = names(ctx.env).facts_by_key[sel.total_key]
    rec = sel.recomputed
    obs.update(outcome="consistent", reported=fact_value(total))
    if rec is not None:
        obs.update(expected=dec_str(rec.expected), tolerance=dec_str(rec.tolerance),
                   evidence=[_evidence(ctx, e) for e in rec.evidence])
        if rule != "0015" and rec.evidence and rec.evidence[0].role:
            obs["statement"] = role_title(ctx, rec.evidence[0].role)
    reason = _strip(ctx, sel.record.reason) if sel.record is not None else ""
    if rule == "0126" and not reason:
        reason = f"the calculation children add up to {obs['expected']} (allowed difference {obs['tolerance']})"
    obs["reason"] = reason or "checked: consistent"


def _evidence(ctx: ToolContext, e: EvidenceItem) -> dict[str, Any]:
    n = names(ctx.env)
    fact = n.facts_by_key.get(e.fact_id) if e.fact_id else None
    item = {
        "fact": ctx.handles.handle(fact) if fact is not None else None,
        "concept": n.qstr(e.concept) if e.concept is not None else None,
        "period": str(fact_period(ctx, fact)) if fact is not None else None,
        "value": dec_str(e.value),
        "weight": dec_str(e.weight),
        "member": (n.qstr(e.member) if isinstance(e.member, QName) else str(e.member)) if e.member is not None else None,
    }
    return {k: v for k, v in item.items() if v is not None}


def _strip(ctx: ToolContext, reason: str) -> str:
    """A rule's reason without 0117's location suffix and with fact keys shown as handles."""
    facts = names(ctx.env).facts_by_key

    def to_handle(m: re.Match) -> str:
        token = m.group(0)
        core = token.rstrip(".:")
        return ctx.handles.handle(facts[core]) + token[len(core):] if core in facts else token

    return _TOKEN.sub(to_handle, _WHERE_SUFFIX.sub("", reason).strip())


# -- why nothing was checked ---------------------------------------------------------------------
def na_reason(ctx: ToolContext, rule: str, fact: Fact) -> str:
    """Why no check of ``rule`` involves ``fact``, in the rule's own terms."""
    if (why := rule_view(ctx, rule).rule_level_reason) is not None:
        return why
    if fact.is_nil or fact.number is None:
        return f"no {rule} check involves this fact: it is {'nil' if fact.is_nil else 'not a number'}"
    explain = {"0015": _na_0015, "0126": _na_0126, "0117": _na_0117}.get(rule)
    if explain is None:
        raise AuditflowError(f"rule {rule} is not offered to the auditors; agent rules: {', '.join(agent_rules())}")
    return explain(ctx, fact)


def _na_0015(ctx: ToolContext, fact: Fact) -> str:
    listed, why = nonneg_list(ctx)
    concept = names(ctx.env).qstr(fact.concept)
    if listed is not None and listed.element_id(fact.concept) is None:
        return f"no 0015 check involves this fact: {concept} is not on the DQC 0015 non-negative list"
    return f"no 0015 check involves this fact{': ' + why if listed is None else ''}"


def _na_0126(ctx: ToolContext, fact: Fact) -> str:
    if ctx.env.filing.contexts[fact.context_id].dimensions:
        return "no 0126 check involves this fact: 0126 checks non-dimensional facts only"
    places = calc_places(ctx, fact.concept)
    tables = [role for role, _, table in places if table]
    if places and len(tables) == len(places):
        return f"no 0126 check involves this fact: the statement {role_title(ctx, tables[0])!r} has a table (DQC 0118 applies)"
    if not places:
        return "no 0126 check involves this fact: not a total on a statement without a table"
    r, p = reporting_period_0126(ctx), fact_period(ctx, fact)
    if r is not None and not in_period(p, r):
        shown = r.end if p.is_instant else r
        return f"no 0126 check involves this fact: 0126 checks only the reporting period {shown}, this fact is for {p}"
    if any(place == "total" and not table for _, place, table in places):
        return "no 0126 check involves this fact: the statement's totals use other decimals, or a duplicate was checked"
    return "no 0126 check involves this fact: it is a calculation component and no checked total uses it"


def _na_0117(ctx: ToolContext, fact: Fact) -> str:
    cubes = [c for c in statement_cubes(ctx.env) if fact.concept in c.primary_items]
    concept = names(ctx.env).qstr(fact.concept)
    if not cubes:
        return f"no 0117 check involves this fact: {concept} is not a line item of a statement table"
    context = ctx.env.filing.contexts[fact.context_id]
    if not any(c.is_valid(fact.concept, context) for c in cubes):
        return "no 0117 check involves this fact: its dimensions are not valid in the statement table"
    return "no 0117 check involves this fact: no member facts on an axis 0117 checks, or not in the reporting period"


def verdict_of(observations) -> str | None:
    """How checker results are read everywhere (fusion's authority, generated expectations): any
    violation -> "violation", else any consistent check -> "consistent", else None (nothing applied)."""
    kinds = {o.get("outcome") for o in observations}
    return "violation" if "violation" in kinds else "consistent" if "consistent" in kinds else None


# -- the tools -----------------------------------------------------------------------------------
_ARGS = object_schema({"fact": FACT_ARG, "concept": CONCEPT_ARG, "period": PERIOD_ARG, "dimensions": DIMENSIONS_ARG})
_HOW = " Give fact (default F1), or concept + period (+ dimensions)."

# One tool per agent rule of the registry, in its tool order; names and descriptions are the rules'
# (auditflow/rules/dqc_NNNN.py). Short descriptions: they are read by small models at ~40 tokens a
# second (docs/local-llm.md), and what every checker returns is said once, in the auditors' task
# (auditflow.agents.prompts). The recorded LLM calls are keyed on these names and schemas.
CHECK_TOOLS: tuple[Tool, ...] = tuple(
    Tool(tool.name, tool.description + _HOW, "check", _ARGS, _checker(rule)) for rule, tool in agent_tools()
)
