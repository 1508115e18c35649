"""Decimal arithmetic that hostile numbers cannot crash or blow up.

A filing is text written by strangers: ``NaN``, ``INF``, ``sNaN``, ``1E+999999999999``, a 10,000-digit
value or ``decimals="-1000000"`` all parse as Python decimals, and then a comparison raises, a
``quantize`` overflows or printing the value without an exponent builds a billion-digit string.
This module is the one place that decides what a usable number is (finite, exponent and digits within
bounds no real filing comes near) and does the rounding the rules need in a context sized to the
operands, so that it can neither overflow nor silently round. See docs/reliability.md.
"""
from __future__ import annotations

import decimal
import re
from decimal import Decimal, InvalidOperation

# |adjusted exponent| of a usable number: 10^100 is far beyond any amount a filing reports (the
# largest real values are around 10^13), and no real fact has more than 100 fraction digits.
MAX_EXPONENT = 100
# The largest |scale| an inline fact may use (real filings use -6..9).
MAX_SCALE = 100
# Rounding positions beyond this give the same comparison as the bound itself for usable numbers
# (they are all below 10^(MAX_EXPONENT + 1) with no digit under 10^-MAX_EXPONENT), so ``t`` is clamped.
_MAX_T = 4 * MAX_EXPONENT
# Roomy enough for every exact result on usable numbers and their sums.
_WIDE = decimal.Context(prec=4 * _MAX_T, Emax=10 * _MAX_T, Emin=-10 * _MAX_T, rounding=decimal.ROUND_HALF_EVEN,
                        traps=[InvalidOperation, decimal.Overflow, decimal.DivisionByZero])


def number_problem(d: Decimal) -> str | None:
    """Why ``d`` is not a usable number ("not a number", "out of range"), or None when it is."""
    if not d.is_finite():
        return "not a number"
    if d.adjusted() > MAX_EXPONENT or d.as_tuple().exponent < -MAX_EXPONENT:  # type: ignore[operator]
        return "out of range"
    return None


def usable(d: Decimal | None) -> bool:
    return d is not None and number_problem(d) is None


# The plain form the loader normalises every value to, within the bounds: no check needed past it.
_PLAIN = re.compile(r"-?[0-9]{1,%d}(?:\.[0-9]{1,%d})?" % (MAX_EXPONENT + 1, MAX_EXPONENT))


def parse_number(text: str | None) -> Decimal | None:
    """The usable decimal written in ``text``, or None (not a decimal, not finite, out of range)."""
    if text is None:
        return None
    if _PLAIN.fullmatch(text):
        return Decimal(text)
    try:
        d = Decimal(text)
    except (InvalidOperation, ValueError, TypeError):
        return None
    return d if number_problem(d) is None else None


def plain_text(number: Decimal, scale: int = 0) -> str:
    """``number * 10**scale`` without exponent or needless zeros; never expands an unusable number.

    NaN/INF print as Python writes them; a number whose result would be beyond the bounds prints with
    an exponent (``9.99E+999999999``) instead of a billion-digit string.
    """
    if not number.is_finite():
        return str(number)
    if not number:
        return "0"
    if abs(scale) > 10 * _MAX_T or abs(number.adjusted() + scale) > 10 * _MAX_T or len(number.as_tuple().digits) > 10 * _MAX_T:
        return str(number) if not scale else f"{number} x 10^{scale}"
    exact = decimal.Context(prec=len(number.as_tuple().digits) + 2, Emax=10**9, Emin=-(10**9))
    return format(number.scaleb(scale, context=exact).normalize(context=exact), "f")


def round_half_even(x: Decimal, t: int) -> Decimal:
    """``x`` rounded to a multiple of 10^(-t), half-even; ``t`` may be negative and any size.

    The result is what ``x.scaleb(t).to_integral_value().scaleb(-t)`` gives in a wide enough context.
    """
    t = max(-_MAX_T, min(_MAX_T, t))
    if not x.is_finite() or abs(x.adjusted()) > 2 * _MAX_T or len(x.as_tuple().digits) > 2 * _MAX_T:
        raise ValueError(f"cannot round {str(x)[:40]}: not a usable number")
    ctx = _WIDE.copy()
    ctx.prec = max(60, len(x.as_tuple().digits) + abs(t) + 2)
    return x.scaleb(t, context=ctx).to_integral_value(rounding=decimal.ROUND_HALF_EVEN, context=ctx).scaleb(-t, context=ctx)


def power_of_ten(k: int, t: int) -> Decimal:
    """``k * 10^(-t)`` with ``t`` clamped as :func:`round_half_even` clamps it."""
    t = max(-_MAX_T, min(_MAX_T, t))
    return Decimal(k).scaleb(-t, context=_WIDE)


def integral(x: Decimal) -> Decimal:
    """``x.quantize(Decimal(1))`` for an integral ``x`` of any size (quantize raises past 28 digits)."""
    return x.quantize(Decimal(1), context=_WIDE) if abs(x.adjusted()) <= _MAX_T else x


def short(text: str, limit: int = 80) -> str:
    """A quotable excerpt of hostile text: a 5 MB value or id must not be echoed whole in a message."""
    return repr(text if len(text) <= limit else text[:limit] + f"... ({len(text):,} characters)")
