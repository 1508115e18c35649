"""The case-suite page (the plugin's ``--auditflow-html``, ``auditflow eval --html``): view models the
templates draw, built from case entries, and its renderer.

An *entry* is one case under one configuration: the plugin's row (``label``, ``passed``, ``rule``,
``case_id``, ``file``, cache counts, ...) with ``config`` and the :mod:`auditflow.html.payload` of
the run (or None when the run left no payload). Everything read from an audit result goes through
``.get``: the result's shape may grow (a prompt profile, richer evidence paths) and the report must
show what is there without failing on what is new; unknown top-level fields are listed as they are.
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Mapping, Sequence

from auditflow.cases.labels import LABELS, ORDER, tally
from auditflow.cases.results import cache_totals
from auditflow.html.drawing import drawing_from_result, show, slug
from auditflow.html.render import environment

COMPARED = ("decision", "triggered_rules", "fact", "reported_value", "expected_value", "tools_called")
VALUE_FIELDS = ("reported_value", "expected_value")
# AuditResult fields the case section shows in its own place; any other top-level field is listed as is.
SHOWN = frozenset({"query", "config", "decision", "triggered_rules", "reported_value", "expected_value",
                   "evidence_path", "credibility", "conflict", "bel", "pl", "betp", "rounds", "reports", "reviews",
                   "transcripts", "invalid_output", "structural_failure", "fusion", "interval", "timings", "fact",
                   "profile", "shuffle", "arbitration"})


def pct(x: float | None) -> str:
    return "\u2013" if x is None else f"{100 * x:.1f}%"


def pretty(value: Any) -> str:
    """JSON for a reader: sorted keys, two-space indent, non-ASCII kept."""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)


def _text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(str, value)) + "]" if value else "[]"
    return str(value)


def fact_text(fact: Any) -> str:
    """``concept @ period [axis=member] = value`` of a fact named by its parts (a case's ``fact:``, a result's)."""
    if not isinstance(fact, Mapping):
        return _text(fact)
    dims = fact.get("dimensions") or {}
    dims_text = "".join(f" [{a}={m}]" for a, m in sorted(dims.items())) if isinstance(dims, Mapping) else ""
    value = f" = {show(fact['value'])}" if fact.get("value") is not None else ""
    return f"{fact.get('concept') or '?'} @ {fact.get('period') or '?'}{dims_text}{value}"


def profile_text(profile: Any) -> str:
    """A prompt profile as ``name (sha256 prefix)``; other shapes as compact JSON."""
    if isinstance(profile, Mapping) and profile.get("name"):
        digest = str(profile.get("sha256") or "")[:12]
        return f"{profile['name']} ({digest})" if digest else str(profile["name"])
    return profile if isinstance(profile, str) else json.dumps(profile, sort_keys=True, ensure_ascii=False)


def _shown_value(name: str, value: Any) -> str:
    if isinstance(value, Mapping):
        return fact_text(value)
    return show(value) if name in VALUE_FIELDS and value is not None else _text(value)


# -- the summary ---------------------------------------------------------------------------------

def _metric_row(name: str, t: Any) -> dict[str, Any]:
    return {"family": name, "n": t.n, "labels": [t.labels.get(k, 0) for k in ORDER], "passed": t.passed,
            "joint_acc": pct(t.joint_acc), "vacc": pct(t.vacc), "invalid": pct(t.invalid_rate),
            "a": t.labels.get("A", 0), "verdict_right": t.verdict_right, "s": t.labels.get("S", 0)}


def _profiles(entries: Iterable[Mapping[str, Any]]) -> list[str]:
    """Prompt profiles the results name (``profile``, or any field whose name starts with ``prompt``)."""
    seen: dict[str, None] = {}
    for e in entries:
        result = (e.get("payload") or {}).get("result") or {}
        if result.get("profile"):
            seen[profile_text(result["profile"])] = None
        for key in sorted(k for k in result if str(k).startswith("prompt")):
            seen[f"{key}: {profile_text(result[key])}"] = None
    return list(seen)


def summary_group(config: str, entries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Family x A/S/E/C for one configuration, with Joint ACC, VAcc, invalid rate and cache counts."""
    by_rule, total = tally(entries)
    models = sorted({str(e.get("model")) for e in entries if e.get("model")})
    return {"config": config, "models": models, "rows": [_metric_row(f"DQC.US.{k}", v) for k, v in by_rule.items()],
            "total": _metric_row("all", total), "cache": cache_totals(entries), "profiles": _profiles(entries),
            "failed": sum(not e.get("passed") for e in entries)}


# -- one case ------------------------------------------------------------------------------------

def compare_rows(payload: Mapping[str, Any], entry: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Expected against actual, field by field; ``differs`` from the judgement's mismatches."""
    expect = payload.get("expect") or {"decision": entry.get("expected_decision")}
    actual = payload.get("actual") or {}
    mismatched = {m.get("field"): m for m in payload.get("mismatches") or () if isinstance(m, Mapping)}
    rows = []
    for name in [*COMPARED, *sorted(set(expect) - set(COMPARED))]:
        stated = name in expect
        got = actual.get(name) if actual else None
        if not stated and got in (None, [], ""):  # neither asked for nor answered
            continue
        mm = mismatched.get(name)
        rows.append({"field": name, "stated": stated,
                     "expected": _shown_value(name, expect.get(name)) if stated else "(not stated)",
                     "actual": (_shown_value(name, got) if actual else "(no result)"),
                     "differs": mm is not None, "detail": mm.get("actual", "") if mm and name == "tools_called" else ""})
    for name, mm in sorted(mismatched.items()):  # e.g. "output": a run without a result
        if name not in COMPARED and name not in expect:
            rows.append({"field": name, "stated": True, "expected": mm.get("expected", ""),
                         "actual": mm.get("actual", ""), "differs": True, "detail": ""})
    return rows


def _args(arguments: Any) -> str:
    if isinstance(arguments, Mapping):
        return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False, sort_keys=True) if not isinstance(v, str) else v}"
                         for k, v in sorted(arguments.items()))
    return "" if arguments is None else json.dumps(arguments, sort_keys=True, default=str)


def evidence_steps(path: Any) -> list[dict[str, Any]]:
    """The evidence path: tool, arguments, what it showed, the facts; other fields as ``key: value``."""
    out = []
    for step in path or ():
        if not isinstance(step, Mapping):
            out.append({"tool": "", "arguments": "", "summary": _text(step), "facts": [], "extra": []})
            continue
        facts = step.get("facts") or ()
        out.append({"tool": str(step.get("tool") or ""), "arguments": _args(step.get("arguments")),
                    "summary": str(step.get("summary") or ""),
                    "facts": [f if isinstance(f, str) else json.dumps(f, sort_keys=True, ensure_ascii=False)
                              for f in facts],
                    "extra": [(k, _text(v) if not isinstance(v, (Mapping, list)) else
                               json.dumps(v, sort_keys=True, ensure_ascii=False))
                              for k, v in sorted(step.items()) if k not in ("tool", "arguments", "summary", "facts")]})
    return out


def _step(step: Any) -> dict[str, Any]:
    if not isinstance(step, Mapping):
        return {"kind": "message", "content": _text(step), "call": None}
    call = step.get("tool_call")
    view_call = None
    if isinstance(call, Mapping):
        result = call.get("result")
        view_call = {"tool": str(call.get("tool") or ""), "arguments": _args(call.get("arguments")),
                     "error": call.get("error") or "", "result": pretty(result) if result is not None else "",
                     "outcome": result.get("outcome", "") if isinstance(result, Mapping) else "",
                     "code": (result.get("code") or "") if isinstance(result, Mapping) else ""}
    return {"kind": str(step.get("kind") or ""), "content": str(step.get("content") or ""), "call": view_call}


def transcripts(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    out = []
    for t in result.get("transcripts") or ():
        if not isinstance(t, Mapping):
            continue
        rounds = [[_step(s) for s in r or ()] for r in t.get("rounds") or ()]
        out.append({"role": str(t.get("role") or ""), "rounds": rounds, "tool_calls": t.get("tool_calls", 0),
                    "invalid_outputs": t.get("invalid_outputs", 0), "refused_finals": t.get("refused_finals", 0)})
    return out


def reports(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    out = []
    for r in result.get("reports") or ():
        if isinstance(r, Mapping):
            out.append({"role": str(r.get("role") or ""), "decision": str(r.get("decision") or ""),
                        "rules": ", ".join(r.get("triggered_rules") or ()) or "\u2013",
                        "reported": show(r.get("reported_value")) or "null",
                        "expected": show(r.get("expected_value")) or "null",
                        "confidence": r.get("confidence"), "rationale": str(r.get("rationale") or "")})
    return out


def reviews(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    out = []
    for r in result.get("reviews") or ():
        if isinstance(r, Mapping):
            feedback = r.get("feedback") if isinstance(r.get("feedback"), Mapping) else {}
            out.append({"round": r.get("round"), "accepted": bool(r.get("accepted")),
                        "conflict": str(r.get("conflict_source") or ""), "reason": str(r.get("reason") or ""),
                        "feedback": sorted((str(k), str(v)) for k, v in feedback.items())})
    return out


def arbitration(result: Mapping[str, Any]) -> dict[str, Any] | None:
    """The Senior's choice between two disputed facts (docs/protocol.md), as the report words it."""
    arb = result.get("arbitration")
    if not isinstance(arb, Mapping):
        return None
    offered = [str(w) for w in arb.get("offered") or ()]
    chosen = arb.get("chosen")
    picked = offered[chosen] if isinstance(chosen, int) and 0 <= chosen < len(offered) else None
    return {"offered": offered, "chosen": picked, "answer": str(arb.get("answer") or "")}


def _num(x: Any) -> str:
    return f"{x:.3f}" if isinstance(x, (int, float)) and not isinstance(x, bool) else _text(x) if x is not None else "\u2013"


def fusion(result: Mapping[str, Any]) -> dict[str, Any]:
    """Bel, Pl, BetP and conflict K of the decision, masses and per-source weights when fusion ran."""
    f = result.get("fusion") if isinstance(result.get("fusion"), Mapping) else None
    src = f or result
    view: dict[str, Any] = {
        "ran": f is not None, "decision": str(src.get("decision") or result.get("decision") or ""),
        "scores": [("Bel", _num(src.get("bel"))), ("Pl", _num(src.get("pl"))), ("BetP", _num(src.get("betp"))),
                   ("conflict K", _num(src.get("conflict"))), ("credibility", _num(src.get("credibility")))],
        "bel": src.get("bel"), "pl": src.get("pl"), "hypotheses": [], "mass": [], "sources": [], "checker": "",
        "report_conflict": _num(f.get("report_conflict")) if f and "report_conflict" in f else "",
    }
    if f is None:
        return view
    hyp = f.get("hypotheses") if isinstance(f.get("hypotheses"), Mapping) else {}
    view["hypotheses"] = [(str(h), _num(v.get("bel")), _num(v.get("pl")), _num(v.get("betp")))
                          for h, v in sorted(hyp.items()) if isinstance(v, Mapping)]
    mass = f.get("mass") if isinstance(f.get("mass"), Mapping) else {}
    view["mass"] = [(str(k), _num(v)) for k, v in sorted(mass.items())]
    for s in f.get("sources") or ():
        if isinstance(s, Mapping):
            m = s.get("mass") if isinstance(s.get("mass"), Mapping) else {}
            view["sources"].append({"role": str(s.get("role") or ""), "decision": str(s.get("decision") or ""),
                                    "alpha": _num(s.get("alpha")), "mass": [(str(k), _num(v)) for k, v in sorted(m.items())],
                                    "reasons": [str(r) for r in s.get("reasons") or ()]})
    checker = f.get("checker")
    if isinstance(checker, Mapping):
        view["checker"] = ", ".join(f"{k} {_text(v)}" for k, v in sorted(checker.items()))
    elif checker is not None:
        view["checker"] = _text(checker)
    return view


def case_view(entry: Mapping[str, Any], anchor: str) -> dict[str, Any]:
    payload = entry.get("payload") or {}
    info = payload.get("case") or {}
    result = payload.get("result") or {}
    query = info.get("query") or result.get("query") or {}
    rule = str(entry.get("rule") or info.get("rule") or "")
    dims = query.get("dimensions") or {}
    return {
        "anchor": anchor, "key": entry.get("key", ""), "config": entry.get("config", ""),
        "case_id": entry.get("case_id") or info.get("id") or "", "file": entry.get("file", ""),
        "line": entry.get("line") or info.get("line") or "", "rule": rule,
        "label": entry.get("label", "S"), "label_text": LABELS.get(entry.get("label", ""), ""),
        "passed": bool(entry.get("passed")), "verdict_right": bool(entry.get("verdict_right")),
        "tags": list(info.get("tags") or ()), "description": info.get("description") or "",
        "filing": info.get("filing") or entry.get("filing") or "",
        "profile": profile_text(result["profile"]) if result.get("profile") else "",
        "shuffle": "" if result.get("shuffle") is None else str(result.get("shuffle")),
        "fact": fact_text(result["fact"]) if isinstance(result.get("fact"), Mapping) else "",
        "query": {"form": query.get("form") or "structured", "text": query.get("text") or "",
                  "concept": query.get("concept") or entry.get("concept") or "",
                  "period": query.get("period") or entry.get("period") or "",
                  "dims": ", ".join(f"{a}={m}" for a, m in sorted(dims.items())) if isinstance(dims, Mapping) else _text(dims),
                  "rule_hint": query.get("rule_hint") or ""},
        "inject": list(info.get("inject") or ()),
        "error": entry.get("error") or "", "has_payload": bool(payload), "has_result": bool(result),
        "decision": (payload.get("actual") or {}).get("decision") or entry.get("decision") or "",
        "expected_decision": (payload.get("expect") or {}).get("decision") or entry.get("expected_decision") or "",
        "compare": compare_rows(payload, entry) if payload else [],
        "evidence": evidence_steps(result.get("evidence_path")),
        "transcripts": transcripts(result), "reports": reports(result), "reviews": reviews(result),
        "arbitration": arbitration(result) if result else None,
        "fusion": fusion(result) if result else None, "rounds": result.get("rounds"),
        "drawing": drawing_from_result(result, rule) if result else None,
        "extra": [(k, pretty(result[k])) for k in sorted(result) if k not in SHOWN],
        "judge_label": entry.get("judge_label") or "",
    }


def suite_view(entries: Sequence[Mapping[str, Any]], *, title: str, settings: Mapping[str, Any],
               configs: Sequence[str] | None = None, command: str = "") -> dict[str, Any]:
    """Everything the suite template draws. ``entries`` in report order; ``configs`` their order of groups."""
    order = list(configs) if configs else list(dict.fromkeys(str(e.get("config") or "") for e in entries))
    groups = [summary_group(c, [e for e in entries if str(e.get("config") or "") == c]) for c in order]
    cases, used = [], set()
    for e in entries:
        base = slug(f"{e.get('config')}-{e.get('key')}" if len(order) > 1 else str(e.get("key")))
        anchor, n = "case-" + base, 2
        while anchor in used:
            anchor, n = f"case-{base}-{n}", n + 1
        used.add(anchor)
        cases.append(case_view(e, anchor))
    tags = sorted({t for c in cases for t in c["tags"]})
    families = sorted({c["rule"] for c in cases})
    return {"title": title, "settings": [(k, _text(v)) for k, v in settings.items() if v not in (None, "")],
            "groups": groups, "cases": cases, "tags": tags, "families": families, "configs": order,
            "labels": [(k, LABELS[k]) for k in ORDER], "command": command,
            "failed": sum(not c["passed"] for c in cases)}


def render_suite(entries: Sequence[Mapping[str, Any]], *, title: str, settings: Mapping[str, Any],
                 configs: Sequence[str] | None = None, command: str = "") -> str:
    """The suite report of case entries (see :func:`suite_view`)."""
    view = suite_view(entries, title=title, settings=settings, configs=configs, command=command)
    return environment().get_template("suite.html.j2").render(view=view)
