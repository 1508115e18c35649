"""The structure a DQC rule used, as a drawing model: a calculation tree, a member table, a signed fact.

Drawings are built from what a run already carries, never by walking the graphs again:

* for an audit case, from the checker observations in the auditors' transcripts
  (``check_calc_tree``, ``check_dim_consistency``, ``check_sign`` results: reported, expected,
  tolerance, statement and the evidence items with concept, handle, period, value, weight, member);
* for a filer's finding, from :meth:`auditflow.rules.finding.Finding.to_json` (its evidence items).

Both are plain JSON, read with ``.get`` so that fields added later are ignored and fields missing
from an older artifact leave a gap in the drawing instead of an error. The result is a dict the
templates draw (``kind`` is ``calc``, ``members`` or ``sign``); ``None`` when there is nothing to draw.
"""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any, Iterable, Mapping

from auditflow.errors import AuditflowError
from auditflow.rules import registry
from auditflow.rules.finding import display_amount
from auditflow.rules.registry import Drawing

_OUTCOME_RANK = {"violation": 0, "consistent": 1}
_HANDLE = re.compile(r"^F[0-9]+$")  # a fact handle of the auditors' tools (F1, F2, ...)
_SLUG = re.compile(r"[^A-Za-z0-9_-]+")


def drawing_kind(rule: str) -> str:
    """The rule entry's drawing kind; a rule the registry does not know (an older artifact's) draws
    its evidence as a table."""
    try:
        return registry.get(rule).drawing.value
    except AuditflowError:
        return Drawing.EVIDENCE.value


def element_of(code: str | None) -> str:
    """The rule element id of a message code (``2944`` of ``DQC.US.0015.2944``), else empty."""
    parts = (code or "").split(".")
    return parts[3] if len(parts) == 4 and parts[:2] == ["DQC", "US"] and parts[3].isdigit() else ""

# Calculation tree layout (SVG user units; the SVG scales to the page width).
ROW, TOP, WIDTH = 24, 10, 900
CONCEPT_CHARS = 60


def slug(text: str) -> str:
    """An HTML id part: letters, digits, ``_`` and ``-`` only, lower case."""
    return _SLUG.sub("-", text).strip("-").lower() or "case"


def number(value: Any) -> Decimal | None:
    """A JSON amount (plain string or number) as a Decimal; anything else is None."""
    if value is None or isinstance(value, bool):
        return None
    try:
        d = Decimal(str(value).strip().replace(",", ""))
    except (InvalidOperation, ValueError):
        return None
    return d if d.is_finite() else None


def show(value: Any) -> str:
    """An amount for a reader: thousands separators, the digits as reported; text as is; empty for None
    (the rules' own :func:`auditflow.rules.finding.display_amount`, so a page and a fix hint agree)."""
    return display_amount(value)


def _short(text: str, limit: int = CONCEPT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _weight_text(weight: Decimal | None) -> str:
    if weight is None:
        return ""
    sign = "\u2212" if weight < 0 else "+"
    return f"{sign}{show(abs(weight))} \u00d7"


def _dims_text(dims: Any) -> str:
    if isinstance(dims, Mapping):
        return ", ".join(f"{a}={m}" for a, m in sorted(dims.items(), key=lambda am: str(am[0])))
    if isinstance(dims, (list, tuple)):
        return ", ".join(f"{p[0]}={p[1]}" if isinstance(p, (list, tuple)) and len(p) == 2 else str(p) for p in dims)
    return "" if dims is None else str(dims)


def _period_text(period: Any) -> str:
    if isinstance(period, Mapping):
        if "instant" in period:
            return str(period["instant"])
        if "start" in period and "end" in period:
            return f"{period['start']}..{period['end']}"
        return ", ".join(f"{k} {v}" for k, v in sorted(period.items()))
    return "" if period is None else str(period)


def _item(e: Mapping[str, Any], focus: Iterable[str]) -> dict[str, Any]:
    value, weight = number(e.get("value")), number(e.get("weight"))
    contribution = value * weight if value is not None and weight is not None else None
    fact = e.get("fact") or e.get("fact_id")
    concept = str(e.get("concept") or "")
    return {
        "concept": concept, "concept_short": _short(concept), "fact": fact or "",
        "member": str(e.get("member") or ""), "period": _period_text(e.get("period")),
        "dims": _dims_text(e.get("dimensions")), "value": show(value) if value is not None else show(e.get("value")),
        "negative": value is not None and value < 0,
        "weight": _weight_text(weight), "contribution": show(contribution) if contribution is not None else "",
        "focus": bool(fact) and fact in set(focus), "note": str(e.get("note") or ""),
    }


def drawing(rule: str, *, outcome: str, code: str | None, reported: Any, expected: Any, tolerance: Any,
            statement: str | None, evidence: Iterable[Mapping[str, Any]], total: Mapping[str, Any],
            focus: Iterable[str] = (), reason: str = "", note: str = "", list_entry: str = "") -> dict[str, Any] | None:
    """The drawing model of one check. ``total`` names the checked fact (concept, fact, period, dims);
    ``focus`` the handles or fact ids to highlight (the queried fact)."""
    kind = drawing_kind(rule)
    focus = tuple(f for f in focus if f)
    items = [_item(e, focus) for e in evidence if isinstance(e, Mapping)]
    rep, exp, tol = number(reported), number(expected), number(tolerance)
    diff = rep - exp if rep is not None and exp is not None else None
    total_fact = str(total.get("fact") or "")
    out: dict[str, Any] = {
        "rule": rule, "kind": kind, "outcome": outcome or "not_applicable", "code": code or "",
        "statement": statement or "", "reason": reason or "", "note": note or "",
        "total": {"concept": str(total.get("concept") or ""), "concept_short": _short(str(total.get("concept") or "")),
                  "fact": total_fact, "period": _period_text(total.get("period")), "dims": _dims_text(total.get("dims")),
                  "focus": bool(total_fact) and total_fact in focus},
        "entries": items, "reported": show(rep) if rep is not None else show(reported),
        "expected": show(exp) if exp is not None else show(expected), "tolerance": show(tol) if tol is not None else "",
        "difference": show(diff) if diff is not None else "", "differs": diff is not None and diff != 0,
        "exceeds": outcome == "violation",
        "axis": next((str(e.get("axis")) for e in evidence if isinstance(e, Mapping) and e.get("axis")), ""),
    }
    if kind == "calc":
        out["svg"] = _calc_layout(out)
    elif kind == "sign":
        out["list_entry"] = {"element": element_of(code), "text": list_entry}
        if not items and total_fact:  # a consistent sign check may carry no evidence: draw the fact itself
            out["entries"] = [_item({"concept": total.get("concept"), "fact": total_fact, "value": reported,
                                   "period": total.get("period")}, focus)]
    return out


def _calc_layout(d: dict[str, Any]) -> dict[str, Any]:
    """Row positions (text baselines) of the calculation tree: a header, the total, the children with
    elbow connectors, a rule, then the sum of the weighted children, the reported total, the difference."""
    def y(row: int, extra: int = 0) -> int:
        return TOP + ROW * row + ROW // 2 + 4 + extra

    n = len(d["entries"])
    children = [{**it, "y": y(i + 2)} for i, it in enumerate(d["entries"])]
    rule_y = TOP + ROW * (n + 2) + 4
    rows = {"header_y": y(0), "total_y": y(1), "children": children, "trunk_top": y(1) + 7,
            "trunk_end": (children[-1]["y"] - 4) if children else y(1) + 7, "rule_y": rule_y,
            "sum_y": y(n + 2, 8), "reported_y": y(n + 3, 8), "diff_y": y(n + 4, 8), "width": WIDTH,
            "x": {"weight": 82, "concept": 90, "handle": 560, "value": 716, "weighted": 884, "trunk": 20}}
    rows["height"] = (rows["diff_y"] if d["difference"] else rows["reported_y"]) + ROW // 2
    return rows


# -- from an audit result ------------------------------------------------------------------------

def _members_in(value: Any, into: dict[str, set[str]]) -> None:
    """Member -> the axes it was shown under, from ``get_dimension_members`` results (``cubes[].axes[]``)."""
    for cube in value.get("cubes") or () if isinstance(value, Mapping) else ():
        for axis in cube.get("axes") or () if isinstance(cube, Mapping) else ():
            if isinstance(axis, Mapping) and isinstance(axis.get("axis"), str):
                for member in axis.get("members") or ():
                    if isinstance(member, str):
                        into.setdefault(member, set()).add(axis["axis"])


def _handles_in(value: Any, into: dict[str, dict[str, Any]]) -> None:
    """Every ``{"fact": "F3", "concept": ..., "period": ..., "value": ...}`` found in a tool result."""
    if isinstance(value, Mapping):
        handle = value.get("fact")
        if isinstance(handle, str) and _HANDLE.match(handle) and value.get("concept"):
            known = into.setdefault(handle, {})
            for key in ("concept", "period", "value", "dimensions", "member"):
                if value.get(key) is not None and key not in known:
                    known[key] = value[key]
        for v in value.values():
            _handles_in(v, into)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _handles_in(v, into)


def checker_observations(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The checker results in the transcripts, in order: role, tool, observation, the handles the
    auditor had seen by then, the axes of the members ``get_dimension_members`` had shown, and the
    line ``get_concept`` showed for the checker's rule (for a sign check: the list entry)."""
    out: list[dict[str, Any]] = []
    for transcript in result.get("transcripts") or ():
        if not isinstance(transcript, Mapping):
            continue
        handles: dict[str, dict[str, Any]] = {}
        member_axes: dict[str, set[str]] = {}
        scope_lines: dict[str, str] = {}
        for rnd in transcript.get("rounds") or ():
            for step in rnd or ():
                call = step.get("tool_call") if isinstance(step, Mapping) else None
                if not isinstance(call, Mapping):
                    continue
                res = call.get("result")
                _handles_in(res, handles)
                if call.get("tool") == "get_dimension_members":
                    _members_in(res, member_axes)
                if call.get("tool") == "get_concept" and isinstance(res, Mapping) and isinstance(res.get("rules"), Mapping):
                    scope_lines.update({r: line for r, line in res["rules"].items() if isinstance(line, str)})
                rule = registry.rule_of_tool(str(call.get("tool")))
                if rule is not None and isinstance(res, Mapping) and res.get("outcome"):
                    rule = str(res.get("rule") or rule)
                    out.append({"role": str(transcript.get("role") or ""), "tool": call["tool"], "rule": rule,
                                "obs": res, "handles": {k: dict(v) for k, v in handles.items()},
                                "member_axes": {m: set(a) for m, a in member_axes.items()},
                                "scope_line": scope_lines.get(rule, "")})
    return out


def _about(o: dict[str, Any], target: Mapping[str, Any] | None) -> bool:
    """Whether the observation checked the fact the answer is about (the result's ``fact``; else F1,
    the queried fact of a structured query)."""
    handle = o["obs"].get("fact")
    if not target:
        return handle == "F1"
    known = o["handles"].get(handle, {}) if isinstance(handle, str) else {}
    return known.get("concept") == target.get("concept") and str(known.get("period")) == str(target.get("period"))


def _choose(observations: list[dict[str, Any]], rule: str | None,
            target: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The observation that shows the case's rule best: the case's rule first, a definite outcome
    (violation, then consistent) before not applicable, the fact the answer is about before others,
    then order."""
    if not observations:
        return None

    def rank(ix: tuple[int, dict[str, Any]]) -> tuple:
        i, o = ix
        return (o["rule"] != rule, _OUTCOME_RANK.get(o["obs"].get("outcome"), 2), not _about(o, target), i)

    return min(enumerate(observations), key=rank)[1]


def drawing_from_result(result: Mapping[str, Any], rule: str | None) -> dict[str, Any] | None:
    """The drawing of the check the auditors ran for ``rule`` (the case's family), from their transcripts."""
    target = result.get("fact") if isinstance(result.get("fact"), Mapping) else None
    chosen = _choose(checker_observations(result), rule, target)
    if chosen is None:
        return None
    obs, handles = chosen["obs"], chosen["handles"]
    query = result.get("query") if isinstance(result.get("query"), Mapping) else {}
    total_handle = obs.get("total") or obs.get("fact")
    known = handles.get(total_handle, {}) if isinstance(total_handle, str) else {}
    # a handle no earlier result named: the answer's fact, or the structured query's (F1)
    fallback = (target or {}) if total_handle == obs.get("fact") and target else query if total_handle == "F1" else {}
    total = {"fact": total_handle, "concept": known.get("concept") or fallback.get("concept") or "",
             "period": known.get("period") or fallback.get("period") or "",
             "dims": known.get("dimensions") or fallback.get("dimensions") or {}}
    evidence = [{**handles.get(e.get("fact"), {}), **e} if isinstance(e, Mapping) else e
                for e in obs.get("evidence") or ()]
    d = drawing(chosen["rule"], outcome=str(obs.get("outcome") or ""), code=obs.get("code"),
                reported=obs.get("reported"), expected=obs.get("expected"), tolerance=obs.get("tolerance"),
                statement=obs.get("statement"), evidence=evidence, total=total, focus=(str(obs.get("fact") or ""),),
                reason=str(obs.get("reason") or ""), note=str(obs.get("note") or ""),
                list_entry=chosen["scope_line"] if drawing_kind(chosen["rule"]) == Drawing.SIGN.value else "")
    if d is not None:
        d["source"] = f"{chosen['role']} auditor's {chosen['tool']}"
        if d["kind"] == Drawing.MEMBER_TABLE.value and not d["axis"]:
            d["axis"] = _axis(evidence, chosen["member_axes"])
    return d


def _axis(evidence: list[Any], member_axes: Mapping[str, set[str]]) -> str:
    """The axis of a member table when the observation does not name it: a member fact's dimensions,
    else the one axis the auditor was shown every summed member under (``get_dimension_members``)."""
    for e in evidence:
        dims = e.get("dimensions") if isinstance(e, Mapping) else None
        if isinstance(dims, Mapping):
            axes = [a for a, member in dims.items() if member == e.get("member")]
            if len(axes) == 1:
                return str(axes[0])
    shown = [member_axes.get(str(e.get("member"))) for e in evidence if isinstance(e, Mapping) and e.get("member")]
    common = set.intersection(*shown) if shown and all(shown) else set()
    return next(iter(common)) if len(common) == 1 else ""


# -- from a filer's finding ----------------------------------------------------------------------

def drawing_from_finding(finding: Mapping[str, Any], list_entry: str = "") -> dict[str, Any] | None:
    """The drawing of one finding (``Finding.to_json()``)."""
    rule = str(finding.get("rule") or "")
    total = {"fact": finding.get("fact_id"), "concept": finding.get("concept"), "period": finding.get("period"),
             "dims": finding.get("dimensions")}
    evidence = list(finding.get("evidence") or ())
    if drawing_kind(rule) == Drawing.SIGN.value:  # the evidence is the fact itself: draw it with its period and dimensions
        evidence = [{**e, "period": e.get("period") or finding.get("period")} for e in evidence if isinstance(e, Mapping)]
    return drawing(rule, outcome="violation", code=finding.get("code"), reported=finding.get("reported"),
                   expected=finding.get("expected"), tolerance=finding.get("tolerance"), statement=finding.get("role"),
                   evidence=evidence, total=total, focus=(str(finding.get("fact_id") or ""),), list_entry=list_entry)
