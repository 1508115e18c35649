"""DQC.US.0126 — FS calculation check with non-dimensional data.

Rule (docs/rules/DQC_US_0126.md): on each face-statement presentation role (D1) that carries no
statement cube (D2), every calculation parent of that role must equal the weighted sum of its
children, for the reporting period R (the period of the first dei:DocumentPeriodEndDate fact) only.
The total must be non-dimensional and tagged with the statement's most frequent decimals (fsd);
children prefer decimals == fsd, then >= fsd, then < fsd; children without a fact are left out of
the sum and of k. Error iff |round(total,t) - round(sum,t)| > k * 10^-t, t = min(decimals),
k = contributing children + 1. Skipped when a child is LiabilitiesSubjectToCompromise and the filing
has a ReorganizationUnderChapter11... text block. Code ``DQC.US.0126.9590``; focus fact: the total.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from decimal import Decimal
from pathlib import Path

from auditflow.graphs.environment import AuditEnvironment
from auditflow.rules.agent import AgentView
from auditflow.rules.applicability import not_applicable_reason, rule_applies
from auditflow.rules.finding import CheckRecord, EvidenceItem, Finding, Outcome, RuleResult, dec_display, render_message
from auditflow.rules.resources import load_form_lookup
from auditflow.rules.statements import (
    decimals_value, is_statement_role_0126, statement_cube_roles, statement_tables, tolerance_check,
)
from auditflow.xbrl.model import SUMMATION_ITEMS, Arc, Fact, Period
from auditflow.xbrl.numbers import integral

RULE = "0126"
CODE = "DQC.US.0126.9590"
VERSION = "AuditFlow DQC.US.0126 (docs/rules/DQC_US_0126.md)"
CH11_CHILD = "LiabilitiesSubjectToCompromise"
CH11_TEXT = "ReorganizationUnderChapter11OfUSBankruptcyCodeDisclosureTextBlock"
MESSAGE = (
    "In \"{statement}\", {concept} is reported as {reported} for {period} ({unit}, decimals {decimals}, no dimensions), "
    "but the sum of its calculation children is {computed}: {children}. The difference of {difference} "
    "exceeds the allowed {allowed}. Check the values or the calculation relationships. "
    "({code}; rule element id {element}; rule version: {version})"
)


def rule_0126(env: AuditEnvironment, *, data_root: Path | None = None) -> RuleResult:
    """Run DQC.US.0126 (see the module docstring)."""
    filing = env.filing
    if data_root is not None and not rule_applies(RULE, filing.document_type, load_form_lookup(data_root)):
        return RuleResult(RULE, checks=(CheckRecord(RULE, Outcome.NOT_APPLICABLE, reason=not_applicable_reason(RULE, filing.document_type)),))
    r = reporting_period(env)
    if r is None:
        return RuleResult(RULE, checks=(CheckRecord(RULE, Outcome.NOT_APPLICABLE, reason="no dei:DocumentPeriodEndDate fact"),))
    run = _Run(env, r)
    cube_roles = statement_cube_roles(env)
    for role in sorted(env.index.pre_roles):
        if not is_statement_role_0126(role, env.role_definition(role)):
            continue
        if role in cube_roles:
            run.checks.append(CheckRecord(RULE, Outcome.NOT_APPLICABLE, reason=f"statement has a table (DQC 0118 applies): {env.role_definition(role)}"))
            continue
        run.check_role(role)
    return RuleResult(RULE, tuple(run.findings), tuple(run.checks), tuple(run.warnings))


class _Run:
    def __init__(self, env: AuditEnvironment, r: Period) -> None:
        self.env, self.r = env, r
        self.findings: list[Finding] = []
        self.checks: list[CheckRecord] = []
        self.warnings: list[str] = []
        self.has_ch11 = any(f.concept.local == CH11_TEXT for f in env.filing.facts)

    def _plain(self, concept) -> list[Fact]:
        ctxs = self.env.filing.contexts
        return [f for f in self.env.index.by_concept.get(concept, []) if not f.is_nil and f.is_numeric and not ctxs[f.context_id].dimensions]

    def _in_r(self, f: Fact) -> bool:
        return in_period(self.env.filing.contexts[f.context_id].period, self.r)

    def check_role(self, role: str) -> None:
        arcs_by_parent: dict = defaultdict(list)
        for a in self.env.filing.arcs:
            if a.role == role and a.arcrole in SUMMATION_ITEMS:
                arcs_by_parent[a.source].append(a)
        if not arcs_by_parent:
            return
        decs = Counter(f.decimals for p in arcs_by_parent for f in self._plain(p) if f.decimals is not None)
        if not decs:
            return
        fsd = decs.most_common(1)[0][0]
        for parent in sorted(arcs_by_parent, key=lambda q: q.clark()):
            self._check_parent(role, parent, sorted(arcs_by_parent[parent], key=lambda a: (a.order, a.target.clark())), fsd)

    def _check_parent(self, role: str, parent, arcs: list[Arc], fsd) -> None:
        totals = [f for f in self._plain(parent) if self._in_r(f) and f.decimals == fsd]
        if not totals:
            self.checks.append(CheckRecord(RULE, Outcome.NOT_APPLICABLE, parent, reason="no total for the reporting period with the statement's decimals"))
            return
        seen: set = set()
        for total in totals:
            key = self._align(total)
            if key in seen:
                continue  # a duplicate of a total already checked
            seen.add(key)
            self._check_total(role, total, arcs, fsd)

    def _align(self, f: Fact) -> tuple:
        ctx = self.env.filing.contexts[f.context_id]
        unit = self.env.filing.units[f.unit_id]
        return (ctx.entity_id, ctx.period, unit.numerators, unit.denominators)

    def _child_fact(self, child, key: tuple, fsd) -> Fact | None:
        cands = [f for f in self._plain(child) if self._align(f) == key]
        for pick in (lambda d: d == fsd, lambda d: _ge(d, fsd), lambda d: True):
            for f in cands:
                if pick(f.decimals):
                    return f
        return None

    def _check_total(self, role: str, total: Fact, arcs: list[Arc], fsd) -> None:
        key = self._align(total)
        used: list[tuple[Arc, Fact]] = []
        for a in arcs:
            f = self._child_fact(a.target, key, fsd)
            if f is not None:
                used.append((a, f))
        rec = dict(concept=total.concept, fact_id=total.key, context_id=total.context_id)
        if not used:
            self.checks.append(CheckRecord(RULE, Outcome.NOT_APPLICABLE, reason="no child has a value", **rec))
            return
        # "one of the children": any calc child in the role, with or without a fact (XULE filters $calcComponents)
        if self.has_ch11 and any(a.target.local == CH11_CHILD for a in arcs):
            self.checks.append(CheckRecord(RULE, Outcome.NOT_APPLICABLE, reason="Chapter 11 exception", **rec))
            return
        weighted = tuple((a, a.weight if a.weight is not None else Decimal(1), f) for a, f in used)
        computed = sum((w * f.number for _, w, f in weighted), Decimal(0))
        if computed == computed.to_integral_value():
            computed = integral(computed)  # weights written 1.0 must not print as 3,833,000,000.0
        # D7: the sum carries the smallest decimals of its addends, INF counting as +infinity (min(INF, -3) = -3);
        # only when every addend is INF/missing does it fall back to the total's decimals.
        finite = [d for d in (decimals_value(f.decimals) for _, f in used) if d is not None]
        comp_dec = min(finite) if finite else None
        t = _min_dec(decimals_value(total.decimals), comp_dec)
        is_error, allowed = tolerance_check(total.number, computed, t, len(used) + 1)
        if not is_error:
            evidence = tuple(EvidenceItem(a.target, f.key, f.number, w, context_id=f.context_id, decimals=f.decimals,
                                          role=role) for a, w, f in weighted)
            self.checks.append(CheckRecord(RULE, Outcome.CONSISTENT, evidence=evidence, expected=computed,
                                           tolerance=allowed, **rec))
            return
        self.checks.append(CheckRecord(RULE, Outcome.VIOLATION, reason=CODE, **rec))
        self.findings.append(self._finding(role, total, computed, allowed, used))

    def _finding(self, role: str, total: Fact, computed: Decimal, allowed: Decimal, used) -> Finding:
        ctx = self.env.filing.contexts[total.context_id]
        unit = str(self.env.filing.units[total.unit_id])
        evidence = tuple(
            EvidenceItem(a.target, f.key, f.number, a.weight, context_id=f.context_id, decimals=f.decimals, role=role)
            for a, f in used
        )
        children = ", ".join(f"{'-' if (a.weight or 1) < 0 else '+'} {a.target} {dec_display(f.number)}" for a, f in used)
        statement = self.env.role_definition(role) or role
        msg = render_message(
            MESSAGE, statement=statement, concept=total.concept, reported=dec_display(total.number),
            period=ctx.period, unit=unit, decimals=total.decimals, computed=dec_display(computed), children=children,
            difference=dec_display(abs(total.number - computed)), allowed=dec_display(allowed), code=CODE,
            element=CODE.rsplit(".", 1)[-1], version=VERSION,
        )
        return Finding(
            code=CODE, rule=RULE, concept=total.concept, fact_id=total.key, context_id=total.context_id,
            period=ctx.period, dimensions=(), unit=unit, decimals=total.decimals, reported=total.number,
            expected=computed, tolerance=allowed, message=msg, evidence=evidence, role=statement,
        )


def _ge(d, fsd) -> bool:
    dv, fv = decimals_value(d), decimals_value(fsd)
    if dv is None:
        return True
    return fv is not None and dv >= fv


def _min_dec(a: int | None, b: int | None) -> int | None:
    """Smallest decimals, where None means +infinity (INF or missing)."""
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


# -- as the auditors are told (auditflow.rules.agent) ----------------------------------------------

def statement_roles(view: AgentView) -> list[tuple[str, bool]]:
    """(role URI, has a table) for every presentation role 0126 would consider a statement."""
    return view.memo("statement_tables", lambda: statement_tables(view.env))


def calc_places(view: AgentView, q) -> list[tuple[str, str, bool]]:
    """(role, "total" | "component", has table) for each statement role where ``q`` is in the calculation."""
    idx = view.env.index
    out = []
    for role, table in statement_roles(view):
        if idx.calc_down.get((role, q)):
            out.append((role, "total", table))
        if any(a.role == role for a in idx.calc_up.get(q, ())):
            out.append((role, "component", table))
    return out


def reporting_period(env: AuditEnvironment) -> Period | None:
    """The period R: the context period of the first dei:DocumentPeriodEndDate fact."""
    f = env.filing.first_fact("DocumentPeriodEndDate")
    return env.filing.contexts[f.context_id].period if f is not None else None


def in_period(p: Period, r: Period) -> bool:
    """The period match: instants by date, durations by start and end."""
    if p.is_instant:
        return p.end == r.end
    return p.start == r.start and p.end == r.end


def scope(view: AgentView, q) -> str:
    parts = []
    for role, place, table in calc_places(view, q):
        title = view.role_title(role)
        parts.append(f"calculation {place} on {title!r}, which has a table: 0126 does not check it" if table
                     else f"calculation {place} on {title!r}")
    return "; ".join(parts) if parts else "not in the calculation of a statement 0126 checks"


def not_applicable_to(view: AgentView, fact: Fact) -> str:
    if view.env.filing.contexts[fact.context_id].dimensions:
        return "no 0126 check involves this fact: 0126 checks non-dimensional facts only"
    places = calc_places(view, fact.concept)
    tables = [role for role, _, table in places if table]
    if places and len(tables) == len(places):
        return f"no 0126 check involves this fact: the statement {view.role_title(tables[0])!r} has a table (DQC 0118 applies)"
    if not places:
        return "no 0126 check involves this fact: not a total on a statement without a table"
    r, p = reporting_period(view.env), view.period_of(fact)
    if r is not None and not in_period(p, r):
        shown = r.end if p.is_instant else r
        return f"no 0126 check involves this fact: 0126 checks only the reporting period {shown}, this fact is for {p}"
    if any(place == "total" and not table for _, place, table in places):
        return "no 0126 check involves this fact: the statement's totals use other decimals, or a duplicate was checked"
    return "no 0126 check involves this fact: it is a calculation component and no checked total uses it"


# -- registration ---------------------------------------------------------------------------------

def run(env: AuditEnvironment, resources) -> RuleResult:
    """The registry's entry point (the form is checked only with a data root)."""
    return rule_0126(env, data_root=resources.data_root)


def _register() -> None:
    from auditflow.rules.registry import AgentTool, Drawing, Need, RuleSpec, register
    from auditflow.rules.resources import FORM_LOOKUP

    register(RuleSpec(
        id=RULE, title="Financial statement calculation check (statements without a table)",
        messages={CODE: MESSAGE}, needs=frozenset({Need.DEI, Need.FACTS, Need.FILER_CAL, Need.FILER_PRE, Need.FILER_DEF}),
        run=run, version=VERSION, form_lookup=FORM_LOOKUP, needs_data_root=False,
        agent_tool=AgentTool(
            "check_calc_tree", "DQC 0126: does this total equal the weighted sum of its calculation "
            "children (statements without a table)?", 1, scope=scope, not_applicable=not_applicable_to,
            finding_reason="the calculation children add up to {gap}",
            consistent_reason="the calculation children add up to {expected} (allowed difference {tolerance})",
            conflict=("incomplete_calculation_neighbourhood", "the calculation children or their values were read differently")),
        fix_hint=("The weighted calculation children add up to {expected}, the total is {reported}. Correct the one "
                  "that is wrong: the total, a child's value, a child fact missing for this period, or a calculation "
                  "weight (\u22121 for an amount that is subtracted)."),
        drawing=Drawing.CALC_TREE,
        not_applicable=("form not in scope", "no dei:DocumentPeriodEndDate fact", "statement has a table",
                        "no total for the reporting period", "no child has a value", "Chapter 11 exception"),
    ))


_register()
