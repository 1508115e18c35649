"""The words of a question that name no line item, and the analyst shorthand that names one in other words.

Data only, read by :mod:`auditflow.env.search`. An auditor types "Tesla's capex in the first half of
2024"; the filer's label says "Purchases of property and equipment". The question's period, its filler
and the company's own name are dropped before ranking, and a shorthand adds the words a label uses
for it. The table lists common accounting shorthand, never a case's wording: a phrase is added here
only when it is how people name a line item in general (docs/query-forms.md, "Concept search").
"""
from __future__ import annotations

# (phrase as typed, lower-case; the label words it stands for, alternatives separated by "; "). A phrase
# matches whole words; "&" and "-" are kept, so "sg&a" and "r&d" match as typed. The longest phrase is
# read first and its words are not read again, so "cost of sales" never also counts as "sales"; several
# phrases may match. A concept answers a phrase when its labels hold the phrase's own words or all the
# words of one alternative.
_CAPEX = "payments to acquire property plant and equipment; purchases of property and equipment"
_BUYBACK = "payments for repurchase of common stock; repurchases of common stock"
_COST_OF_SALES = "cost of goods and services sold; cost of revenue; cost of sales"
_REVENUE = "revenues; revenue; net sales"
_OPERATING_CASH = "net cash provided by operating activities"
SHORTHAND: tuple[tuple[str, str], ...] = (
    ("capex", _CAPEX),
    ("capital expenditures", _CAPEX),
    ("capital expenditure", _CAPEX),
    ("capital spending", _CAPEX),
    ("pp&e", "property plant and equipment"),
    ("sg&a", "selling general and administrative expense"),
    ("r&d", "research and development expense"),
    ("d&a", "depreciation and amortization"),
    ("eps", "earnings per share"),
    ("opex", "operating expenses"),
    ("cogs", _COST_OF_SALES),
    ("buybacks", _BUYBACK),
    ("buyback", _BUYBACK),
    ("bought back", _BUYBACK),
    ("share repurchases", _BUYBACK),
    ("stock repurchases", _BUYBACK),
    ("repurchasing its own stock", _BUYBACK),
    ("repurchasing its own shares", _BUYBACK),
    ("cost of sales", _COST_OF_SALES),
    ("cost of revenue", _COST_OF_SALES),
    ("cost of revenues", _COST_OF_SALES),
    ("revenue", _REVENUE),
    ("revenues", _REVENUE),
    ("sales", _REVENUE),
    ("net sales", _REVENUE),
    ("top line", _REVENUE),
    ("turnover", _REVENUE),
    ("bottom line", "net income"),
    ("net profit", "net income"),
    ("operating profit", "operating income"),
    ("ebit", "operating income"),
    ("gross margin", "gross profit"),
    ("operating cash flow", _OPERATING_CASH),
    ("cash from operations", _OPERATING_CASH),
    ("cash flow from operations", _OPERATING_CASH),
    ("cfo", _OPERATING_CASH),
    ("financing cash flow", "net cash provided by used in financing activities"),
    ("investing cash flow", "net cash provided by used in investing activities"),
    ("l&se", "liabilities and stockholders equity"),
    ("total debt", "debt; long-term debt"),
    ("shareholders equity", "stockholders equity"),
    ("shareholders' equity", "stockholders equity"),
    ("net worth", "stockholders equity"),
    ("receivables", "accounts receivable"),
    ("payables", "accounts payable"),
    ("inventory", "inventories"),
    ("tax expense", "income tax expense; provision for income taxes"),
    ("income taxes", "income tax expense; provision for income taxes"),
    ("spend", "payments"),
    ("spent", "payments"),
    ("paid", "payments"),
)

# Words that never name a line item: question words, verbs of asking, and the words of period phrases
# (the period is read by the period tools, not by the concept search).
FILLER: frozenset[str] = frozenset("""
a an the of for and in on to by at as from with its it their his her our this that these those was were is are be been
how much many what which did does do report reported reports show shows shown amount amounts value figure number
please tell me give us company companies registrant during over within through at end
i we you my need want look find check verify confirm tie out audit reconcile right correct stand where when why who
whether if can could would should
ended ending period periods month months year years yearly annual annually quarter quarters quarterly fiscal fy
calendar first second third fourth last half halves nine six three twelve ytd year-to-date to-date
beginning start closing close as-of
january february march april may june july august september october november december
jan feb mar apr jun jul aug sep sept oct nov dec q1 q2 q3 q4 h1 h2
balance sheet sheets statement statements consolidated condensed bs
""".split())

# Words of a registrant's name that are not its name ("Apple Inc." -> apple).
COMPANY_SUFFIXES: frozenset[str] = frozenset(
    "inc incorporated corp corporation co company ltd limited plc llc lp holdings holding group the sa nv ag".split())
