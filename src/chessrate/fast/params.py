"""What the compiled halves share to turn a system's ``Rules`` into a kernel's numbers.

A kernel knows no rule number of its own: every threshold, factor, floor and weight
comes from the system's ``Rules`` (:mod:`chessrate.systems`) through one int64 array
that its compiled half builds (``arena_params``, ``corr_params``, ``site_params``), in
integer hundredths where the rule is a rating. A ``Rules`` object with other values
gives other arrays, and both engines follow (``tests/fast`` shows it). Fractions
(corr's factor 0.04, site's weights) travel as exact numerator and denominator.

When a kernel emits the ledger's rows (:mod:`chessrate.fast.rows`), the codes it writes
(a rule's position in the system's ``rules_cited``, a state's in ``states``, a reason
code of ``GameRating.reason_code``) come the same way, from the system's own tuples and
``R_*`` constants through one int64 array per system (``*_codes``).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

ONE_POINT = 100
"""1.00 (a rating point, a whole score, an expected score of 1) in hundredths."""
HALF_POINT = 50
"""A half point of score in hundredths of a point (scores are counted in halves)."""


def fraction(value: Decimal) -> tuple[int, int]:
    """An exact Decimal as (numerator, denominator), denominator > 0."""
    numerator, denominator = value.as_integer_ratio()
    return int(numerator), int(denominator)


def by_status(states: tuple[str, ...], statuses: Mapping[int, str]) -> list[int]:
    """Each kernel status's position in the system's ``states``, by kernel status."""
    return [states.index(statuses[status]) for status in sorted(statuses)]
