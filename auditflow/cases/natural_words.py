"""Concepts, members and companies in the words people use (for ``cases/natural``).

People name a line item by the filer's label ("Total cost of revenues"), a short form of it ("cost of
revenues"), or an analyst's word ("COGS"); a member by its label without the taxonomy's suffixes ("Greater
China"); a company by how it is called ("Amazon", "IBM") or its ticker. A phrase is only offered for a
concept when no other concept reported for the same period and members answers to it too, so a question
worded with it names one fact (:func:`taken_phrases`). See cases/natural/README.md.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from auditflow.cases.natural_periods import dei_text
from auditflow.env.names import label_of, names
from auditflow.env.tool_base import ToolContext
from auditflow.xbrl.filing import Filing
from auditflow.xbrl.model import Period

# The label roles people's words come from: the filer's own labels as its statements and notes print
# them. Period start/end labels carry a period of their own and negated labels a sign, so they are not used.
LABEL_ROLES = ("label", "terseLabel", "totalLabel", "verboseLabel")

# Words analysts use for common US-GAAP line items (by local name): nouns, and for cash outflows the
# verb phrase of "How much did <company> ... ?". A synonym is only used when no other concept reported
# in the same context answers to it too.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "Revenues": ("revenue", "total revenue", "sales", "top line"),
    "RevenueFromContractWithCustomerExcludingAssessedTax": ("revenue", "net sales", "sales", "top line"),
    "SalesRevenueNet": ("revenue", "net sales"),
    "CostOfRevenue": ("cost of revenue", "COGS", "cost of sales"),
    "CostOfGoodsAndServicesSold": ("COGS", "cost of sales", "cost of goods sold"),
    "GrossProfit": ("gross profit", "gross margin dollars"),
    "OperatingExpenses": ("opex", "total operating expenses", "operating costs"),
    "CostsAndExpenses": ("total costs and expenses", "total costs"),
    "OperatingIncomeLoss": ("operating income", "operating profit", "EBIT"),
    "NetIncomeLoss": ("net income", "earnings", "profit", "bottom line"),
    "ProfitLoss": ("net income including minority interests", "consolidated net income"),
    "IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest": (
        "pre-tax income", "pretax profit", "income before taxes"),
    "IncomeTaxExpenseBenefit": ("tax expense", "income tax provision", "provision for taxes"),
    "ResearchAndDevelopmentExpense": ("R&D", "R&D expense", "research spend"),
    "SellingGeneralAndAdministrativeExpense": ("SG&A", "SG&A expense"),
    "GeneralAndAdministrativeExpense": ("G&A", "G&A expense"),
    "InterestExpense": ("interest expense", "interest cost"),
    "EarningsPerShareBasic": ("basic EPS",),
    "EarningsPerShareDiluted": ("diluted EPS",),
    "Assets": ("total assets",),
    "AssetsCurrent": ("current assets",),
    "Liabilities": ("total liabilities",),
    "LiabilitiesCurrent": ("current liabilities",),
    "LiabilitiesAndStockholdersEquity": ("total liabilities and equity", "L&SE"),
    "StockholdersEquity": ("shareholders' equity", "book equity", "total equity"),
    "CashAndCashEquivalentsAtCarryingValue": ("cash and equivalents", "cash on hand", "cash & equivalents"),
    "AccountsReceivableNetCurrent": ("receivables", "AR", "trade receivables"),
    "InventoryNet": ("inventory", "inventories"),
    "PropertyPlantAndEquipmentNet": ("net PP&E", "PP&E"),
    "AccountsPayableCurrent": ("payables", "AP", "trade payables"),
    "Goodwill": ("goodwill",),
    "LongTermDebtNoncurrent": ("long-term debt", "LT debt"),
    "RetainedEarningsAccumulatedDeficit": ("retained earnings", "accumulated deficit"),
    "NetCashProvidedByUsedInOperatingActivities": ("operating cash flow", "cash from operations", "CFO"),
    "NetCashProvidedByUsedInInvestingActivities": ("investing cash flow", "cash used in investing"),
    "NetCashProvidedByUsedInFinancingActivities": ("financing cash flow", "cash from financing"),
    "PaymentsToAcquirePropertyPlantAndEquipment": ("capex", "capital expenditures", "capital spending"),
    "PaymentsForRepurchaseOfCommonStock": ("share buybacks", "stock repurchases", "buybacks"),
    "PaymentsOfDividends": ("dividends paid", "dividend payments"),
    "PaymentsOfDividendsCommonStock": ("common dividends paid", "dividend payments"),
    "ShareBasedCompensation": ("stock comp", "SBC", "stock-based compensation"),
    "AllocatedShareBasedCompensationExpense": ("stock comp expense", "SBC expense"),
    "DepreciationDepletionAndAmortization": ("D&A", "depreciation and amortization"),
    "DepreciationAndAmortization": ("D&A",),
    "Depreciation": ("depreciation",),
    "IncomeTaxesPaidNet": ("cash taxes", "income taxes paid"),
    "InterestPaidNet": ("cash interest", "interest paid"),
    "OperatingLeaseLiability": ("operating lease liabilities", "lease liabilities"),
    "AccumulatedDepreciationDepletionAndAmortizationPropertyPlantAndEquipment": (
        "accumulated depreciation",),
    "CommonStockSharesOutstanding": ("shares outstanding",),
    "WeightedAverageNumberOfDilutedSharesOutstanding": ("diluted share count", "diluted shares"),
    "WeightedAverageNumberOfSharesOutstandingBasic": ("basic share count", "basic shares"),
}
VERBS: dict[str, tuple[str, ...]] = {
    "PaymentsToAcquirePropertyPlantAndEquipment": ("spend on capex", "spend on property and equipment"),
    "PaymentsForRepurchaseOfCommonStock": ("spend repurchasing its own stock", "spend on buybacks"),
    "PaymentsOfDividends": ("pay out in dividends",),
    "PaymentsOfDividendsCommonStock": ("pay out in common dividends",),
    "ResearchAndDevelopmentExpense": ("spend on R&D", "spend on research and development"),
    "IncomeTaxesPaidNet": ("pay in income taxes",),
    "InterestPaidNet": ("pay in interest",),
}
# How people shorten the taxonomy's and filers' long phrases.
ABBREVIATIONS = (  # (a pattern, case-insensitive; its short form)
    (r"property,? plant,? and equipment", "PP&E"), (r"property and equipment", "PP&E"),
    (r"selling,? general,? and administrative", "SG&A"), (r"research and development", "R&D"),
    (r"general and administrative", "G&A"), (r"depreciation and amortization", "D&A"),
    (r"earnings per share", "EPS"), (r"cash and cash equivalents", "cash & equivalents"),
    (r"(stock|share)holders['’] equity", "equity"),
)
# Labels too vague to stand alone in a question ("Other", "Total"): a longer label of the concept is used.
GENERIC = frozenset({"other", "total", "net", "amount", "value", "balance", "gross", "subtotal", "thereafter"})
_NUMBERISH = re.compile(r"[\d\s&'-]*(year|years|and|after|thereafter)?[\d\s&'-]*")  # "2025", "2027 and 2028"
_SUFFIX = re.compile(r"\s*\[(member|domain|axis|abstract|line items|table)\]\s*$", re.IGNORECASE)
_PAREN = re.compile(r"\s*\([^()]*\)")
_CUT = re.compile(r",?\s+(net of|excluding|including|attributable to)\b.*$|,\s*net\s*$|,\s*total\s*$", re.IGNORECASE)
_MEMBER_WORDS = re.compile(r"\s*\b(member|segment|domain)\s*$", re.IGNORECASE)
_COMPANY_TAIL = re.compile(
    r"[,\s]+(inc|incorporated|corp|corporation|co|company|llc|l\.l\.c|lp|l\.p|ltd|limited|plc|n\.v|s\.a)\.?\s*$",
    re.IGNORECASE)



# -- concepts, members, company ---------------------------------------------------------------------

def clean_label(text: str) -> str:
    """A label without the taxonomy's "[Member]"-style suffix, a bracketed whole or a trailing colon."""
    text = _SUFFIX.sub("", " ".join(text.replace("\xa0", " ").split()))
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1].strip()
    return text.rstrip(": ")


def shortened(label: str) -> list[str]:
    """How people shorten a label, mildest first: no parenthetical, no "Total", no qualifying tail
    (", net of ...", "excluding ..."), common abbreviations. Only forms that differ from the label."""
    steps = [clean_label(label)]
    steps.append(_PAREN.sub("", steps[-1]).strip())
    steps.append(re.sub(r"^total\s+", "", steps[-1], flags=re.IGNORECASE))
    steps.append(_CUT.sub("", steps[-1]).strip(" ,"))
    abbreviated = steps[-1]
    for long, short in ABBREVIATIONS:
        abbreviated = re.sub(long, short, abbreviated, flags=re.IGNORECASE)
    steps.append(abbreviated)
    return [s for s in dict.fromkeys(steps[1:]) if s and s != steps[0] and len(s) >= 3]


def _norm(text: str) -> str:
    """A phrase as compared for clashes: lower case, no punctuation but '&', no "total"/"net" at the ends."""
    t = re.sub(r"[^\w&' ]+", " ", text.lower()).replace("’", "'")
    t = " ".join(t.split())
    t = re.sub(r"^(total|net)\s+", "", t)
    return re.sub(r"\s+(total|net)$", "", t)


ACRONYMS = frozenset({"SG&A", "R&D", "PP&E", "EPS", "COGS", "CFO", "AP", "AR", "D&A", "G&A", "LT", "SBC", "EBIT",
                      "L&SE", "US", "U.S.", "LLC"})
_TITLE_WORD = re.compile(r"[(\[\"']*([A-Z]?[a-z]+)([-/][A-Za-z][a-z]*)*[)\]\"',:;.]*")


def casual(text: str) -> str:
    """A label as typed in a sentence: Title-Case words ("Share-Based", "(Decrease)") lower-cased,
    acronyms ("PP&E", "EPS") and mixed case ("iPhone") kept."""
    if text.isupper() and sum(c.isalpha() for c in text) > 10:  # a label typed in capitals
        return " ".join(w if w.strip("(),") in ACRONYMS else w.lower() for w in text.split())
    return " ".join(w.lower() if _TITLE_WORD.fullmatch(w) else w for w in text.split())


def _phrases_of(ctx: ToolContext, concept) -> set[str]:
    """Every phrase a question could name ``concept`` by: its labels, their short forms, its synonyms."""
    own = names(ctx.env).labels.get(concept, {})
    labels = [clean_label(own[r]) for r in LABEL_ROLES if own.get(r)]
    if (std := label_of(ctx, concept)) is not None:
        labels.append(clean_label(std))
    out = set(labels) | {s for lab in labels for s in shortened(lab)}
    if is_standard(concept):
        out |= set(SYNONYMS.get(concept.local, ())) | set(VERBS.get(concept.local, ()))
    return {_norm(p) for p in out}


def is_standard(concept) -> bool:
    """A US-GAAP concept: the synonym table is keyed by US-GAAP names, a filer's own element may reuse one."""
    return "fasb.org/us-gaap" in concept.namespace


def taken_phrases(ctx: ToolContext, concept, period: Period, dims: dict) -> set[str]:
    """What the other concepts reported for the same period and members answer to (normalised)."""
    others = {f.concept for f in ctx.env.facts(None, period=period, dimensions=dict(dims)) if f.concept != concept}
    return set().union(*(_phrases_of(ctx, o) for o in sorted(others, key=str))) if others else set()


@dataclass(frozen=True)
class ConceptWording:
    source: str  # a tag: label_<source> (filer, short, synonym)
    text: str


def concept_wordings(ctx: ToolContext, concept, taken: set[str]) -> list[ConceptWording]:
    """The phrases a question may name ``concept`` by: the filer's labels, their short forms and the
    analysts' synonyms, then the taxonomy's standard label (for a filer whose labels another concept of
    the context shares), each only when no phrase in ``taken`` reads the same."""
    own = names(ctx.env).labels.get(concept, {})
    labels = list(dict.fromkeys(clean_label(own[r]) for r in LABEL_ROLES if own.get(r)))
    out = [ConceptWording("filer", lab) for lab in labels]
    out += [ConceptWording("short", s) for lab in labels for s in shortened(lab)]
    if is_standard(concept):
        out += [ConceptWording("synonym", s) for s in SYNONYMS.get(concept.local, ())]
    if (std := label_of(ctx, concept)) is not None:
        out.append(ConceptWording("standard", clean_label(std)))
    out.append(ConceptWording("name", humanized(concept.local)))  # the element's name, in words
    seen: set[str] = set()
    kept = []
    for w in out:
        key = _norm(w.text)
        if key and key not in taken and key not in GENERIC and not _NUMBERISH.fullmatch(key) and w.text not in seen:
            seen.add(w.text)
            kept.append(w)
    return kept


def humanized(local: str) -> str:
    """An element name in words: ``OtherAssetsNoncurrent`` -> "other assets noncurrent"."""
    return " ".join(re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", local).split()).lower()


def member_words(ctx: ToolContext, member) -> str:
    text = clean_label(label_of(ctx, member) or getattr(member, "local", str(member)))
    if not label_of(ctx, member):  # a bare local name: GreaterChinaMember -> Greater China
        text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)
    text = _MEMBER_WORDS.sub("", text).strip(" ,")
    return text or clean_label(str(member))


@dataclass(frozen=True)
class Company:
    name: str
    ticker: str


def company(filing: Filing, filing_name: str) -> Company:
    """The registrant's name as people say it ("AMAZON.COM, INC." -> "Amazon") and its ticker (its
    ``dei`` trading symbol, else the data root's folder name starts with it)."""
    raw = dei_text(filing, "EntityRegistrantName") or filing_name.split("-")[0].upper()
    name = raw
    for _ in range(2):
        name = _COMPANY_TAIL.sub("", name).strip(" ,")
    name = re.sub(r"\.com\b", "", name, flags=re.IGNORECASE)
    if name.isupper():
        name = " ".join(w if len(w) <= 3 else w.capitalize() for w in name.split())
    ticker = (dei_text(filing, "TradingSymbol") or filing_name.split("-")[0]).upper()
    if len(name.split()) >= 3 and "".join(w[0] for w in name.split()).upper() == ticker:
        name = ticker  # "International Business Machines" is "IBM" to everyone
    return Company(name or ticker, ticker)


def possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"
