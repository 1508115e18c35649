"""DQC.US.0051 — Before-tax items (docs/rules/DQC_US_0051.md).

Three income totals are before tax; an income-tax concept that the filer's calculation *subtracts*
from one of them (the product of the weights along the path is negative) makes the total an
after-tax amount. One finding per total, tax concept and network.
"""
from __future__ import annotations

from auditflow.rules.common import Collector, calc_paths, gate
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0051"
TAX_ITEMS = frozenset({
    "IncomeTaxExpenseBenefit", "CurrentIncomeTaxExpenseBenefit", "CurrentForeignTaxExpenseBenefit",
    "CurrentFederalStateAndLocalTaxExpenseBenefit", "CurrentFederalTaxExpenseBenefit",
    "CurrentStateAndLocalTaxExpenseBenefit", "DeferredIncomeTaxExpenseBenefit", "DeferredForeignIncomeTaxExpenseBenefit",
    "DeferredFederalStateAndLocalTaxExpenseBenefit", "DeferredFederalIncomeTaxExpenseBenefit",
    "DeferredStateAndLocalIncomeTaxExpenseBenefit", "OtherTaxExpenseBenefit",
})
TOTALS = (
    ("DQC.US.0051.7484", "IncomeLossIncludingPortionAttributableToNoncontrollingInterest"),
    ("DQC.US.0051.7485", "IncomeLossAttributableToParent"),
    ("DQC.US.0051.7486", "IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest"),
)
MESSAGE = (
    "{tax} is subtracted in the calculation of {total} in {network}. {total} is an amount before the deduction of "
    "income tax: subtracting the tax expense is inconsistent with the meaning of the element. Use an after-tax "
    "element for the total, or take the tax out of its calculation."
)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    for code, total in TOTALS:
        seen = set()
        for role, path, weight in calc_paths(env, total):
            tax = path[-1]
            if tax.local not in TAX_ITEMS:
                continue
            if weight >= 0 or (role, tax) in seen:
                c.consistent(None, f"{tax} added to {total}", concept=tax)
                continue
            seen.add((role, tax))
            network = env.role_definition(role) or role
            c.violation(code, None, concept=tax, role=network, tax=tax.local, total=total, network=network)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Before tax items", messages={code: MESSAGE for code, _ in TOTALS},
    needs=frozenset({Need.FILER_CAL}), run=run,
))
