"""FIDE Tables A and B (FIDE B.02 8.1; seeds 000/002 "Conversion tables").

Literal data, kept once and shared by the ``arena`` and ``fide`` systems.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from .numbers import round_half_away

# Table A: fractional score p (in hundredths, 0..100) -> rating difference dp.
# Written as in the handbook, from p = 1.00 down to p = 0.00.
_TABLE_A_FROM_TOP: Final = (
    800, 677, 589, 538, 501, 470, 444, 422, 401, 383,  # 1.00 .. 0.91
    366, 351, 336, 322, 309, 296, 284, 273, 262, 251,  # 0.90 .. 0.81
    240, 230, 220, 211, 202, 193, 184, 175, 166, 158,  # 0.80 .. 0.71
    149, 141, 133, 125, 117, 110, 102, 95, 87, 80,  # 0.70 .. 0.61
    72, 65, 57, 50, 43, 36, 29, 21, 14, 7,  # 0.60 .. 0.51
    0,  # 0.50
    -7, -14, -21, -29, -36, -43, -50, -57, -65, -72,  # 0.49 .. 0.40
    -80, -87, -95, -102, -110, -117, -125, -133, -141, -149,  # 0.39 .. 0.30
    -158, -166, -175, -184, -193, -202, -211, -220, -230, -240,  # 0.29 .. 0.20
    -251, -262, -273, -284, -296, -309, -322, -336, -351, -366,  # 0.19 .. 0.10
    -383, -401, -422, -444, -470, -501, -538, -589, -677, -800,  # 0.09 .. 0.00
)  # fmt: skip

TABLE_A: Final[dict[int, int]] = {100 - index: dp for index, dp in enumerate(_TABLE_A_FROM_TOP)}
"""p in hundredths (0..100) -> dp."""

# Table B: (lowest D, highest D, PD of the higher rated in hundredths).
# The lower rated player's PD is 1 - PD_H. D over 735 -> 1.00 / 0.00.
TABLE_B: Final[tuple[tuple[int, int, int], ...]] = (
    (0, 3, 50), (4, 10, 51), (11, 17, 52), (18, 25, 53), (26, 32, 54),
    (33, 39, 55), (40, 46, 56), (47, 53, 57), (54, 61, 58), (62, 68, 59),
    (69, 76, 60), (77, 83, 61), (84, 91, 62), (92, 98, 63), (99, 106, 64),
    (107, 113, 65), (114, 121, 66), (122, 129, 67), (130, 137, 68), (138, 145, 69),
    (146, 153, 70), (154, 162, 71), (163, 170, 72), (171, 179, 73), (180, 188, 74),
    (189, 197, 75), (198, 206, 76), (207, 215, 77), (216, 225, 78), (226, 235, 79),
    (236, 245, 80), (246, 256, 81), (257, 267, 82), (268, 278, 83), (279, 290, 84),
    (291, 302, 85), (303, 315, 86), (316, 328, 87), (329, 344, 88), (345, 357, 89),
    (358, 374, 90), (375, 391, 91), (392, 411, 92), (412, 432, 93), (433, 456, 94),
    (457, 484, 95), (485, 517, 96), (518, 559, 97), (560, 619, 98), (620, 735, 99),
)  # fmt: skip

TABLE_B_MAX_D: Final = 735
HUNDREDTH: Final = Decimal("0.01")

# D (0..735) -> PD_H in hundredths, expanded once from TABLE_B.
_PD_H_BY_D: Final[tuple[int, ...]] = tuple(
    pd for low, high, pd in TABLE_B for _ in range(low, high + 1)
)


def dp_for_fraction(p: Decimal) -> int:
    """Table A: the rating difference dp for a fractional score p.

    p is rounded half up to two decimals first (2/9 -> 0.22).
    """
    hundredths = int(round_half_away(p * 100, 0))
    if not 0 <= hundredths <= 100:
        raise ValueError(f"fractional score {p} is outside 0..1")
    return TABLE_A[hundredths]


def table_b_d(d: Decimal) -> int:
    """The whole rating difference Table B is read with (Decision:
    a fractional D is rounded half up to an integer first: 3.49 -> 3, 3.50 -> 4)."""
    return int(round_half_away(abs(d), 0))


def expected_scores(d: Decimal) -> tuple[Decimal, Decimal]:
    """Table B: (PD of the higher rated, PD of the lower rated) for a difference D."""
    whole = table_b_d(d)
    pd_h = 100 if whole > TABLE_B_MAX_D else _PD_H_BY_D[whole]
    return pd_h * HUNDREDTH, (100 - pd_h) * HUNDREDTH


def expected_score(own: Decimal, opponent: Decimal) -> Decimal:
    """Table B: the expected score PD of a player rated ``own`` against ``opponent``."""
    high, low = expected_scores(own - opponent)
    return high if own >= opponent else low
