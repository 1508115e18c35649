"""DQC.US.0001 — Axis with inappropriate members (docs/rules/DQC_US_0001.md).

Some US-GAAP axes take only the members the taxonomy defines for them (plus a few named extensions);
others take only the filer's own members (plus a few named US-GAAP ones). For each of the 29 axes DQC
lists, every member the filer's definition linkbase puts below the axis (in any cube) is compared with
what the axis allows. A member that is not allowed is one violation per non-nil fact reported with it,
or a single violation naming the network when no fact uses it. The allowed US-GAAP members come from
the 2025 ruleset's constants (``MEM_*``/``MBR_*`` of dqc/common/dqcrt-us-2025-constants.json), matched by
local name within the taxonomy family, as the other rules that read these constants do.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from auditflow.rules.common import Collector, base_concept, constant_keys, decoded_constant, gate
from auditflow.rules.registry import CONSTANTS_2025, Need, RuleSpec, register
from auditflow.rules.resources import family_key
from auditflow.xbrl.qname import QName, namespace_year

RULE = "0001"
GAAP, SRT, DEI = "http://fasb.org/us-gaap", "http://fasb.org/srt", "http://xbrl.sec.gov/dei"
CURRENCY, EXCH = "http://xbrl.sec.gov/currency", "http://xbrl.sec.gov/exch"


@dataclass(frozen=True)
class Sub:
    """One sub-rule: the axis, which of its members are tested and what is allowed on it.

    ``scope`` is ``"all"`` (every member below the axis, extensions included, must be allowed), ``"base"``
    (only members of a standard taxonomy are tested; the filer's own members are always allowed) or
    ``"forbidden"`` (only the members of ``constants`` are flagged)."""

    eid: str
    axis: tuple[str, str]  # (family, local name)
    scope: str
    constants: tuple[str, ...] = ()
    members: tuple[tuple[str, str], ...] = ()  # further allowed standard members (family, local)
    extensions: tuple[str, ...] = ()  # allowed extension members, by local name
    advice: str = ""

    @property
    def code(self) -> str:
        return f"DQC.US.{RULE}.{self.eid}"


def _g(*names: str) -> tuple[tuple[str, str], ...]:
    return tuple((GAAP, n) for n in names)


def _s(*names: str) -> tuple[tuple[str, str], ...]:
    return tuple((SRT, n) for n in names)


ONLY_EXT = "Only the filer's own (extension) members belong on this axis"
ONLY_TAX = "Only the members the US GAAP taxonomy defines for this axis belong on it"
SUBS: tuple[Sub, ...] = (
    Sub("51", (GAAP, "FairValueByFairValueHierarchyLevelAxis"), "all", ("MEMBER_USGAAP_FAIR_VALUE",),
        extensions=("FairValueInputsLevel1AndLevel2Member", "FairValueInputsLevel2AndLevel3Member",
                    "FairValueInputsLevel1AndLevel3Member"),
        advice=ONLY_TAX + ", and the extensions FairValueInputsLevel1AndLevel2Member, "
        "FairValueInputsLevel2AndLevel3Member and FairValueInputsLevel1AndLevel3Member."),
    Sub("52", (GAAP, "ReclassificationOutOfAccumulatedOtherComprehensiveIncomeAxis"), "all",
        ("MBR_RECL_OUT_ACCUM_CMP_INC_AXS",), advice=ONLY_TAX + "."),
    Sub("53", (GAAP, "OtherOwnershipInterestsByNameAxis"), "base", members=_g("OtherOwnershipInterestsNameDomain"),
        advice=ONLY_EXT + "."),
    Sub("54", (DEI, "LegalEntityAxis"), "base", ("MEM_LEG_ENT_AXS", "MEM_FHLB_AXS"),
        members=_g("CoVenturerMember", "SpinoffMember", "PartnershipMember", "LimitedLiabilityCompanyMember",
                   "TrustForBenefitOfEmployeesMember") + ((DEI, "EntityDomain"),),
        advice=ONLY_EXT + ", besides the legal entities the US GAAP taxonomy predefines."),
    Sub("56", (GAAP, "NoncashOrPartNoncashDivestituresByUniqueNameAxis"), "base",
        members=_g("NoncashOrPartNoncashDivestitureNameDomain"), advice=ONLY_EXT + "."),
    Sub("57", (SRT, "ScheduleOfEquityMethodInvestmentEquityMethodInvesteeNameAxis"), "base",
        ("MBR_SCH_EQT_INV_NM_AXS",), advice=ONLY_EXT + "."),
    Sub("58", (SRT, "CounterpartyNameAxis"), "base",
        members=_s("RepurchaseAgreementCounterpartyNameDomain", "AffiliatedEntityMember", "ChiefFinancialOfficerMember",
                   "GuarantorSubsidiariesMember", "SubsidiaryIssuerMember", "DirectorMember",
                   "ChiefExecutiveOfficerMember", "ChiefOperatingOfficerMember")
        + _g("InvestorMember", "VariableInterestEntityNotPrimaryBeneficiaryMember", "IndividualMember",
             "GovernmentMember", "GeneralPartnerMember", "CorporateJointVentureMember", "SubsidiaryOfCommonParentMember",
             "IndividuallyImmaterialCounterpartiesMember"),
        advice=ONLY_EXT + ", besides a short list of US GAAP counterparties (affiliates, officers, directors, "
        "investors, governments, ...)."),
    Sub("59", (GAAP, "PlanNameAxis"), "base", ("MBR_PLN_NM_AXS",), advice=ONLY_EXT + "."),
    Sub("61", (SRT, "RangeAxis"), "all", ("MEM_RNG_AXS",), advice=ONLY_TAX + " (minimum, maximum, weighted average, ...)."),
    Sub("62", (SRT, "CurrencyAxis"), "all", ("MEM_SRT_CUR_AXS", "MEM_CUR_AXS"),
        members=tuple((CURRENCY, c) for c in ("VES", "SVC", "STN", "MRU")),
        extensions=("SICAD1Member", "SICAD2Member", "CENCOEXMember", "SICADMember", "SIMADIMember", "DIPROMember",
                    "DICOMMember", "XBT"),
        advice=ONLY_TAX + " (the currency taxonomy's currencies), and a few named extensions (SICAD, DICOM, XBT, ...)."),
    Sub("63", (GAAP, "PositionAxis"), "all", ("MEM_POS_AXS",), extensions=("NetLongPositionMember", "NetShortPositionMember"),
        advice=ONLY_TAX + ", and the extensions NetLongPositionMember and NetShortPositionMember."),
    Sub("64", (GAAP, "FairValueByMeasurementFrequencyAxis"), "all", ("MEM_FAR_VAL_MSR_FRQ_AXS",), advice=ONLY_TAX + "."),
    Sub("65", (GAAP, "FairValueByMeasurementBasisAxis"), "all", ("MEM_FAR_VAL_MSR_BAS_AXS",), advice=ONLY_TAX + "."),
    Sub("66", (GAAP, "HedgingDesignationAxis"), "all", ("MEM_HDG_DSG_AXS",), advice=ONLY_TAX + "."),
    Sub("69", (SRT, "ProductOrServiceAxis"), "base",
        ("MEM_PRD_SVC_AXS", "MEM_AIR_TP_AXS", "MEM_SCH_MPR_INS_AXS", "MEM_PPE_TP_AXS", "MEM_RSV_QTY_RSV_AXS",
         "MEM_PUB_UTL_INV_AXS"),
        members=_g("AuctionRateSecuritiesMember", "AutomobileLoanMember", "CommercialLoanMember",
                   "CommercialRealEstateMember", "ConstructionLoansMember", "ConsumerLoanMember", "GeneralLiabilityMember",
                   "HomeEquityLoanMember", "HomeEquityMember", "LetterOfCreditMember", "LineOfCreditMember", "LoansMember",
                   "ProfessionalMalpracticeLiabilityMember", "RealEstateLoanMember", "ResidentialMortgageMember",
                   "ResidentialRealEstateMember", "PublicUtilitiesInventoryPropaneMember",
                   "PublicUtilitiesInventoryWaterMember", "AutomobilesMember", "RegionalCarrierMember", "MainlineMember")
        + _s("CrudeOilMember", "FuelMember", "HeatingOilMember", "NaturalGasLiquidsReservesMember",
             "NaturalGasReservesMember", "OilReservesMember", "SyntheticOilMember", "HotelMember"),
        advice=ONLY_EXT + ", besides the products and services the US GAAP taxonomy defines."),
    Sub("70", (SRT, "ConsolidationItemsAxis"), "all", ("MEM_CON_ITM_AXS",),
        extensions=("CorporateReconcilingItemsAndEliminationsMember", "CorporateAndReconcilingItemsMember",
                    "CorporateAndEliminationsMember", "EliminationsAndReconcilingItemsMember",
                    "OperatingSegmentsAndCorporateNonSegmentMember", "OperatingSegmentsExcludingIntersegmentEliminationMember",
                    "OtherOperatingSegmentsAndIntersegmentEliminationsMember",
                    "OperatingSegmentsAfterReconcilingItemsAndEliminationsMember"),
        advice=ONLY_TAX + ", members below MaterialReconcilingItemsMember or ConsolidationEliminationsMember, and a few "
        "named extensions (CorporateAndEliminationsMember, CorporateReconcilingItemsAndEliminationsMember, ...)."),
    Sub("71", (GAAP, "DefinedBenefitPlanByPlanAssetCategoriesAxis"), "forbidden", ("MEM_NOT_ALLOWED_RET_TREE",),
        advice="Members that describe kinds of retirement plans (plan type, sponsor location, funding status, plan name) "
        "do not belong on the plan asset categories axis."),
    Sub("72", (GAAP, "AwardDateAxis"), "base", ("MEM_AWD_DT_AXS",), advice=ONLY_EXT + "."),
    Sub("74", (GAAP, "SubsequentEventTypeAxis"), "all", ("MEM_SUB_EVT_AXS",), advice=ONLY_TAX + "."),
    Sub("75", (GAAP, "StatementEquityComponentsAxis"), "base", ("MBR_STM_EQY_CMP_AXS",),
        members=_g("TrustForBenefitOfEmployeesMember",
                   "AccumulatedNetGainLossFromCashFlowHedgesIncludingPortionAttributableToNoncontrollingInterestMember",
                   "AccumulatedNetGainLossFromDesignatedOrQualifyingCashFlowHedgesMember",
                   "AccumulatedNetGainLossFromCashFlowHedgesAttributableToNoncontrollingInterestMember"),
        advice=ONLY_EXT + ", besides the equity components the US GAAP taxonomy defines for it."),
    Sub("76", (SRT, "StatementScenarioAxis"), "base", ("MBR_STM_SCN_AXS",),
        advice=ONLY_EXT + ", besides the scenarios the US GAAP taxonomy defines for it."),
    Sub("77", (GAAP, "PreferredUnitsByNameAxis"), "base", ("MBR_PRF_UNT_NM_AXS",), advice=ONLY_EXT + "."),
    Sub("78", (GAAP, "RetirementPlanNameAxis"), "base", ("MBR_RET_PLN_NM_AXS",), advice=ONLY_EXT + "."),
    Sub("79", (SRT, "OwnershipAxis"), "base", ("MBR_OWNRSHP_AXS",), advice=ONLY_EXT + ", besides exchange members."),
    Sub("80", (SRT, "MajorCustomersAxis"), "base", ("MBR_MAJ_CST_AXS",), advice=ONLY_EXT + "."),
    Sub("9366", (GAAP, "BusinessAcquisitionAxis"), "base", ("MBR_BUS_ACQ_AXS",),
        advice=ONLY_EXT + ", besides the series of individually immaterial acquisitions."),
    Sub("81", (GAAP, "StatementBusinessSegmentsAxis"), "base", ("MBR_STM_BIS_SEG_AXS",),
        advice=ONLY_EXT + ", besides the few US GAAP segment members (corporate, reportable segment aggregations, ...)."),
    Sub("82", (GAAP, "AssetAcquisitionAxis"), "base", ("MBR_AST_ACQ_AXS",),
        advice=ONLY_EXT + ", besides the series of individually immaterial asset acquisitions."),
    Sub("83", (GAAP, "RetirementPlanSponsorLocationAxis"), "base", ("MBR_STM_GEO_AXS",),
        members=_g("RetirementPlanSponsorLocationDomain", "DomesticPlanMember", "ForeignPlanMember"),
        advice="Only geographical members, DomesticPlanMember, ForeignPlanMember and the filer's own members belong on "
        "this axis."),
)
BY_CODE = {s.code: s for s in SUBS}
# 70: the filer's own members below these two are allowed on ConsolidationItemsAxis.
RECONCILING_PARENTS = frozenset({(GAAP, "MaterialReconcilingItemsMember"), (SRT, "ConsolidationEliminationsMember")})
DEFAULT_65 = "DEF_FAR_VAL_MSR_BAS_AXS"
DEPRECATED = "DEP_CONCEPTS"  # members deprecated by 2025: absent from the 2025 lists, valid in older years
LISTS_YEAR = 2025
CLASSES_OF_STOCK = "MBR_STM_CLS_STK_AXS"


def _message(s: Sub) -> str:
    axis = s.axis[1]
    return "The member {member} is used on " + axis + " {usage}. " + s.advice + "{note}"


MESSAGES = {s.code: _message(s) for s in SUBS}


def _axis_members(env) -> dict[tuple[str, str], dict[QName, set[str]]]:
    """Axis (family, local) -> every member below it in the filer's cubes -> the roles that put it there."""
    out: dict[tuple[str, str], dict[QName, set[str]]] = defaultdict(lambda: defaultdict(set))
    for cube in env.dims.cubes:
        for axis_q, axis in cube.axes.items():
            for m in set(axis.domains) | set(axis.parents):
                out[family_key(axis_q)][m].add(cube.role)
    return out


def _below(env, parents: frozenset) -> set[QName]:
    """Members of any cube with one of ``parents`` among their domain-member ancestors."""
    out = set()
    for cube in env.dims.cubes:
        for axis in cube.axes.values():
            out.update(m for m in axis.parents if any(family_key(a) in parents for a in axis.ancestors(m)))
    return out


def _facts_by_member(env) -> dict[tuple[tuple[str, str], QName], list]:
    """(axis key, member) -> the non-nil facts reported with that member on that axis, document order."""
    out: dict = defaultdict(list)
    for f in env.filing.facts:
        ctx = env.filing.contexts.get(f.context_id)
        if f.is_nil or ctx is None:
            continue
        for axis_q, member in ctx.dimensions:
            if isinstance(member, QName):
                out[(family_key(axis_q), member)].append(f)
    return out


def _allowed(s: Sub, member: QName, allowed: frozenset, extra: set[QName]) -> bool:
    key = family_key(member)
    standard = base_concept(member)
    if s.scope == "forbidden":
        return not standard or key not in allowed
    if s.scope == "base" and not standard:
        return True
    if member in extra or key in allowed or key in s.members:
        return True
    if s.eid == "79" and key[0] == EXCH:
        return True
    return not standard and member.local in s.extensions


def _older_deprecated(member: QName, resources) -> bool:
    """A standard member of an older taxonomy year that was deprecated by 2025: the 2025 lists do not have it,
    but it may well have been allowed in the year the filing uses."""
    year = namespace_year(member.namespace)
    return (year is not None and year < LISTS_YEAR and base_concept(member)
            and family_key(member) in decoded_constant(resources, DEPRECATED, constant_keys))


def _note(s: Sub, member: QName, resources, env) -> str:
    """The extra sentence of 65 (a default outside the taxonomy's) and 75 (a class-of-stock member)."""
    if s.eid == "75" and family_key(member) in decoded_constant(resources, CLASSES_OF_STOCK, constant_keys):
        return (f" {member.local} is a class of stock: report it on StatementClassOfStockAxis, together with a generic "
                "stock member such as CommonStockMember on StatementEquityComponentsAxis.")
    if s.eid == "65":
        default = next((m for a, m in env.dims.defaults.items() if family_key(a) == s.axis), None)
        if default is not None and family_key(default) not in decoded_constant(resources, DEFAULT_65, constant_keys):
            return (f" The filer also makes {default.local} the axis's default, which puts every fact without the axis "
                    "on it; the default must be PortionAtFairValueFairValueDisclosureMember.")
    return ""


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    on_axis = _axis_members(env)
    facts = None
    for s in SUBS:
        members = on_axis.get(s.axis)
        if not members:
            c.skipped(None, f"{s.code}: {s.axis[1]} is not in the filer's definition linkbase")
            continue
        allowed = frozenset().union(*(decoded_constant(resources, k, constant_keys) for k in s.constants))
        extra = _below(env, RECONCILING_PARENTS) if s.eid == "70" else set()
        facts = facts if facts is not None else _facts_by_member(env)
        for member in sorted(members, key=QName.clark):
            if _allowed(s, member, allowed, extra):
                c.consistent(None, f"{s.code}: {member.local} is allowed on {s.axis[1]}", concept=member)
                continue
            if _older_deprecated(member, resources):
                c.skipped(None, f"{s.code}: {member} was deprecated by {LISTS_YEAR}; the {LISTS_YEAR} lists cannot judge "
                                f"it on a filing of its own year", concept=member)
                c.note(f"DQC {RULE}: members deprecated since the filing's taxonomy year are not judged against the "
                       f"{LISTS_YEAR} lists (see docs/rules/DQC_US_{RULE}.md)")
                continue
            note = _note(s, member, resources, env)
            used = facts.get((s.axis, member), [])
            for f in used:
                c.violation(s.code, f, member=member, usage=f"with the concept {f.concept} (value {f.value})", note=note)
            if not used:
                network = "; ".join(sorted(env.role_definition(r) or r for r in members[member]))
                c.violation(s.code, None, concept=member, role=network, member=member, note=note,
                            usage=f"in the filer's definition linkbase ({network}), and no fact is reported with it")
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Axis with inappropriate members", messages=MESSAGES,
    needs=frozenset({Need.FILER_DEF, Need.FACTS, Need.TAXONOMY}), run=run, resources=(CONSTANTS_2025,),
    not_applicable=("form not in scope", "no data root"),
    fix_hint="Replace the member on {axis} with one the axis allows (see the DQC message), or remove it from the "
             "definition linkbase.",
))
