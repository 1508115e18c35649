"""DQC.US.0013 — Negative values with dependence (docs/rules/DQC_US_0013.md).

Tax credits, deductions and the other reconciling items of the effective tax rate listed below lower the
rate when income before tax is positive, and are entered as positive percentages (a negated label shows
them in brackets). When income before tax of the same period and dimensions is positive, a negative value
of one of them is a sign error, one code per item. Income before tax is read, in DQC's order, from the
total, or the total before equity-method income plus that income, or domestic plus foreign plus
equity-method income. Facts on members that may legitimately carry the other sign (eliminations,
adjustments, segments' corporate columns, ...) are left out, as DQC's constants list them.
"""
from __future__ import annotations

from decimal import Decimal

from auditflow.rules.common import (
    Collector, constant_keys, constant_qnames, decoded_constant, facts_named, family_keys, gate, numeric_items,
)
from auditflow.rules.registry import CONSTANTS_2025, Need, RuleSpec, register
from auditflow.rules.resources import family_key
from auditflow.xbrl.qname import QName

RULE = "0013"
PREFIX = "EffectiveIncomeTaxRateReconciliation"
ITEMS = (  # rule element id, reconciling item (the 2026 source's list; 2776 to 2778 are commented out there)
    ("2774", "TaxCredits"), ("2779", "DeductionsOther"), ("2780", "NondeductibleExpenseLifeInsurance"),
    ("2781", "TaxCreditsOther"), ("2782", "TaxCreditsInvestment"), ("2783", "TaxCreditsForeign"),
    ("2784", "DeductionsDividends"), ("2785", "RepatriationOfForeignEarnings"), ("2871", "TaxHolidays"),
    ("2872", "NondeductibleExpenseResearchAndDevelopment"), ("2873", "Deductions"),
    ("2874", "NondeductibleExpenseImpairmentLosses"), ("3001", "DeductionsEmployeeStockOwnershipPlanDividends"),
    ("3002", "NondeductibleExpenseMealsAndEntertainment"), ("3439", "DeductionsExtraterritorialIncomeExclusion"),
    ("3440", "NondeductibleExpenseCharitableContributions"),
    ("3441", "RepatriationForeignEarningsJobsCreationActOf2004"), ("9789", "BeatPercent"), ("9791", "FdiiPercent"),
)
IBT = "IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest"
IBT_BEFORE_EQUITY = "IncomeLossFromContinuingOperationsBeforeIncomeTaxesMinorityInterestAndIncomeLossFromEquityMethodInvestments"
EQUITY_METHOD = "IncomeLossFromEquityMethodInvestments"
DOMESTIC = "IncomeLossFromContinuingOperationsBeforeIncomeTaxesDomestic"
FOREIGN = "IncomeLossFromContinuingOperationsBeforeIncomeTaxesForeign"
MESSAGE = (
    "{concept} with a value of {value} is negative while income before tax of the same period is positive "
    "({income}, from {income_source}). This reconciling item of the effective tax rate is expected to be zero or "
    "more then. Check the input: if the sign is wrong, enter the absolute value and give the line a negated label "
    "if it is to be shown in brackets."
)


def _strings(raw: list) -> tuple:
    return tuple(str(x).lower() for x in raw[1:])


def _by_axis(raw: list) -> dict:
    """``[[axis qname], [set of members]]`` rows as {axis key: member keys}."""
    return {family_key(QName.from_clark(row[1][1])): family_keys(constant_qnames(row[2])) for row in raw[1:]}


def exclusions(resources) -> tuple:
    """DQC's exclusions of the non-negative rules: (member local-name substrings, members, axes, {axis: members})."""
    return (decoded_constant(resources, "EXCLUDE_NON_NEG_STRING_MEMBERS", _strings),
            decoded_constant(resources, "EXCLUDE_NON_NEG_MEMBERS", constant_keys),
            decoded_constant(resources, "EXCLUDE_NON_NEG_AXIS", constant_keys),
            decoded_constant(resources, "EXCLUDE_NON_NEG_AXIS_MEMBERS", _by_axis))


def excluded(ctx, excl) -> str:
    """Why a fact on these dimensions may be negative (DQC's member and axis exclusions); '' when none applies."""
    substrings, members, axes, by_axis = excl
    for axis, member in ctx.dimensions:
        a = family_key(axis)
        if a in axes:
            return f"axis {axis.local} is excluded"
        if isinstance(member, QName):
            m = family_key(member)
            low = member.local.lower()
            if m in members or m in by_axis.get(a, ()) or any(s in low for s in substrings):
                return f"member {member.local} is excluded"
    return ""


def income_before_tax(env) -> dict:
    """Alignment (entity, period, dimensions) -> (income before tax, where it was read, the facts read), with
    DQC's fallbacks; a missing addend counts as zero (XULE's ``none`` in a sum)."""
    def values(local):
        out: dict = {}
        for f, ctx, _n in numeric_items(env, facts_named(env, local)):
            out.setdefault((ctx.entity_scheme, ctx.entity_id, ctx.period, ctx.dimensions), f)
        return out

    def total(key, *tables):
        facts = tuple(t[key] for t in tables if key in t)
        return sum((f.number for f in facts), Decimal(0)), " + ".join(f.concept.local for f in facts), facts

    whole, before, equity, dom, forn = (values(x) for x in (IBT, IBT_BEFORE_EQUITY, EQUITY_METHOD, DOMESTIC, FOREIGN))
    out = {}
    for key in set(whole) | set(before) | set(dom) | set(forn):
        if key in whole:
            out[key] = total(key, whole)
        elif key in before:
            out[key] = total(key, before, equity)
        else:
            out[key] = total(key, dom, forn, equity)
    return out


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    income = income_before_tax(env)
    excl = exclusions(resources)
    for sid, item in ITEMS:
        for f, ctx, n in numeric_items(env, facts_named(env, PREFIX + item)):
            found = income.get((ctx.entity_scheme, ctx.entity_id, ctx.period, ctx.dimensions))
            if found is None or found[0] <= 0:
                c.skipped(f, "no positive income before tax for its period and dimensions")
            elif n >= 0:
                c.consistent(f)
            elif why := excluded(ctx, excl):
                c.skipped(f, f"may be negative: {why}")
            else:
                c.violation(f"DQC.US.0013.{sid}", f, expected=abs(n), evidence=found[2], income=found[0],
                            income_source=found[1])
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Negative values with dependence", messages={f"DQC.US.0013.{sid}": MESSAGE for sid, _ in ITEMS},
    needs=frozenset({Need.FACTS, Need.TAXONOMY}), run=run, resources=(CONSTANTS_2025,),
    fix_hint="Enter {concept} as the positive amount {expected}; a negated label shows it in brackets.",
    not_applicable=("form not in scope", "no data root"),
))
