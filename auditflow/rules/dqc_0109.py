"""DQC.US.0109 — Concentration risk (docs/rules/DQC_US_0109.md).

ConcentrationRiskPercentage1 says what share of a benchmark (revenue, receivables, ...) one risk (a customer,
a supplier, a region) makes up, so a fact needs ConcentrationRiskByBenchmarkAxis for the benchmark,
ConcentrationRiskByTypeAxis for the kind of risk and a third axis naming the customer or region; only the
total of all exposures, 100 %, may be reported with less. Seven checks of the FASB's concentration-risk
guidance (codes 9565-9572).
"""
from __future__ import annotations

from auditflow.rules.common import (
    US_GAAP, Collector, base_concept, constant_keys, decoded_constant, facts_named, gate, in_family,
)
from auditflow.rules.registry import CONSTANTS_2025, Need, RuleSpec, register

RULE = "0109"
CONCEPT = "ConcentrationRiskPercentage1"
BENCHMARK, TYPE = "ConcentrationRiskByBenchmarkAxis", "ConcentrationRiskByTypeAxis"
LABOR = frozenset({"LaborForceConcentrationRiskMember", "UnionizedEmployeesConcentrationRiskMember"})
_REVENUE_RISKS = ("GeographicConcentrationRiskMember", "CustomerConcentrationRiskMember", "ProductConcentrationRiskMember",
                  "RevenueFromRightsConcentrationRiskMember", "GovernmentContractsConcentrationRiskMember",
                  "SupplierConcentrationRiskMember")
# DQC's $BENCHMARK_WITH_RISK_TYPE: the risks each benchmark may be used with (9570).
RISKS_OF_BENCHMARK: dict[str, tuple[str, ...]] = {
    **{b: _REVENUE_RISKS for b in ("SalesRevenueNetMember", "SalesRevenueProductLineMember", "SalesRevenueSegmentMember",
                                   "RevenueFromContractWithCustomerMember",
                                   "RevenueFromContractWithCustomerProductAndServiceBenchmarkMember",
                                   "RevenueFromContractWithCustomerSegmentBenchmarkMember")},
    "AccountsReceivableMember": ("CreditConcentrationRiskMember", "GeographicConcentrationRiskMember",
                                 "CustomerConcentrationRiskMember"),
    "CostOfGoodsTotalMember": ("GeographicConcentrationRiskMember", "SupplierConcentrationRiskMember",
                               "ProductConcentrationRiskMember", "LaborForceConcentrationRiskMember",
                               "UnionizedEmployeesConcentrationRiskMember"),
    "ReinsuranceRecoverableMember": ("ReinsurerConcentrationRiskMember",),
}
THRESHOLD = ("If the value is a threshold (the percentage above which a concentration is disclosed), use an "
             "extension element such as ConcentrationRiskThresholdPercentage.")
BOTH = "{concept} with a value of {value} should always carry ConcentrationRiskByTypeAxis and ConcentrationRiskByBenchmarkAxis"
MESSAGES = {
    "DQC.US.0109.9565": BOTH + ": without them it means nothing. Only the total of all exposures, 1 (100%), may be "
                        "reported without dimensions. " + THRESHOLD,
    "DQC.US.0109.9566": BOTH + "; this fact has other dimensions ({dimensions}) but neither of those two. The type axis "
                        "names the risk, the benchmark axis the denominator. " + THRESHOLD,
    "DQC.US.0109.9567": BOTH + "; this fact has the risk ({risk}) but no benchmark, the denominator the percentage is "
                        "of. " + THRESHOLD,
    "DQC.US.0109.9568": BOTH + "; this fact has the benchmark ({benchmark}) but not the type of risk, the numerator. "
                        + THRESHOLD,
    "DQC.US.0109.9569": BOTH + " and a third axis naming the risk area: with only those two it can be 1 (100%), nothing "
                        "else. Add the axis that identifies the specific {risk} risk (a customer, a region, ...). "
                        + THRESHOLD,
    "DQC.US.0109.9570": "{concept} with a value of {value} uses the benchmark {benchmark} with the risk {risk}, which does "
                        "not apply to that benchmark. Use one of {allowed}, or an extension risk member.",
    "DQC.US.0109.9571": "{concept} with a value of {value} uses {benchmark} on ConcentrationRiskByBenchmarkAxis, but that "
                        "member is a type of risk, not a benchmark. The benchmark is the amount the risk is measured "
                        "against: revenues, receivables, loans, ...",
    "DQC.US.0109.9572": "{concept} with a value of {value} uses {risk} on ConcentrationRiskByTypeAxis, but that member is "
                        "a benchmark, not a type of risk. The type of risk names what the benchmark is exposed to.",
}


def _dims(env, f) -> dict:
    ctx = env.filing.contexts.get(f.context_id)
    return {} if ctx is None else {a.local: m for a, m in ctx.dimensions}


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    facts = [f for f in facts_named(env, CONCEPT, US_GAAP) if f.context_id in env.filing.contexts]
    if not facts:
        c.skipped(None, f"no fact: the filing reports no {CONCEPT}")
        return c.result()
    risk_items = {k[1] for k in decoded_constant(resources, "SET_CONCENTRATION_RISK_ITEMS", constant_keys)}
    benchmark_items = {k[1] for k in decoded_constant(resources, "SET_BENCHMARK_ITEMS", constant_keys)}
    plain_exists = any(not f.is_nil and not _dims(env, f) for f in facts)
    for f in facts:
        before = len(c.findings)
        _check(c, env, f, plain_exists, risk_items, benchmark_items)
        if len(c.findings) == before:
            c.consistent(f)
    return c.result()


def _local(member) -> str | None:
    return getattr(member, "local", None)


def _us_gaap(member) -> bool:
    return member is not None and hasattr(member, "namespace") and in_family(member, US_GAAP)


def _check(c: Collector, env, f, plain_exists: bool, risk_items: set, benchmark_items: set) -> None:
    dims = _dims(env, f)
    bench, risk = dims.get(BENCHMARK), dims.get(TYPE)
    if _us_gaap(bench) and _local(bench) in risk_items:
        c.violation("DQC.US.0109.9571", f, benchmark=bench)
    if _us_gaap(risk) and _local(risk) in benchmark_items:
        c.violation("DQC.US.0109.9572", f, risk=risk)
    if f.is_nil:
        return
    one = f.number == 1
    if not dims:
        if not one:
            c.violation("DQC.US.0109.9565", f)
    elif bench is None and risk is None:
        if not plain_exists:
            c.violation("DQC.US.0109.9566", f)
    elif bench is None:
        c.violation("DQC.US.0109.9567", f, risk=risk)
    elif risk is None:
        c.violation("DQC.US.0109.9568", f, benchmark=bench)
    else:
        if set(dims) == {BENCHMARK, TYPE} and not one and _local(risk) not in LABOR:
            c.violation("DQC.US.0109.9569", f, risk=risk)
        allowed = RISKS_OF_BENCHMARK.get(_local(bench)) if _us_gaap(bench) else None
        if allowed is not None and base_concept(risk) and _local(risk) not in allowed:
            c.violation("DQC.US.0109.9570", f, benchmark=bench, risk=risk, allowed=", ".join(allowed))


SPEC = register(RuleSpec(
    id=RULE, title="Concentration risk", messages=MESSAGES, needs=frozenset({Need.FACTS, Need.TAXONOMY}), run=run,
    resources=(CONSTANTS_2025,),
    fix_hint="Report {concept} with ConcentrationRiskByBenchmarkAxis (the denominator), ConcentrationRiskByTypeAxis "
             "(the risk) and an axis naming the customer, supplier or region.",
    not_applicable=("out of scope", "no data root", "no fact"),
))
