"""The checker tools of the agent rules (auditflow.rules.registry.agent_tools): check_sign (DQC 0015),
check_calc_tree (0126), check_dim_consistency (0117). Rules beyond these are not offered to auditors.

Each wraps the deterministic rule for the queried fact and returns one flat observation:
``rule, fact, outcome, code, reported, expected, tolerance, statement, evidence, reason`` (plus
``total`` and ``note`` when the fact is a component of a checked total). The outcome is the
rule's: an agent can read it, not argue with it. Called without a fact, a checker checks the
queried fact (F1), the one the case is about.
"""
from __future__ import annotations

from typing import Any

from auditflow.env.check_select import Selection, rule_view, select
from auditflow.env.facts import fact_period, fact_value, resolve_fact
from auditflow.env.names import names, role_title
from auditflow.env.scope import not_applicable_reason
from auditflow.env.tool_base import CONCEPT_ARG, DIMENSIONS_ARG, FACT_ARG, PERIOD_ARG, Tool, ToolContext, object_schema
from auditflow.rules.finding import CheckRecord, EvidenceItem, Finding, dec_str
from auditflow.rules.registry import agent_tool, agent_tools
from auditflow.xbrl.model import Fact
from auditflow.xbrl.qname import QName



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
        obs["reason"] = _reason(ctx, sel.record) if sel.record is not None and sel.record.text else na_reason(ctx, rule, fact)
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
    axis = next((names(ctx.env).qstr(e.axis) for e in f.evidence if e.axis is not None), "the axis")
    obs["reason"] = agent_tool(f.rule).word_finding(gap=gap, axis=axis)


def _from_consistent(ctx: ToolContext, obs: dict, rule: str, sel: Selection) -> None:
    total = names(ctx.env).facts_by_key[sel.total_key]
    check = sel.record  # the rule's consistent check: what it compared, with its evidence
    obs.update(outcome="consistent", reported=fact_value(total), expected=dec_str(check.expected),
               tolerance=dec_str(check.tolerance), evidence=[_evidence(ctx, e) for e in check.evidence])
    if check.evidence and check.evidence[0].role:
        obs["statement"] = role_title(ctx, check.evidence[0].role)
    obs["reason"] = _reason(ctx, check) or agent_tool(rule).word_consistent(expected=obs["expected"], tolerance=obs["tolerance"])


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


def _reason(ctx: ToolContext, check: CheckRecord) -> str:
    """A rule's reason as the auditors read it: without the rule's location, cited facts as handles."""
    facts = names(ctx.env).facts_by_key
    return check.reason_with(lambda key: ctx.handles.handle(facts[key]) if key in facts else key).strip()


# -- why nothing was checked ---------------------------------------------------------------------
def na_reason(ctx: ToolContext, rule: str, fact: Fact) -> str:
    """Why no check of ``rule`` involves ``fact``: the rule as a whole did not run, the fact is no
    number, or the rule's own words (its registry entry)."""
    if (why := rule_view(ctx, rule).rule_level_reason) is not None:
        return why
    if fact.is_nil or fact.number is None:
        return f"no {rule} check involves this fact: it is {'nil' if fact.is_nil else 'not a number'}"
    return not_applicable_reason(ctx, rule, fact)


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
