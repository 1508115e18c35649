"""The words of a question that name no line item, and the analyst shorthand that names one in other words.

Data only, read by :mod:`auditflow.env.search`. An auditor types "Tesla's capex in the first half of
2024"; the filer's label says "Purchases of property and equipment". The question's period, its filler
and the company's own name are dropped before ranking, and a shorthand adds the words a label uses
for it. The table lists common accounting shorthand, never a case's wording: a phrase is added here
only when it is how people name a line item in general (docs/query-forms.md, "Concept search").
"""
from __future__ import annotations

# (phrase as typed, lower-case; the label words it stands for). A phrase matches whole words; "&" and
# "-" are kept, so "sg&a" and "r&d" match as typed. The longest phrase is read first and its words are
# not read again, so "cost of sales" never also counts as "net sales"; several phrases may match.
SHORTHAND: tuple[tuple[str, str], ...] = (
    ("capex", "payments to acquire property plant and equipment purchases of property and equipment"),
    ("capital expenditures", "payments to acquire property plant and equipment purchases of property and equipment"),
    ("capital expenditure", "payments to acquire property plant and equipment purchases of property and equipment"),
    ("capital spending", "payments to acquire property plant and equipment purchases of property and equipment"),
    ("pp&e", "property plant and equipment"),
    ("sg&a", "selling general and administrative expense"),
    ("r&d", "research and development expense"),
    ("d&a", "depreciation and amortization"),
    ("eps", "earnings per share"),
    ("opex", "operating expenses"),
    ("cogs", "cost of goods and services sold cost of sales"),
    ("buybacks", "payments for repurchase of common stock"),
    ("buyback", "payments for repurchase of common stock"),
    ("bought back", "payments for repurchase of common stock"),
    ("share repurchases", "payments for repurchase of common stock"),
    ("stock repurchases", "payments for repurchase of common stock"),
    ("repurchasing its own stock", "payments for repurchase of common stock"),
    ("repurchasing its own shares", "payments for repurchase of common stock"),
    ("cost of sales", "cost of goods and services sold cost of revenue"),
    ("cost of revenue", "cost of goods and services sold cost of sales"),
    ("cost of revenues", "cost of goods and services sold cost of sales"),
    ("revenue", "revenues net sales"),
    ("revenues", "revenues net sales"),
    ("net sales", "revenues net sales"),
    ("top line", "revenues net sales"),
    ("turnover", "revenues net sales"),
    ("bottom line", "net income loss"),
    ("net profit", "net income loss"),
    ("operating profit", "operating income loss"),
    ("ebit", "operating income loss"),
    ("gross margin", "gross profit"),
    ("operating cash flow", "net cash provided by operating activities"),
    ("cash from operations", "net cash provided by operating activities"),
    ("cash flow from operations", "net cash provided by operating activities"),
    ("shareholders equity", "stockholders equity"),
    ("shareholders' equity", "stockholders equity"),
    ("net worth", "stockholders equity"),
    ("receivables", "accounts receivable"),
    ("payables", "accounts payable"),
    ("inventory", "inventories"),
    ("tax expense", "income tax expense benefit"),
    ("income taxes", "income tax expense benefit"),
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
ended ending period periods month months year years yearly annual annually quarter quarters quarterly fiscal fy
calendar first second third fourth last half halves nine six three twelve ytd year-to-date to-date
beginning start closing close as-of
january february march april may june july august september october november december
jan feb mar apr jun jul aug sep sept oct nov dec q1 q2 q3 q4 h1 h2
balance sheet sheets statement statements consolidated condensed
""".split())

# Words of a registrant's name that are not its name ("Apple Inc." -> apple).
COMPANY_SUFFIXES: frozenset[str] = frozenset(
    "inc incorporated corp corporation co company ltd limited plc llc lp holdings holding group the sa nv ag".split())
