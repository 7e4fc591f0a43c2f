"""Lookup arrays for the kernels, built by calling the reference functions.

Nothing here restates a rule: Table A and Table B come from
:mod:`chessrate.tables`, and the ``site`` expected score from
:func:`chessrate.systems.site.expected_score` itself, so the kernels read exactly
the numbers the reference computes.
"""

from __future__ import annotations

import functools
from decimal import Decimal

import numpy as np
import numpy.typing as npt

from ..systems.site import expected_score
from ..tables import TABLE_A, TABLE_B_MAX_D, expected_scores

I64 = npt.NDArray[np.int64]
_ZERO = Decimal("0.00")


@functools.cache
def table_b_pd_high() -> I64:
    """Table B: PD of the higher rated (hundredths) for each whole D, 0..735, and one
    more entry (D = 736) that stands for every D beyond the table."""
    return np.array(
        [int(expected_scores(Decimal(d))[0] * 100) for d in range(TABLE_B_MAX_D + 2)], np.int64
    )


@functools.cache
def table_a_dp() -> I64:
    """Table A: dp for each p in hundredths, 0..100."""
    return np.array([TABLE_A[p] for p in range(101)], np.int64)


def site_expected(d: int) -> int:
    """The reference ``site`` expected score (hundredths) of a player rated ``d``
    hundredths above the opponent (d >= 0)."""
    return int(expected_score(Decimal(d).scaleb(-2), _ZERO) * 100)


@functools.cache
def site_expected_table() -> npt.NDArray[np.int8]:
    """``site`` S3's expected score of the higher rated side, in hundredths, for every
    difference d in hundredths from 0 up to the first d where it reaches 1.00
    (the kernel reads the last entry for any larger d).

    The reference computes 1 / (1 + 10^(-d/400)) in float and rounds it half up to
    two decimals, which is non-decreasing in d; each step is found by bisection on
    the reference function (``tests/fast`` checks every entry against it)."""
    top = 1
    while site_expected(top) < 100:
        top *= 2
    steps = [0]  # steps[v - 50]: the smallest d with expected >= v
    for value in range(51, 101):
        low, high = steps[-1], top
        while low < high:
            middle = (low + high) // 2
            if site_expected(middle) >= value:
                high = middle
            else:
                low = middle + 1
        steps.append(low)
    table = np.full(steps[-1] + 1, 100, np.int8)  # 92 kB: it stays in the cache
    for value in range(50, 100):
        table[steps[value - 50] : steps[value - 49]] = value
    return table
