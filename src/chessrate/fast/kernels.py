"""What every system's kernel shares: the one rounding on integers, a change written
as a row of numbers, and a hash factorisation.

Every rating, rating change, table value and expected score in a kernel is an integer
number of hundredths (int64); scores are counted in half points. The only rounding,
half away from zero, is :func:`round_div` (the integer form of
:func:`chessrate.numbers.round_half_away`) and its power-of-two form :func:`round_shift`.
Each system's kernel lives in its compiled half (:mod:`chessrate.fast.arena`,
``.corr``, ``.site``) and reads every rule number from ``params``, the array its
system's ``Rules`` give: no kernel holds a rule of its own. A kernel applies the games
named by ``order`` (rating order, refused and repeated games already removed) to the
state arrays in place; the states are indexed ``[player, pool]``.

Given ``rows`` (``(out, reason, codes)``, see :mod:`chessrate.fast.rows`), a kernel also
writes every change it makes as one column of ``out`` (:func:`write_change`: the rows'
numbers as the reference ``Change`` holds them, :data:`chessrate.fast.rows.NULL` for its
Nones) and, where the kernel decides them, each game's reason code into ``reason``; the
rule, state and reason codes are read from ``codes`` (each system's ``*_codes``). With
``rows`` None numba prunes every branch that writes them: the kernel compiled for it is
the one without rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit


@njit(cache=True)
def round_div(numerator: int, denominator: int) -> int:
    """numerator / denominator (denominator > 0) rounded half away from zero."""
    if numerator >= 0:
        return (2 * numerator + denominator) // (2 * denominator)
    return -((-2 * numerator + denominator) // (2 * denominator))


@njit(cache=True)
def round_shift(numerator: int, shift: int) -> int:
    """numerator / 2**shift rounded half away from zero (:func:`round_div` by a power of
    two, with shifts instead of a division)."""
    if numerator >= 0:
        return (2 * numerator + (1 << shift)) >> (shift + 1)
    return -((-2 * numerator + (1 << shift)) >> (shift + 1))


@njit(cache=True, inline="always")
def write_change(
    out: Any, c: int, t: int, slot: int, player: int, pool: int, rule: int, opponent: int,
    halves: int, before: int, after: int, state_before: int, state_after: int,
    games_before: int, games_after: int, opponent_rating: int, k: int, d: int, pd: int,
    basis: int, code: int,
) -> int:  # fmt: skip
    """Write one change as column ``c`` of ``out`` (rows in the order of
    :data:`chessrate.fast.rows.KERNEL_COLUMNS`: ``t``, the game's place in ``order``,
    then the change's columns); the next column."""
    out[0, c] = t
    out[1, c] = slot
    out[2, c] = player
    out[3, c] = pool
    out[4, c] = rule
    out[5, c] = opponent
    out[6, c] = halves
    out[7, c] = before
    out[8, c] = after
    out[9, c] = state_before
    out[10, c] = state_after
    out[11, c] = games_before
    out[12, c] = games_after
    out[13, c] = opponent_rating
    out[14, c] = k
    out[15, c] = d
    out[16, c] = pd
    out[17, c] = basis
    out[18, c] = code
    return c + 1


@njit(cache=True)
def _mix(h: Any, value: Any) -> Any:
    """One step of a 64-bit multiplicative hash."""
    return (h ^ np.uint64(value & 0xFFFFFFFFFFFFFFFF)) * np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def factorize(a: Any, b: Any, c: Any, d: Any) -> tuple[Any, Any]:
    """The distinct rows of four equally long integer columns: (code of each row, the
    first row of each code), codes in order of first appearance. Open addressing with
    every column compared on a hit, so equal codes mean equal rows."""
    n = a.shape[0]
    codes = np.empty(n, np.int64)
    first = np.empty(n, np.int64)
    size = 1024
    table = np.full(size, -1, np.int64)
    count = 0
    for i in range(n):
        h = _mix(_mix(_mix(_mix(np.uint64(0), a[i]), b[i]), c[i]), d[i])
        slot = np.int64(h >> np.uint64(20)) & (size - 1)
        while True:
            code = table[slot]
            if code < 0:
                break
            r = first[code]
            if a[r] == a[i] and b[r] == b[i] and c[r] == c[i] and d[r] == d[i]:
                break
            slot = (slot + 1) & (size - 1)
        if code < 0:
            code = count
            count += 1
            first[code] = i
            if 2 * count > size:  # keep the table at most half full
                size *= 2
                table = np.full(size, -1, np.int64)
                for k in range(count):
                    r = first[k]
                    h2 = _mix(_mix(_mix(_mix(np.uint64(0), a[r]), b[r]), c[r]), d[r])
                    s2 = np.int64(h2 >> np.uint64(20)) & (size - 1)
                    while table[s2] >= 0:
                        s2 = (s2 + 1) & (size - 1)
                    table[s2] = k
            else:
                table[slot] = code
        codes[i] = code
    return codes, first[:count].copy()
