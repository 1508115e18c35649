"""DQC.US.0065 — Interest paid net (operating) not on the cash flow (docs/rules/DQC_US_0065.md).

When the filer's presentation shows InterestPaid in the supplemental cash flow section but neither
InterestPaidNet nor InterestPaidCapitalized there, each non-zero InterestPaid value without dimensions is
reported: InterestPaid includes capitalised interest, and the indirect-method cash flow needs interest paid
net of it. 7502 reads the section below SupplementalCashFlowInformationAbstract; 9593 below any of five
supplemental or noncash abstracts.
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, facts_named, gate, in_family
from auditflow.rules.properties import pre_descendants
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0065"
SECTIONS = {
    "DQC.US.0065.7502": ("SupplementalCashFlowInformationAbstract",),
    "DQC.US.0065.9593": ("SupplementalCashFlowInformationAbstract", "SupplementalCashFlowElementsAbstract",
                         "NoncashInvestingAndFinancingItemsAbstract",
                         "AdditionalCashFlowElementsAndSupplementalCashFlowInformationAbstract",
                         "CashFlowNoncashInvestingAndFinancingActivitiesDisclosureAbstract"),
}
MESSAGE = (
    "The supplemental cash flow section ({section}) shows {concept} with a value of {value}, but not InterestPaidNet "
    "(nor InterestPaidCapitalized). Interest paid net of the capitalised part must be reported in this section. "
    "InterestPaid includes capitalised interest: if there is none, use InterestPaidNet instead."
)


def descendant_names(env, roots: tuple[str, ...]) -> tuple[set[str], set[str]]:
    """(local names of every presentation descendant of a us-gaap concept named in ``roots``, in any network;
    the definitions of the networks where one was found)."""
    names, networks = set(), set()
    for (role, source), _arcs in env.index.pre_down.items():
        if source.local not in roots or not in_family(source, US_GAAP):
            continue
        for q in pre_descendants(env, role, [source]):
            names.add(q.local)
            networks.add(env.role_definition(role) or role)
    return names, networks


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    paid = [f for f in facts_named(env, "InterestPaid", US_GAAP)
            if not f.is_nil and f.number is not None and f.context_id in env.filing.contexts
            and not env.filing.contexts[f.context_id].dimensions]
    if not paid:
        c.skipped(None, "no InterestPaid value without dimensions")
        return c.result()
    for code, roots in SECTIONS.items():
        names, networks = descendant_names(env, roots)
        if "InterestPaid" not in names:
            c.skipped(None, f"{code}: InterestPaid is not in the supplemental cash flow section")
            continue
        if names & {"InterestPaidNet", "InterestPaidCapitalized"}:
            for f in paid:
                c.consistent(f, f"{code}: InterestPaidNet or InterestPaidCapitalized is in the section too")
            continue
        section = "; ".join(sorted(networks))
        for f in paid:
            if f.number == 0:
                c.consistent(f, f"{code}: zero")
            else:
                c.violation(code, f, section=section)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Interest paid net (operating) not on the cash flow", messages={code: MESSAGE for code in SECTIONS},
    needs=frozenset({Need.FILER_PRE, Need.FACTS}), run=run,
    not_applicable=("form not in scope", "no data root"),
    fix_hint="Tag interest paid net of capitalised interest with InterestPaidNet (and the capitalised part with "
             "InterestPaidCapitalized) instead of InterestPaid.",
))
