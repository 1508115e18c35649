"""DQC.US.0006 — DEI and text block date contexts (docs/rules/DQC_US_0006.md).

The duration of text blocks and of ten dei items must fit dei:DocumentFiscalPeriodFocus (FY and Q4
340-390 days, Q1 65-115, Q2 and H1 155-205, Q3 245-295, H2 340-390). Skipped for transition
reports, companies that report an inception date, registration statements, several document types
or several period end values.

Text blocks are recognised by their declared data type (textBlockItemType) when the concept's
schema is loaded; for standard concepts without element properties we fall back to the local name
ending in ``TextBlock`` and say so in a warning.
"""
from __future__ import annotations

from auditflow.rules.common import (
    NO_ELEMENT_PROPERTIES, REPORT_TYPE_EXCLUSIONS, Collector, base_concept, dei_facts, gate, is_dei, parse_date,
)
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0006"
CODE = "DQC.US.0006.14"
RANGES = {"FY": (340, 390), "Q1": (65, 115), "Q2": (155, 205), "Q3": (245, 295), "Q4": (340, 390),
          "H1": (155, 205), "H2": (340, 390)}
DEI_ITEMS = frozenset({
    "AmendmentDescription", "AmendmentFlag", "CurrentFiscalYearEndDate", "DocumentPeriodEndDate",
    "DocumentFiscalYearFocus", "DocumentFiscalPeriodFocus", "DocumentType", "EntityRegistrantName",
    "EntityCentralIndexKey", "EntityFilerCategory",
})
ECD_FAMILY = "http://xbrl.sec.gov/ecd/"
TEXT_BLOCK_TYPE = "textBlockItemType"
MESSAGE = (
    "The period {period} of {concept} lasts {days} days, which does not fit the Document Fiscal Period Focus "
    "{focus}: it expects text blocks and document information for {low} to {high} days. Correct the period of "
    "the fact or the Document Fiscal Period Focus; a transition report should report dei:DocumentTransitionReport "
    "true, and a company with a shorter first period an InceptionDate extension element."
)


def _is_text_block(env, q, c: Collector) -> bool:
    concept = env.concept(q)
    if concept is not None and concept.data_type:
        return concept.data_type.endswith(TEXT_BLOCK_TYPE)
    if q.local.endswith("TextBlock"):
        if base_concept(q):
            c.note(NO_ELEMENT_PROPERTIES.format(what="DQC 0006 recognised standard text blocks by the name suffix "
                                                     "'TextBlock' instead of their data type"))
        return True
    return False


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    focus_facts = dei_facts(env, "DocumentFiscalPeriodFocus")
    if not focus_facts:
        c.skipped(None, "no dei:DocumentFiscalPeriodFocus")
        return c.result()
    focus = (focus_facts[0].value or "").strip()
    if focus not in RANGES:
        c.skipped(focus_facts[0], f"Document Fiscal Period Focus {focus!r} has no expected duration")
        return c.result()
    types = dei_facts(env, "DocumentType")
    values = {d for d in (parse_date(f.value) for f in dei_facts(env, "DocumentPeriodEndDate")) if d is not None}
    reason = (
        "several dei:DocumentType facts" if len(types) > 1 else
        "a transition report (DocumentType contains T)" if any("T" in (f.value or "") for f in types) else
        "a registration statement ($REPORT_TYPE_EXCLUSIONS)" if any((f.value or "").strip() in REPORT_TYPE_EXCLUSIONS for f in types) else
        "the filing reports TransitionReport or InceptionDate" if any(
            q.local in ("TransitionReport", "InceptionDate") and not base_concept(q) for q in env.index.by_concept) else
        "dei:DocumentTransitionReport is true" if any((f.value or "").strip().lower() == "true" for f in dei_facts(env, "DocumentTransitionReport")) else
        "dei:DocumentPeriodEndDate has several values" if len(values) > 1 else None
    )
    if reason:
        c.skipped(None, f"not applicable: {reason}")
        return c.result()
    low, high = RANGES[focus]
    in_scope: dict = {}  # concept -> checked or not (decided once per concept, not per fact)
    for f in env.filing.facts:
        q = f.concept
        if q not in in_scope:
            in_scope[q] = not q.namespace.startswith(ECD_FAMILY) and (
                (is_dei(q) and q.local in DEI_ITEMS) or _is_text_block(env, q, c))
        if not in_scope[q]:
            continue
        ctx = env.filing.contexts.get(f.context_id)
        if ctx is None or ctx.period.is_instant or ctx.period.forever:
            continue
        days = ctx.period.days
        if days < low or days > high:
            c.violation(CODE, f, days=days, focus=focus, low=low, high=high)
        else:
            c.consistent(f)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="DEI and block tag date contexts", messages={CODE: MESSAGE},
    needs=frozenset({Need.DEI, Need.FACTS, Need.ELEMENT_PROPS}), run=run,
))
