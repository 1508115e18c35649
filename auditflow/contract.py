"""The audit-result contract: the words and numbers every layer above the rules agrees on.

What an auditor's final report may say (:data:`DECISIONS`, rule codes as :data:`RULE_CODE_PATTERN`,
fact handles, the fields of :data:`REPORT_FIELDS`), the Senior's conflict sources, the kinds of a
transcript step, and how amounts written by a language model become numbers
(:func:`normalise_number`) and how anything becomes a deterministic JSON artifact (:func:`plain_json`).

It sits below the agents on purpose: the case files, the evaluation and the HTML reports read and
check this vocabulary without importing the protocol that produces it (docs/protocol.md, "The
audit result").
"""
from __future__ import annotations

import enum
import math
import re
from decimal import Decimal
from typing import Any, Literal, Mapping, Sequence, get_args

from auditflow.errors import AuditflowError
from auditflow.rules.finding import dec_str

DIGITS = 6  # floats in artifacts: 6 decimals, so that reruns diff cleanly

Decision = Literal["consistent", "violation", "unable_to_verify"]
DECISIONS: tuple[str, ...] = get_args(Decision)
ConflictSource = Literal["missing_fact", "wrong_period", "incomplete_calculation_neighbourhood",
                         "unresolved_dimensional_context", "other"]
CONFLICT_SOURCES: tuple[str, ...] = get_args(ConflictSource)
# the sources that mean "the two auditors' checkers examined different facts" (docs/protocol.md)
FACT_CONFLICTS = frozenset({"missing_fact", "wrong_period", "unresolved_dimensional_context"})
StepKind = Literal["message", "tool_call", "final_report", "refused_final", "invalid_output", "feedback"]
STEP_KINDS: tuple[str, ...] = get_args(StepKind)
RULE_CODE_PATTERN = r"^DQC\.US\.\d{4}\.\d+$"
FACT_HANDLE_PATTERN = r"^F[0-9]+$"
_RULE_CODE = re.compile(RULE_CODE_PATTERN)
# How reports and tables list the decisions: a finding first.
DECISIONS_REPORTED: tuple[str, ...] = ("violation", "consistent", "unable_to_verify")
assert set(DECISIONS_REPORTED) == set(DECISIONS)

# The final report's fields, in the order the schema lists them (auditflow.agents.reports.JUNIOR_REPORT_SCHEMA).
REPORT_FIELDS: tuple[str, ...] = ("decision", "triggered_rules", "reported_value", "expected_value", "confidence",
                                  "evidence", "rationale")


def is_rule_code(text: str) -> bool:
    """A full DQC message code such as ``DQC.US.0015.2944``."""
    return _RULE_CODE.match(text) is not None


def rounded(x: float) -> float:
    """``x`` to 6 decimals for artifacts (``-0.0`` becomes ``0.0``) so that reruns diff cleanly."""
    return round(float(x), DIGITS) + 0.0


# No example code in here: the 1.5B model, told to fix its report, copied an example code
# (DQC.US.0126.9590) as its finding on a case where no checker applied.
REPORT_FIX_HINT = (
    "Call the final-report tool again with: decision one of consistent, violation, unable_to_verify; "
    "triggered_rules exactly the codes of violations_found ([] when none); reported_value and expected_value as numbers "
    "in strings (or null); confidence between 0 and 1; evidence as the fact handles you relied on."
)


class InvalidReportError(AuditflowError):
    """A junior's final report that does not follow the schema; it counts as an invalid output."""

    def __init__(self, problems: Sequence[str], *, role: str | None = None) -> None:
        self.problems = tuple(problems)
        self.role = role
        who = f" from {role}" if role else ""
        super().__init__(f"invalid final report{who}: {'; '.join(self.problems)}. {REPORT_FIX_HINT}")


def plain_json(value: Any) -> Any:
    """A JSON-ready copy: Decimal → plain string, float → 6 decimals, mappings with sorted string keys."""
    if isinstance(value, enum.Enum):
        return plain_json(value.value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, Decimal):
        return dec_str(value)
    if isinstance(value, float):
        return rounded(value) if math.isfinite(value) else str(value)
    if isinstance(value, Mapping):
        return {str(k): plain_json(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [plain_json(v) for v in value]
    if hasattr(value, "to_json"):
        return plain_json(value.to_json())
    raise TypeError(f"cannot put a {type(value).__name__} into an audit artifact: {value!r}")


# Numbers as LLMs write them

_NULL_WORDS = frozenset({"", "null", "none", "n/a", "na"})
_GROUPED = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_PLAIN = re.compile(r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_CURRENCY = ("us$", "usd", "$")


def _peel(text: str) -> tuple[bool, str]:
    """Strip signs, parentheses and currency marks; (negative?, digits). Two minus signs are refused."""
    s, negations = text, 0
    while True:
        low = s.lower()
        if len(s) >= 2 and s[0] == "(" and s[-1] == ")":
            s, negations = s[1:-1].strip(), negations + 1
        elif s and s[0] in "-+":
            s, negations = s[1:].strip(), negations + (s[0] == "-")
        elif cur := next((c for c in _CURRENCY if low.startswith(c)), None):
            s = s[len(cur):].strip()
        elif cur := next((c for c in _CURRENCY if low.endswith(c) and len(s) > len(c)), None):
            s = s[: -len(cur)].strip()
        else:
            break
    if negations > 1:
        raise InvalidReportError([f"number {text!r} has more than one minus sign or parenthesis"])
    return negations == 1, s


def normalise_number(value: Any) -> Decimal | None:
    """``"1,234"``, ``"(1,234)"`` (negative), ``"$1,234"``, ``"-1234.0"`` → Decimal in canonical form.

    Models write amounts the way filings display them; the S/E/C/A labels compare values with zero
    tolerance, so every spelling of one number must become the same Decimal. ``None`` and the words
    "null", "none", "n/a" mean "no value". Anything else raises :class:`InvalidReportError`.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        raise InvalidReportError([f"expected a number, got the boolean {value!r}"])
    if isinstance(value, (int, Decimal)):
        d = Decimal(value)
    elif isinstance(value, float):
        d = Decimal(repr(value))
    elif isinstance(value, str):
        text = value.strip().replace("\u2212", "-")
        if text.lower() in _NULL_WORDS:
            return None
        negative, digits = _peel(text)
        if _GROUPED.fullmatch(digits):
            digits = digits.replace(",", "")
        elif not _PLAIN.fullmatch(digits):
            raise InvalidReportError([f"{value!r} is not a number (write it like -1234.5 or (1,234))"])
        d = -Decimal(digits) if negative else Decimal(digits)
    else:
        raise InvalidReportError([f"expected a number as a string, got {type(value).__name__} {value!r}"])
    if not d.is_finite():
        raise InvalidReportError([f"{value!r} is not a finite number"])
    return Decimal(dec_str(d))
