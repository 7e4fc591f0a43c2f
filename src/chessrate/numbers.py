"""Exact two-decimal arithmetic: the one place in chessrate that rounds.

Every rating and rating change is a :class:`decimal.Decimal` with (at most) two
decimals. Every rounding in every system goes through :func:`round_half_away`
(spec README, "Rounding": half away from zero, 2215.5 -> 2216, -2.345 -> -2.35).
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import TypeAlias

Rating: TypeAlias = Decimal
"""A rating with two decimals, e.g. ``Decimal("1800.20")``."""

Score: TypeAlias = Decimal
"""A game score for one player: 1, 0.5 or 0."""

ZERO = Decimal("0.00")
HALF = Decimal("0.5")
ONE = Decimal("1")

_QUANTA = {places: Decimal(1).scaleb(-places) for places in range(0, 7)}
_TWO_DECIMALS = re.compile(r"[0-9]{1,9}\.[0-9]{2}")
"""Ratings as files write them (:func:`format_rating`): nothing to check or round."""


def round_half_away(value: Decimal | int | float, places: int = 2) -> Decimal:
    """Round ``value`` to ``places`` decimals, half away from zero.

    Floats are accepted only for the ``site`` expected score (spec README,
    "Exact arithmetic"): they are converted exactly, then rounded here.
    """
    if isinstance(value, (float, int)):
        value = Decimal(value)
    return value.quantize(_QUANTA[places], rounding=ROUND_HALF_UP)


def display(rating: Decimal) -> int:
    """A displayed rating: the stored rating rounded to an integer (arena A11)."""
    return int(round_half_away(rating, 0))


def parse_rating(text: str) -> Decimal:
    """Parse a rating written with at most two decimals ("1800", "1799.6", "1800.20").

    Raises ``ValueError`` with the reason when ``text`` is not such a number.
    """
    stripped = text.strip()
    if _TWO_DECIMALS.fullmatch(stripped):
        return Decimal(stripped)
    try:
        value = Decimal(stripped)
    except InvalidOperation:
        raise ValueError(f"{text!r} is not a number") from None
    if not value.is_finite():
        raise ValueError(f"{text!r} is not a finite number")
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and exponent < -2:
        raise ValueError(f"{text!r} has more than two decimals")
    return round_half_away(value, 2)


def format_rating(rating: Decimal | None) -> str | None:
    """A rating as written in files: a string with exactly two decimals."""
    return None if rating is None else f"{round_half_away(rating, 2):.2f}"
