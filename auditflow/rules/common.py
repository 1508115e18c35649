"""What the registered DQC rules beyond 0015/0117/0126 share: the form gate, fact helpers, decimals
tolerance and one collector that turns structured violations into findings.

A violation is recorded as a code plus named arguments; its message is rendered from the rule's
registered template (:meth:`auditflow.rules.registry.RuleSpec.template`) when the result is built,
so a rule's wording lives in one place and tests can compare arguments instead of prose.
Every finding message ends with DQC's "properties of this fact" block (period, dimensions, unit,
rule version). Rule specifications: docs/rules/DQC_US_NNNN.md.
"""
from __future__ import annotations

import builtins
import datetime as dt
import hashlib
import os
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from auditflow.errors import ResourceError
from auditflow.rules.applicability import rule_applies
from auditflow.rules.finding import (
    CheckRecord, EvidenceItem, Finding, Outcome, RuleResult, dec_display, dims_text, render_message,
)
from auditflow.rules.resources import Resources, family_key
from auditflow.rules.statements import round_decimals
from auditflow.xbrl.model import INF, Context, Fact, Period
from auditflow.xbrl.numbers import power_of_ten
from auditflow.xbrl.qname import QName, standard_prefix

if TYPE_CHECKING:
    from auditflow.graphs.environment import AuditEnvironment
    from auditflow.rules.registry import RuleSpec

DEI_PREFIX = "http://xbrl.sec.gov/dei/"
US_GAAP = "http://fasb.org/us-gaap"
SRT = "http://fasb.org/srt"
# $REPORT_TYPE_EXCLUSIONS of the DQC constants: registration statements some rules skip.
REPORT_TYPE_EXCLUSIONS = frozenset({
    "S-1", "S-3", "S-4", "S-6", "S-8", "S-11", "S-20", "S-1/A", "S-3/A", "S-4/A", "S-6/A", "S-8/A", "S-11/A",
    "S-20/A", "F-1", "F-3", "10-12G", "10-12G/A",
})
NO_ELEMENT_PROPERTIES = (
    "element properties of standard concepts are unavailable (our US-GAAP copy has no element schema, "
    "see docs/rules/README.md): {what}"
)


def not_applicable(rule: str, reason: str, warning: str | None = None) -> RuleResult:
    """A result for a rule that did not look at the filing at all, and why."""
    return RuleResult(rule, checks=(CheckRecord(rule, Outcome.NOT_APPLICABLE, reason=reason),),
                      warnings=(warning,) if warning else ())


def gate(spec: "RuleSpec", env: "AuditEnvironment", res: Resources) -> RuleResult | None:
    """None when the rule runs on this filing; else the not-applicable result that says why.

    The form test is DQC's ``applicable_form()``: the rule runs when the filing has no
    dei:DocumentType, when the lookup has no row for the rule, or when the type is listed.
    """
    if res.data_root is None:
        if not spec.needs_data_root:
            return None
        return not_applicable(spec.id, f"no data root: DQC {spec.id} needs {spec.form_lookup} and its lists",
                              f"DQC {spec.id} not run: it needs the data root; pass --data-root or set AUDITFLOW_DATA_ROOT")
    try:
        lookup = res.form_lookup(spec.form_lookup)
    except ResourceError as exc:
        return not_applicable(spec.id, f"the rule could not run: {exc}", f"DQC {spec.id} not run: {exc}")
    doc_type = env.filing.document_type
    if spec.id in lookup and not rule_applies(spec.id, doc_type, lookup):
        shown = (doc_type or "").strip()
        return not_applicable(spec.id, f"out of scope: document type {shown!r} is not in the DQC rule-form lookup for {spec.id}")
    return None


# -- facts ------------------------------------------------------------------------------------------

def is_dei(q: QName) -> bool:
    return q.namespace.startswith(DEI_PREFIX)


def in_family(q: QName, family: str) -> bool:
    return family_key(q)[0] == family


def base_concept(q: QName) -> bool:
    """A concept of a standard taxonomy (us-gaap, srt, dei, ...), not the filer's extension."""
    return standard_prefix(q.namespace) is not None


def facts_named(env: "AuditEnvironment", local: str, family: str | None = US_GAAP) -> list[Fact]:
    """Facts of the concept with this local name (in the namespace family, any year), document order."""
    out: list[Fact] = []
    for q, facts in env.index.by_concept.items():
        if q.local == local and (family is None or in_family(q, family)):
            out.extend(facts)
    return sorted(out, key=lambda f: f.index)


def dei_facts(env: "AuditEnvironment", local: str) -> list[Fact]:
    return [f for f in facts_named(env, local, None) if is_dei(f.concept)]


def document_period_context(env: "AuditEnvironment") -> tuple[Fact | None, Context | None]:
    """The first dei:DocumentPeriodEndDate fact and its context (None, None when there is none, or its
    context is missing or has no end): what the rules that are relative to the reporting period read."""
    dped = dei_facts(env, "DocumentPeriodEndDate")
    ctx = env.filing.contexts.get(dped[0].context_id) if dped else None
    if ctx is None or ctx.period.end is None:
        return (dped[0] if dped else None), None
    return dped[0], ctx


def context(env: "AuditEnvironment", f: Fact) -> Context | None:
    return env.filing.contexts.get(f.context_id)


def parse_date(text: str | None) -> dt.date | None:
    """An ISO date (``2023-09-30``, also with a time part); None when it is not one."""
    if not text:
        return None
    try:
        return dt.date.fromisoformat(text.strip()[:10])
    except ValueError:
        return None


def decimals_int(d) -> int | None:
    """Decimals as an int; INF and missing give None (= +infinity)."""
    if d is None or d == INF or (isinstance(d, str) and d.strip().upper() == INF):
        return None
    try:
        return int(d)
    except (TypeError, ValueError):
        return None


def min_decimals(facts: Iterable[Fact | None], cap: int | None = None) -> int | None:
    """The smallest finite decimals of ``facts`` (capped at ``cap``); None when all are INF/missing."""
    finite = [d for d in (decimals_int(f.decimals) for f in facts if f is not None) if d is not None]
    if not finite:
        return cap
    low = min(finite)
    return min(low, cap) if cap is not None else low


def differs(a: Decimal, b: Decimal, t: int | None, k: int = 2) -> tuple[bool, Decimal]:
    """DQC's tolerance test: ``|round(a, t) - round(b, t)| > k * 10^-t`` (t None: exact)."""
    if t is None:
        return a != b, Decimal(0)
    allowed = power_of_ten(k, t)  # t clamped: decimals="-1000000" cannot overflow (docs/reliability.md)
    return abs(round_decimals(a, t) - round_decimals(b, t)) > allowed, allowed


def period_text(p: Period | None) -> str:
    if p is None:
        return "none"
    if p.forever:
        return "forever"
    if p.start is None:
        return p.end.isoformat()
    return f"{p.start.isoformat()} to {p.end.isoformat()}"


def value_text(f: Fact) -> str:
    n = f.number
    return dec_display(n) if n is not None else (f.value or "nil")


# -- the collector -----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class RuleFinding(Finding):
    """A :class:`Finding` that also keeps its message's named arguments (the structured record the
    message was rendered from). ``concept`` may be None for a finding about a relationship."""

    args: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        out = Finding.to_json(self)
        out["concept"] = str(self.concept) if self.concept is not None else None
        out["args"] = dict(self.args)
        return dict(sorted(out.items()))


@dataclass
class Collector:
    """Check records, findings and warnings of one rule run, in the order they were made."""

    spec: "RuleSpec"
    env: "AuditEnvironment"
    findings: list[Finding] = field(default_factory=list)
    checks: list[CheckRecord] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def rule(self) -> str:
        return self.spec.id

    def consistent(self, fact: Fact | None, reason: str = "", concept: QName | None = None) -> None:
        self.checks.append(CheckRecord(self.rule, Outcome.CONSISTENT, concept or (fact.concept if fact else None),
                                       fact.key if fact else None, fact.context_id if fact else None, reason))

    def skipped(self, fact: Fact | None, reason: str, concept: QName | None = None) -> None:
        self.checks.append(CheckRecord(self.rule, Outcome.NOT_APPLICABLE, concept or (fact.concept if fact else None),
                                       fact.key if fact else None, fact.context_id if fact else None, reason))

    def note(self, text: str) -> None:
        """A warning shown with the results (e.g. a part of the rule skipped for want of data)."""
        if text not in self.warnings:
            self.warnings.append(text)

    def violation(self, code: str, fact: Fact | None, *, concept: QName | None = None, reported: Decimal | None = None,
                  expected: Decimal | None = None, tolerance: Decimal = Decimal(0), evidence: Iterable[Fact] = (),
                  role: str | None = None, **args: Any) -> None:
        """Record one violation of ``code`` focused on ``fact`` (None: a linkbase-level finding)."""
        ctx = context(self.env, fact) if fact is not None else None
        unit = self.env.filing.units.get(fact.unit_id) if fact is not None and fact.unit_id else None
        concept = concept or (fact.concept if fact is not None else None)
        props = {
            "concept": str(concept) if concept is not None else "",
            "value": value_text(fact) if fact is not None else "",
            "period": period_text(ctx.period) if ctx is not None else "none",
            "dimensions": dims_text(ctx.dimensions) if ctx is not None and ctx.dimensions else "none",
            "unit": str(unit) if unit is not None else "none",
            "decimals": str(fact.decimals) if fact is not None and fact.decimals is not None else "none",
        }
        all_args = {**props, **{k: _arg(v) for k, v in args.items()}}
        self.checks.append(CheckRecord(self.rule, Outcome.VIOLATION, concept, fact.key if fact else None,
                                       fact.context_id if fact else None, code))
        self.findings.append(RuleFinding(
            code=code, rule=self.rule, concept=concept, fact_id=fact.key if fact else None,
            context_id=fact.context_id if fact else None, period=ctx.period if ctx is not None else None,
            dimensions=ctx.dimensions if ctx is not None else (), unit=str(unit) if unit is not None else None,
            decimals=fact.decimals if fact is not None else None,
            reported=reported if reported is not None else (fact.number if fact is not None else None),
            expected=expected, tolerance=tolerance, message=self.render(code, all_args),
            evidence=tuple(_evidence(self.env, e) for e in evidence), role=role, args=tuple(sorted(all_args.items())),
        ))

    def render(self, code: str, args: dict[str, str]) -> str:
        body = render_message(self.spec.template(code), **args)
        tail = (f" The properties of this {args['concept']} fact are: Period: {args['period']}; "
                f"Dimensions: {args['dimensions']}; Unit: {args['unit']}." if args.get("value") else "")
        return f"{body}{tail} Rule version: AuditFlow {self.spec.name} (DQC {self.spec.version}); {code}."

    def result(self) -> RuleResult:
        return RuleResult(self.rule, tuple(self.findings), tuple(self.checks), tuple(self.warnings))


def _arg(v: Any) -> str:
    if isinstance(v, Decimal):
        return dec_display(v)
    if isinstance(v, Period):
        return period_text(v)
    return str(v)


def _evidence(env: "AuditEnvironment", f: Fact) -> EvidenceItem:
    ctx = env.filing.contexts.get(f.context_id)
    return EvidenceItem(f.concept, f.key, f.number, context_id=f.context_id, decimals=f.decimals,
                        dimensions=ctx.dimensions if ctx is not None else ())


def numeric_items(env: "AuditEnvironment", facts: Iterable[Fact]) -> Iterator[tuple[Fact, Context, Decimal]]:
    """Non-nil numeric facts with a resolvable context and a number."""
    for f in facts:
        if f.is_nil or f.unit_id is None or (n := f.number) is None:
            continue
        ctx = env.filing.contexts.get(f.context_id)
        if ctx is not None:
            yield f, ctx, n


def alignment(env: "AuditEnvironment", f: Fact, ctx: Context, *, drop_concept: bool = True) -> tuple:
    """XULE's implicit alignment: entity, period, dimensions and unit measures (not the concept)."""
    unit = env.filing.units.get(f.unit_id or "")
    measures = (unit.numerators, unit.denominators) if unit is not None else (f.unit_id,)
    return (ctx.entity_scheme, ctx.entity_id, ctx.period, ctx.dimensions, measures)


# -- DQC constants (taxonomy-derived lists of the 2025 ruleset) --------------------------------------

def constant_qnames(values: list) -> list[QName]:
    """A decoded ``["set qname", "{ns}local", ...]`` / ``["list qname", ...]`` constant as QNames."""
    return [QName.from_clark(v) for v in values[1:] if isinstance(v, str) and v.startswith("{")]


def family_keys(qnames: Iterable[QName]) -> frozenset:
    return frozenset(family_key(q) for q in qnames)


def constant_keys(raw: list) -> frozenset:
    """A decoded qname constant as the family keys of its concepts: the decoder rules give
    :func:`decoded_constant` for a set they match by year-independent identity (one function, so a
    constant read by several rules is decoded once)."""
    return family_keys(constant_qnames(raw))


_DECODED: dict[tuple[str, str], Any] = {}
CONSTANTS_CACHE_VERSION = 1


class _BuiltinsOnly(pickle.Unpickler):
    """Reads back only builtins (sets, tuples, dicts, strings, numbers): a cache file is data, never code."""

    def find_class(self, module: str, name: str):
        if module == "builtins" and name in ("frozenset", "set", "tuple", "list", "dict"):
            return getattr(builtins, name)
        raise pickle.UnpicklingError(f"the DQC constants cache may not reference {module}.{name}")


def decoded_constant(resources: Resources, name: str, decode) -> Any:
    """``decode(raw)`` of the 2025 constants' entry ``name`` (builtins only), computed once per process and
    kept in AuditFlow's cache directory, so a warm ``auditflow check`` does not parse the 3 MB JSON file.
    The cache key is the file's path, size and modification time, the entry and the decoder; a damaged
    or unreadable cache file is ignored and rewritten."""
    from auditflow.cache_dir import default_cache_dir
    from auditflow.rules.registry import CONSTANTS_2025

    if resources.data_root is None:
        resources.constants(CONSTANTS_2025)  # raises the usual "no data root" error
    path = (Path(resources.data_root) / CONSTANTS_2025).resolve()
    try:
        st = path.stat()
    except OSError:
        return decode(resources.constants(CONSTANTS_2025)[name])  # raises the resource error naming the file
    ident = f"{path}|{st.st_size}|{st.st_mtime_ns}|{name}|{decode.__module__}.{decode.__qualname__}|{CONSTANTS_CACHE_VERSION}"
    if ident in _DECODED:
        return _DECODED[ident]
    entry = default_cache_dir() / "dqc-constants" / f"{hashlib.sha256(ident.encode()).hexdigest()[:32]}.pickle"
    try:
        with entry.open("rb") as fh:
            value = _BuiltinsOnly(fh).load()
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError):
        value = decode(resources.constants(CONSTANTS_2025)[name])
        _write(entry, value)
    _DECODED[ident] = value
    return value


def _write(entry: Path, value: Any) -> None:
    tmp = None
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        import tempfile  # only to write an entry: a hit does not pay for its import (random, ...)

        fd, tmp = tempfile.mkstemp(dir=entry.parent, prefix=".dqc-", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(pickle.dumps(value, protocol=5))
        os.replace(tmp, entry)
        tmp = None
    except OSError:
        pass  # a read-only cache only costs the next run the JSON parse
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


# -- relationships ------------------------------------------------------------------------------------

def calc_paths(env: "AuditEnvironment", root_local: str) -> Iterator[tuple[str, tuple[QName, ...], Decimal]]:
    """(role, path below the root, product of the weights) for every summation-item path that starts at
    a US-GAAP concept named ``root_local``, network by network (cycles are cut)."""
    for (role, source), _arcs in sorted(env.index.calc_down.items(), key=lambda kv: (kv[0][0], kv[0][1].clark())):
        if source.local != root_local or not in_family(source, US_GAAP):
            continue
        stack = [(source, (), Decimal(1))]
        while stack:
            node, path, weight = stack.pop()
            for a in sorted(env.index.calc_down.get((role, node), ()), key=lambda a: a.order, reverse=True):
                if a.target in path or a.target == source:
                    continue
                w = weight * (a.weight if a.weight is not None else Decimal(1))
                yield role, path + (a.target,), w
                stack.append((a.target, path + (a.target,), w))


def facts_on_axis(env: "AuditEnvironment", axis_local: str) -> Iterator[tuple[Fact, Any]]:
    """(fact, member) for every fact whose context has the axis with this local name, document order."""
    for f in env.filing.facts:
        ctx = env.filing.contexts.get(f.context_id)
        if ctx is not None and ctx.dimensions:
            member = local_dims(ctx).get(axis_local)
            if member is not None:
                yield f, member


def local_dims(ctx: Context) -> dict[str, Any]:
    """A context's dimensions by axis local name -> member (QName, or typed member)."""
    return {a.local: m for a, m in ctx.dimensions}
