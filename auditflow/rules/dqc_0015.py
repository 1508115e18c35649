"""DQC.US.0015 — Negative values.

Rule (docs/rules/DQC_US_0015.md, from the XBRL US DQC rule): a non-nil numeric fact whose concept
is on the year's 0015 list N and whose value is < 0 is an error, unless it has dimensions and
  a. an explicit member's local name (lower-cased) contains a substring of S ("eliminat", ...), or
  b. an explicit member is in M, or
  c. an axis (explicit or typed) is in A, or is the filer's own ``IncomeTaxEffectChangeInLawAxis``, or
  d. the fact has an axis of AM with one of that axis's allowed members.
Each violating fact is reported once (exact duplicates collapse); code ``DQC.US.0015.<element id>``.

Only instance facts are needed: no linkbase or base taxonomy is consulted, which is why this rule
runs even on filings whose DTS could not be resolved.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Hashable

from auditflow.errors import AuditflowError, ResourceError
from auditflow.rules.agent import AgentView
from auditflow.rules.applicability import not_applicable_reason, rule_applies
from auditflow.rules.finding import (
    CheckRecord,
    Cite,
    EvidenceItem,
    Finding,
    Outcome,
    RuleResult,
    dec_display,
    cited,
    dims_text,
    render_message,
)
from auditflow.rules.resources import (
    DIR_0015,
    NonNegExclusions,
    NonNegList,
    available_0015_years,
    family_key,
    filing_taxonomy_year,
    load_0015_exclusions,
    load_0015_list,
    load_form_lookup,
    select_year,
)
from auditflow.xbrl.filing import Filing
from auditflow.xbrl.model import Context, Fact, Period
from auditflow.xbrl.qname import QName, standard_prefix

RULE = "0015"
CODE_PREFIX = "DQC.US.0015."
# Hard-coded in the DQC rule: the filer's own axis of this name excuses a negative value (4c).
EXTENSION_EXCLUDED_AXIS = "IncomeTaxEffectChangeInLawAxis"
TOLERANCE = Decimal(0)

MESSAGE = (
    "{concept} is reported as {value}{unit} for {period} {dimensions}. "
    "This concept should not be negative: enter a positive value and use a negated label "
    "if it should display as negative. ({code}, rule version: {version})"
)
VERSION = "DQC 0015 concept list {year}"


def rule_0015(filing: Filing, *, data_root: Path, year: int | None = None) -> RuleResult:
    """Run DQC.US.0015 on ``filing`` (see the module docstring for the rule).

    ``year`` forces the concept-list year; by default the filing's us-gaap (else srt) namespace
    year is used, or the nearest staged year with a warning saying so.

    :raises ResourceError: when the form lookup, the concept list or the exclusions are missing.
    """
    form_lookup = load_form_lookup(data_root)
    document_type = filing.document_type
    if not rule_applies(RULE, document_type, form_lookup):
        record = CheckRecord(RULE, Outcome.NOT_APPLICABLE, reason=not_applicable_reason(RULE, document_type))
        return RuleResult(RULE, checks=(record,))
    used_year, notes = _choose_year(filing, Path(data_root), year)
    checker = _Checker(filing, load_0015_list(data_root, used_year), load_0015_exclusions(data_root, used_year))
    for fact in filing.facts:
        checker.check(fact)
    return RuleResult(RULE, tuple(checker.findings), tuple(checker.checks), tuple(notes + checker.warnings))


def _choose_year(filing: Filing, data_root: Path, year: int | None) -> tuple[int, list[str]]:
    """The list year to use plus the notes that tell the user when it is not the filing's own year."""
    filing_year = filing_taxonomy_year(filing)
    if year is not None:
        if filing_year is not None and filing_year != year:
            return year, [f"DQC 0015 list for {year} used as requested; the filing's taxonomy year is {filing_year}"]
        return year, []
    available = available_0015_years(data_root)
    if not available:
        folder = Path(data_root) / DIR_0015
        raise ResourceError(
            f"no DQC 0015 concept list (non_neg_items_YYYY.csv) in {folder} (data root {data_root}). "
            "Point --data-root or AUDITFLOW_DATA_ROOT at a data root that contains them."
        )
    used, note = select_year(filing_year, available)
    return used, [note] if note else []


def excuse(context: Context, exclusions: NonNegExclusions) -> str | None:
    """Why a negative dimensional fact is not an error (rules 4a-4d), or None when nothing excuses it."""
    dims = context.dimensions
    explicit = [(a, m) for a, m in dims if isinstance(m, QName)]
    for _axis, member in explicit:
        if (sub := exclusions.matching_substring(member)) is not None:
            return f"excused by member {member} (its name contains '{sub}')"
    for _axis, member in explicit:
        if exclusions.member_excluded(member):
            return f"excused by member {member} (on the DQC 0015 member exclusion list)"
    for axis, _member in dims:
        if exclusions.axis_excluded(axis):
            return f"excused by axis {axis} (on the DQC 0015 axis exclusion list)"
        if axis.local == EXTENSION_EXCLUDED_AXIS and standard_prefix(axis.namespace) is None:
            return f"excused by the filer's axis {axis}"
    for axis, member in explicit:
        allowed = exclusions.allowed_members(axis)
        if allowed is not None and family_key(member) in allowed:
            return f"excused by member {member} (allowed on {axis})"
    return None


def period_text(period: Period) -> str:
    if period.forever:
        return "forever"
    if period.start is None:
        return period.end.isoformat()
    return f"{period.start.isoformat()} to {period.end.isoformat()}"


@dataclass
class _Checker:
    """One pass over a filing's facts; collects findings, check records and warnings in fact order."""

    filing: Filing
    nonneg: NonNegList
    exclusions: NonNegExclusions
    findings: list[Finding] = field(default_factory=list)
    checks: list[CheckRecord] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seen: dict[Hashable, Fact] = field(default_factory=dict)  # duplicate key -> first such fact
    unit_texts: dict[str, str] = field(default_factory=dict)  # unit id -> display text
    content_numbers: dict[Hashable, int] = field(default_factory=dict)  # see duplicate_key

    def record(self, fact: Fact, outcome: Outcome, reason: str, **detail) -> None:
        self.checks.append(CheckRecord(RULE, outcome, fact.concept, fact.key, fact.context_id, reason, **detail))

    def passed(self, fact: Fact, value: Decimal, reason: str) -> None:
        """A consistent check: its evidence is the fact itself, expected its own value (docs/rules/DQC_US_0015.md)."""
        item = EvidenceItem(fact.concept, fact.key, value, context_id=fact.context_id, note="the checked fact")
        self.record(fact, Outcome.CONSISTENT, reason, evidence=(item,), expected=value, tolerance=Decimal(0))

    def check(self, fact: Fact) -> None:
        """Classify one fact; facts outside the rule (nil, non-numeric, unlisted) leave no record."""
        if fact.is_nil or fact.value is None or fact.unit_id is None:
            return
        element_id = self.nonneg.element_id(fact.concept)
        if element_id is None:
            return
        context = self.filing.contexts.get(fact.context_id)
        if context is None:
            self.warnings.append(f"fact {fact.key} ({fact.concept}) refers to missing context {fact.context_id!r}; skipped")
            self.record(fact, Outcome.NOT_APPLICABLE, f"missing data: context {fact.context_id!r} not found")
            return
        value = fact.number
        if value is None:
            self.warnings.append(f"fact {fact.key} ({fact.concept}) has a non-numeric value {fact.value!r}; skipped")
            self.record(fact, Outcome.NOT_APPLICABLE, "missing data: the value is not a number")
            return
        first = self.seen.setdefault(self.duplicate_key(fact, context, value), fact)
        if first is not fact:
            self.checks.append(CheckRecord(RULE, Outcome.NOT_APPLICABLE, fact.concept, fact.key, fact.context_id,
                                           **cited("exact duplicate of fact ", Cite(first.key), "; evaluated once")))
            return
        self.judge(fact, context, value, element_id)

    def judge(self, fact: Fact, context: Context, value: Decimal, element_id: str) -> None:
        if value >= 0:
            self.passed(fact, value, "not negative")
            return
        reason = excuse(context, self.exclusions) if context.dimensions else None
        if reason is not None:
            self.passed(fact, value, reason)
            return
        self.record(fact, Outcome.VIOLATION, "negative value of a concept on the DQC 0015 list")
        self.findings.append(self.finding(fact, context, value, element_id))

    def duplicate_key(self, fact: Fact, context: Context, value: Decimal) -> Hashable:
        """Concept, context *content* (entity, period, dimensions), unit measures and value.

        Contexts and units are compared by content, not id, because duplicate facts in real filings
        often sit in copies of the same context with different ids.
        """
        # The context's and the unit's content as numbers, one per distinct content and each worked out
        # once per id: the key hashes two ints instead of a period and every dimension's QNames per
        # fact (issue 21); equal contents get equal numbers, so the key's equality is unchanged.
        numbers = self.content_numbers
        c = numbers.get(("context", fact.context_id))
        if c is None:
            content = ("c", context.entity_scheme, context.entity_id, context.period, context.dimensions)
            c = numbers[("context", fact.context_id)] = numbers.setdefault(content, len(numbers))
        u = numbers.get(("unit", fact.unit_id))
        if u is None:
            unit = self.filing.units.get(fact.unit_id or "")
            content = ("u", unit.numerators, unit.denominators) if unit is not None else ("id", fact.unit_id)
            u = numbers[("unit", fact.unit_id)] = numbers.setdefault(content, len(numbers))
        return (fact.concept, c, u, value)

    def unit_text(self, fact: Fact) -> str:
        """The unit as a reader writes it (``USD``, ``USD/shares``); an undefined unit warns once."""
        uid = fact.unit_id or ""
        if uid not in self.unit_texts:
            unit = self.filing.units.get(uid)
            if unit is None:
                self.warnings.append(f"unit {uid!r} used by fact {fact.key} is not defined; shown by its id")
            self.unit_texts[uid] = str(unit) if unit is not None else uid
        return self.unit_texts[uid]

    def finding(self, fact: Fact, context: Context, value: Decimal, element_id: str) -> Finding:
        code = CODE_PREFIX + element_id
        unit = self.unit_text(fact)
        dims = dims_text(context.dimensions)
        message = render_message(
            MESSAGE,
            concept=fact.concept.local,
            value=dec_display(value),
            unit=f" {unit}" if unit else "",
            period=period_text(context.period),
            dimensions=f"with dimensions {dims}" if dims else "with no dimensions",
            code=code,
            version=VERSION.format(year=self.nonneg.year),
        )
        evidence = EvidenceItem(
            concept=fact.concept,
            fact_id=fact.key,
            value=value,
            context_id=fact.context_id,
            decimals=fact.decimals,
            dimensions=context.dimensions,
            note="the negative fact; no dimension excuses it" if dims else "the negative fact",
        )
        return Finding(
            code=code, rule=RULE, concept=fact.concept, fact_id=fact.key, context_id=fact.context_id,
            period=context.period, dimensions=context.dimensions, unit=unit, decimals=fact.decimals,
            reported=value, expected=abs(value), tolerance=TOLERANCE, message=message, evidence=(evidence,),
        )


# -- as the auditors are told (auditflow.rules.agent) ----------------------------------------------

def nonneg_list(view: AgentView) -> tuple[NonNegList | None, str]:
    """The concept list for the filing's year (as the rule picks it), or None and why not."""
    if view.data_root is None:
        return None, "no data root: the DQC 0015 list is unavailable"
    root = view.data_root

    def build() -> tuple[NonNegList | None, str]:
        try:
            year, note = select_year(filing_taxonomy_year(view.env.filing), available_0015_years(root))
            return load_0015_list(root, year), note or ""
        except (AuditflowError, ValueError) as exc:
            return None, f"the DQC 0015 list is unavailable: {exc}"

    return view.memo(("nonneg", str(root)), build)


def scope(view: AgentView, q: QName) -> str:
    listed, why = nonneg_list(view)
    if listed is None:
        return f"unknown: {why}"
    eid = listed.element_id(q)
    if eid is None:
        return f"not on the DQC 0015 non-negative list ({listed.year})"
    return f"on the DQC 0015 non-negative list ({listed.year}): must not be negative (DQC.US.0015.{eid})"


def not_applicable_to(view: AgentView, fact: Fact) -> str:
    listed, why = nonneg_list(view)
    concept = view.qstr(fact.concept)
    if listed is not None and listed.element_id(fact.concept) is None:
        return f"no 0015 check involves this fact: {concept} is not on the DQC 0015 non-negative list"
    return f"no 0015 check involves this fact{': ' + why if listed is None else ''}"


# -- registration ---------------------------------------------------------------------------------

def run(env, resources) -> RuleResult:
    """The registry's entry point: without a data root the concept list is unavailable, and the result
    says so instead of pretending the filing passed."""
    if resources.data_root is None:
        return RuleResult(RULE, checks=(CheckRecord(RULE, Outcome.NOT_APPLICABLE, reason="no data root: the DQC 0015 concept list is unavailable"),),
                          warnings=("DQC 0015 not run: its concept list lives in the data root; pass --data-root or set AUDITFLOW_DATA_ROOT",))
    return rule_0015(env.filing, data_root=resources.data_root)


def _register() -> None:
    from auditflow.rules.registry import AgentTool, Drawing, Need, RuleSpec, register
    from auditflow.rules.resources import FORM_LOOKUP

    register(RuleSpec(
        id=RULE, title="Negative values", messages={CODE_PREFIX + "<element id>": MESSAGE},
        needs=frozenset({Need.FACTS, Need.RESOURCES}), run=run, version="DQC 0015 concept lists 2023-2025",
        resources=(DIR_0015,), form_lookup=FORM_LOOKUP,
        agent_tool=AgentTool(
            "check_sign", "DQC 0015: is this fact negative although its concept must not be?", 0,
            scope=scope, not_applicable=not_applicable_to,
            finding_reason="negative value of a concept on the DQC 0015 list; expected is the value without its sign"),
        fix_hint=("Enter {concept} as the positive amount {expected}. If the statement shows it in brackets, "
                  "keep the brackets with a negated label, not with a minus sign on the fact."),
        drawing=Drawing.SIGN,
        not_applicable=("form not in scope", "missing data", "exact duplicate", "no data root"),
    ))


_register()
