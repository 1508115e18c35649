"""The filer's page, ``auditflow check FILING --html``: findings grouped by rule, each drawn.

Built from :meth:`auditflow.rules.runner.CheckReport.to_json` (findings with their evidence, counts
per rule, warnings) and a few facts about the loaded filing (:func:`filing_facts`), so the page shows
exactly what the table and the JSON output show, drawn.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from auditflow.errors import AuditflowError
from auditflow.html.drawing import drawing_from_finding, number, show, slug
from auditflow.html.render import environment
from auditflow.rules import registry

OPEN_UP_TO = 20  # a filing with more findings lists them collapsed (one line each), to be opened one by one
COUNTED = ("facts", "numeric_facts", "nil_facts", "contexts", "units", "concepts", "calculation_arcs",
           "definition_arcs", "statement_roles", "duplicates")


def rule_title(rule: str) -> str:
    """``DQC.US.NNNN <title>`` from the rule's registry entry (just the name for a rule an older report
    names and the registry does not know)."""
    try:
        return f"DQC.US.{rule} {registry.get(rule).title}"
    except AuditflowError:
        return f"DQC.US.{rule}"


def filing_facts(env: Any) -> dict[str, Any]:
    """What the page says about the loaded filing: document type, taxonomy year, counts."""
    from auditflow.rules.resources import filing_taxonomy_year

    counts = env.counts()
    return {"name": getattr(env.filing, "name", ""), "document_type": getattr(env.filing, "document_type", None),
            "inline": bool(getattr(env.filing, "is_inline", False)),
            "taxonomy_year": filing_taxonomy_year(env.filing),
            "counts": [(k.replace("_", " "), counts[k]) for k in COUNTED if k in counts]}


def _display_filing(source: str, facts: Mapping[str, Any]) -> str:
    """The filing's name with its folder (``acme-10k-2024/inline``), or just the name for a filing of
    the data root's ``filings/``; never an absolute path of this machine."""
    path = Path(source)
    name = str(facts.get("name") or path.name or source)
    parent = path.parent.name if path.name == name else ""
    return f"{parent}/{name}" if parent and parent not in ("filings", "filings-rolled") else name


def _where(f: Mapping[str, Any]) -> str:
    """``document:line`` of the finding's fact (as the log names it, docs/check-log.md), or empty."""
    document, line = f.get("document") or "", f.get("line")
    return f"{document}:{line}" if document and line else document


def _finding(f: Mapping[str, Any], index: int, filing_anchor: str) -> dict[str, Any]:
    d = drawing_from_finding(f)
    rep, exp = number(f.get("reported")), number(f.get("expected"))
    period = f.get("period") or {}
    period_text = (period.get("instant") or f"{period.get('start', '')}..{period.get('end', '')}"
                   if isinstance(period, Mapping) else str(period))
    dims = f.get("dimensions") or {}
    return {"anchor": f"{filing_anchor}-f{index}", "code": f.get("code", ""), "rule": f.get("rule", ""),
            "concept": f.get("concept", ""), "label": f.get("label") or "", "period": period_text,
            "fact_id": f.get("fact_id") or "", "where": _where(f),
            "dims": ", ".join(f"{a}={m}" for a, m in sorted(dims.items())) if isinstance(dims, Mapping) else str(dims),
            "unit": f.get("unit") or "", "decimals": "" if f.get("decimals") is None else str(f.get("decimals")),
            "reported": show(rep), "expected": show(exp),
            "difference": show(rep - exp) if rep is not None and exp is not None else "",
            "tolerance": show(f.get("tolerance")), "statement": f.get("role") or "", "message": f.get("message", ""),
            "fix": registry.fix_for(f), "drawing": d}


def check_view(reports: Sequence[Mapping[str, Any]], facts: Sequence[Mapping[str, Any]],
               rules: Sequence[str] = ()) -> dict[str, Any]:
    """``reports``: ``CheckReport.to_json()`` per filing; ``facts``: :func:`filing_facts` per filing."""
    if not rules:  # in the reports' order: every rule that ran
        rules = list(dict.fromkeys(r for rep in reports for r in (rep.get("checked") or {})))
    filings = []
    for n, (rep, fac) in enumerate(zip(reports, facts)):
        name = _display_filing(str(rep.get("filing", "")), fac)
        anchor = f"filing-{n + 1}-{slug(name)}"
        findings = list(rep.get("findings") or ())
        groups = []
        for rule in rules:
            fs = [f for f in findings if f.get("rule") == rule]
            groups.append({"rule": rule, "title": rule_title(rule),
                           "checked": (rep.get("checked") or {}).get(rule, 0),
                           "consistent": (rep.get("consistent") or {}).get(rule, 0),
                           "not_applicable": (rep.get("not_applicable") or {}).get(rule, 0),
                           "findings": [_finding(f, i + 1, f"{anchor}-{rule}") for i, f in enumerate(fs)]})
        filings.append({"anchor": anchor, "name": name, "facts": fac, "groups": groups, "findings": len(findings),
                        "open": len(findings) <= OPEN_UP_TO, "warnings": list(rep.get("warnings") or ())})
    total = sum(f["findings"] for f in filings)
    title = (f"AuditFlow check: {filings[0]['name']}" if len(filings) == 1 else f"AuditFlow check: {len(filings)} filings")
    return {"title": title, "filings": filings, "total": total, "rules": list(rules)}


def render_check(reports: Sequence[Mapping[str, Any]], facts: Sequence[Mapping[str, Any]],
                 rules: Sequence[str]) -> str:
    """A filer's report: ``CheckReport.to_json()`` and :func:`filing_facts` per filing."""
    return environment().get_template("check.html.j2").render(view=check_view(reports, facts, rules))
