"""DQC.US.0094 — Maturity schedules (docs/rules/DQC_US_0094.md).

Since the 2020 taxonomy a maturity schedule reports the remainder of the fiscal year, then year one (the
next twelve months), then year two. So an annual report must not tag a remainder that ends on the
document period end date (9526: that amount is year one), and a schedule that reports the remainder and
year two must also report year one (9527: the pre-2020 way of skipping it).
"""
from __future__ import annotations

from auditflow.rules.common import Collector, alignment, decoded_constant, document_period_context, gate, value_text
from auditflow.rules.registry import CONSTANTS_2025, Need, RuleSpec, register
from auditflow.rules.resources import family_key
from auditflow.xbrl.qname import QName

RULE = "0094"
CODE_ANNUAL = "DQC.US.0094.9526"
CODE_YEAR_ONE = "DQC.US.0094.9527"
ANNUAL_FORMS = frozenset({"10-K", "10-K/A", "10-KT", "20-F", "20-F/A", "40-F", "40-F/A"})
SCHEDULES = "MATURITY_SCHEDULE_ELEMENTS"  # the 2025 constants: (id, remainder, year one, year two) per schedule
MESSAGES = {
    CODE_ANNUAL: (
        "{concept} with a value of {value} ends on {end}, the document period end date ({document_end}). In an annual "
        "report the remainder of the fiscal year has no amount left at the period end: an amount that falls due in "
        "the twelve months after it is year one, to be tagged with {year_one}."),
    CODE_YEAR_ONE: (
        "{concept} with a value of {value} (the remainder of the fiscal year) and {year_two} with a value of "
        "{year_two_value} (year two) are reported, but {year_one} (year one) is not. A schedule with a remainder and a "
        "year two has a year one: report it, with a value of 0 if nothing falls due in it, or, if the amount tagged as "
        "year two ({year_two_value}) is really year one, tag it with {year_one}."),
}


def _decode(raw: list) -> tuple:
    """``["set", ["list", id, ["qname", remainder], ["qname", year one], ["qname", year two]], ...]`` ->
    ((remainder clark, year one clark, year two clark), ...)."""
    out = []
    for row in raw[1:]:
        names = [q[1] for q in row[2:5] if isinstance(q, list) and len(q) == 2]
        if len(names) == 3:
            out.append(tuple(names))
    return tuple(out)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    schedules = [tuple(QName.from_clark(n) for n in row) for row in decoded_constant(resources, SCHEDULES, _decode)]
    by_key: dict = {}
    for q, facts in env.index.by_concept.items():
        by_key.setdefault(family_key(q), []).extend(f for f in facts if not f.is_nil)
    annual = (env.filing.document_type or "") in ANNUAL_FORMS
    dped_ctx = document_period_context(env)[1]
    for remainder, year_one, year_two in schedules:
        remaining = sorted(by_key.get(family_key(remainder), ()), key=lambda f: f.index)
        if not remaining:
            continue
        if annual and dped_ctx is not None:
            _annual_remainder(c, env, remaining, year_one, dped_ctx.period.end)
        _missing_year_one(c, env, remaining, by_key.get(family_key(year_one), ()), by_key.get(family_key(year_two), ()),
                          year_one, year_two)
    return c.result()


def _annual_remainder(c: Collector, env, remaining, year_one: QName, document_end) -> None:
    for f in remaining:
        ctx = env.filing.contexts.get(f.context_id)
        if ctx is None or ctx.period.end is None:
            continue
        if ctx.period.end == document_end:
            c.violation(CODE_ANNUAL, f, end=ctx.period.end.isoformat(), document_end=document_end.isoformat(),
                        year_one=year_one.local)
        else:
            c.consistent(f, "the remainder ends before the document period end date")


def _missing_year_one(c: Collector, env, remaining, ones, twos, year_one: QName, year_two: QName) -> None:
    """XULE's implicit alignment: a remainder and a year two of the same period, dimensions and unit, without a
    year one of that alignment."""
    def keyed(facts):
        out = {}
        for f in facts:
            ctx = env.filing.contexts.get(f.context_id)
            if ctx is not None:
                out.setdefault(alignment(env, f, ctx), f)
        return out

    have_one, have_two = keyed(ones), keyed(twos)
    for key, f in keyed(remaining).items():
        two = have_two.get(key)
        if two is None:
            continue
        if key in have_one:
            c.consistent(f, f"year one reported with {year_one.local}")
        else:
            c.violation(CODE_YEAR_ONE, f, evidence=[two], year_one=year_one.local, year_two=two.concept,
                        year_two_value=value_text(two))


SPEC = register(RuleSpec(
    id=RULE, title="Maturity schedules", messages=MESSAGES, needs=frozenset({Need.DEI, Need.FACTS, Need.TAXONOMY}),
    run=run, resources=(CONSTANTS_2025,), not_applicable=("form not in scope", "no data root"),
))
