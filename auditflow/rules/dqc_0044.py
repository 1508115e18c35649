"""DQC.US.0044 — Accrual items used in the investing or financing cash flow reconciliation
(docs/rules/DQC_US_0044.md).

A concept on DQC's accrual-item list (income-statement and equity concepts, the 2025 constant
``ACCRUAL_ITEMS``) must not be a calculation descendant of the financing (6834) or investing (7503) cash
flow totals; each non-zero fact of such a concept is reported.
"""
from __future__ import annotations

from auditflow.rules.common import Collector, calc_paths, constant_qnames, decoded_constant, family_keys, gate
from auditflow.rules.registry import CONSTANTS_2025, Need, RuleSpec, register
from auditflow.rules.resources import family_key

RULE = "0044"
TOTALS = (
    ("DQC.US.0044.6834", "financing", ("NetCashProvidedByUsedInFinancingActivities",
                                       "NetCashProvidedByUsedInFinancingActivitiesContinuingOperations")),
    ("DQC.US.0044.7503", "investing", ("NetCashProvidedByUsedInInvestingActivities",
                                       "NetCashProvidedByUsedInInvestingActivitiesContinuingOperations")),
)
MESSAGE = (
    "{concept} with a value of {value} is an accrual-based item in the US GAAP taxonomy, but the filer's calculation "
    "includes it in the sum of cash provided by (used in) {section} activities ({total}, in {network}). Accrual items "
    "do not belong in the {section} section of the cash flow statement: use a cash flow element (or an extension), "
    "or, if the total is really the operating cash flow, the operating activities element."
)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    accruals = decoded_constant(resources, "ACCRUAL_ITEMS", lambda raw: family_keys(constant_qnames(raw)))
    for code, section, totals in TOTALS:
        below = {}
        for total in totals:
            for role, path, _w in calc_paths(env, total):
                if family_key(path[-1]) in accruals:
                    below.setdefault(path[-1], (total, role))
        for concept, (total, role) in sorted(below.items(), key=lambda kv: kv[0].clark()):
            network = env.role_definition(role) or role
            for f in env.index.by_concept.get(concept, ()):
                if f.is_nil or f.number is None:
                    continue
                if f.number != 0:
                    c.violation(code, f, section=section, total=total, network=network)
                else:
                    c.consistent(f, "zero value")
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Accrual items used in investing/financing cash flow reconciliation",
    messages={code: MESSAGE for code, *_ in TOTALS}, needs=frozenset({Need.FILER_CAL, Need.FACTS, Need.TAXONOMY}),
    run=run, resources=(CONSTANTS_2025,),
))
