"""Which networks and hypercubes are face financial statements, and DQC's decimals tolerance.

Shared by DQC.US.0117 and DQC.US.0126 (docs/rules/DQC_US_0117.md, docs/rules/DQC_US_0126.md):

* D1 - statement *presentation roles* for 0126 (:func:`is_statement_role_0126`);
* D2 - statement *cubes* for 0117, which 0126 also uses to skip statements that have a table
  (:func:`is_statement_cube`, :func:`statement_cubes`, :func:`statement_cube_roles`), plus the
  parenthetical and notes cubes 0117's guards look at;
* D7 - the rounded comparison both rules use (:func:`tolerance_check`, :func:`decimals_value`).

The role tests are the DQC string heuristics, applied exactly: ``- Statement -`` / ``- Disclosure -``
are matched case-sensitively in the roleType definition (the EDGAR Filer Manual fixes that spelling,
and the XULE rules test it with a plain ``contains``), the excluded words case-insensitively in the
role URI. Only ``all`` (has-hypercube) cubes qualify; ``notAll`` cubes exclude rather than define
a table.
"""
from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Iterable

from auditflow.graphs.dimensions import Cube
from auditflow.xbrl.model import ALL, INF, Decimals
from auditflow.xbrl.numbers import power_of_ten, round_half_even

if TYPE_CHECKING:
    from auditflow.graphs.environment import AuditEnvironment

STATEMENT_MARK = "- Statement -"
DISCLOSURE_MARK = "- Disclosure -"
PARENTHETICAL_WORD = "parenthetical"
EXCLUDED_DEFINITION_WORDS = ("schedule iii", "schedule iv")

# D2: words that take a role URI (lower-cased) out of 0117's statement cubes.
EXCLUDED_URI_WORDS_0117: tuple[str, ...] = (
    "parenthetical", "equity", "deficit", "stockholders", "capital", "investment", "changes", "shareholder",
    "convertible", "preferred", "temporaryequity", "redeemable", "netproceedsfromallsources", "membersinterest",
)
# D1: 0126's list is 0117's plus four more.
EXCLUDED_URI_WORDS_0126: tuple[str, ...] = EXCLUDED_URI_WORDS_0117 + (
    "membershipinterest", "highlights", "employee", "ebp",
)
# D2: hypercube local names that are never statement tables (investment schedules of funds/BDCs).
EXCLUDED_CUBES: tuple[str, ...] = (
    "ScheduleOfInvestmentsTable", "SummaryOfInvestmentHoldingsTable", "InvestmentsSoldNotYetPurchasedTable",
    "OpenOptionContractsWrittenTable", "OpenFuturesContractTable", "OpenForwardForeignCurrencyContractTable",
    "OpenSwapContractTable",
)


def _contains_any(text: str, words: Iterable[str]) -> bool:
    return any(w in text for w in words)


def _is_statement_definition(definition: str) -> bool:
    return STATEMENT_MARK in definition and not _contains_any(definition.lower(), EXCLUDED_DEFINITION_WORDS)


def is_statement_role_0126(uri: str, definition: str) -> bool:
    """D1: a presentation role 0126 checks (statement, not equity/parenthetical/..., not Schedule III/IV)."""
    return _is_statement_definition(definition) and not _contains_any(uri.lower(), EXCLUDED_URI_WORDS_0126)


def is_statement_cube(cube: Cube, definition: str) -> bool:
    """D2: a has-hypercube (``all``) cube in a statement role that 0117 checks.

    ``definition`` is the roleType definition of ``cube.role`` (``env.role_definition(cube.role)``).
    """
    return (
        cube.arcrole == ALL
        and _is_statement_definition(definition)
        and not _contains_any(cube.role.lower(), EXCLUDED_URI_WORDS_0117)
        and cube.hypercube.local not in EXCLUDED_CUBES
    )


def is_parenthetical_cube(cube: Cube, definition: str) -> bool:
    """D2: a statement cube whose role URI says ``parenthetical`` (0117's parenthetical guard)."""
    return cube.arcrole == ALL and STATEMENT_MARK in definition and PARENTHETICAL_WORD in cube.role.lower()


def is_notes_cube(cube: Cube, definition: str) -> bool:
    """D2: a cube in a ``- Disclosure -`` role (0117's notes guard)."""
    return cube.arcrole == ALL and DISCLOSURE_MARK in definition


def statement_cubes(env: "AuditEnvironment") -> list[Cube]:
    """Every D2 statement cube of the filing, sorted by role URI then hypercube (Clark name)."""
    cubes = [c for c in env.dims.cubes if is_statement_cube(c, env.role_definition(c.role))]
    return sorted(cubes, key=lambda c: (c.role, c.hypercube.clark()))


def statement_cube_roles(env: "AuditEnvironment") -> set[str]:
    """The DRS role URIs that carry a statement cube: the statements that "have a table"."""
    return {c.role for c in statement_cubes(env)}


def statement_tables(env: "AuditEnvironment") -> list[tuple[str, bool]]:
    """(role URI, has a table) for every D1 statement presentation role, in URI order."""
    tables = statement_cube_roles(env)
    return [(r, r in tables) for r in sorted(env.index.pre_roles) if is_statement_role_0126(r, env.role_definition(r))]


# -- D7: decimals and tolerance -------------------------------------------------------------------

def decimals_value(fact_decimals: Decimals | str) -> int | None:
    """A fact's ``decimals`` as an int; ``INF`` and missing both give None, meaning +infinity."""
    if fact_decimals is None or fact_decimals == INF:
        return None
    if isinstance(fact_decimals, str):
        text = fact_decimals.strip()
        return None if text.upper() == INF else int(text)
    return int(fact_decimals)


def round_decimals(x: Decimal, t: int) -> Decimal:
    """XULE's ``round(x, t)``: to a multiple of 10^(-t); ``t`` may be negative.

    Open point of the spec (section 6.1): XULE's rounding mode is not documented. We use
    ROUND_HALF_EVEN (Python's and Decimal's default, the likely behaviour); tests pin it.
    """
    return round_half_even(x, t)  # sized to the operands, t clamped: decimals="-1000000" cannot overflow


def tolerance_check(a: Decimal, b: Decimal, t: int | None, k: int) -> tuple[bool, Decimal]:
    """D7: ``(is_error, allowed)`` for ``|round(a,t) - round(b,t)| > k * 10^(-t)``.

    ``t`` None means +infinity: nothing is rounded and the allowed difference is 0 (exact
    comparison). Rounding is half-even (see :func:`round_decimals`).
    """
    if t is None:
        return a != b, Decimal(0)
    allowed = power_of_ten(k, t)
    diff = abs(round_decimals(a, t) - round_decimals(b, t))
    return diff > allowed, allowed
