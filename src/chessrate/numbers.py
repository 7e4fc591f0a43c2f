"""Exact two-decimal arithmetic: the one place in chessrate that rounds.

Every rating and rating change is a :class:`decimal.Decimal` with (at most) two
decimals. Every rounding in every system goes through :func:`round_half_away`
(the rounding rule: half away from zero, 2215.5 -> 2216, -2.345 -> -2.35).
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any, TypeAlias

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

    Floats are accepted only for the ``site`` expected score (exact arithmetic allows
    no other float): they are converted exactly, then rounded here.
    """
    if isinstance(value, (float, int)):
        value = Decimal(value)
    return value.quantize(_QUANTA[places], rounding=ROUND_HALF_UP)


def display(rating: Decimal) -> int:
    """A displayed rating: the stored rating rounded to an integer (arena A11)."""
    return int(round_half_away(rating, 0))


def display_hundredths(values: Any) -> Any:
    """:func:`display` for many ratings at once, given as integer hundredths (a numpy
    array): the same rounding, half away from zero, as a numpy array of integers. For
    the compiled replay's lists; ``tests/test_numbers.py`` holds it to :func:`display`."""
    import numpy as np

    hundredths = np.asarray(values, dtype=np.int64)
    magnitude = (2 * np.abs(hundredths) + 100) // 200
    return np.where(hundredths < 0, -magnitude, magnitude)


def format_hundredths(value: int) -> str:
    """:func:`format_rating` of a rating given as integer hundredths (exact, no Decimal):
    ``180025`` -> ``"1800.25"``, ``-5`` -> ``"-0.05"``."""
    sign = "-" if value < 0 else ""
    whole, cents = divmod(abs(value), 100)
    return f"{sign}{whole}.{cents:02d}"


RATING_LOWEST = Decimal(0)
RATING_HIGHEST = Decimal("9999.99")
"""The ratings a record may carry (imported, a bot's fixed rating: ``FieldReader.rating``):
any chess rating, and every number the rules' arithmetic and the schema hold exactly."""


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
    if value.adjusted() >= 15:
        raise ValueError(f"{text!r} is out of range: no rating is that large")
    return round_half_away(value, 2)


def to_hundredths(value: Decimal) -> int:
    """A rating (at most two decimals) as an exact integer number of hundredths:
    ``Decimal("1800.25")`` -> 180025. Raises ``ValueError`` for a value with more
    than two decimals (nothing is rounded here)."""
    scaled = value.scaleb(2)
    whole = int(scaled)
    if whole != scaled:
        raise ValueError(f"{value} has more than two decimals")
    return whole


def from_hundredths(value: int) -> Decimal:
    """Integer hundredths as the two-decimal rating: 180025 -> ``Decimal("1800.25")``."""
    return Decimal(int(value)).scaleb(-2)


def format_rating(rating: Decimal | None) -> str | None:
    """A rating as written in files: a string with exactly two decimals."""
    return None if rating is None else f"{round_half_away(rating, 2):.2f}"


def exact_text(value: Decimal | None) -> str | None:
    """A number of at most two decimals as stored JSON keeps it: always with its
    hundredths (``1500.00``, whether it was computed as ``1500`` or read back from integer
    hundredths), so that equal numbers have equal texts; nothing is rounded (more than two
    decimals is a ``ValueError``)."""
    return None if value is None else str(from_hundredths(to_hundredths(value)))
