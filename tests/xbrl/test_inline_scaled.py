"""Issue 21: an inline fact's digits scaled up by ``scale`` are written by hand (``inline._scaled``);
the text must be exactly what ``plain_decimal`` gives for every unsigned decimal, sign and scale."""
from __future__ import annotations

import decimal
import random
from decimal import Decimal

import pytest

from auditflow.xbrl.inline import _scaled
from auditflow.xbrl.model import plain_decimal


def _reference(value: str, negative: bool, scale: int) -> str:
    number = Decimal(value)
    return plain_decimal(-number if negative else number, scale)


@pytest.mark.parametrize("value", ["0", "000", "7", "007", "10", "1000", "1234", "1.50", "0.0", ".5", "12.", "9" * 120,
                                   "1" + "0" * 150, "٣"])
@pytest.mark.parametrize("scale", [-100, -6, -2, -1, 0, 1, 3, 6, 9, 81, 100])
@pytest.mark.parametrize("negative", [False, True])
def test_edge_values(value: str, negative: bool, scale: int):
    if not value.isascii():  # other digits: Decimal reads them, plain_decimal writes ASCII
        assert _scaled(value, negative, scale) == _reference(value, negative, scale)
        return
    assert _scaled(value, negative, scale) == _reference(value, negative, scale)


def test_a_negated_value_rounds_as_the_decimal_context_says():
    """``-Decimal(value)`` rounds to the context's precision (28 digits by default): kept as it was."""
    assert _scaled("9" * 30, True, 0) == _reference("9" * 30, True, 0) == "-1" + "0" * 30
    with decimal.localcontext(decimal.Context(prec=5)):
        assert _scaled("123456", True, 2) == _reference("123456", True, 2) == "-12346000"
        assert _scaled("123456", False, 2) == "12345600"


def test_random_values():
    rng = random.Random(2121)
    for _ in range(20000):
        whole = "".join(rng.choice("0000123456789") for _ in range(rng.randint(1, 25)))
        value = whole if rng.random() < 0.7 else f"{whole}.{''.join(rng.choice('0123456789') for _ in range(rng.randint(0, 6)))}"
        negative, scale = rng.random() < 0.5, rng.randint(-12, 100)
        assert _scaled(value, negative, scale) == _reference(value, negative, scale), (value, negative, scale)


def test_random_fractions_and_negative_scales():
    """Figures with a fraction (per-share amounts, percentages, '.5', '12.') are written by hand too."""
    rng = random.Random(2122)
    for _ in range(20000):
        whole = "".join(rng.choice("0000123456789") for _ in range(rng.randint(0, 12)))
        fraction = "".join(rng.choice("0000123456789") for _ in range(rng.randint(0 if whole else 1, 12)))
        value = f"{whole}.{fraction}" if rng.random() < 0.9 else f"{whole or '0'}."
        negative, scale = rng.random() < 0.5, rng.randint(-30, 30)
        assert _scaled(value, negative, scale) == _reference(value, negative, scale), (value, negative, scale)
