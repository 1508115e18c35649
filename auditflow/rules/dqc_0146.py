"""DQC.US.0146 — Annual report income statement not for a year (docs/rules/DQC_US_0146.md).

In a 10-K (20-F, 40-F) the income statement reports the fiscal year. When most monetary facts of an income
statement network that end on the report's period end cover a shorter (or other) period than the document
period, the statement was probably tagged with quarterly contexts. Transition reports, years of inception
and predecessor/successor reports are left out.
"""
from __future__ import annotations

from auditflow.rules.common import Collector, dei_facts, document_period_context, gate, period_text
from auditflow.rules.properties import is_monetary, period_type, statement_networks
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0146"
CODE = "DQC.US.0146.9870"
ANNUAL = frozenset({"10-K", "20-F", "40-F"})
SHOWN = 5
MESSAGE = (
    "The filing is an annual report, but most monetary values of the income statement {network} are for a period "
    "other than a year. The document period runs from {start} to {end}: {years} facts cover it and {others} facts "
    "end on {end} with another start ({examples}). Check that the income statement reports the full year. A "
    "transition report is marked with DocumentTransitionReport, a successor company with "
    "FinancialDesignationPredecessorAndSuccessorFixedList, and a year of inception with a nil extension fact "
    "named YearOfInception."
)
APPROXIMATED = ("DQC.US.0146: which income-statement concepts are monetary and of duration type is read from their "
                "facts for standard concepts, as our US-GAAP copy has no element schema")


def _left_out(env) -> str | None:
    """Why the filing is not examined (DQC's exclusions), or None."""
    doc_type = (env.filing.document_type or "").strip()
    if doc_type not in ANNUAL:
        return f"form not in scope: DQC 0146 reads only 10-K, 20-F and 40-F reports, not {doc_type or 'none'!r}"
    extension_marks = {q.local for q in env.index.by_concept if q.local in ("TransitionReport", "YearOfInception")
                       and env.filing.concepts.get(q) is not None and env.filing.concepts[q].source == "schema"}
    if extension_marks:
        return f"not examined: the filing marks itself with {', '.join(sorted(extension_marks))}"
    if any((f.value or "").strip().lower() == "true" for f in dei_facts(env, "DocumentTransitionReport") if not f.is_nil):
        return "not examined: a transition report (DocumentTransitionReport true)"
    if any(q.local == "FinancialDesignationPredecessorAndSuccessorFixedList" for q in env.index.by_concept):
        return "not examined: a predecessor/successor report"
    return None


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    if (why := _left_out(env)) is not None:
        c.skipped(None, why)
        return c.result()
    dped, dctx = document_period_context(env)
    if dctx is None or dctx.period.start is None:
        c.skipped(dped, "no document period (dei:DocumentPeriodEndDate with a duration context)")
        return c.result()
    start, end = dctx.period.start, dctx.period.end
    c.note(APPROXIMATED)
    for role in statement_networks(env):
        concepts = env.index.pre_concepts.get(role, set())
        if not any(q.local == "IncomeStatementAbstract" for q in concepts):
            continue
        items = [q for q in concepts if is_monetary(env, q) and period_type(env, q) == "duration"]
        years, others = [], []
        for q in items:
            for f in env.index.by_concept.get(q, ()):
                p = env.filing.contexts[f.context_id].period if f.context_id in env.filing.contexts else None
                if p is None or p.start is None or p.end != end:
                    continue
                (years if p.start == start else others).append(f)
        network = env.role_definition(role)
        if len(years) >= len(others):
            c.consistent(None, f"{network}: {len(years)} facts for the year, {len(others)} for other periods",
                         concept=next(q for q in concepts if q.local == "IncomeStatementAbstract"))
            continue
        others.sort(key=lambda f: f.index)
        examples = "; ".join(f"{f.concept.local} {period_text(env.filing.contexts[f.context_id].period)}" for f in others[:SHOWN])
        c.violation(CODE, others[0], role=network, network=network, start=start, end=end, years=len(years),
                    others=len(others), examples=examples + ("; …" if len(others) > SHOWN else ""),
                    evidence=others[:SHOWN])
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Annual report income statement not for a year", messages={CODE: MESSAGE},
    needs=frozenset({Need.DEI, Need.FILER_PRE, Need.FACTS}), run=run,
    not_applicable=("form not in scope", "not examined", "no document period", "no data root"),
    fix_hint="Tag the income statement of the annual report with contexts that cover the fiscal year.",
))
