"""Inline XBRL transformation rules: turn the text a reader sees into the value XBRL stores.

Filers write "September 30, 2023", "1,234.5", "☒" or "five years"; the XBRL fact is "2023-09-30",
"1234.5", "true" or "P5Y". The ``format`` attribute of an inline fact names the rule, as a QName in
one of the XBRL International registries (TR1-TR5, all served here by one table because later
registries only renamed rules, e.g. ``datemonthdayyearen`` became ``date-monthname-day-year-en``) or
in the SEC registry. Rule names are matched with hyphens removed and case folded, so both spellings
work in every ixt namespace.

Sign is never part of the text: "(1,234)" or "-5" is refused, because inline XBRL carries the sign in
the ``sign`` attribute and a parenthesis is only presentation.
"""
from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Callable

from auditflow.xbrl.qname import QName

IXT_NAMESPACES = frozenset(
    f"http://www.xbrl.org/inlineXBRL/transformation/{d}"
    for d in ("2010-04-20", "2011-07-31", "2015-02-26", "2020-02-12", "2022-02-16")
)
IXT_SEC = "http://www.sec.gov/inlineXBRL/transformation/2015-08-31"


class TransformError(ValueError):
    """The text cannot be read with the named rule (or the rule is unknown)."""


# -- numbers -----------------------------------------------------------------------------------------
_DASHES = "-\u058a\u05be\u2010\u2011\u2012\u2013\u2014\u2015\ufe58\ufe63\uff0d"
_DASH_CLASS = re.escape(_DASHES)  # for use inside [...]
_SPACES = " \u00a0\u2009\u202f"  # plain, no-break, thin and narrow no-break spaces group digits too
_DOT_GROUPS = "," + _SPACES + "'\u2019"
_COMMA_GROUPS = "." + _SPACES + "'\u2019"


def _number_re(groups: str, point: str) -> re.Pattern[str]:
    g = re.escape(groups)
    return re.compile(rf"(\d+|\d{{1,3}}(?:[{g}]\d{{3}})+)?(?:{re.escape(point)}(\d+))?")


_NUM_DOT = _number_re(_DOT_GROUPS, ".")
_NUM_COMMA = _number_re(_COMMA_GROUPS, ",")
_NUM_DOT_IN = re.compile(r"(\d+|\d{1,2}(?:[, \u00a0]\d{2})*[, \u00a0]\d{3})?(?:\.(\d+))?")


def _strip(text: str) -> str:
    """Trim XML whitespace and the no-break spaces HTML tables are full of."""
    return text.strip(" \t\r\n\u00a0\u2009\u202f")


_NOT_A_DIGIT = re.compile(r"\D")  # compiled once: re.sub(pattern, ...) looks its pattern up per call


def _digits(int_part: str | None, frac: str | None) -> str:
    whole = str(int(_NOT_A_DIGIT.sub("", int_part))) if int_part else "0"
    return f"{whole}.{frac}" if frac else whole


def _num(pattern: re.Pattern[str]) -> Callable[[str], str]:
    def rule(text: str) -> str:
        m = pattern.fullmatch(_strip(text))
        if m is None or not (m.group(1) or m.group(2)):
            raise TransformError(f"{text!r} is not an unsigned number in this format")
        return _digits(m.group(1), m.group(2))

    return rule


_NUM_UNIT = re.compile(rf"(\d+|\d{{1,3}}(?:[,.{_SPACES}]\d{{3}})+)[^\d]+?(\d{{1,2}})[^\d]*")


def _num_unit_decimal(text: str) -> str:
    """'5 dollars 25 cents' -> 5.25: the minor unit always has at most two digits."""
    m = _NUM_UNIT.fullmatch(_strip(text))
    if m is None:
        raise TransformError(f"{text!r} is not a number with a major and a minor unit")
    return _digits(m.group(1), m.group(2).rjust(2, "0"))


def _zero_dash(text: str) -> str:
    t = _strip(text)
    if not t or t.strip(_DASHES):
        raise TransformError(f"{text!r} is not a dash")
    return "0"


def _fixed(value: str) -> Callable[[str], str]:
    return lambda _text: value


# -- English number words ---------------------------------------------------------------------------
_SMALL = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen".split())}
_SMALL.update({w: 10 * i for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)})
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12,
           "quadrillion": 10**15, "quintillion": 10**18}
_WORD_SPLIT = re.compile(rf"[\s,{_DASH_CLASS}]+")


def _words_to_int(text: str) -> int:
    """English cardinal words to an integer ("nineteen hundred forty-four" -> 1944)."""
    words = [w for w in _WORD_SPLIT.split(_strip(text).lower()) if w and w != "and"]
    if words in (["no"], ["none"], ["nil"]):
        return 0
    if not words:
        raise TransformError("no number words")
    total = current = 0
    last_scale = 10**21
    for w in words:
        tail = current % 100
        if w in _SMALL and (not tail or (tail % 10 == 0 and tail >= 20 and 0 < _SMALL[w] < 10)):
            current += _SMALL[w]  # 'twenty' then 'one'; never 'one' then 'two'
        elif w == "hundred" and 0 < current < 100:
            current *= 100
        elif w in _SCALES and current and _SCALES[w] < last_scale:
            total, current, last_scale = total + current * _SCALES[w], 0, _SCALES[w]
        else:
            raise TransformError(f"{text!r} is not a number in English words (at {w!r})")
    return total + current


def _num_words(text: str) -> str:
    return str(_words_to_int(text))


# -- dates -------------------------------------------------------------------------------------------
_MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), 1)}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_PART = {"D": r"(\d{1,2})(?:st|nd|rd|th)?", "M": r"(\d{1,2})", "N": r"([a-z]+)\.?", "Y": r"(\d{4}|\d{1,2})"}


def _date_re(order: str) -> re.Pattern[str]:
    """A pattern for the components in ``order``: D day, M month number, N month name, Y year."""
    out = _PART[order[0]]
    for prev, part in zip(order, order[1:]):
        sep = r"[^\da-z]*" if "N" in (prev, part) else r"[^\d]+"
        out += sep + _PART[part]
    return re.compile(out, re.IGNORECASE)


def _year(text: str) -> int:
    """Two-digit (and one-digit) years pivot at 50: 22 -> 2022, 99 -> 1999."""
    y = int(text)
    if len(text) <= 2:
        y += 2000 if y < 50 else 1900
    return y


def _date(order: str) -> Callable[[str], str]:
    pattern = _date_re(order)

    def rule(text: str) -> str:
        m = pattern.fullmatch(_strip(text))
        if m is None:
            raise TransformError(f"{text!r} does not match the date layout {order}")
        parts = dict(zip(order, m.groups()))
        month = int(parts["M"]) if "M" in parts else _MONTHS.get(parts.get("N", "").lower())
        if month is None:
            raise TransformError(f"{parts['N']!r} is not an English month name")
        year = _year(parts["Y"]) if "Y" in parts else 2000  # leap year: '--02-29' is a valid gMonthDay
        try:
            d = dt.date(year, month, int(parts.get("D", 1)))
        except ValueError as exc:
            raise TransformError(f"{text!r} is not a calendar date ({exc})") from None
        if "D" not in parts:
            return f"{d.year:04d}-{d.month:02d}"
        if "Y" not in parts:
            return f"--{d.month:02d}-{d.day:02d}"
        return d.isoformat()

    return rule


# -- SEC durations -----------------------------------------------------------------------------------
_DECIMAL = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)")
_DAYS_PER_MONTH = Decimal("30.4375")  # 365.25 / 12, as the SEC's reference implementation uses


def _duration(text: str, unit: str) -> str:
    """A decimal count of ``unit`` as xs:duration; fractions spill into the next smaller unit only."""
    t = _strip(text)
    if not _DECIMAL.fullmatch(t):
        raise TransformError(f"{text!r} is not a decimal number of {unit}s")
    n = Decimal(t)
    sign, n = ("-" if n < 0 else ""), abs(n)
    y = m = d = h = None
    if unit == "year":
        y = int(n)
        months = (n - y) * 12
        m, d = int(months), int((months - int(months)) * _DAYS_PER_MONTH)
    elif unit == "month":
        m, d = int(n), int((n - int(n)) * _DAYS_PER_MONTH)
    elif unit == "week":
        d = int(n * 7)
    elif unit == "day":
        d, h = int(n), int((n - int(n)) * 24)
    else:
        h = int(n)
    return _format_duration(y, m, d, h, sign)


def _format_duration(y: int | None, m: int | None, d: int | None, h: int | None, sign: str) -> str:
    """SEC layout: the leading applicable unit is always written; later ones only when non-zero."""
    fields = [(v, s) for v, s in ((y, "Y"), (m, "M"), (d, "D"), (h, "H")) if v is not None]
    if all(v == 0 for v, _ in fields):
        sign, fields = "", fields[:1]
    out = [f"{v}{s}" for i, (v, s) in enumerate(fields) if i == 0 or v != 0]
    text = "".join(out)
    if text.endswith("H"):
        text = text[: -len(out[-1])] + "T" + out[-1]
    return f"{sign}P{text}"


_DUR_UNITS = {"year": "Y", "years": "Y", "month": "M", "months": "M", "day": "D", "days": "D"}


def _dur_words(text: str) -> str:
    """'five years, two months' -> P5Y2M; units in year, month, day order, each at most once."""
    words = [w for w in _WORD_SPLIT.split(_strip(text).lower()) if w and w != "and"]
    found: dict[str, int] = {}
    pending: list[str] = []
    for w in words:
        unit = _DUR_UNITS.get(w)
        if unit is None:
            pending.append(w)
            continue
        if not pending or any("YMD".index(u) >= "YMD".index(unit) for u in found):
            raise TransformError(f"{text!r} is not a duration in English words")
        number = " ".join(pending)
        found[unit] = int(number) if number.isdigit() and len(number) <= 4 else _words_to_int(number)
        pending = []
    if pending or not found:
        raise TransformError(f"{text!r} is not a duration in English words")
    body = "".join(f"{v}{u}" for u, v in found.items() if v)
    return f"P{body}" if body else "P0D"


# -- SEC enumerations: the common names filers write, keyed by a folded form -----------------------------
def _key(text: str) -> str:
    """Fold case, punctuation, dashes and a leading 'the' so that 'The Nasdaq Stock Market, LLC' and
    'nasdaq stock market llc' meet."""
    t = re.sub(rf"[\s{_DASH_CLASS}]+", " ", re.sub(r"[.,]", " ", _strip(text).lower().replace("\u2019", "'")))
    t = t.strip()
    return t[4:] if t.startswith("the ") else t


def _table(spec: str) -> dict[str, str]:
    """'name a/name b=CODE|...' -> {folded name: CODE}."""
    out: dict[str, str] = {}
    for entry in spec.split("|"):
        names, _, code = entry.strip().rpartition("=")
        for name in names.split("/"):
            out[_key(name)] = code
    return out


_STATES = """alabama=AL|alaska=AK|arizona=AZ|arkansas=AR|california=CA|colorado=CO|connecticut=CT|delaware=DE|
florida=FL|georgia=GA|hawaii=HI|idaho=ID|illinois=IL|indiana=IN|iowa=IA|kansas=KS|kentucky=KY|louisiana=LA|
maine=ME|maryland=MD|massachusetts=MA|michigan=MI|minnesota=MN|mississippi=MS|missouri=MO|montana=MT|
nebraska=NE|nevada=NV|new hampshire=NH|new jersey=NJ|new mexico=NM|new york=NY|north carolina=NC|
north dakota=ND|ohio=OH|oklahoma=OK|oregon=OR|pennsylvania=PA|rhode island=RI|south carolina=SC|
south dakota=SD|tennessee=TN|texas=TX|utah=UT|vermont=VT|virginia=VA|washington=WA|west virginia=WV|
wisconsin=WI|wyoming=WY|district of columbia/washington d.c./washington dc=DC"""
_US_AREAS = """american samoa=AS|guam=GU|northern mariana islands=MP|puerto rico=PR|
united states minor outlying islands=UM|virgin islands, u.s./u.s. virgin islands=VI"""
_PROVINCES = """alberta=AB|british columbia=BC|manitoba=MB|new brunswick=NB|newfoundland/
newfoundland and labrador=NL|nova scotia=NS|northwest territories=NT|nunavut=NU|ontario=ON|
prince edward island=PE|quebec/québec=QC|saskatchewan=SK|yukon=YT"""
# (name, ISO 3166 alpha-2, EDGAR code) for the countries SEC filers name most.
_COUNTRIES = """argentina=AR=C1|australia=AU=C3|austria=AT=C4|bahamas=BS=C5|barbados=BB=C8|belgium=BE=C9|
bermuda=BM=D0|brazil=BR=D5|british virgin islands/virgin islands, british=VG=D8|canada=CA=Z4|
cayman islands=KY=E9|chile=CL=F3|china/people's republic of china/prc=CN=F4|colombia=CO=F8|
costa rica=CR=G2|curaçao/curacao=CW=|cyprus=CY=G4|czech republic/czechia=CZ=2N|denmark=DK=G7|
egypt=EG=H2|finland=FI=H9|france=FR=I0|germany=DE=2M|gibraltar=GI=J1|greece=GR=J3|guernsey=GG=Y7|
hong kong=HK=K3|hungary=HU=K5|iceland=IS=K6|india=IN=K7|indonesia=ID=K8|ireland=IE=L2|
isle of man=IM=Y8|israel=IL=L3|italy=IT=L6|jamaica=JM=L8|japan=JP=M0|jersey=JE=Y9|
south korea/republic of korea=KR=M5|liberia=LR=N0|liechtenstein=LI=N2|luxembourg=LU=N4|
macau/macao=MO=N5|malaysia=MY=N8|malta=MT=O1|marshall islands=MH=1T|mauritius=MU=O4|mexico=MX=O5|
monaco=MC=O9|netherlands/the netherlands=NL=P7|new zealand=NZ=Q2|nigeria=NG=Q5|norway=NO=Q8|
panama=PA=R1|peru=PE=R5|philippines=PH=R6|poland=PL=R9|portugal=PT=S1|qatar=QA=S3|russia/
russian federation=RU=1Z|saudi arabia=SA=T0|singapore=SG=U0|south africa=ZA=T3|spain=ES=U3|
sweden=SE=V7|switzerland=CH=V8|taiwan=TW=F5|thailand=TH=W1|turkey/türkiye/turkiye=TR=W8|ukraine=UA=2H|
united arab emirates/uae=AE=C0|united kingdom/uk/u.k./great britain/britain/england/
england and wales=GB=X0|united states/united states of america/usa/u.s.a./us/u.s.=US=X1|uruguay=UY=X3|
vietnam/viet nam=VN=Q1"""
_EDGAR_AREAS = """american samoa=B5|guam=GU|puerto rico=PR|united states minor outlying islands=2J|
virgin islands, u.s./u.s. virgin islands=VI|alberta=A0|british columbia=A1|manitoba=A2|new brunswick=A3|
newfoundland/newfoundland and labrador=A4|nova scotia=A5|ontario=A6|prince edward island=A7|
quebec/québec=A8|saskatchewan=A9|yukon=B0|unknown=XX"""


def _country_tables() -> tuple[dict[str, str], dict[str, str]]:
    iso: dict[str, str] = {}
    edgar: dict[str, str] = {}
    for entry in _COUNTRIES.replace("\n", "").split("|"):
        names, iso_code, edgar_code = entry.split("=")
        for name in names.split("/"):
            iso[_key(name)] = iso_code
            if edgar_code:
                edgar[_key(name)] = edgar_code
    return iso, edgar


_STATE_CODES = _table((_STATES + "|" + _US_AREAS + "|" + _PROVINCES).replace("\n", ""))
_ISO_COUNTRIES, _EDGAR_COUNTRIES = _country_tables()
_EDGAR_CODES = {**_table((_STATES + "|" + _EDGAR_AREAS).replace("\n", "")), **_EDGAR_COUNTRIES}
_ISO_COUNTRIES.update(_table(_US_AREAS.replace("\n", "")))
_EXCHANGES = _table(
    "box exchange=BOX|cboe byx exchange=CboeBYX|cboe bzx exchange=CboeBZX|cboe c2 exchange=C2|"
    "cboe edga exchange=CboeEDGA|cboe edgx exchange=CboeEDGX|cboe exchange=CBOE|chicago stock exchange=CHX|"
    "investors exchange=IEX|miami international securities exchange=MIAX|miax pearl=PEARL|nasdaq bx=BX|"
    "nasdaq gemx=GEMX|nasdaq ise=ISE|nasdaq mrx=MRX|nasdaq phlx=Phlx|nyse/new york stock exchange=NYSE|"
    "nyse american=NYSEAMER|nyse arca=NYSEArca|nyse national=NYSENAT|nasdaq/nasdaq stock market/"
    "nasdaq global market/nasdaq global select market/nasdaq capital market=NASDAQ"
)
_FILER_CATEGORIES = _table(
    "large accelerated filer=Large Accelerated Filer|accelerated filer=Accelerated Filer|"
    "non accelerated filer/nonaccelerated filer=Non-accelerated Filer"
)


def _lookup(table: dict[str, str], what: str, suffix: str = "") -> Callable[[str], str]:
    """A rule reading a name from ``table``; an optional ``suffix`` (', LLC', ', Canada') is ignored."""

    def rule(text: str) -> str:
        key = _key(text)
        if suffix and key not in table:
            key = re.sub(rf" ({suffix})$", "", key)
        if key not in table:
            raise TransformError(f"{text!r} is not a known {what}")
        return table[key]

    return rule


def _ballot(on: str, off: str) -> Callable[[str], str]:
    def rule(text: str) -> str:
        t = _strip(text)
        if t == "\u2610":
            return off
        if t in ("\u2611", "\u2612"):
            return on
        raise TransformError(f"{text!r} is not a ballot box (\u2610, \u2611 or \u2612)")

    return rule


def _yes_no(text: str) -> str:
    t = _strip(text).lower()
    if t in ("yes", "no"):
        return "true" if t == "yes" else "false"
    raise TransformError(f"{text!r} is neither 'yes' nor 'no'")


# -- registries ---------------------------------------------------------------------------------------
def _names(spec: str, rule: Callable[[str], str]) -> dict[str, Callable[[str], str]]:
    return {n.replace("-", ""): rule for n in spec.split()}


_DATES = {
    "DM": "datedaymonth dateslashdaymontheu datedotdaymontheu",
    "DMY": "datedaymonthyear datedoteu dateslasheu",
    "MD": "datemonthday dateslashmonthdayus datedotmonthdayus",
    "MDY": "datemonthdayyear datedotus dateslashus",
    "MY": "datemonthyear", "YM": "dateyearmonth", "YMD": "dateyearmonthday",
    "DN": "datedaymonthen date-day-monthname-en datelongdaymonthuk dateshortdaymonthuk",
    "DNY": "datedaymonthyearen date-day-monthname-year-en datelonguk dateshortuk",
    "ND": "datemonthdayen date-monthname-day-en datelongmonthdayus dateshortmonthdayus",
    "NDY": "datemonthdayyearen date-monthname-day-year-en datelongus dateshortus datelongmonthdayyearen",
    "NY": "datemonthyearen date-monthname-year-en datelongmonthyear dateshortmonthyear",
    "YN": "dateyearmonthen date-year-monthname-en datelongyearmonth dateshortyearmonth",
    "YND": "date-year-monthname-day-en",
}

_IXT: dict[str, Callable[[str], str]] = {
    **_names("numdotdecimal numcommadot numspacedot", _num(_NUM_DOT)),
    **_names("numcommadecimal numdotcomma numspacecomma numcomma", _num(_NUM_COMMA)),
    **_names("numdotdecimalin", _num(_NUM_DOT_IN)),
    **_names("numunitdecimal", _num_unit_decimal),
    **_names("zerodash numdash", _zero_dash),
    **_names("fixed-zero", _fixed("0")),
    **_names("nocontent fixed-empty", _fixed("")),
    **_names("booleanfalse fixed-false", _fixed("false")),
    **_names("booleantrue fixed-true", _fixed("true")),
    **_names("numwordsen num-word-en num-words-en", _num_words),
}
for _order, _spec in _DATES.items():
    _IXT.update(_names(_spec, _date(_order)))

_SEC: dict[str, Callable[[str], str]] = {
    **{f"dur{u}": (lambda t, u=u: _duration(t, u)) for u in ("year", "month", "week", "day", "hour")},
    "durwordsen": _dur_words,
    "numwordsen": _num_words,
    "numinf": _fixed("INF"),
    "numneginf": _fixed("-INF"),
    "numnan": _fixed("NaN"),
    "boolballotbox": _ballot("true", "false"),
    "yesnoballotbox": _ballot("Yes", "No"),
    "boolyesno": _yes_no,
    "exchnameen": _lookup(_EXCHANGES, "exchange name", suffix="llc|inc"),
    "stateprovnameen": _lookup(_STATE_CODES, "US state or Canadian province name"),
    "countrynameen": _lookup(_ISO_COUNTRIES, "country name"),
    "edgarprovcountryen": _lookup(_EDGAR_CODES, "EDGAR state, province or country name", suffix="canada"),
    "entityfilercategoryen": _lookup(_FILER_CATEGORIES, "entity filer category"),
}


def apply_transform(format_qname: QName, text: str) -> str:
    """The XBRL lexical value of ``text`` read with the rule ``format_qname``.

    :raises TransformError: when the registry or rule is unknown or the text does not fit the rule.
    """
    if format_qname.namespace in IXT_NAMESPACES:
        registry = _IXT
    elif format_qname.namespace == IXT_SEC:
        registry = _SEC
    else:
        raise TransformError(f"format {format_qname.clark()} is not in a known transformation registry")
    rule = registry.get(format_qname.local.replace("-", "").lower())
    if rule is None:
        raise TransformError(f"format {format_qname.clark()} is not a rule of its registry")
    return rule(text)

