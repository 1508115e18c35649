"""Deterministic mutations of a loaded filing, and finders for mutations the checkers must catch.

An audit case proves a checker works by injecting a known error into a real filing and asserting
that exactly one new finding appears. This module is the typed core of that ``inject:`` step:

* :class:`Mutation` + :func:`apply_mutation` change one fact (``set_value``, ``flip_sign``,
  ``remove``) and return a NEW :class:`Filing`; the input is never touched, because loaded filings
  are shared between tools and cached (see :mod:`auditflow.xbrl.model`).
* :func:`sign_flip_targets`, :func:`calc_total_targets` and :func:`member_targets` find, in a real
  filing, mutations whose effect is known in advance: one :class:`MutationTarget` each, carrying the
  code, focus fact and values of the single finding the checkers should then add. Their ``iter_``
  forms (plus 0117 totals, 0126 children and removed 0117 totals, :class:`RemovalTarget`) yield
  lazily, in an order shuffled by a seeded ``rng``, so a case generator screens only what it keeps.

**Exact duplicates are mutated together.** A fact reported twice (same concept, context content,
unit and value: aapl 2023 shows year-end cash on the balance sheet and the cash-flow statement) is
one number to a reader and to the rules, which keep one fact per duplicate set. Mutating one copy
would leave an *inconsistent duplicate*: depending on which copy a rule keeps, it would see the old
value, the new one, or report the inconsistency, instead of the injected error. So every exact
duplicate of the named fact receives the same mutation, and ``Filing.duplicates`` is recomputed. Duplicates that
differ in value (e.g. the same number rounded differently) are separate facts and stay untouched.
"""
from __future__ import annotations

import difflib
import random
from collections import Counter
from dataclasses import dataclass, fields, replace
from decimal import Decimal
from itertools import islice
from pathlib import Path
from typing import Iterable, Iterator, Literal, get_args

from auditflow.errors import AuditflowError
from auditflow.graphs.environment import AuditEnvironment, build_environment
from auditflow.rules.dqc_0015 import CODE_PREFIX as CODE_0015_PREFIX
from auditflow.rules.dqc_0015 import rule_0015
from auditflow.rules.dqc_0117 import AXES_IN_SCOPE, CODE_9574, rule_0117
from auditflow.rules.dqc_0126 import CODE as CODE_0126
from auditflow.rules.dqc_0126 import rule_0126
from auditflow.rules.finding import CheckRecord, Finding, Outcome
from auditflow.rules.resources import (
    NonNegList, available_0015_years, filing_taxonomy_year, load_0015_list, select_year,
)
from auditflow.rules.statements import decimals_value
from auditflow.xbrl.duplicates import fact_alignment_key, find_duplicates
from auditflow.xbrl.filing import Filing
from auditflow.xbrl.loader import plain_decimal
from auditflow.xbrl.model import SUMMATION_ITEMS, Fact
from auditflow.xbrl.numbers import MAX_EXPONENT, number_problem, short

MutationKind = Literal["set_value", "flip_sign", "remove"]
KINDS: tuple[str, ...] = get_args(MutationKind)
MAX_MATCHES = 5
# A perturbation of this many units of the fact's last reported digit (10^-decimals) is far outside
# both tolerances (0126: (children + 1) * 10^-t; 0117: 2 * 10^-t), so a consistent check must fail.
PERTURBATION_STEPS = Decimal(1_000_000)


class MutationError(AuditflowError):
    """A mutation cannot be applied: unknown fact, wrong kind of fact, or a malformed mutation."""

    def __init__(self, message: str, *, fact: str | None = None, close_matches: Iterable[str] = ()) -> None:
        self.fact = fact
        self.close_matches = tuple(close_matches)
        if fact is not None:
            hint = ", ".join(self.close_matches) if self.close_matches else "none"
            message += f" Close matches among the fact keys: {hint}."
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class Mutation:
    """One change to one fact, named by its ``Fact.key`` (the fact id, or ``#<document position>``).

    ``value`` is required by ``set_value`` and refused by the other kinds, so that a YAML case with a
    stray or missing value fails loudly instead of doing something else than its author meant.
    Integers and decimal strings are accepted and turned into Decimal; floats are refused because
    they cannot carry an exact reported value.
    """

    kind: MutationKind
    fact: str
    value: Decimal | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.fact, str) or not self.fact:
            raise MutationError(f"a mutation names its fact by Fact.key (a non-empty string), got {self.fact!r}.")
        if self.kind not in KINDS:
            raise MutationError(f"unknown mutation kind {self.kind!r}; choose from {', '.join(KINDS)}.")
        if self.kind != "set_value":
            if self.value is not None:
                raise MutationError(f"{self.kind} of fact {self.fact!r} takes no value (got {self.value!r}).")
            return
        object.__setattr__(self, "value", _as_decimal(self.value, self.fact))


def _as_decimal(value: object, fact: str) -> Decimal:
    """The exact decimal a set_value mutation writes; anything inexact or non-finite is refused."""
    if isinstance(value, bool) or not isinstance(value, (Decimal, int, str)):
        raise MutationError(
            f"set_value of fact {fact!r} needs a Decimal, int or decimal string, got {value!r} "
            f"({type(value).__name__}); quote numbers in YAML to keep them exact.")
    try:
        number = Decimal(value.strip() if isinstance(value, str) else value)
    except ArithmeticError:
        raise MutationError(f"set_value of fact {fact!r}: {short(str(value))} is not a decimal number.") from None
    if (problem := number_problem(number)) is not None:  # NaN, INF, or 1e999999999 that would print as a billion digits
        raise MutationError(f"set_value of fact {fact!r}: {short(str(value))} is not a finite number "
                            f"within range ({problem}); |exponent| must be at most {MAX_EXPONENT}.")
    return number


# -- applying mutations ---------------------------------------------------------------------------

def apply_mutation(filing: Filing, mutation: Mutation) -> Filing:
    """A new Filing with ``mutation`` applied to the named fact and all its exact duplicates.

    The input filing, its facts and its containers are left as they were; the copy gets its own
    (shallow-copied) lists and dicts, so a later change to either cannot leak into the other.

    :raises MutationError: the fact does not exist, or a value change targets a nil, non-numeric or
        non-number fact; the message names the fact and up to 5 close matches.
    """
    target = _find_fact(filing, mutation)
    group = exact_duplicates(filing, target)
    keys = {f.key for f in group}
    if mutation.kind == "remove":
        facts = [f for f in filing.facts if f.key not in keys]
    else:
        new_value = plain_decimal(mutation.value if mutation.kind == "set_value" else -target.number)
        facts = [replace(f, value=new_value) if f.key in keys else f for f in filing.facts]
    copies = {fl.name: _copy(getattr(filing, fl.name)) for fl in fields(filing)}
    mutated = replace(filing, **{**copies, "facts": facts})
    mutated.duplicates = find_duplicates(mutated)
    return mutated


def apply_mutations(filing: Filing, mutations: Iterable[Mutation]) -> Filing:
    """Apply mutations in order (an audit case may inject several); each sees the previous result."""
    for m in mutations:
        filing = apply_mutation(filing, m)
    return filing


def _copy(value):
    """A shallow copy of a Filing container, so the mutated filing owns its lists and dicts."""
    return list(value) if isinstance(value, list) else dict(value) if isinstance(value, dict) else value


def _find_fact(filing: Filing, mutation: Mutation) -> Fact:
    """The fact the mutation names, checked against what the mutation needs."""
    needs_number = mutation.kind != "remove"
    fact = filing.fact_by_key(mutation.fact)
    if fact is None:
        raise MutationError(
            f"{mutation.kind}: no fact with key {mutation.fact!r} in {filing.name}.", fact=mutation.fact,
            close_matches=_close_matches(filing, mutation.fact, needs_number))
    if needs_number and (fact.is_nil or not fact.is_numeric or fact.number is None):
        what = "nil" if fact.is_nil else "not numeric" if not fact.is_numeric else f"not a number ({fact.value!r})"
        raise MutationError(
            f"{mutation.kind}: fact {mutation.fact!r} ({fact.concept}) is {what}; only a numeric, non-nil fact "
            "can take a value (use remove to drop it).", fact=mutation.fact,
            close_matches=_close_matches(filing, mutation.fact, needs_number))
    return fact


def _close_matches(filing: Filing, key: str, numeric_only: bool) -> list[str]:
    """Up to 5 keys like ``key`` among the facts the mutation could have meant (difflib ratio)."""
    keys = [f.key for f in filing.facts if not numeric_only or f.number is not None]
    return difflib.get_close_matches(key, keys, n=MAX_MATCHES, cutoff=0.6)


def exact_duplicates(filing: Filing, fact: Fact) -> list[Fact]:
    """``fact`` and every fact with the same concept, context content, unit and value, in document order.

    Values compare as numbers for numeric facts ("1000" == "1000.0") and as text otherwise.
    """
    def key(f: Fact) -> tuple:
        value = f.number if f.number is not None else f.value
        return (*fact_alignment_key(filing, f), f.is_nil, value)

    wanted = key(fact)
    return [f for f in filing.facts if f is fact or (f.concept == fact.concept and key(f) == wanted)]


# -- finding mutation targets ---------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class MutationTarget:
    """A mutation and the one finding the checkers should add because of it.

    ``focus`` is the ``Fact.key`` the finding is about: the mutated fact for 0015 and 0126, the
    un-dimensioned total for 0117 (the member changed, the total did not). ``reported`` and
    ``expected`` are the finding's values.
    """

    mutation: Mutation
    code: str
    focus: str
    reported: Decimal
    expected: Decimal

    @property
    def rule(self) -> str:
        """The rule family ("0015", "0117", "0126"), for grouping targets the way reports do."""
        return self.code.split(".")[2]


MAX_STEP_DIGITS = 20  # no real amount is reported to more than this many decimal places (or rounded beyond)


def perturbation(fact: Fact) -> Decimal:
    """PERTURBATION_STEPS units of the fact's last digit, signed so that the magnitude grows.

    Growing the magnitude keeps the sign, so DQC 0015, which judges the sign only, neither gains nor
    loses a finding (a negative fact it already reports would show the new value: the finders'
    screens account for that).
    """
    d = decimals_value(fact.decimals)
    if d is not None:
        d = max(-MAX_STEP_DIGITS, min(d, MAX_STEP_DIGITS))  # a filing's decimals="122" must not make a 1E-122 step
    step = PERTURBATION_STEPS.scaleb(-d) if d is not None else PERTURBATION_STEPS
    return -step if fact.number is not None and fact.number < 0 else step


def perturb(fact: Fact) -> Mutation:
    """The set_value mutation that moves ``fact`` by :func:`perturbation`."""
    if fact.number is None:
        raise MutationError(f"perturb: fact {fact.key!r} ({fact.concept}) has no numeric value.")
    return Mutation("set_value", fact.key, fact.number + perturbation(fact))


def finding_signature(finding: Finding) -> tuple:
    """What identifies a finding when comparing runs: code, concept, focus fact, context, values."""
    j = finding.to_json()
    return (j["code"], j["concept"], j["fact_id"], j["context"], j["reported"], j["expected"])


def sign_flip_targets(env: AuditEnvironment, data_root: Path, *, limit: int | None = None,
                      rng: random.Random | None = None) -> list[MutationTarget]:
    """Flips that DQC 0015 must report: positive, non-dimensional facts it checked and passed.

    Only facts whose concept is in no calculation relationship and is no primary item of any cube
    are taken: 0117 and 0126 cannot see those, so the flip adds exactly one finding
    ``DQC.US.0015.<element id>`` (reported -v, expected v) to the whole report. Exact duplicates
    are reported once by 0015, on the first copy, which is the one it records as checked.
    ``rng`` shuffles the candidates (seeded sampling, as for every finder here).
    """
    return list(islice(iter_sign_flip_targets(env, data_root, rng=rng), limit))


def iter_sign_flip_targets(env: AuditEnvironment, data_root: Path, *,
                           rng: random.Random | None = None) -> Iterator[MutationTarget]:
    """:func:`sign_flip_targets`, one at a time."""
    filing = env.filing
    result = rule_0015(filing, data_root=data_root)
    nonneg = _nonneg_list(filing, Path(data_root))
    linked = _linkbase_concepts(env)
    facts = {f.key: f for f in filing.facts}
    for key in _ordered(_consistent_keys(result.checks), rng):
        fact = facts[key]
        if filing.contexts[fact.context_id].dimensions or fact.concept in linked or not fact.number > 0:
            continue
        code = CODE_0015_PREFIX + nonneg.element_id(fact.concept)
        yield MutationTarget(Mutation("flip_sign", key), code, key, -fact.number, fact.number)


def calc_total_targets(env: AuditEnvironment, *, limit: int | None = None, data_root: Path | None = None,
                       rng: random.Random | None = None) -> list[MutationTarget]:
    """Perturbed totals that DQC 0126 must report: totals it checked and found consistent.

    A total can also be a calculation child of another total, or a 0117 total; perturbing it would
    then add more than one finding. So each candidate is screened: the mutated filing is checked
    again and kept only when exactly one finding appears (code 9590 on that total, reported = the
    new value) and none disappears; its ``expected`` (the children's weighted sum, which the
    mutation did not touch) is recorded from that run. The screen runs 0015 too when ``data_root``
    is given; without it negative totals are skipped, since 0015 may already report one and its
    finding would move with the value.
    """
    return list(islice(iter_total_targets(env, "0126", data_root=data_root, rng=rng), limit))


def iter_total_targets(env: AuditEnvironment, rule: str, *, data_root: Path | None = None,
                       rng: random.Random | None = None) -> Iterator[MutationTarget]:
    """Perturbed totals of consistent ``rule`` checks ("0126", or "0117" for 9574 totals), screened.

    For 0126 see :func:`calc_total_targets`. For 0117 the candidates are the un-dimensioned totals
    of consistent 9574 checks (a perturbed total no longer equals its unchanged member sum, the
    expected value); 10093 totals carry a member and are left out.
    """
    code = {"0126": CODE_0126, "0117": CODE_9574}[rule]
    checks = rule_0126(env).checks if rule == "0126" else rule_0117(env).checks
    facts = {f.key: f for f in env.filing.facts}
    screen = _Screen(env, data_root)
    for key in _ordered(_consistent_keys(checks), rng):
        total = facts[key]
        if data_root is None and total.number < 0:
            continue
        if rule == "0117" and env.filing.contexts[total.context_id].dimensions:
            continue
        mutation = perturb(total)
        found = screen.single_new(mutation)
        if found is None or (found.code, found.fact_id, found.reported) != (code, key, mutation.value):
            continue
        yield MutationTarget(mutation, code, key, mutation.value, found.expected)


def member_targets(env: AuditEnvironment, *, limit: int | None = None, data_root: Path | None = None,
                   rng: random.Random | None = None) -> list[MutationTarget]:
    """Perturbed members that DQC 0117 must report (9574): members of totals it found consistent.

    Check records name the total but not the members summed, so candidates are re-derived: facts of
    the total's concept, period, unit and entity with a single in-scope axis. Each is screened like
    :func:`calc_total_targets`; it is kept when exactly one finding appears, 9574 on the total, with
    the perturbed member among the facts summed (so a member pruned under a reported subtotal, or
    one that is itself a 10093 total, drops out). ``expected`` is that run's member sum. Negative
    members are handled as negative totals in :func:`calc_total_targets` (``data_root``).
    """
    return list(islice(iter_member_targets(env, data_root=data_root, rng=rng), limit))


def iter_member_targets(env: AuditEnvironment, *, data_root: Path | None = None,
                        rng: random.Random | None = None) -> Iterator[MutationTarget]:
    """:func:`member_targets`, one at a time."""
    facts = {f.key: f for f in env.filing.facts}
    screen = _Screen(env, data_root)
    tried: set[str] = set()
    for key in _ordered(_consistent_keys(rule_0117(env).checks), rng):
        total = facts[key]
        if env.filing.contexts[total.context_id].dimensions:
            continue  # a 10093 total (first-axis member), not a 9574 one
        for member in _ordered(_member_candidates(env, total, allow_negative=data_root is not None), rng):
            if member.key in tried:
                continue
            tried.update(f.key for f in exact_duplicates(env.filing, member))  # the same mutation
            mutation = perturb(member)
            found = screen.single_new(mutation)
            if found is None or (found.code, found.fact_id) != (CODE_9574, key):
                continue
            if member.key not in {e.fact_id for e in found.evidence}:
                continue
            yield MutationTarget(mutation, CODE_9574, key, total.number, found.expected)


def iter_child_targets(env: AuditEnvironment, *, data_root: Path | None = None,
                       rng: random.Random | None = None) -> Iterator[MutationTarget]:
    """Perturbed calculation children that DQC 0126 must report on their (consistent) total.

    The children are re-derived like 0117 members: non-dimensional facts of the total's calculation
    children with its entity, period and unit. Each is screened; it is kept when exactly one finding
    appears, 9590 on the total (reported = the unchanged total), with the child among the facts
    summed. A child that is a checked total itself, or a 0117 member, adds a second finding and
    drops out. ``expected`` is that run's weighted sum.
    """
    facts = {f.key: f for f in env.filing.facts}
    screen = _Screen(env, data_root)
    tried: set[str] = set()
    for key in _ordered(_consistent_keys(rule_0126(env).checks), rng):
        total = facts[key]
        for child in _ordered(_child_candidates(env, total, allow_negative=data_root is not None), rng):
            if child.key in tried:
                continue
            tried.update(f.key for f in exact_duplicates(env.filing, child))
            mutation = perturb(child)
            found = screen.single_new(mutation)
            if found is None or (found.code, found.fact_id, found.reported) != (CODE_0126, key, total.number):
                continue
            if child.key not in {e.fact_id for e in found.evidence}:
                continue
            yield MutationTarget(mutation, CODE_0126, key, total.number, found.expected)


@dataclass(frozen=True, slots=True)
class RemovalTarget:
    """A removed 0117 total and the member fact that 0117 then reports as "no total" (``focus``).

    The removal adds and removes no finding (screened), so the member, which the consistent check
    used to sum, is now a fact no 0117 check can verify.
    """

    mutation: Mutation
    focus: str


def iter_total_removals(env: AuditEnvironment, *, data_root: Path | None = None,
                        rng: random.Random | None = None) -> Iterator[RemovalTarget]:
    """Removed totals of consistent 9574 checks whose removal changes no finding of the filing.

    ``focus`` is the fact 0117 names in its "no total" record after the removal (the first member in
    document order): the case audits that member, which has lost the total it was checked against.
    """
    facts = {f.key: f for f in env.filing.facts}
    screen = _Screen(env, data_root)
    for key in _ordered(_consistent_keys(rule_0117(env).checks), rng):
        total = facts[key]
        if env.filing.contexts[total.context_id].dimensions:
            continue
        mutation = Mutation("remove", key)
        mutated = screen.unchanged(mutation)
        if mutated is None:
            continue
        focus = _no_total_focus(mutated, total)
        if focus is not None:
            yield RemovalTarget(mutation, focus)


def _no_total_focus(env: AuditEnvironment, total: Fact) -> str | None:
    """The member fact of a "no total" 0117 record for ``total``'s concept and period, if any."""
    period = env.filing.contexts[total.context_id].period
    for c in rule_0117(env).checks:
        if c.outcome is Outcome.NOT_APPLICABLE and c.concept == total.concept and c.reason.startswith("no total:") \
                and c.fact_id is not None and env.filing.contexts[c.context_id].period == period:
            return c.fact_id
    return None


def _ordered(items: Iterable, rng: random.Random | None) -> list:
    """``items`` in their own order, or shuffled by ``rng`` (seeded sampling among the candidates)."""
    out = list(items)
    if rng is not None:
        rng.shuffle(out)
    return out


def _consistent_keys(checks: Iterable[CheckRecord]) -> list[str]:
    """Fact keys of the checks that ran and passed, once each, in the rule's own (deterministic) order."""
    return list(dict.fromkeys(c.fact_id for c in checks if c.outcome is Outcome.CONSISTENT and c.fact_id))


def _nonneg_list(filing: Filing, data_root: Path) -> NonNegList:
    """The 0015 concept list rule_0015 uses for this filing (same year choice, see dqc_0015)."""
    year, _note = select_year(filing_taxonomy_year(filing), available_0015_years(data_root))
    return load_0015_list(data_root, year)


def _linkbase_concepts(env: AuditEnvironment) -> set:
    """Concepts 0117/0126 can look at: calculation sources/targets and primary items of any cube."""
    out = {q for a in env.filing.arcs if a.arcrole in SUMMATION_ITEMS for q in (a.source, a.target)}
    out.update(q for cube in env.dims.cubes for q in cube.primary_items)
    return out


def _member_candidates(env: AuditEnvironment, total: Fact, *, allow_negative: bool) -> list[Fact]:
    """Facts aligned with ``total`` (concept, entity, period, unit) with one in-scope axis."""
    filing = env.filing
    want = fact_alignment_key(filing, total)
    out = []
    for f in env.index.by_concept.get(total.concept, []):
        if f.is_nil or f.number is None or (f.number < 0 and not allow_negative):
            continue
        key = fact_alignment_key(filing, f)
        dims = key[4]
        if key[:4] == want[:4] and key[5] == want[5] and len(dims) == 1 and dims[0][0].local in AXES_IN_SCOPE:
            out.append(f)
    return out


def _child_candidates(env: AuditEnvironment, total: Fact, *, allow_negative: bool) -> list[Fact]:
    """Non-dimensional facts of ``total``'s calculation children aligned with it (entity, period, unit)."""
    filing = env.filing
    want = fact_alignment_key(filing, total)
    children = sorted({a.target for a in filing.arcs if a.arcrole in SUMMATION_ITEMS and a.source == total.concept},
                      key=lambda q: q.clark())
    out = []
    for concept in children:
        for f in env.index.by_concept.get(concept, []):
            if f.is_nil or f.number is None or (f.number < 0 and not allow_negative):
                continue
            key = fact_alignment_key(filing, f)
            if key[1:] == want[1:]:
                out.append(f)
    return out


class _Screen:
    """Checks a candidate mutation against the unmutated run: 0117 and 0126, plus 0015 with a data root."""

    def __init__(self, env: AuditEnvironment, data_root: Path | None) -> None:
        self.env, self.data_root = env, data_root
        self.before = Counter(finding_signature(f) for f in self.findings(env))

    def findings(self, env: AuditEnvironment) -> list[Finding]:
        """Every finding the screened rules report; 0015 needs the data root's concept list."""
        found = _linkbase_findings(env)
        return found + list(rule_0015(env.filing, data_root=self.data_root).findings) if self.data_root else found

    def single_new(self, mutation: Mutation) -> Finding | None:
        """The one finding the mutation adds, or None if it adds several, none, or removes any."""
        mutated = build_environment(apply_mutation(self.env.filing, mutation), taxonomy=self.env.taxonomy)
        after = self.findings(mutated)
        counts = Counter(finding_signature(f) for f in after)
        added, removed = counts - self.before, self.before - counts
        if sum(added.values()) != 1 or removed:
            return None
        return next(f for f in after if finding_signature(f) in added)

    def unchanged(self, mutation: Mutation) -> AuditEnvironment | None:
        """The mutated environment when the mutation adds and removes no finding, else None."""
        mutated = build_environment(apply_mutation(self.env.filing, mutation), taxonomy=self.env.taxonomy)
        counts = Counter(finding_signature(f) for f in self.findings(mutated))
        return mutated if counts == self.before else None


def _linkbase_findings(env: AuditEnvironment) -> list[Finding]:
    return [*rule_0117(env).findings, *rule_0126(env).findings]
