"""DQC.US.0117 — Financial Statement Tables Dimensional Cross Check (docs/rules/DQC_US_0117.md).

Implementation choices for the spec's open points (pinned by tests/rules/test_dqc_0117.py):

* Facts: non-nil, numeric, monetary (unit = one ISO 4217 measure). Duplicates (same concept, entity,
  period, unit measures and dimensions) are evaluated once: the most precise is kept (ties: the
  first in document order); duplicates that disagree after rounding to the lesser decimals are
  reported as warnings (XBRL 2.1 inconsistent duplicates).
* Alignment (D4) = concept, period, unit measures (not the unit id), entity scheme and identifier.
* "Fact in cube C" (D3) = :meth:`Cube.is_valid` (closed validity against that one hypercube).
* Period filter: the total's period is an instant or lasts exactly P days; forever periods never.
* T_0117: t = min(dmin, 5) where dmin is the smallest finite decimals of the member facts (INF or
  missing decimals count as +infinity; all of them INF -> 5); the total's decimals do not enter; k = 2;
  rounding is half-even (see :func:`auditflow.rules.statements.round_decimals`).
* 10093: "Y = the other axis (first one found)" = the other axis of the first fact, in document
  order, with exactly {X = s, Y}. Evidence/message members are listed in document order.
* Records: one per (cube, axis, line item, period, unit[, first-axis member for 10093]) that has a
  fact on the axis or an in-scope total. NOT_APPLICABLE reasons start with a fixed category
  ("no total", "sub-total guard", "parenthetical guard", "notes guard", "no member facts",
  "legal entity axis", "form not in scope", "no reporting period").
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Callable, Mapping

from auditflow.graphs.dimensions import Axis, Cube
from auditflow.graphs.environment import AuditEnvironment
from auditflow.rules.agent import AgentView
from auditflow.rules.applicability import rule_applies
from auditflow.rules.dqc_0015 import period_text
from auditflow.rules.finding import (
    CheckRecord, Cite, EvidenceItem, Finding, Outcome, RuleResult, cited, dec_display, dims_text, render_message,
)
from auditflow.rules.resources import load_form_lookup
from auditflow.rules.statements import (
    decimals_value, is_notes_cube, is_parenthetical_cube, statement_cubes, tolerance_check,
)
from auditflow.xbrl.filing import DEI_LOCALS_DOCUMENT_TYPE
from auditflow.xbrl.model import Context, Fact, Member, Period, positional_maker
from auditflow.xbrl.qname import QName, standard_prefix

RULE = "0117"
CODE_9574 = "DQC.US.0117.9574"
CODE_10093 = "DQC.US.0117.10093"
K = 2
DECIMALS_CAP = 5
VERSION = "AuditFlow DQC.US.0117 (docs/rules/DQC_US_0117.md)"
AXES_IN_SCOPE = frozenset({
    "StatementClassOfStockAxis", "ProductOrServiceAxis", "PropertyPlantAndEquipmentByTypeAxis",
    "LongtermDebtTypeAxis", "RelatedPartyTransactionsByRelatedPartyAxis", "StatementBusinessSegmentsAxis",
    "LimitedPartnersCapitalAccountByClassAxis", "PartnerTypeOfPartnersCapitalAccountAxis",
    "FiniteLivedIntangibleAssetsByMajorClassAxis", "FinancialInstrumentAxis",
    "InformationByCategoryOfDebtSecurityAxis",
})
LEGAL_ENTITY_AXIS = "LegalEntityAxis"
PRODUCT_OR_SERVICE_AXIS = "ProductOrServiceAxis"
REVENUE_606 = ("RevenueFromContractWithCustomerExcludingAssessedTax", "RevenueFromContractWithCustomerIncludingAssessedTax")
NONINTEREST_INCOME = "NoninterestIncome"
REVENUES = "Revenues"

TEXT_NONINTEREST_PRIMARY = (
    " NoninterestIncome is a line item of this statement, so 606 revenue by product or service is only "
    "reported when its members add up to more than the 606 total."
)
TEXT_REVENUES_BREAKDOWN = (
    " The statement reports Revenues: break Revenues into its 606 and non-606 items in the calculation "
    "linkbase (at least two children, one of them a 606 revenue concept)."
)
TEXT_USE_NONINTEREST = (
    " If the members include revenue outside ASC 606, use NoninterestIncome as the total rather "
    "than a 606 revenue concept."
)
MESSAGE_9574 = (
    "{statement}: {concept} is reported as {total}{unit} for {period}{total_dims}, but the members of {axis} "
    "add up to {sum} (difference {diff}, allowed {allowed}). Members summed: {members}.{extra} "
    "({code}; rule element id {element}; rule version: {version})"
)
MESSAGE_10093 = (
    "{statement}: {concept} is reported as {total}{unit} for {period} with {first}, but the members of the "
    "second axis {axis} under {first} add up to {sum} (difference {diff}, allowed {allowed}). "
    "Members summed: {members}.{extra} ({code}; rule element id {element}; rule version: {version})"
)


@dataclass(frozen=True, eq=False, slots=True)
class _Item:
    """One usable fact: monetary, non-nil, with its context resolved."""

    fact: Fact
    value: Decimal
    ctx: Context
    dims: Mapping[QName, Member]
    group: tuple  # alignment key (D4), sortable
    unit: str
    dims_key: frozenset  # frozenset(dims.items()): made once per context, not once per fact and cube (issue 21)

    @property
    def period(self) -> Period:
        return self.ctx.period


# _Item(fact, value, ctx, dims, group, unit, dims_key) without the frozen __init__'s object.__setattr__
# per field (issue 21: a twentieth of the rule on a filing of 2,000 facts); the same object.
_make_item = positional_maker(_Item)


@dataclass(eq=False)
class _Group:
    """The facts of one alignment that are valid in one cube, in document order."""

    items: list[_Item]
    by_dims: dict[frozenset, _Item] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for i in self.items:
            self.by_dims.setdefault(i.dims_key, i)

    def only(self, dims: Mapping[QName, Member]) -> _Item | None:
        """The fact whose dimensions are exactly ``dims``."""
        return self.by_dims.get(frozenset(dims.items()))


def _period_key(p: Period) -> tuple[str, str, bool]:
    return (p.start.isoformat() if p.start else "", p.end.isoformat() if p.end else "", p.forever)


class _Facts:
    """Usable facts of the filing, de-duplicated, grouped by alignment and by cube on demand."""

    def __init__(self, env: AuditEnvironment) -> None:
        self.warnings: list[str] = []
        self.by_concept: dict[QName, list[_Item]] = {}
        self._cubes: dict[int, dict[tuple, _Group]] = {}
        seen: dict[tuple, _Item] = {}
        units, contexts = env.filing.units, env.filing.contexts
        memo: dict = {}  # per unit id and per context id: what every fact in it shares (issue 21)
        dims_of: dict[str, int] = {}  # context id -> one number per distinct dimensions tuple: a key hashes
        numbered: dict[tuple, int] = {}  # an int instead of its QNames, with the same equality (issue 21)
        for f in env.filing.facts:
            item = self._item(f, units, contexts, memo)
            if item is None:
                continue
            d = dims_of.get(f.context_id)
            if d is None:
                d = dims_of[f.context_id] = numbered.setdefault(item.ctx.dimensions, len(numbered))
            key = (item.group, d)
            first = seen.get(key)
            seen[key] = item if first is None else self._keep(first, item)
        for item in sorted(seen.values(), key=lambda i: i.fact.index):
            self.by_concept.setdefault(item.fact.concept, []).append(item)

    def _keep(self, first: _Item, other: _Item) -> _Item:
        """Of two duplicates keep the more precise (then the first); warn when they are inconsistent."""
        da, db = decimals_value(first.fact.decimals), decimals_value(other.fact.decimals)
        t = da if db is None else db if da is None else min(da, db)
        if tolerance_check(first.value, other.value, t, 0)[0]:
            self.warnings.append(
                f"inconsistent duplicates {first.fact.key} ({first.value}) and {other.fact.key} ({other.value}) of "
                f"{other.fact.concept}; the more precise (else the first) was used")
        return other if (db is None and da is not None) or (None not in (da, db) and db > da) else first

    @staticmethod
    def _item(f: Fact, units: Mapping, contexts: Mapping, memo: dict) -> _Item | None:
        if f.is_nil or f.unit_id is None or (value := f.number) is None:
            return None
        ukey = ("unit", f.unit_id)
        u = memo.get(ukey, memo)
        if u is memo:  # the unit's measures and display text, or None when it is missing or not monetary
            unit = units.get(f.unit_id)
            u = memo[ukey] = ("*".join(q.clark() for q in unit.numerators), str(unit)) if unit is not None and unit.is_monetary else None
        ckey = ("context", f.context_id)
        c = memo.get(ckey, memo)
        if c is memo:  # the context, its alignment part and its dimensions (read only, so shared by its facts)
            ctx = contexts.get(f.context_id)
            dims = None if ctx is None else ctx.dims_dict()
            c = memo[ckey] = None if ctx is None else (ctx, _period_key(ctx.period), ctx.entity_scheme, ctx.entity_id,
                                                       dims, frozenset(dims.items()))
        if u is None or c is None:
            return None
        ctx, period, scheme, entity, dims, dims_key = c
        group = (f.concept.clark(), period, u[0], scheme, entity)
        return _make_item(f, value, ctx, dims, group, u[1], dims_key)

    def in_cube(self, cube: Cube) -> dict[tuple, _Group]:
        """Alignment key -> the facts valid in ``cube`` (D3)."""
        if id(cube) not in self._cubes:
            groups: dict[tuple, list[_Item]] = {}
            valid: dict[int, bool] = {}  # per context: every fact here is a primary item, so only its
            for concept in sorted(cube.primary_items):  # context decides (issue 21)
                for i in self.by_concept.get(concept, ()):
                    ok = valid.get(id(i.ctx))
                    if ok is None:
                        ok = valid[id(i.ctx)] = cube.is_valid(i.fact.concept, i.ctx)
                    if ok:
                        groups.setdefault(i.group, []).append(i)
            self._cubes[id(cube)] = {g: _Group(sorted(v, key=lambda i: i.fact.index)) for g, v in groups.items()}
        return self._cubes[id(cube)]

    def in_any(self, cubes: list[Cube]) -> dict[tuple, list[_Item]]:
        """Alignment key -> facts valid in at least one of ``cubes`` (each fact once, document order)."""
        out: dict[tuple, dict[int, _Item]] = {}
        for cube in cubes:
            for g, grp in self.in_cube(cube).items():
                for i in grp.items:
                    out.setdefault(g, {})[i.fact.index] = i
        return {g: [v[k] for k in sorted(v)] for g, v in out.items()}


@dataclass(eq=False)
class _Case:
    """One check: a statement cube, an in-scope axis and one alignment of facts valid in the cube."""

    cube: Cube
    axis: Axis
    key: tuple
    group: _Group
    statement: str

    @property
    def x(self) -> QName:
        return self.axis.qname

    @property
    def concept(self) -> QName:
        return self.group.items[0].fact.concept

    def where(self, first: str = "") -> str:
        i = self.group.items[0]
        return (f" [{self.statement}; {self.cube.hypercube}; axis {self.x}{first}; {i.fact.concept}; "
                f"{period_text(i.period)}; {i.unit}]")


def rule_0117(env: AuditEnvironment, *, data_root: Path | None = None) -> RuleResult:
    """DQC.US.0117: on face-statement cubes, axis members must add up to the un-dimensioned total.

    9574: for each statement cube C and in-scope axis X, each monetary line item/period/unit whose
    un-dimensioned total is valid in C (period instant or P days, P = DocumentType period) must equal
    the sum of its X-member facts (members under a reported ancestor pruned) within T_0117
    (k = 2, decimals = min(member decimals, 5)); skipped by the sub-total, parenthetical and notes
    guards; a 606 revenue total on ProductOrServiceAxis follows the 606 exception.
    10093: a fact with X = s alone must equal the sum of the facts with exactly {X = s, Y = member}
    (Y not LegalEntityAxis), with the sub-total guard one level down and the notes guard.
    Runs when dei:DocumentType is in the form lookup (checked only when ``data_root`` is given) or absent.
    """
    filing = env.filing
    if data_root is not None and not rule_applies(RULE, filing.document_type, load_form_lookup(data_root)):
        reason = (f"form not in scope: document type {(filing.document_type or '').strip()!r} is not in the "
                  f"DQC rule-form lookup for {RULE}")
        return RuleResult(RULE, checks=(CheckRecord(RULE, Outcome.NOT_APPLICABLE, reason=reason),))
    doc_type = filing.first_fact(DEI_LOCALS_DOCUMENT_TYPE)
    ctx = filing.contexts.get(doc_type.context_id) if doc_type is not None else None
    if ctx is None:
        reason = "no reporting period: no dei:DocumentType fact (with a context), so the rule produces nothing (D6)"
        return RuleResult(RULE, checks=(CheckRecord(RULE, Outcome.NOT_APPLICABLE, reason=reason),))
    run = _Run(env, ctx.period.days)
    for cube in statement_cubes(env):
        for axis_q in sorted(cube.axes, key=QName.clark):
            if axis_q.local in AXES_IN_SCOPE:
                run.check_axis(cube, cube.axes[axis_q])
    return RuleResult(RULE, tuple(run.findings), tuple(run.checks), tuple(run.facts.warnings))


class _Run:
    def __init__(self, env: AuditEnvironment, days: int) -> None:
        self.env, self.days = env, days
        self.facts = _Facts(env)
        self.findings: list[Finding] = []
        self.checks: list[CheckRecord] = []
        cubes = sorted(env.dims.cubes, key=lambda c: (c.role, c.hypercube.clark()))
        self.paren = self.facts.in_any([c for c in cubes if is_parenthetical_cube(c, env.role_definition(c.role))])
        self.notes = self.facts.in_any([c for c in cubes if is_notes_cube(c, env.role_definition(c.role))])

    def record(self, outcome: Outcome, case: _Case, reason: str | Mapping, fact: _Item | None, first: str = "",
               **detail) -> None:
        """One check record; ``reason`` is its text, or :func:`cited` parts when it names facts."""
        why = dict(reason) if isinstance(reason, Mapping) else {"reason": reason}
        self.checks.append(CheckRecord(
            RULE, outcome, case.concept, fact.fact.key if fact else None, fact.fact.context_id if fact else None,
            where=case.where(first), **why, **detail))

    def in_scope(self, item: _Item) -> bool:
        p = item.period
        return p.is_instant or (not p.forever and p.days == self.days)

    def check_axis(self, cube: Cube, axis: Axis) -> None:
        statement = self.env.role_definition(cube.role) or cube.role
        groups = self.facts.in_cube(cube)
        for key in sorted(groups):
            case = _Case(cube, axis, key, groups[key], statement)
            self.check_9574(case)
            self.check_10093(case)

    # -- 9574 ------------------------------------------------------------------------------------
    def check_9574(self, case: _Case) -> None:
        x = case.x
        on_axis = [i for i in case.group.items if x in i.dims]
        total = case.group.only({})
        if total is not None and not self.in_scope(total):
            if not on_axis:
                return
            reason = f"no total: the un-dimensioned fact lasts {total.period.days} days, reporting period is {self.days}"
            return self.record(Outcome.NOT_APPLICABLE, case, reason, total)
        if total is None:
            if on_axis:
                self.record(Outcome.NOT_APPLICABLE, case, "no total: no un-dimensioned fact valid in the cube", on_axis[0])
            return
        reason = (self.subtotal_guard(case, {}, x, on_axis) or self.parenthetical_guard(case)
                  or self.notes_guard(case, total, lambda i: set(i.dims) == {x}))
        if reason:
            return self.record(Outcome.NOT_APPLICABLE, case, reason, total)
        members = self.members_9574(case)
        if not members:
            return self.record(Outcome.NOT_APPLICABLE, case, f"no member facts: no fact with {x} alone", total)
        self.judge(case, total, members, CODE_9574, x)

    def subtotal_guard(self, case: _Case, base: dict, axis: QName, on_axis: list[_Item]) -> str | None:
        """Every ``axis`` member used together with a further axis needs its own fact (base + axis only)."""
        wider = [i for i in on_axis if len(i.dims) > len(base) + 1 and all(i.dims.get(a) == m for a, m in base.items())]
        missing = {str(i.dims[axis]) for i in wider if case.group.only({**base, axis: i.dims[axis]}) is None}
        if not missing:
            return None
        return (f"sub-total guard: member(s) {', '.join(sorted(missing))} of {axis} are reported with further axes "
                f"but without a fact of their own")

    def parenthetical_guard(self, case: _Case) -> dict | None:
        hits = [i for i in self.paren.get(case.key, []) if set(i.dims) == {case.x}]
        if not hits:
            return None
        keys = [part for n, i in enumerate(hits) for part in ((", ",) if n else ()) + (Cite(i.fact.key),)]
        return cited("parenthetical guard: ", *keys, f" report(s) the line item with {case.x} alone on a parenthetical statement")

    def notes_guard(self, case: _Case, total: _Item, match: Callable[[_Item], bool]) -> str | None:
        """Skip when disclosure cubes repeat the breakdown and none of their values exceeds the total."""
        fn = [i for i in self.notes.get(case.key, []) if match(i)]
        if not fn or max(i.value for i in fn) > total.value:
            return None
        return (f"notes guard: {len(fn)} disclosure fact(s) with the same breakdown, largest "
                f"{dec_display(max(i.value for i in fn))} <= total {dec_display(total.value)}")

    def members_9574(self, case: _Case) -> list[_Item]:
        """Facts with X = m alone for m below the domain, minus those under a reported ancestor."""
        x, axis = case.x, case.axis
        singles = {i.dims[x]: i for i in case.group.items if set(i.dims) == {x}}
        out = []
        for m, item in singles.items():
            if m in axis.domains or m not in axis.members:
                continue
            if any(a in singles for a in axis.ancestors(m) if a not in axis.domains):
                continue  # inside a reported subtotal
            out.append(item)
        return out

    # -- 10093 -----------------------------------------------------------------------------------
    def check_10093(self, case: _Case) -> None:
        x = case.x
        pairs = [i for i in case.group.items if len(i.dims) == 2 and x in i.dims]
        firsts: dict[Member, _Item] = {}
        for i in pairs:
            firsts.setdefault(i.dims[x], i)
        for s, first in firsts.items():
            y = next(a for a in first.dims if a != x)
            self.check_10093_member(case, s, y)

    def check_10093_member(self, case: _Case, s: Member, y: QName) -> None:
        x, label = case.x, f"={s}, second axis {y}"
        total = case.group.only({x: s})
        if total is None or not self.in_scope(total):
            why = "no fact with it alone" if total is None else f"its fact lasts {total.period.days} days"
            return self.record(Outcome.NOT_APPLICABLE, case, f"no total: {x}={s}: {why}", total, label)
        if y.local == LEGAL_ENTITY_AXIS:
            return self.record(Outcome.NOT_APPLICABLE, case, f"legal entity axis: {y} is not summed", total, label)
        with_y = [i for i in case.group.items if y in i.dims and i.dims.get(x) == s]
        match = lambda i: set(i.dims) == {x, y} and i.dims[x] == s  # noqa: E731
        reason = self.subtotal_guard(case, {x: s}, y, with_y) or self.notes_guard(case, total, match)
        if reason:
            return self.record(Outcome.NOT_APPLICABLE, case, reason, total, label)
        self.judge(case, total, [i for i in with_y if match(i)], CODE_10093, y, (x, s))

    # -- comparison and reporting ------------------------------------------------------------------
    def judge(self, case: _Case, total: _Item, members: list[_Item], code: str, axis: QName,
              first: tuple[QName, Member] | None = None) -> None:
        total_sum = sum((i.value for i in members), Decimal(0))
        is_error, allowed = tolerance_check(total_sum, total.value, t_0117(members), K)
        extra = ""
        if code == CODE_9574 and _is_606_case(case, total):
            is_error, extra = self.exception_606(case.cube, total_sum, total.value, is_error)
        label = f"={first[1]}, second axis {axis}" if first else ""
        if not is_error:
            reason = f"consistent: members add up to {dec_display(total_sum)} (allowed difference {dec_display(allowed)})"
            return self.record(Outcome.CONSISTENT, case, reason + extra, total, label,
                               evidence=_evidence(case, members, axis), expected=total_sum, tolerance=allowed)
        self.record(Outcome.VIOLATION, case, f"violation: {code}", total, label)
        self.findings.append(_finding(case, code, total, members, total_sum, allowed, axis, first, extra))

    def exception_606(self, cube: Cube, total_sum: Decimal, total: Decimal, outside: bool) -> tuple[bool, str]:
        """The 606 revenue exception: (is_error, explanatory text)."""
        primary = {q.local: q for q in sorted(cube.primary_items) if standard_prefix(q.namespace) == "us-gaap"}
        if NONINTEREST_INCOME in primary:
            return outside and total_sum > total, TEXT_NONINTEREST_PRIMARY
        if total_sum < total and REVENUES in primary:
            children = self.env.index.calc_children(primary[REVENUES], cube.role)
            if len(children) >= 2 and any(a.target.local in REVENUE_606 for a in children):
                return False, " 606 exception: Revenues is broken into 606 and non-606 items in the calculation linkbase."
            return outside, TEXT_REVENUES_BREAKDOWN
        return outside, TEXT_USE_NONINTEREST


def t_0117(members: list[_Item]) -> int:
    """T_0117's decimals: the smallest member decimals (INF/missing = +infinity), capped at 5."""
    finite = [d for i in members if (d := decimals_value(i.fact.decimals)) is not None]
    return min(min(finite), DECIMALS_CAP) if finite else DECIMALS_CAP


def _is_606_case(case: _Case, total: _Item) -> bool:
    c = total.fact.concept
    return case.x.local == PRODUCT_OR_SERVICE_AXIS and c.local in REVENUE_606 and standard_prefix(c.namespace) == "us-gaap"


def _evidence(case: _Case, members: list[_Item], axis: QName) -> tuple[EvidenceItem, ...]:
    """The member facts summed, on a finding and on a consistent check alike."""
    return tuple(
        EvidenceItem(concept=i.fact.concept, fact_id=i.fact.key, value=i.value, axis=axis, member=i.dims[axis],
                     context_id=i.fact.context_id, decimals=i.fact.decimals, dimensions=i.ctx.dimensions,
                     role=case.cube.role, note="member fact summed")
        for i in members)


def _finding(case: _Case, code: str, total: _Item, members: list[_Item], total_sum: Decimal, allowed: Decimal,
             axis: QName, first: tuple[QName, Member] | None, extra: str) -> Finding:
    dims = total.ctx.dimensions
    evidence = _evidence(case, members, axis)
    listed = "; ".join(f"{i.dims[axis]} = {dec_display(i.value)} ({dims_text(i.ctx.dimensions)})" for i in members)
    common = dict(
        statement=case.statement, concept=total.fact.concept, total=dec_display(total.value), unit=f" {total.unit}",
        period=period_text(total.period), axis=axis, sum=dec_display(total_sum),
        diff=dec_display(abs(total.value - total_sum)), allowed=dec_display(allowed), members=listed, extra=extra,
        code=code, element=code.rsplit(".", 1)[-1], version=VERSION)
    if first is None:
        shown = dims_text(dims)
        message = render_message(MESSAGE_9574, total_dims=f" with dimensions {shown}" if shown else "", **common)
    else:
        message = render_message(MESSAGE_10093, first=f"{first[0]}={first[1]}", **common)
    return Finding(
        code=code, rule=RULE, concept=total.fact.concept, fact_id=total.fact.key, context_id=total.fact.context_id,
        period=total.period, dimensions=dims, unit=total.unit, decimals=total.fact.decimals, reported=total.value,
        expected=total_sum, tolerance=allowed, message=message, evidence=evidence, role=case.statement)


# -- as the auditors are told (auditflow.rules.agent) ----------------------------------------------

def scope(view: AgentView, q: QName) -> str:
    hits = []
    for cube in statement_cubes(view.env):
        if q in cube.primary_items:
            axes = sorted(view.qstr(a) for a in cube.axes if a.local in AXES_IN_SCOPE)
            shown = ", ".join(axes) if axes else "none checked by 0117"
            hits.append(f"line item of {view.qstr(cube.hypercube)} on {view.role_title(cube.role)!r} (axes: {shown})")
    return "; ".join(hits) if hits else "not a line item of a statement table"


def not_applicable_to(view: AgentView, fact: Fact) -> str:
    cubes = [c for c in statement_cubes(view.env) if fact.concept in c.primary_items]
    concept = view.qstr(fact.concept)
    if not cubes:
        return f"no 0117 check involves this fact: {concept} is not a line item of a statement table"
    context = view.env.filing.contexts[fact.context_id]
    if not any(c.is_valid(fact.concept, context) for c in cubes):
        return "no 0117 check involves this fact: its dimensions are not valid in the statement table"
    return "no 0117 check involves this fact: no member facts on an axis 0117 checks, or not in the reporting period"


# -- registration ---------------------------------------------------------------------------------

def run(env: AuditEnvironment, resources) -> RuleResult:
    """The registry's entry point (the form is checked only with a data root)."""
    return rule_0117(env, data_root=resources.data_root)


def _register() -> None:
    from auditflow.rules.registry import AgentTool, Drawing, Need, RuleSpec, register
    from auditflow.rules.resources import FORM_LOOKUP

    register(RuleSpec(
        id=RULE, title="Financial statement tables dimensional cross check",
        messages={CODE_9574: MESSAGE_9574, CODE_10093: MESSAGE_10093},
        needs=frozenset({Need.DEI, Need.FACTS, Need.FILER_DEF, Need.FILER_CAL}), run=run, version=VERSION,
        form_lookup=FORM_LOOKUP, needs_data_root=False,
        agent_tool=AgentTool(
            "check_dim_consistency", "DQC 0117: do the members of a statement table's axis add up to this total?", 2,
            scope=scope, not_applicable=not_applicable_to, finding_reason="the members of {axis} add up to {gap}",
            conflict=("unresolved_dimensional_context", "the members of the table were read differently")),
        fix_hint=("The member facts on {axis} add up to {expected}, the total is {reported}. Correct the total or a "
                  "member's value, or tag an amount that is not part of this total with another member or concept."),
        drawing=Drawing.MEMBER_TABLE,
        not_applicable=("no total", "sub-total guard", "parenthetical guard", "notes guard", "no member facts",
                        "legal entity axis", "form not in scope", "no reporting period"),
    ))


_register()
