"""Exact two-decimal arithmetic (the spec, "Exact arithmetic", "Rounding")."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chessrate import display, round_half_away
from chessrate.numbers import (
    display_hundredths,
    format_hundredths,
    format_rating,
    from_hundredths,
    parse_rating,
    to_hundredths,
)

D = Decimal


@pytest.mark.parametrize(
    ("value", "places", "expected"),
    [
        (D("2215.5"), 0, D("2216")),
        (D("2214.5"), 0, D("2215")),  # not banker's rounding
        (D("-2215.5"), 0, D("-2216")),
        (D("2215.49"), 0, D("2215")),
        (D("-2.345"), 2, D("-2.35")),
        (D("2.345"), 2, D("2.35")),
        (D("-2.344"), 2, D("-2.34")),
        (D("0.125"), 2, D("0.13")),
        (D("-0.125"), 2, D("-0.13")),
        (D("1603.036"), 2, D("1603.04")),
        (D("1603.032"), 2, D("1603.03")),
        (D("7.2"), 2, D("7.20")),
        (7, 2, D("7.00")),
    ],
)
def test_round_half_away_from_zero(value: Decimal | int, places: int, expected: Decimal) -> None:
    """The spec's rounding: half away from zero, 2215.5 -> 2216, -2.345 -> -2.35."""
    rounded = round_half_away(value, places)
    assert rounded == expected
    assert rounded.as_tuple().exponent == -places


def test_round_half_away_default_is_two_decimals() -> None:
    assert str(round_half_away(D("1799.605"))) == "1799.61"


def test_one_minus_085_is_exactly_015() -> None:
    """The spec's exact arithmetic: 1 - 0.85 must be exactly 0.15."""
    assert D(1) - D("0.85") == D("0.15")
    assert round_half_away(D(1) - D("0.85")) == D("0.15")
    assert str(round_half_away(D(1) - D("0.85"))) == "0.15"


def test_float_is_converted_exactly_then_rounded() -> None:
    """A float (site expected score only) is converted exactly: 2.675 is 2.67499..."""
    assert round_half_away(2.675) == D("2.67")
    assert round_half_away(0.5, 0) == D("1")


@pytest.mark.parametrize(
    ("rating", "shown"),
    [("2215.50", 2216), ("2215.49", 2215), ("1800.20", 1800), ("1799.60", 1800), ("999.50", 1000)],
)
def test_display_rounds_to_an_integer(rating: str, shown: int) -> None:
    """The spec: a displayed rating is the stored rating rounded (half up) to an integer."""
    assert display(D(rating)) == shown


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1800", "1800.00"),
        ("1799.6", "1799.60"),
        ("1800.20", "1800.20"),
        (" 1500.5 ", "1500.50"),
        ("-12.80", "-12.80"),
    ],
)
def test_parse_rating(text: str, expected: str) -> None:
    parsed = parse_rating(text)
    assert parsed == D(expected)
    assert str(parsed) == expected


@pytest.mark.parametrize("text", ["1800.201", "1799.605", "0.001", "abc", "", "NaN", "Infinity"])
def test_parse_rating_rejects_more_than_two_decimals_and_non_numbers(text: str) -> None:
    """Ratings have two decimals: a third decimal is refused, not silently rounded."""
    with pytest.raises(ValueError, match=r"."):
        parse_rating(text)


def test_format_rating_writes_exactly_two_decimals() -> None:
    """The spec's rating list: rating is a string with exactly two decimals, or null."""
    assert format_rating(D("1800.2")) == "1800.20"
    assert format_rating(D("1800")) == "1800.00"
    assert format_rating(None) is None


def test_hundredths_converters_are_exact() -> None:
    """numbers.to_hundredths / from_hundredths: the ledger's and the compiled replay's
    one conversion; a third decimal is refused, never rounded."""
    for text in ("0.00", "0.01", "-0.01", "1800.25", "-12.30", "99999999.99"):
        value = D(text)
        assert from_hundredths(to_hundredths(value)) == value
        assert str(from_hundredths(to_hundredths(value))) == text
    assert to_hundredths(D("1800")) == 180000
    with pytest.raises(ValueError, match="more than two decimals"):
        to_hundredths(D("1800.255"))


def test_display_hundredths_is_display_for_every_value_around_the_halves() -> None:
    """The array form of display (the compiled lists) rounds exactly as display: half
    away from zero, on both sides of zero and of every .50."""
    values = [*range(-30_000, 30_001), 1_234_550, -1_234_550, 1_234_549, 10**12 + 50]
    shown = display_hundredths(values).tolist()
    assert shown == [display(from_hundredths(v)) for v in values]


def test_format_hundredths_is_format_rating() -> None:
    for value in (*range(-1_000, 1_001), 180_025, -180_025, 10**12 + 7):
        assert format_hundredths(value) == format_rating(from_hundredths(value))


@given(
    whole=st.integers(0, 10**9 - 1),
    decimals=st.sampled_from(["", ".", ".5", ".05", ".50", ".505", ".00"]),
    padding=st.sampled_from(["", " ", "\t"]),
)
def test_parse_rating_fast_path_is_the_general_rule(
    whole: int, decimals: str, padding: str
) -> None:
    """parse_rating's shortcut for two-decimal text gives what its checks and rounding
    give: the number with exactly two decimals."""
    text = f"{padding}{whole}{decimals}{padding}"
    try:
        value = Decimal(text.strip())
    except ArithmeticError:
        return
    if value.as_tuple().exponent < -2:  # type: ignore[operator]
        with pytest.raises(ValueError, match="more than two decimals"):
            parse_rating(text)
        return
    parsed = parse_rating(text)
    assert parsed == value and str(parsed) == str(round_half_away(value, 2))
