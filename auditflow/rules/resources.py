"""Rule resources read from the data root: DQC 0015 concept lists, exclusions, the form lookup.

The DQC lists change with every taxonomy year, and filings arrive in older or newer namespaces
than the lists staged here. Concepts are therefore matched by *namespace family + local name*
(``http://fasb.org/us-gaap`` + ``AccountsReceivableNetCurrent``), and the year used is chosen
explicitly by :func:`select_year`, which says when it had to fall back to a neighbouring year.

Files are read once per (data root, year) and cached: a batch run checks many filings against the
same lists. A missing or malformed file raises :class:`ResourceError` naming the file, the data
root and the fix, because a rule that silently ran on no list would report a clean filing.
"""
from __future__ import annotations

import csv
import functools
import io
import json
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from auditflow.dataroot import ENV_VAR, FLAG
from auditflow.errors import ResourceError
from auditflow.xbrl.qname import QName, namespace_family, namespace_year

DEFAULT_0015_YEARS: tuple[int, ...] = (2023, 2024, 2025)
DIR_0015 = Path("dqc") / "dqc_0015"
FORM_LOOKUP = Path("dqc") / "common" / "rule_form_lookup_0015_0117_0126.csv"
US_GAAP_FAMILY = "http://fasb.org/us-gaap"
SRT_FAMILY = "http://fasb.org/srt"

Key = tuple[str, str]  # (namespace family, local name)


@functools.lru_cache(maxsize=256)
def _family(namespace: str) -> str:
    return namespace_family(namespace)


def family_key(q: QName) -> Key:
    """The year-independent identity of a standard concept/axis/member."""
    return (_family(q.namespace), q.local)


def list_path(data_root: Path, year: int) -> Path:
    return Path(data_root) / DIR_0015 / f"non_neg_items_{year}.csv"


def exclusions_path(data_root: Path, year: int) -> Path:
    return Path(data_root) / DIR_0015 / f"exclusions_{year}.json"


def _error(what: str, path: Path, data_root: Path, reason: str) -> ResourceError:
    return ResourceError(
        f"cannot use the {what} {path} (data root {data_root}): {reason}. "
        f"Point {FLAG} or {ENV_VAR} at a data root that contains it, or restore the file."
    )


# -- 0015 concept list --------------------------------------------------------------------------

@dataclass(frozen=True)
class NonNegList:
    """DQC 0015's list N for one taxonomy year: concept -> rule element id."""

    year: int
    path: Path
    by_local: Mapping[str, tuple[str, str]]  # local name -> (rule element id, namespace)
    by_key: Mapping[Key, str]  # (namespace family, local name) -> rule element id

    def element_id(self, concept: QName) -> str | None:
        """The rule element id when the concept (family + local name) is listed, else None."""
        return self.by_key.get(family_key(concept))

    def __contains__(self, concept: object) -> bool:
        return isinstance(concept, QName) and self.element_id(concept) is not None

    def __len__(self) -> int:
        return len(self.by_key)


@functools.lru_cache(maxsize=16)
def _load_list(root: str, year: int) -> NonNegList:
    path = list_path(Path(root), year)
    what, wanted = "DQC 0015 concept list", ("rule_element_id", "namespace", "local_name")
    text = _read_text(path, Path(root), what)  # read once: the column reader, else the row reader, on it
    plain = _read_columns(text, path, Path(root), what, wanted)
    if plain is not None:
        names, columns = plain
        rows: list[list[str]] = []
    else:
        names, rows = _read_rows(path, Path(root), what, wanted, text)
        columns = list(zip(*rows)) if rows and all(len(values) == len(names) for values in rows) else []
    n = len(names)
    by_local: dict[str, tuple[str, str]] = {}
    by_key: dict[Key, str] = {}
    if columns and columns[0]:
        # Column by column, in C (issue 21: a dict per row was most of a one-shot check's list read):
        # each column where csv.DictReader's dict takes it from (the last of equal names); the dicts
        # are built in row order, so a repeated name keeps its last row, as the loop below does.
        ns_col, local_col, eid_col = (list(map(str.strip, columns[n - 1 - names[::-1].index(c)]))
                                      for c in ("namespace", "local_name", "rule_element_id"))
        if all(ns_col) and all(local_col) and all(eid_col):
            by_local = dict(zip(local_col, zip(eid_col, ns_col)))
            by_key = dict(zip(zip(map(_family, ns_col), local_col), eid_col))
            rows = []  # read; an incomplete row instead takes the loop, which names it
        elif plain is not None:
            rows = [list(values) for values in zip(*columns)]
    for values in rows:
        row = dict(zip(names, values)) if len(values) == n else _ragged(names, values)
        ns, local, eid = row["namespace"].strip(), row["local_name"].strip(), row["rule_element_id"].strip()
        if not (ns and local and eid):
            raise _error("DQC 0015 concept list", path, Path(root), f"incomplete row {row!r}")
        by_local[local] = (eid, ns)
        by_key[(_family(ns), local)] = eid
    if not by_key:
        raise _error("DQC 0015 concept list", path, Path(root), "the list is empty")
    return NonNegList(year, path, MappingProxyType(by_local), MappingProxyType(by_key))


def load_0015_list(data_root: Path, year: int) -> NonNegList:
    """:raises ResourceError: when ``dqc/dqc_0015/non_neg_items_<year>.csv`` is missing or malformed."""
    return _load_list(str(Path(data_root).resolve()), int(year))


def _ragged(names: list[str], row: list[str]) -> dict:
    d = dict(zip(names, row))
    if len(row) > len(names):
        d[None] = row[len(names):]
    else:
        d.update((k, None) for k in names[len(row):])
    return d


def _read_csv(path: Path, root: Path, what: str, columns: tuple[str, ...]) -> list[dict[str, str]]:
    # csv.DictReader's rows, built without its per-row Python __next__ (issue 21: a third of
    # the rules' cost in a one-shot check); a short row gets None, extras go under None, as there
    names, rows = _read_rows(path, root, what, columns)
    n = len(names)
    return [dict(zip(names, row)) if len(row) == n else _ragged(names, row) for row in rows]


_COMMAS = operator.methodcaller("count", ",")


def _read_columns(text: str, path: Path, root: Path, what: str,
                  columns: tuple[str, ...]) -> tuple[list[str], list[list[str]]] | None:
    """The header and the columns of the rows of CSV ``text`` (read from ``path``) that has ``columns``, when it is plain
    comma-separated lines (no quotes, CR or NUL) that all have the header's number of fields (a last
    empty line aside); else None, and :func:`_read_rows` reads it. One ``split`` of the whole text and
    a slice per column, instead of a split per line and a transposition (issue 21: the DQC 0015 list,
    6,500 lines, is read in every check)."""
    lines = text.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    if (not lines or '"' in text or "\r" in text or "\0" in text or "" in lines
            or max(map(len, lines)) >= csv.field_size_limit() or len(set(map(_COMMAS, lines))) != 1):
        return None
    n = _COMMAS(lines[0]) + 1
    cells = ",".join(lines).split(",")
    names = cells[:n]
    _require(names, columns, path, root, what)
    return names, [cells[n + i::n] for i in range(n)]


def _read_text(path: Path, root: Path, what: str) -> str:
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            return fh.read()
    except FileNotFoundError:
        raise _error(what, path, root, "the file does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise _error(what, path, root, f"unreadable ({exc})") from None


def _require(names: list[str], columns: tuple[str, ...], path: Path, root: Path, what: str) -> None:
    missing = [c for c in columns if c not in names]
    if missing:
        raise _error(what, path, root, f"missing column(s) {', '.join(missing)}")


def _read_rows(path: Path, root: Path, what: str, columns: tuple[str, ...],
               text: str | None = None) -> tuple[list[str], list[list[str]]]:
    """The header and the non-empty rows of a CSV file that has ``columns`` (``text``: its content, when
    already read)."""
    text = _read_text(path, root, what) if text is None else text
    try:
        lines = text.split("\n")
        if '"' in text or "\r" in text or "\0" in text or max(map(len, lines)) >= csv.field_size_limit():
            table = list(csv.reader(io.StringIO(text, newline="")))  # quotes, other line ends, odd input: csv
        else:  # plain comma-separated lines (the DQC files): the rows csv.reader gives, split in C (issue 21)
            table = [line.split(",") if line else [] for line in lines]
    except csv.Error as exc:
        raise _error(what, path, root, f"unreadable ({exc})") from None
    names = table[0] if table else []
    _require(names, columns, path, root, what)
    return names, [row for row in table[1:] if row]


# -- 0015 exclusions ----------------------------------------------------------------------------

@dataclass(frozen=True)
class NonNegExclusions:
    """The exception sets of DQC 0015 for one year: S (substrings), M (members), A (axes), AM.

    QNames keep the namespaces of the file; the lookup methods compare by family + local name so
    that a filing in another year's namespaces is judged by the same exceptions.
    """

    year: int
    path: Path
    string_members: tuple[str, ...]  # S, lower-case substrings of member local names
    members: frozenset[QName]  # M
    axes: frozenset[QName]  # A
    axis_members: Mapping[QName, frozenset[QName]]  # AM: axis -> members that excuse a negative
    _member_keys: frozenset[Key] = field(init=False, repr=False, compare=False)
    _axis_keys: frozenset[Key] = field(init=False, repr=False, compare=False)
    _am_keys: Mapping[Key, frozenset[Key]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_member_keys", frozenset(family_key(q) for q in self.members))
        object.__setattr__(self, "_axis_keys", frozenset(family_key(q) for q in self.axes))
        am = {family_key(a): frozenset(family_key(m) for m in ms) for a, ms in self.axis_members.items()}
        object.__setattr__(self, "_am_keys", MappingProxyType(am))

    def matching_substring(self, member: QName) -> str | None:
        """The first S entry contained in the member's lower-cased local name (4a)."""
        name = member.local.lower()
        return next((s for s in self.string_members if s in name), None)

    def member_excluded(self, member: QName) -> bool:
        """4b: the member is in M."""
        return family_key(member) in self._member_keys

    def axis_excluded(self, axis: QName) -> bool:
        """4c (list part): the axis is in A."""
        return family_key(axis) in self._axis_keys

    def allowed_members(self, axis: QName) -> frozenset[Key] | None:
        """4d: the (family, local) keys of members allowed on ``axis``, or None if it is not in AM."""
        return self._am_keys.get(family_key(axis))


@functools.lru_cache(maxsize=16)
def _load_exclusions(root: str, year: int) -> NonNegExclusions:
    path = exclusions_path(Path(root), year)
    what = "DQC 0015 exclusions file"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _error(what, path, Path(root), "the file does not exist") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise _error(what, path, Path(root), f"unreadable ({exc})") from None
    try:
        return _decode_exclusions(data, year, path)
    except (KeyError, TypeError, ValueError) as exc:
        raise _error(what, path, Path(root), f"unexpected content ({exc!r})") from None


def _decode_exclusions(data: dict[str, Any], year: int, path: Path) -> NonNegExclusions:
    q = QName.from_clark
    pairs = data.get("EXCLUDE_NON_NEG_AXIS_MEMBERS")
    if pairs is None:
        pairs = list(data["EXCLUDE_NON_NEG_AXIS_MEMBERS_as_mapping"].items())
    am = {q(axis): frozenset(q(m) for m in members) for axis, members in pairs}
    return NonNegExclusions(
        year=year,
        path=path,
        string_members=tuple(s.lower() for s in data["EXCLUDE_NON_NEG_STRING_MEMBERS"]),
        members=frozenset(q(m) for m in data["EXCLUDE_NON_NEG_MEMBERS"]),
        axes=frozenset(q(a) for a in data["EXCLUDE_NON_NEG_AXIS"]),
        axis_members=MappingProxyType(am),
    )


def load_0015_exclusions(data_root: Path, year: int) -> NonNegExclusions:
    """:raises ResourceError: when ``dqc/dqc_0015/exclusions_<year>.json`` is missing or malformed."""
    return _load_exclusions(str(Path(data_root).resolve()), int(year))


# -- form lookup --------------------------------------------------------------------------------

def normalise_rule(rule: str) -> str:
    """``"15"``, ``"0015"`` and ``"DQC.US.0015"`` all name rule ``"0015"``."""
    return rule.strip().rsplit(".", 1)[-1].zfill(4)


@functools.lru_cache(maxsize=8)
def _load_form_lookup(root: str, relative: str = str(FORM_LOOKUP)) -> Mapping[str, frozenset[str]]:
    path = Path(root) / relative
    rows = _read_csv(path, Path(root), "DQC rule-form lookup", ("RuleNumber", "ApplicableForms"))
    out = {
        # the stripped, non-empty forms; filter/map run in C (issue 21: 5,500 forms per one-shot check)
        normalise_rule(r["RuleNumber"]): frozenset(filter(None, map(str.strip, r["ApplicableForms"].split(","))))
        for r in rows
        if r["RuleNumber"] and r["RuleNumber"].strip()
    }
    return MappingProxyType(out)


def load_form_lookup(data_root: Path, relative: Path = FORM_LOOKUP) -> Mapping[str, frozenset[str]]:
    """Rule number (``"0015"``) -> the dei:DocumentType values it runs on.

    ``relative`` is the lookup file under the data root; each rule's spec names its own
    (:attr:`auditflow.rules.registry.RuleSpec.form_lookup`).

    :raises ResourceError: when the lookup file is missing or malformed.
    """
    return _load_form_lookup(str(Path(data_root).resolve()), str(relative))


# -- taxonomy year ------------------------------------------------------------------------------

_LIST_FILE = re.compile(r"^non_neg_items_(\d{4})\.csv$")


def available_0015_years(data_root: Path) -> tuple[int, ...]:
    """The years for which a 0015 concept list is staged under the data root, ascending."""
    folder = Path(data_root) / DIR_0015
    if not folder.is_dir():
        return ()
    years = (int(m.group(1)) for p in folder.iterdir() if (m := _LIST_FILE.match(p.name)))
    return tuple(sorted(years))


def select_year(
    filing_year: int | None, available: tuple[int, ...] = DEFAULT_0015_YEARS, *, what: str = "DQC 0015 list"
) -> tuple[int, str | None]:
    """The resource year to use for a filing, and a note when it is not the filing's own year.

    Exact year if staged; otherwise the nearest one, ties going to the later year (a newer list is
    the better guess for concepts that still exist); an unknown filing year takes the latest.

    :raises ValueError: when ``available`` is empty.
    """
    if not available:
        raise ValueError(f"no {what} is available")
    years = sorted(set(available))
    if filing_year is None:
        return years[-1], f"taxonomy year of the filing unknown; used the {what} for {years[-1]} (latest)"
    if filing_year in years:
        return filing_year, None
    best = min(years, key=lambda y: (abs(y - filing_year), -y))
    return best, f"no {what} for {filing_year}; used {best} (nearest)"


def filing_taxonomy_year(filing: Any) -> int | None:
    """The year of the filing's us-gaap namespace, else its srt namespace, else None.

    Declared namespaces are consulted first, then the namespaces of the reported facts (an inline
    filing may declare more than it uses, a hand-built one may declare nothing).
    """
    namespaces = list(getattr(filing, "namespaces", {}).values())
    namespaces += sorted({f.concept.namespace for f in getattr(filing, "facts", ())})
    for family in (US_GAAP_FAMILY, SRT_FAMILY):
        for ns in namespaces:
            if _family(ns) == family and (year := namespace_year(ns)) is not None:
                return year
    return None


# -- what a registered rule is handed -------------------------------------------------------------

@functools.lru_cache(maxsize=4)
def _load_json(path: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ResourceError(f"cannot use {path}: the file does not exist. Point {FLAG} or {ENV_VAR} at a data "
                            "root that contains it.") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ResourceError(f"cannot use {path}: unreadable ({exc})") from None


@dataclass(frozen=True)
class Resources:
    """What a rule's ``run(env, resources)`` may read besides the environment: the data root's files.

    ``data_root`` None means a machine without one: rules that need it report "not applicable" with
    a warning, rules that do not (see :attr:`RuleSpec.needs_data_root`) run without a form check.
    """

    data_root: Path | None

    def form_lookup(self, relative: Path) -> Mapping[str, frozenset[str]]:
        if self.data_root is None:
            raise ResourceError("no data root: the DQC rule-form lookup is unavailable")
        return load_form_lookup(self.data_root, relative)

    def constants(self, relative: Path) -> Mapping[str, Any]:
        """The decoded DQC constants file (``dqc/common/dqcrt-us-2025-constants.json``), read once."""
        if self.data_root is None:
            raise ResourceError("no data root: the DQC constants are unavailable")
        return _load_json(str((Path(self.data_root) / relative).resolve()))
