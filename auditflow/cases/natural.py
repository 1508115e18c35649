"""Questions worded the way people type them: the ``cases/natural`` corpus (issue 46).

``cases/hard`` asks in two wordings only, FinMR's and the generator's plain words (docs/query-forms.md),
and a reader can learn those two templates instead of the questions. This module words the generator's
cases the way an analyst, an auditor or a filer's own staff types them:

* **frames**: questions ("How much did Apple spend on buybacks in the first nine months of fiscal
  2023?"), noun phrases ("Total current assets on the December 31, 2022 balance sheet"), analyst
  shorthand ("TSLA H1 2024 capex") and requests ("Please tie out Netflix's cost of revenues for Q3 2024");
* **periods** read against the filer's own calendar (its ``dei`` fiscal year and period focus, its
  document period end date and fiscal year end): fiscal and calendar years, quarters ("Q2 FY23", "the
  June 2023 quarter"), halves and year-to-date spans ("first nine months of fiscal 2023", "9M 2024"),
  balance-sheet dates and year-ends, and dates in several spellings;
* **concepts** by the filer's own labels, shortened the way people shorten them ("Accounts receivable,
  net" -> "accounts receivable", "Research and development" -> "R&D"), or by a common analyst synonym
  (:data:`SYNONYMS`); **members** by their labels without the taxonomy's suffixes ("Greater China");
* the company by a short form of its registrant name, or its ticker.

Which wording a case gets is a seeded choice per case (``seed`` and the case id), so the same cases give
the same bytes. Nothing else of a case changes: the fact, the injection and the expectation stay what the
generator made them, i.e. the checkers' answer on the case's **exact twin** (the same case with concept,
period and members given exactly); as with ``--questions`` the fact moves to ``expect.fact``.

A wording never names two facts. A concept phrase (label, shortened label or synonym) is dropped when
another concept the filing reports for the same period and members answers to it too; a period phrase
is only offered when the calendar reading of it gives back exactly the fact's period (a filer whose
``dei`` focus disagrees with its own dates gets dates only). The wording is not tuned to any reader: it
was written from how filings, analyst notes and audit requests word things, before any tool read it.
"""
from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, replace
from typing import Callable

from auditflow.cases.generated import GeneratedCase
from auditflow.cases.model import CaseQuery, FactSelector
from auditflow.cases.questions import distractor_tags
from auditflow.env.names import label_of, names, resolve_concept, resolve_dimensions
from auditflow.env.phrases import span_months
from auditflow.env.query import parse_period
from auditflow.env.tool_base import ToolContext
from auditflow.xbrl.filing import Filing
from auditflow.xbrl.model import Period

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
MONTHS_SHORT = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
MONTHS_DOT = ("Jan.", "Feb.", "March", "April", "May", "June", "July", "Aug.", "Sept.", "Oct.", "Nov.", "Dec.")
ORDINALS = ("first", "second", "third", "fourth")
SPAN_NUMBERS = {3: "three", 6: "six", 9: "nine", 12: "twelve"}
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


# -- the filer's calendar --------------------------------------------------------------------------

def nominal_month(d: dt.date) -> tuple[int, int] | None:
    """(year, month) a period end belongs to: the month it closes, or the month before for the first days of
    a month (52/53-week years end on a Saturday: Apple's fiscal 2023 quarter "June 2023" ended July 1,
    2023). None for a date in the middle of a month, which no calendar word names."""
    if d.day <= 7:
        prior = d - dt.timedelta(days=d.day)
        return prior.year, prior.month
    if d.day >= 20:
        return d.year, d.month
    return None


@dataclass(frozen=True)
class FiscalCalendar:
    """How a filer numbers its years and quarters, from its own ``dei`` facts.

    ``fye_month``: the month its fiscal year closes in; ``shift``: its fiscal year's number minus the
    calendar year that year closes in (0, or -1 for filers who name a year by the one it starts in);
    ``fiscal_words``: False when the ``dei`` focus disagrees with the dates (then only dates are used).
    """

    fye_month: int
    shift: int = 0
    fiscal_words: bool = True

    @property
    def calendar(self) -> bool:
        """The fiscal year is the calendar year, so "2023" and "Q2 2024" need no "fiscal"."""
        return self.fiscal_words and self.fye_month == 12 and self.shift == 0

    def fiscal_year(self, end: dt.date) -> int | None:
        nm = nominal_month(end)
        if nm is None:
            return None
        year, month = nm
        return (year if month <= self.fye_month else year + 1) + self.shift

    def quarter(self, end: dt.date) -> int | None:
        """The fiscal quarter (1-4) closing at ``end``; None when ``end`` closes no quarter."""
        nm = nominal_month(end)
        if nm is None:
            return None
        months = (nm[1] - self.fye_month) % 12
        return None if months % 3 else (months // 3 or 4)


def _dei(filing: Filing, local: str) -> str | None:
    for f in filing.facts:
        if f.concept.local == local and f.concept.namespace.startswith("http://xbrl.sec.gov/dei/") \
                and not filing.contexts[f.context_id].dimensions and f.value:
            return " ".join(f.value.replace("\xa0", " ").split())
    return None


def fiscal_calendar(filing: Filing) -> FiscalCalendar:
    """The filer's calendar from ``CurrentFiscalYearEndDate`` (``--09-30``), checked against its document
    period end date, fiscal year focus and fiscal period focus; dates only when they disagree."""
    try:
        doc_end = dt.date.fromisoformat(_dei(filing, "DocumentPeriodEndDate") or "")
        focus_year = int(_dei(filing, "DocumentFiscalYearFocus") or "")
    except ValueError:
        return FiscalCalendar(12, 0, False)
    focus = (_dei(filing, "DocumentFiscalPeriodFocus") or "").upper()
    fye = _dei(filing, "CurrentFiscalYearEndDate") or ""
    m = re.fullmatch(r"--(\d{2})-(\d{2})", fye)
    nm = nominal_month(dt.date(2001, int(m.group(1)), min(int(m.group(2)), 28 if m.group(1) == "02" else 30))) \
        if m else nominal_month(doc_end) if focus == "FY" else None
    if nm is None:
        return FiscalCalendar(12, 0, False)
    cal = FiscalCalendar(nm[1])
    year = cal.fiscal_year(doc_end)
    quarter = cal.quarter(doc_end)
    want = {"FY": 4, "Q1": 1, "Q2": 2, "Q3": 3, "Q4": 4}.get(focus)
    if year is None or quarter is None or quarter != want or focus_year - year not in (0, -1):
        return FiscalCalendar(nm[1], 0, False)
    return FiscalCalendar(nm[1], focus_year - year)


# -- periods in words --------------------------------------------------------------------------------

@dataclass(frozen=True)
class PeriodWording:
    """One way to name a period: ``phrase`` runs on after a noun or verb ("in the first half of 2024",
    "as of Dec. 31, 2022"); ``short`` is the analyst's token ("H1 2024"), or None when there is none."""

    style: str  # a tag: period_<style>
    phrase: str
    short: str | None = None


def date_text(d: dt.date, style: int) -> str:
    """A date in one of the spellings people type."""
    return (f"{MONTHS[d.month - 1]} {d.day}, {d.year}",
            f"{MONTHS_DOT[d.month - 1]} {d.day}, {d.year}",
            f"{MONTHS_SHORT[d.month - 1]} {d.day} {d.year}",
            f"{d.month}/{d.day}/{d.year}",
            f"{d.day} {MONTHS[d.month - 1]} {d.year}",
            d.isoformat())[style % 6]


def _short_date(d: dt.date, style: int) -> str:
    return (f"{d.month}/{d.day}/{d.year % 100:02d}", f"{d.day}-{MONTHS_SHORT[d.month - 1]}-{d.year % 100:02d}",
            f"{MONTHS_SHORT[d.month - 1]} {d.day} '{d.year % 100:02d}")[style % 3]


def period_wordings(period: Period, cal: FiscalCalendar, rng: random.Random) -> list[PeriodWording]:
    """Every wording of ``period`` the filer's calendar supports, each naming that period alone."""
    if period.end is None:
        return []
    d = period.end
    date = date_text(d, rng.randrange(1, 6) if period.start is None else rng.randrange(6))  # no "as of <Month D, YYYY>"
    short = _short_date(d, rng.randrange(3))
    if period.start is None:
        return _instant_wordings(d, date, short, cal)
    months = span_months(period)
    out = [PeriodWording("dates", f"between {date_text(period.start, 1)} and {date_text(d, 1)}")]
    if months in SPAN_NUMBERS:
        n = SPAN_NUMBERS[months]
        out = [PeriodWording("dates", f"for the {rng.choice((n, str(months)))} months ending {date}",
                             f"{months}M ended {short}"),
               PeriodWording("dates", f"in the {n} months to {date}", f"{months}M to {short}")]
        if months == 3:
            out.append(PeriodWording("dates", f"for the quarter ended {date}", f"qtr ended {short}"))
        if months == 12:
            out.append(PeriodWording("dates", f"for the year ending {date}", f"FY ended {short}"))
    if months in SPAN_NUMBERS and _aligned(period, months, cal):
        out += _calendar_wordings(d, months, cal)
    return out


def _aligned(period: Period, months: int, cal: FiscalCalendar) -> bool:
    """Whether the period is a fiscal quarter (3 months) or runs from the fiscal year's start."""
    if not cal.fiscal_words or period.start is None or period.end is None:
        return False
    start, end = nominal_month(period.start - dt.timedelta(days=1)), nominal_month(period.end)
    if start is None or end is None or ((end[0] - start[0]) * 12 + end[1] - start[1]) != months:
        return False
    quarter = cal.quarter(period.end)
    if quarter is None:
        return False
    return months == 3 or quarter * 3 == months


def _calendar_wordings(d: dt.date, months: int, cal: FiscalCalendar) -> list[PeriodWording]:
    fy, q = cal.fiscal_year(d), cal.quarter(d)
    assert fy is not None and q is not None  # _aligned checked both
    yy = f"{fy % 100:02d}"
    nm = nominal_month(d)
    out: list[PeriodWording] = []
    if months == 12:
        out += [PeriodWording("fiscal_year", f"in fiscal {fy}", f"FY{yy}"),
                PeriodWording("fiscal_year", f"for fiscal year {fy}", f"FY {fy}"),
                PeriodWording("fiscal_year", f"in FY{fy}", f"FY{fy}")]
        if cal.calendar:
            out += [PeriodWording("calendar_year", f"in {fy}", f"{fy}"),
                    PeriodWording("calendar_year", f"for full-year {fy}", f"FY{yy}"),
                    PeriodWording("calendar_year", f"for calendar {fy}", f"CY{yy}")]
    elif months == 3:
        out += [PeriodWording("fiscal_quarter", f"in fiscal Q{q} {fy}", f"Q{q} FY{yy}"),
                PeriodWording("fiscal_quarter", f"in the {ORDINALS[q - 1]} quarter of fiscal {fy}", f"FQ{q} {fy}")]
        if nm is not None:
            out.append(PeriodWording("month_quarter", f"in the {MONTHS[nm[1] - 1]} {nm[0]} quarter",
                                     f"{MONTHS_SHORT[nm[1] - 1]}-{nm[0] % 100:02d} qtr"))
        if cal.calendar:
            out += [PeriodWording("calendar_quarter", f"in Q{q} {fy}", f"Q{q} {fy}"),
                    PeriodWording("calendar_quarter", f"in the {ORDINALS[q - 1]} quarter of {fy}", f"{q}Q{yy}")]
    elif months == 6:
        out += [PeriodWording("year_to_date", f"in the first half of fiscal {fy}", f"H1 FY{yy}"),
                PeriodWording("year_to_date", f"in the first six months of fiscal {fy}", f"6M FY{yy}")]
        if cal.calendar:
            out += [PeriodWording("year_to_date", f"in the first half of {fy}", f"H1 {fy}"),
                    PeriodWording("year_to_date", f"in H1 {fy}", f"1H{yy}")]
    elif months == 9:
        out += [PeriodWording("year_to_date", f"in the first nine months of fiscal {fy}", f"9M FY{yy}"),
                PeriodWording("year_to_date", f"year to date through fiscal Q3 {fy}", f"YTD Q3 FY{yy}")]
        if cal.calendar:
            out += [PeriodWording("year_to_date", f"in the first nine months of {fy}", f"9M {fy}"),
                    PeriodWording("year_to_date", f"over the first three quarters of {fy}", f"9M{yy}")]
    return out


def _instant_wordings(d: dt.date, date: str, short: str, cal: FiscalCalendar) -> list[PeriodWording]:
    out = [PeriodWording("instant_date", f"as of {date}", short), PeriodWording("instant_date", f"at {date}", short),
           PeriodWording("instant_date", f"as at {date_text(d, 4)}", short)]
    q = cal.quarter(d) if cal.fiscal_words else None
    if q is not None or (not cal.fiscal_words and d.day >= 28):  # a balance sheet is dated at a quarter's end
        out.append(PeriodWording("balance_sheet", f"on the {date} balance sheet", f"BS {short}"))
    if q is None:
        return out
    fy = cal.fiscal_year(d)
    yy = f"{fy % 100:02d}"
    if q == 4:
        out += [PeriodWording("year_end", f"at the end of fiscal {fy}", f"FYE{yy}"),
                PeriodWording("year_end", f"at fiscal year-end {fy}", f"FY{yy} year-end")]
        if cal.calendar:
            out += [PeriodWording("year_end", f"at year-end {fy}", f"YE{yy}"),
                    PeriodWording("year_end", f"at the end of {fy}", f"end-{fy}")]
    else:
        out.append(PeriodWording("quarter_end", f"at the end of fiscal Q{q} {fy}", f"end of Q{q} FY{yy}"))
        if cal.calendar:
            out.append(PeriodWording("quarter_end", f"at the end of Q{q} {fy}", f"end-Q{q} {fy}"))
    return out


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
    if _is_standard(concept):
        out |= set(SYNONYMS.get(concept.local, ())) | set(VERBS.get(concept.local, ()))
    return {_norm(p) for p in out}


def _is_standard(concept) -> bool:
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
    if _is_standard(concept):
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
    raw = _dei(filing, "EntityRegistrantName") or filing_name.split("-")[0].upper()
    name = raw
    for _ in range(2):
        name = _COMPANY_TAIL.sub("", name).strip(" ,")
    name = re.sub(r"\.com\b", "", name, flags=re.IGNORECASE)
    if name.isupper():
        name = " ".join(w if len(w) <= 3 else w.capitalize() for w in name.split())
    ticker = (_dei(filing, "TradingSymbol") or filing_name.split("-")[0]).upper()
    if len(name.split()) >= 3 and "".join(w[0] for w in name.split()).upper() == ticker:
        name = ticker  # "International Business Machines" is "IBM" to everyone
    return Company(name or ticker, ticker)


def possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


# -- frames ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Parts:
    """What a frame puts together: who, what (members included), when."""

    who: str  # company name or ticker
    ticker: str
    what: str  # the concept phrase with its members
    short_what: str  # the same for shorthand (no articles, shortest label)
    verb: str | None
    when: PeriodWording
    instant: bool


Frame = Callable[[Parts], "str | None"]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


QUESTION_FRAMES: tuple[Frame, ...] = (
    lambda p: f"What was {possessive(p.who)} {p.what} {p.when.phrase}?",
    lambda p: f"What did {p.who} report for {p.what} {p.when.phrase}?",
    lambda p: f"How much did {p.who} {p.verb} {p.when.phrase}?" if p.verb else None,
    lambda p: f"How much {p.what} did {p.who} have {p.when.phrase}?" if p.instant else
    f"How much {p.what} did {p.who} report {p.when.phrase}?",
    lambda p: f"what's the {p.what} number {p.when.phrase}?",
    lambda p: f"Where did {p.what} land {p.when.phrase}?" if not p.instant else
    f"Where did {p.what} stand {p.when.phrase}?",
    lambda p: f"Can you tell me {possessive(p.who)} {p.what} {p.when.phrase}?",
)
NOUN_FRAMES: tuple[Frame, ...] = (
    lambda p: _cap(f"{p.what} {p.when.phrase}"),
    lambda p: f"{possessive(p.who)} {p.what} {p.when.phrase}",
    lambda p: _cap(f"{p.what} reported by {p.who} {p.when.phrase}"),
    lambda p: f"{p.who} {p.what} {p.when.phrase}",
)
SHORTHAND_FRAMES: tuple[Frame, ...] = (
    lambda p: f"{p.ticker} {p.when.short} {p.short_what}" if p.when.short else None,
    lambda p: f"{p.who} {p.short_what} {p.when.short}" if p.when.short else None,
    lambda p: f"{p.short_what} {p.when.short}?" if p.when.short else None,
    lambda p: f"{p.short_what}, {p.when.short} ({p.ticker})" if p.when.short else None,
)
REQUEST_FRAMES: tuple[Frame, ...] = (
    lambda p: f"Check {possessive(p.who)} {p.what} {p.when.phrase}",
    lambda p: f"Please verify the {p.what} {p.when.phrase}",
    lambda p: f"I need {p.what} {p.when.phrase} for {p.who}",
    lambda p: f"Is the {p.what} {p.when.phrase} right?",
    lambda p: f"Tie out {p.what} {p.when.phrase}",
    lambda p: f"Pull the {p.what} figure {p.when.phrase}",
)
FRAMES: dict[str, tuple[Frame, ...]] = {
    "question": QUESTION_FRAMES, "noun": NOUN_FRAMES, "shorthand": SHORTHAND_FRAMES, "request": REQUEST_FRAMES,
}
FRAME_WEIGHTS = {"question": 3, "noun": 3, "shorthand": 2, "request": 2}


def _with_members(what: str, members: list[str], rng: random.Random) -> str:
    if not members:
        return what
    joined = " ".join(members) if len(members) == 1 else ", ".join(members[:-1]) + " and " + members[-1]
    return rng.choice((f"{joined} {what}", f"{what} for {joined}", f"{what} from {joined}", f"{what} ({joined})"))


def natural_question(ctx: ToolContext, q: CaseQuery, filing_name: str, cal: FiscalCalendar,
                     rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """The question for a structured query, and the tags saying how it was worded."""
    concept = resolve_concept(ctx, q.concept)
    dims = resolve_dimensions(ctx, dict(q.dimensions))
    period = parse_period(q.period)
    taken = taken_phrases(ctx, concept, period, dims)
    words = concept_wordings(ctx, concept, taken)
    sources = {w.source for w in words}
    pick = _weighted(rng, {s: w for s, w in (("synonym", 4), ("short", 3), ("filer", 3)) if s in sources}) or \
        next((s for s in ("standard", "name") if s in sources), None)
    # every phrase of the concept is shared with another concept of the context: its standard label, tagged
    choice = rng.choice([w for w in words if w.source == pick]) if pick else \
        ConceptWording("shared", clean_label(label_of(ctx, concept) or concept.local))
    text = casual(choice.text) if rng.random() < 0.7 else choice.text
    members = [member_words(ctx, m) for _a, m in sorted(dims.items(), key=str)]
    what = _with_members(text, members, rng)
    shortest = min((w.text for w in words), key=len, default=text)
    short_what = " ".join(members + [casual(shortest)]) if members else casual(shortest)
    verbs = VERBS.get(concept.local, ()) if _is_standard(concept) and not members else ()
    wordings = period_wordings(period, cal, rng)
    calendar_words = [w for w in wordings if w.style not in ("dates", "instant_date")]
    pool = calendar_words if calendar_words and rng.random() < 0.65 else wordings
    style = rng.choice(sorted({w.style for w in pool}))  # each kind of wording as likely, however many spellings
    when = rng.choice([w for w in pool if w.style == style])
    co = company(ctx.env.filing, filing_name)
    who = co.ticker if rng.random() < 0.25 else co.name
    parts = Parts(who, co.ticker, what, short_what, rng.choice(verbs) if verbs else None, when, period.start is None)
    family = _weighted(rng, FRAME_WEIGHTS)
    while True:
        frames = list(FRAMES[family])
        rng.shuffle(frames)
        for frame in frames:
            if (out := frame(parts)) is not None and not template_like(out):
                tags = (f"phrasing_{family}", f"period_{when.style}", f"label_{choice.source}")
                return " ".join(out.split()), tags
        family = "noun"  # every period wording has a phrase, so a noun frame always applies


# How `cases/hard`'s plain-words questions end (auditflow/cases/questions.py): a statement heading's
# period with the date spelled out. A natural question never ends so, and never reads as FinMR's.
_TEMPLATE_END = re.compile(
    r"(as of|(three months|six months|nine months|year|fiscal year) ended|period from [A-Z][a-z]+ \d{1,2}, \d{4} to) "
    r"(%s) \d{1,2}, \d{4}\??$" % "|".join(MONTHS))


def template_like(text: str) -> bool:
    """Whether a question reads as one of the generator's template questions (plain words or FinMR)."""
    return bool(_TEMPLATE_END.search(text)) or "in the Instance document" in text


def _weighted(rng: random.Random, weights: dict[str, int]) -> str | None:
    if not weights:
        return None
    keys = sorted(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def as_natural_questions(cases: list[GeneratedCase], seed: int) -> list[GeneratedCase]:
    """Each case with its query worded as people type it (seeded per case), no rule hint, and the fact in
    ``expect.fact``; its tags say how it was worded (``phrasing_*``, ``period_*``, ``label_*``) and what
    else it could be taken to mean (the distractor tags of ``--questions``)."""
    out = []
    calendars: dict[str, FiscalCalendar] = {}
    for case in cases:
        rng = random.Random(f"{seed}:natural:{case.id}")
        q = case.query
        ctx = ToolContext(case.filing.env)
        cal = calendars.setdefault(case.filing.name, fiscal_calendar(case.filing.env.filing))
        text, how = natural_question(ctx, q, case.filing.name, cal, rng)
        fact = FactSelector(q.concept, q.period, q.dimensions)
        tags = tuple(dict.fromkeys((*case.tags, "query_natural", *how, *distractor_tags(ctx, q))))
        out.append(replace(case, query=CaseQuery(None, None, (), None, "text", text),
                           expect=replace(case.expect, fact=fact), tags=tags))
    return out
