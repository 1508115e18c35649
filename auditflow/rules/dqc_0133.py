"""DQC.US.0133 — Equity method investment axes (docs/rules/DQC_US_0133.md).

The FASB's dimensional modelling of equity method investments uses two axes: the investee's name
(srt:ScheduleOfEquityMethodInvestmentEquityMethodInvesteeNameAxis) for what describes the investment, and
EquityMethodInvestmentNonconsolidatedInvesteeAxis for the investee's own financial data. The ownership
percentage and the description of principal activities need the name axis (9831); the investee's financial
data must not use it (9832); the descriptive items must not use the nonconsolidated-investee axis (9833).
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, decoded_constant, gate, in_family, local_dims
from auditflow.rules.properties import locals_of
from auditflow.rules.registry import CONSTANTS_2025, Need, RuleSpec, register

RULE = "0133"
NAME_AXIS = "ScheduleOfEquityMethodInvestmentEquityMethodInvesteeNameAxis"
INVESTEE_AXIS = "EquityMethodInvestmentNonconsolidatedInvesteeAxis"
NEED_NAME = frozenset({"EquityMethodInvestmentOwnershipPercentage", "EquityMethodInvestmentDescriptionOfPrincipalActivities"})
FINANCIAL = "FINANCIAL_DATA_EQUITY_METHOD_INVESTMENTS"  # the investee's revenues, assets, ... (2025 constants)
NON_FINANCIAL = "NON_FINANCIAL_DATA_EMI"  # descriptive equity-method items (2025 constants)
GUIDE = "See the FASB implementation guide on dimensional modeling for disclosures of consolidated and nonconsolidated entities."
MESSAGES = {
    "DQC.US.0133.9831": (
        "{concept} with a value of {value} is reported without ScheduleOfEquityMethodInvestmentEquityMethodInvesteeNameAxis. "
        "This element describes one equity method investment: report it on that axis with a member for the investee. " + GUIDE),
    "DQC.US.0133.9832": (
        "{concept} with a value of {value} is reported on ScheduleOfEquityMethodInvestmentEquityMethodInvesteeNameAxis "
        "({member}). The financial data of an equity method investee is reported on EquityMethodInvestmentNonconsolidatedInvesteeAxis, "
        "without the investee-name axis. " + GUIDE),
    "DQC.US.0133.9833": (
        "{concept} with a value of {value} is reported on EquityMethodInvestmentNonconsolidatedInvesteeAxis ({member}). "
        "This element describes the investment, not the investee's financial data: report it on "
        "ScheduleOfEquityMethodInvestmentEquityMethodInvesteeNameAxis instead. " + GUIDE),
}


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    financial = decoded_constant(resources, FINANCIAL, locals_of)
    descriptive = decoded_constant(resources, NON_FINANCIAL, locals_of)
    for f in env.filing.facts:
        local = f.concept.local
        if f.is_nil or not in_family(f.concept, US_GAAP) or not (local in NEED_NAME or local in financial or local in descriptive):
            continue
        ctx = env.filing.contexts.get(f.context_id)
        if ctx is None:
            continue
        dims = local_dims(ctx)
        hits = [(code, axis) for code, hit, axis in (  # three independent assertions in DQC: a fact may fail two
            ("DQC.US.0133.9831", local in NEED_NAME and NAME_AXIS not in dims, None),
            ("DQC.US.0133.9832", local in financial and NAME_AXIS in dims, NAME_AXIS),
            ("DQC.US.0133.9833", local in descriptive and INVESTEE_AXIS in dims, INVESTEE_AXIS)) if hit]
        for code, axis in hits:
            c.violation(code, f, **({"member": dims[axis]} if axis else {}))
        if not hits and (NAME_AXIS in dims or INVESTEE_AXIS in dims or local in NEED_NAME):
            c.consistent(f)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Equity method investment axes", messages=MESSAGES, needs=frozenset({Need.FACTS, Need.TAXONOMY}),
    run=run, resources=(CONSTANTS_2025,), not_applicable=("form not in scope", "no data root"),
))
