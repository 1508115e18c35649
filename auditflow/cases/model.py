"""Audit cases as typed values, built from schema-valid YAML data with meaning-level checks.

The schema says what a field looks like; this module checks what it means: amounts must parse as
numbers, tool names must exist, ids must be unique, a consistent case triggers no rule. Every
problem is a :class:`CaseSchemaError` with the file, line and field, collected all at once so an
author fixes a file in one pass.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Mapping

from auditflow.contract import InvalidReportError, normalise_number
from auditflow.cases.errors import CaseSchemaError
from auditflow.cases.schema import dotted, line_of, quoted
from auditflow.env.query import AuditQuery
from auditflow.rules.finding import dec_str

INJECT_KINDS = ("set_value", "flip_sign", "remove")
VALUE_FIELDS = ("reported_value", "expected_value")


@dataclass(frozen=True, slots=True)
class FactSelector:
    """A fact named by what a reader sees: concept, period and dimensions (resolved in the filing)."""

    concept: str
    period: str
    dimensions: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        dims = "".join(f" [{a}={m}]" for a, m in self.dimensions)
        return f"{self.concept} @ {self.period}{dims}"


@dataclass(frozen=True, slots=True)
class InjectSpec:
    """One ``inject:`` entry: a mutation kind, the fact (id or selector), the new value for set_value."""

    kind: str
    target: str | FactSelector
    value: Decimal | None = None
    line: int = 0

    def __str__(self) -> str:
        value = f" = {dec_str(self.value)}" if self.value is not None else ""
        return f"{self.kind} {self.target}{value}"


@dataclass(frozen=True, slots=True)
class CaseQuery:
    """A case's query in one of the three forms (docs/query-forms.md); ``text`` holds the question of
    the ``text`` and ``finmr`` forms."""

    concept: str | None
    period: str | None
    dimensions: tuple[tuple[str, str], ...] = ()
    rule_hint: str | None = None  # "0015" | "0117" | "0126" | None
    form: str = "structured"
    text: str | None = None

    def __str__(self) -> str:
        if self.form != "structured":
            return f"{self.form}: {self.text}"
        dims = "".join(f" [{a}={m}]" for a, m in self.dimensions)
        return f"{self.concept} @ {self.period}{dims}"


@dataclass(frozen=True, slots=True)
class Expectation:
    """What the audit must answer. ``checked`` lists the fields the case gave: an omitted value is not
    compared, while an explicit ``null`` means the audit must report no value."""

    decision: str
    triggered_rules: tuple[str, ...] = ()
    reported_value: Decimal | None = None
    expected_value: Decimal | None = None
    tools_called: tuple[str, ...] = ()
    checked: frozenset[str] = frozenset({"decision"})
    fact: FactSelector | None = None  # the fact the question means (checked when given)
    not_found: bool = False  # the queried fact is meant to be missing

    def as_display(self) -> dict[str, Any]:
        """The checked fields in canonical order, amounts as plain strings (for diffs and rewrites)."""
        out: dict[str, Any] = {"decision": self.decision}
        if "triggered_rules" in self.checked:
            out["triggered_rules"] = list(self.triggered_rules)
        for name in VALUE_FIELDS:
            if name in self.checked:
                out[name] = dec_str(getattr(self, name))
        if self.tools_called:
            out["tools_called"] = list(self.tools_called)
        if self.fact is not None:
            out["fact"] = {"concept": self.fact.concept, "period": self.fact.period,
                           **({"dimensions": dict(self.fact.dimensions)} if self.fact.dimensions else {})}
        if self.not_found:
            out["not_found"] = True
        return out


@dataclass(frozen=True, slots=True)
class AuditCase:
    """One audit case: which fact of which filing, what to inject first, what the audit must answer."""

    id: str
    file: Path
    line: int
    filing: str
    query: CaseQuery
    expect: Expectation
    inject: tuple[InjectSpec, ...] = ()
    tags: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    description: str = ""
    index: int = 0  # position in the file (cases are rewritten by it)
    source: str = ""  # the file as messages name it (e.g. relative to the rootdir); default: ``file``

    @property
    def where(self) -> str:
        return self.source or str(self.file)

    @property
    def rule(self) -> str:
        """The DQC rule family the case is about: its hint, else its first expected code, else its
        ``dqc_NNNN`` tag, else "other"."""
        if self.query.rule_hint:
            return self.query.rule_hint
        if self.expect.triggered_rules:
            return self.expect.triggered_rules[0].split(".")[2]
        tagged = [t.removeprefix("dqc_") for t in self.tags if t.startswith("dqc_") and t[4:].isdigit()]
        return tagged[0] if tagged else "other"  # a question's case carries no hint, but its family tag

    def audit_query(self) -> AuditQuery:
        q = self.query
        if q.form != "structured":
            return AuditQuery(self.filing, rule_hint=q.rule_hint, case_id=self.id, form=q.form, text=q.text)
        return AuditQuery(self.filing, q.concept, q.period, q.dimensions, q.rule_hint, self.id)


@dataclass
class _Builder:
    """Collects meaning-level problems while building cases from one file."""

    file: str
    line_map: Mapping[tuple, int]
    problems: list[CaseSchemaError] = field(default_factory=list)

    def problem(self, path: tuple, message: str) -> None:
        self.problems.append(CaseSchemaError(self.file, line_of(path, self.line_map), dotted(path), message))

    def problems_at(self, path: tuple) -> bool:
        return any(p.field == dotted(path) for p in self.problems)

    def amount(self, raw: Any, path: tuple) -> Decimal | None:
        try:
            return normalise_number(raw)
        except InvalidReportError as exc:
            self.problem(path, exc.problems[0])
            return None


def build_cases(data: Mapping[str, Any], *, file: Path, line_map: Mapping[tuple, int],
                display: str | None = None) -> tuple[list[AuditCase], list[CaseSchemaError]]:
    """Cases of a schema-valid file (defaults merged) and the meaning-level problems found.

    ``display`` names the file in problems (default: the path as given)."""
    b = _Builder(display or str(file), line_map)
    defaults = data.get("defaults") or {}
    cases, seen = [], {}
    for i, raw in enumerate(data["cases"]):
        path = ("cases", i)
        if raw["id"] in seen:
            b.problem(path + ("id",), f"duplicate case id {quoted(raw['id'])} (first used on line {seen[raw['id']]})")
        seen.setdefault(raw["id"], line_of(path, line_map))
        case = _case(b, {**defaults, **raw}, path, file, i)
        if case is not None:
            cases.append(case)
    return cases, b.problems


def _case(b: _Builder, raw: Mapping[str, Any], path: tuple, file: Path, index: int) -> AuditCase | None:
    if "filing" not in raw:
        b.problem(path, "missing required field 'filing' (give it in the case or under defaults:)")
        return None
    query = _query(b, raw["query"], path + ("query",))
    if query is None:
        return None
    expect = _expectation(b, raw["expect"], path + ("expect",))
    inject = tuple(_inject(b, e, path + ("inject", j)) for j, e in enumerate(raw.get("inject") or ()))
    return AuditCase(raw["id"], file, line_of(path, b.line_map), raw["filing"], query, expect, inject,
                     tuple(raw.get("tags") or ()), tuple(raw.get("requires") or ()), raw.get("description", ""), index,
                     b.file)


def _query(b: _Builder, q: Mapping[str, Any], path: tuple) -> CaseQuery | None:
    """One of the three forms, exactly: concept + period (+ dimensions), or text, or finmr."""
    hint = q.get("rule_hint")
    hint = hint.rsplit(".", 1)[-1] if hint else None
    forms = [f for f in ("text", "finmr") if f in q]
    structured = [k for k in ("concept", "period", "dimensions") if k in q]
    if len(forms) > 1 or (forms and structured):
        b.problem(path, f"give one query form: concept + period, text, or finmr (got {', '.join(forms + structured)})")
        return None
    if forms:
        form = forms[0]
        if form == "finmr":
            from auditflow.env.query import QueryError, parse_finmr

            try:
                parse_finmr(q[form])
            except QueryError as exc:
                b.problem(path + (form,), str(exc))
                return None
        return CaseQuery(None, None, (), hint, form, q[form])
    missing = [k for k in ("concept", "period") if k not in q]
    if missing:
        b.problem(path, f"missing {' and '.join(missing)} (or give the question as text: or finmr:)")
        return None
    return CaseQuery(q["concept"], q["period"], tuple(sorted((q.get("dimensions") or {}).items())), hint)


def _expectation(b: _Builder, raw: Mapping[str, Any], path: tuple) -> Expectation:
    rules = tuple(sorted(raw.get("triggered_rules") or ()))
    if raw["decision"] != "violation" and rules:
        b.problem(path + ("triggered_rules",), f"a {raw['decision']} case triggers no rule; remove the codes "
                                               "or expect decision: violation")
    values = {n: b.amount(raw[n], path + (n,)) for n in VALUE_FIELDS if n in raw}
    tools = tuple(raw.get("tools_called") or ())
    _check_tools(b, tools, path + ("tools_called",))
    fact = raw.get("fact")
    selector = FactSelector(fact["concept"], fact["period"], tuple(sorted((fact.get("dimensions") or {}).items()))) if fact else None
    if raw.get("not_found") and raw["decision"] != "unable_to_verify":
        b.problem(path + ("not_found",), "a case whose fact is meant to be missing expects decision: unable_to_verify")
    return Expectation(raw["decision"], rules, values.get("reported_value"), values.get("expected_value"), tools,
                       frozenset({"decision", *(k for k in ("triggered_rules", *VALUE_FIELDS) if k in raw)}),
                       selector, bool(raw.get("not_found")))


def _check_tools(b: _Builder, tools: tuple[str, ...], path: tuple) -> None:
    from auditflow.env.tools import TOOLS

    for i, name in enumerate(tools):
        if name not in TOOLS:
            close = difflib.get_close_matches(name, sorted(TOOLS), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else f"; known tools: {', '.join(sorted(TOOLS))}"
            b.problem(path + (i,), f"unknown tool {quoted(name)}{hint}")


def _inject(b: _Builder, raw: Mapping[str, Any], path: tuple) -> InjectSpec:
    kind = next(k for k in INJECT_KINDS if k in raw)
    target = raw[kind]
    if isinstance(target, dict):
        target = FactSelector(target["concept"], target["period"], tuple(sorted((target.get("dimensions") or {}).items())))
    value = None
    if "value" in raw:
        if kind != "set_value":
            b.problem(path + ("value",), f"{kind} takes no value (only set_value does)")
        else:
            value = b.amount(raw["value"], path + ("value",))
            if value is None and not b.problems_at(path + ("value",)):
                b.problem(path + ("value",), "set_value needs a number, not an empty value")
    return InjectSpec(kind, target, value, line_of(path, b.line_map))
