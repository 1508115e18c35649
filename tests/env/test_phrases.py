"""Period phrases: how a statement heads a period, and how a question's phrase is read back."""
from __future__ import annotations

import datetime as dt

import pytest

from auditflow.env.phrases import parse_period_phrase, period_phrase
from auditflow.xbrl.model import Period

D = dt.date


@pytest.mark.parametrize("period, words", [
    (Period(None, D(2023, 9, 30)), "as of September 30, 2023"),
    (Period(D(2022, 9, 25), D(2023, 9, 30)), "year ended September 30, 2023"),
    (Period(D(2023, 4, 2), D(2023, 7, 1)), "three months ended July 1, 2023"),
    (Period(D(2023, 1, 1), D(2023, 9, 30)), "nine months ended September 30, 2023"),
    (Period(D(2023, 3, 15), D(2023, 9, 30)), "period from March 15, 2023 to September 30, 2023"),
])
def test_a_phrase_reads_back_as_the_period_it_heads(period, words):
    assert period_phrase(period) == words
    parsed, rest = parse_period_phrase(f"Revenue, {words}")
    assert rest == "Revenue" and parsed.matches(period)


def test_a_range_that_is_no_whole_number_of_months_is_still_a_duration():
    # it was read as an instant (months None) and matched no fact of the question's period
    parsed, _ = parse_period_phrase("Revenue for the period from March 15, 2023 to September 30, 2023")
    assert parsed.months is not None and parsed.start == D(2023, 3, 15)
    assert not parsed.matches(Period(None, D(2023, 9, 30)))
    assert not parsed.matches(Period(D(2023, 1, 1), D(2023, 9, 30)))


def test_a_question_without_a_period_phrase_names_none():
    assert parse_period_phrase("Total assets") is None
