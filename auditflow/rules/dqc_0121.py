"""DQC.US.0121 — Transition elements used after adoption (docs/rules/DQC_US_0121.md).

The US-GAAP taxonomy keeps elements for the periods before ASU 2016-02 (leases), ASU 2017-12 (hedging) and
ASU 2018-07 (stock compensation) were adopted: capital leases, operating-lease minimum payments and the like.
A fact of one of them for the current reporting period of a filing made after those dates is a leftover of
the old standard (9581). The elements are the 2025 constant TRANSITION_ELTS_2, less DQC's exceptions and the
concepts of a disclosure network the filer names "prior to adoption of Topic 842".
"""
from __future__ import annotations

import datetime as dt

from auditflow.rules.common import (
    REPORT_TYPE_EXCLUSIONS, US_GAAP, Collector, constant_qnames, decoded_constant, dei_facts, gate, in_family,
)
from auditflow.rules.dqc_0107 import snippet
from auditflow.rules.registry import CONSTANTS_2025, Need, RuleSpec, register

RULE = "0121"
CODE = "DQC.US.0121.9581"
ELEMENTS = "TRANSITION_ELTS_2"
EXCEPTIONS = frozenset({  # long-term debt and capital lease maturities: still in use, not flagged by DQC
    "LongTermDebtAndCapitalLeaseObligationsMaturitiesRepaymentsOfPrincipalRemainderOfFiscalYear",
    "LongTermDebtAndCapitalLeaseObligationsRepaymentsOfPrincipalInNextTwelveMonths",
    "LongTermDebtAndCapitalLeaseObligationsMaturitiesRepaymentsOfPrincipalInYearTwo",
    "LongTermDebtAndCapitalLeaseObligationsMaturitiesRepaymentsOfPrincipalInYearThree",
    "LongTermDebtAndCapitalLeaseObligationsMaturitiesRepaymentsOfPrincipalInYearsTwoAndThree",
    "LongTermDebtAndCapitalLeaseObligationsMaturitiesRepaymentsOfPrincipalInYearFour",
    "LongTermDebtAndCapitalLeaseObligationsMaturitiesRepaymentsOfPrincipalInYearFive",
    "LongtermDebtAndCapitalLeaseObligationsMaturitiesRepaymentsOfPrincipalInYearsFourAndFive",
    "LongTermDebtAndCapitalLeaseObligationsMaturitiesRepaymentsOfPrincipalAfterYearFive",
})
NOT_PERIODIC = frozenset({"8-K", "6-K"}) | REPORT_TYPE_EXCLUSIONS
SINCE = dt.date(2020, 1, 1)
CAPITAL_LEASE_REPAYMENTS = "RepaymentsOfLongTermCapitalLeaseObligations"
MESSAGE = (
    "{concept} with a value of {shown} is reported for the current period. It is a transition element, meant for "
    "periods before the adoption of ASU 2016-02 (leases), ASU 2017-12 (derivatives and hedging) or ASU 2018-07 "
    "(stock compensation), and is not to be used for fiscal years beginning after December 15, 2018 (leases, "
    "hedging) or December 15, 2019 (stock compensation).{advice}"
)


def _elements(raw: list) -> frozenset:
    return frozenset(q.local for q in constant_qnames(raw))


def prior_adoption_concepts(env) -> set[str]:
    """Local names of the concepts of disclosure networks whose URI says 'priortoadoptionoftopic842'."""
    out: set[str] = set()
    for role in env.index.pre_roles:
        if "- Disclosure -" in env.role_definition(role) and "priortoadoptionoftopic842" in role.lower():
            out |= {q.local for q in env.index.pre_concepts.get(role, ())}
    return out


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    doc_types = dei_facts(env, "DocumentType")
    if any((f.value or "").strip() in NOT_PERIODIC for f in doc_types):
        c.skipped(doc_types[0], "out of scope: a current report or a registration statement DQC excludes")
        return c.result()
    doc_ctx = env.filing.contexts.get(doc_types[0].context_id) if doc_types else None
    if doc_ctx is None or doc_ctx.period.end is None:
        return c.result()
    period_end = doc_ctx.period.end
    elements = decoded_constant(resources, ELEMENTS, _elements) - EXCEPTIONS - prior_adoption_concepts(env)
    for f in env.filing.facts:
        if f.is_nil or f.concept.local not in elements or not in_family(f.concept, US_GAAP):
            continue
        ctx = env.filing.contexts.get(f.context_id)
        if ctx is None or ctx.period.end is None:
            continue
        if ctx.period.end >= SINCE and ctx.period.end == period_end:
            advice = " Replace it with FinanceLeasePrincipalPayments." if f.concept.local == CAPITAL_LEASE_REPAYMENTS else ""
            c.violation(CODE, f, shown=_shown(f), advice=advice)
        else:
            c.consistent(f, "not a fact of the current reporting period")
    return c.result()


def _shown(f) -> str:
    if f.concept.local.endswith("TextBlock"):
        return f'"{snippet(f.value, 200)}...."'
    return (f.value or "").strip()


SPEC = register(RuleSpec(
    id=RULE, title="Transition elements used after adoption", messages={CODE: MESSAGE},
    needs=frozenset({Need.DEI, Need.FACTS, Need.FILER_PRE, Need.TAXONOMY}), run=run, resources=(CONSTANTS_2025,),
    not_applicable=("form not in scope", "no data root"),
))
