"""DQC.US.0099 — Financial statement items without a calculation (docs/rules/DQC_US_0099.md).

Every monetary item on the face of a financial statement belongs in a calculation somewhere in the filing;
an item shown but summed nowhere is either a parenthetical (which belongs in its own network) or a missing
calculation relationship. Per statement presentation network, the monetary items (duration items on the
cash flow statement and the income statement, instant items on the balance sheet) that take part in no
calculation relationship with another such item of the network are listed, less DQC's exceptions.
"""
from __future__ import annotations

from auditflow.rules.common import (
    NO_ELEMENT_PROPERTIES, US_GAAP, Collector, base_concept, constant_keys, decoded_constant, gate,
    in_family,
)
from auditflow.rules.properties import is_monetary, period_type, pre_descendants
from auditflow.rules.registry import CONSTANTS_2025, Need, RuleSpec, register
from auditflow.rules.resources import family_key

RULE = "0099"
CODE = "DQC.US.0099.9533"
# Words of a statement role's URI (and definition) that DQC's $STATEMENT_PRES_NETWORKS leaves out.
URI_EXCLUDED = ("parenthetical", "equity", "deficit", "stockholders", "capital", "investment", "changes",
                "shareholder", "convertible", "preferred", "temporaryequity", "redeemable", "netproceedsfromallsources",
                "membersinterest", "membershipinterest", "highlights", "employee", "ebp")
DEFINITION_EXCLUDED = ("schedule iii", "schedule iv")
CF_EXCLUSIONS = frozenset({
    "EffectOfExchangeRateOnCashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents",
    "EffectOfExchangeRateOnCashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsIncludingDisposalGroupAndDiscontinuedOperations",
    "NetCashProvidedByUsedInDiscontinuedOperations",
})
CF_ABSTRACTS = frozenset({  # besides the constants' SET_NON_CF_ABSTRACTS1; the last four are DQC's extension names
    "SupplementalCashFlowElementsAbstract", "NoncashInvestingAndFinancingItemsAbstract",
    "AdditionalCashFlowElementsAndSupplementalCashFlowInformationAbstract",
    "CashFlowNoncashInvestingAndFinancingActivitiesDisclosureAbstract", "SupplementalCashFlowInformationAbstract",
    "NoncashInvestingItemsAbstract", "NoncashFinancingItemsAbstract", "NonCashOperatingAndFinancingActivitiesAbstract",
    "NonCashOperatingAndInvestingActivitiesAbstract",
})
IS_ABSTRACTS = frozenset({"ShareBasedCompensationAllocationAndClassificationInFinancialStatementsAbstract",
                          "SupplementalIncomeStatementElementsAbstract"})
BS_IS_EXCEPTIONS = frozenset({
    "CommitmentsAndContingencies", "ComprehensiveIncomeNetOfTaxIncludingPortionAttributableToNoncontrollingInterest",
    "ComprehensiveIncomeNetOfTax", "AllocatedShareBasedCompensationExpense", "NetIncomeLossAvailableToCommonStockholdersBasic",
    "NetIncomeLossAvailableToCommonStockholdersDiluted", "PremiumsWrittenGross",
})
EBP_EXCLUSIONS = frozenset({"EmployeeBenefitPlanChangeInNetAssetAvailableForBenefitTransferToFromFundWithinEsop",
                            "EmployeeBenefitPlanChangeInNetAssetAvailableForBenefitTransferToFromExternalPlan"})
CF_ADVICE = "If an item is an additional disclosure of the cash flow statement, put it below one of: {abstracts}."
IS_ADVICE = ("If an item is an additional disclosure of the income statement, put it below "
             "ShareBasedCompensationAllocationAndClassificationInFinancialStatementsAbstract or "
             "SupplementalIncomeStatementElementsAbstract.")
MESSAGE = (
    "These elements are in the presentation of {network} but in no calculation relationship of the filing: {items}. "
    "Every monetary item on the face of a financial statement should be in a calculation somewhere in the filing; an "
    "item that is not summed is a parenthetical item, which belongs in a separate parenthetical network. This is "
    "reported whether or not the items have values. {advice}"
)


def statement_networks(env) -> list[str]:
    """DQC's $STATEMENT_PRES_NETWORKS: '- Statement -' roles other than parentheticals, equity statements and the
    other kinds its URI words name."""
    out = []
    for role in env.index.pre_roles:
        definition = env.role_definition(role)
        if ("- Statement -" in definition and not any(w in role.lower() for w in URI_EXCLUDED)
                and not any(w in definition.lower() for w in DEFINITION_EXCLUDED)):
            out.append(role)
    return sorted(out)


def _constants(resources) -> dict[str, frozenset]:
    return {name: decoded_constant(resources, name, constant_keys)
            for name in ("NON_CF_ITEMS", "SET_NON_CF_ABSTRACTS1", "SSH_EXCEPTIONS", "ASSET_TYPES")}


def _named(qs, locals_: frozenset[str]) -> set:
    return {q for q in qs if q.local in locals_}


def _linked(env, numeric: set, unknown: set) -> set:
    """The items of ``numeric`` that are the source or target of a calculation relationship (any network of the
    filing) whose other end is in ``numeric`` too, or is a concept of the network whose type we cannot tell."""
    partners = numeric | unknown
    out = set()
    for (_role, source), arcs in env.index.calc_down.items():
        if source in partners:
            out.update(a.target for a in arcs if a.target in numeric)
            if source in numeric and any(a.target in partners for a in arcs):
                out.add(source)
    return out


def _unknown(env, concepts) -> set:
    """Concepts of the network with neither facts nor a declaration in the filer's schema: a standard concept's
    type is in no schema we have, so such a concept may be the monetary other end of a calculation."""
    out = set()
    for q in concepts:
        declared = env.filing.concepts.get(q)
        if not (q.local.endswith("Abstract") or env.index.by_concept.get(q)
                or (declared is not None and declared.source == "schema")):
            out.add(q)
    return out


def unlinked(env, role: str, k: dict[str, frozenset]) -> tuple[str, set]:
    """(kind of statement, the monetary items of the network in no calculation with another of them)."""
    concepts = env.index.pre_concepts.get(role, set())
    monetary = {q for q in concepts if is_monetary(env, q)}
    unknown = _unknown(env, concepts) - monetary
    in_k = lambda name: {q for q in monetary if family_key(q) in k[name]}  # noqa: E731
    if "cash" in env.role_definition(role).lower():
        numeric = {q for q in monetary if period_type(env, q) == "duration"}
        abstracts = {q for q in concepts if (in_family(q, US_GAAP) and family_key(q) in k["SET_NON_CF_ABSTRACTS1"])
                     or q.local in CF_ABSTRACTS}
        supplemental = set(pre_descendants(env, role, abstracts))
        return "cash", numeric - _linked(env, numeric, unknown) - _named(numeric, CF_EXCLUSIONS) - supplemental - in_k("NON_CF_ITEMS")
    supplemental = set(pre_descendants(env, role, {q for q in concepts if q.local in IS_ABSTRACTS}))
    locals_ = {q.local for q in concepts if in_family(q, US_GAAP)}
    if "IncomeStatementAbstract" in locals_:
        kind, numeric, extra = "income", {q for q in monetary if period_type(env, q) == "duration"}, in_k("SSH_EXCEPTIONS")
    elif "StatementOfFinancialPositionAbstract" in locals_:
        numeric = {q for q in monetary if period_type(env, q) == "instant"}
        has_asset_types = any(family_key(q) in k["ASSET_TYPES"] and q.local != "Assets" for q in concepts)
        kind, extra = "balance", set() if has_asset_types else _named(numeric, frozenset({"Assets"}))
    else:
        kind, numeric = "other", monetary
        extra = in_k("SSH_EXCEPTIONS") | _named(numeric, EBP_EXCLUSIONS)
    return kind, numeric - _linked(env, numeric, unknown) - _named(numeric, BS_IS_EXCEPTIONS) - supplemental - extra


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    networks = statement_networks(env)
    if not networks:
        c.skipped(None, "no statement: no '- Statement -' presentation network DQC checks")
        return c.result()
    c.note(NO_ELEMENT_PROPERTIES.format(what="a standard concept is taken as monetary, and as an instant or duration "
                                              "item, from its facts' units and periods; one without facts is not "
                                              "listed (DQC.US.0099)"))
    k = _constants(resources)
    for role in networks:
        network = env.role_definition(role) or role
        kind, items = unlinked(env, role, k)
        if not items:
            c.consistent(None, f"{network}: every monetary item is in a calculation")
            continue
        ordered = sorted(items, key=lambda q: (not base_concept(q), str(q)))
        advice = CF_ADVICE.format(abstracts=", ".join(sorted(CF_ABSTRACTS))) if kind == "cash" else IS_ADVICE
        c.violation(CODE, None, concept=ordered[0], role=network, network=network,
                    items=", ".join(map(str, ordered)), advice=advice)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Financial statement items without a calculation", messages={CODE: MESSAGE},
    needs=frozenset({Need.FILER_PRE, Need.FILER_CAL, Need.FACTS, Need.TAXONOMY}), run=run, resources=(CONSTANTS_2025,),
    fix_hint="Add {concept} (and the other listed items) to a calculation of the statement, or move it to a "
             "parenthetical network.",
    not_applicable=("out of scope", "no data root", "no statement"),
))
