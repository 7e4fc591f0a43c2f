"""The compiled rules: one numba kernel per system, on integer hundredths.

Every rating, rating change, table value and expected score is an integer number
of hundredths (int64); scores are counted in half points. The only rounding,
half away from zero, is :func:`round_div` (the integer form of
:func:`chessrate.numbers.round_half_away`). Table A, Table B and the ``site``
expected score are lookup arrays built in Python from the reference functions
(:mod:`chessrate.fast.tables`). Every rule number (floors, K factors and their
thresholds, the qualifying count, corr's margins, site's weights) is read from
``params``, the system's ``Rules`` as built by :mod:`chessrate.fast.params`: no
kernel holds a rule of its own. Each kernel applies the games named by ``order``
(rating order, refused and repeated games already removed) to the state arrays in
place; the states are indexed ``[player, pool]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .params import (
    A_BONUS,
    A_FLOOR,
    A_K_NEW,
    A_K_POOL,
    A_NEW_GAMES,
    A_QUALIFYING,
    C_BONUS,
    C_CLAMP,
    C_ESTABLISHED,
    C_FACTOR_DEN,
    C_FACTOR_NUM,
    C_GAP,
    C_MARGIN,
    C_UNRATED,
    HALF_POINT,
    ONE_POINT,
    S_DENOMINATOR,
    S_FLOOR,
    S_K,
    S_K_GAMES,
    S_K_NEW,
    S_SHIFT,
    S_WEIGHTS,
)

# arena states (arena A5), corr states (corr C1)
UNRATED, QUALIFYING, RATED = 0, 1, 2
PROVISIONAL, ESTABLISHED = 1, 2


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


@njit(cache=True)
def weighted_by_shift(scaled: int, params: Any) -> int:
    """A site change over the weights' common denominator, when it is a power of two:
    :func:`round_shift` (the usual case: the weights are halves and quarters)."""
    return round_shift(scaled, params[S_SHIFT])


@njit(cache=True)
def weighted_by_division(scaled: int, params: Any) -> int:
    """A site change over the weights' common denominator, any denominator."""
    return round_div(scaled, params[S_DENOMINATOR])


@njit(cache=True)
def arena_kernel(
    order: Any,
    pool: Any,
    white: Any,
    black: Any,
    white_halves: Any,
    status: Any,
    rating: Any,
    games: Any,
    q_count: Any,
    q_sum: Any,
    q_halves: Any,
    pd_high: Any,
    dp: Any,
    params: Any,
) -> None:
    """arena A6-A10 for every game of ``order`` (all of them rated, with a result).

    ``pd_high[D]`` is Table B's PD of the higher rated (hundredths) for a whole D, its
    last entry standing for every larger D; ``dp[p]`` is Table A for p in hundredths;
    ``params`` the ``ArenaRules`` (:func:`chessrate.fast.params.arena_params`)."""
    floor = params[A_FLOOR]
    last = pd_high.shape[0] - 1
    for t in range(order.shape[0]):
        g = order[t]
        p = pool[g]
        a = white[g]
        b = black[g]
        sa = white_halves[g]
        sb = 2 - sa
        a_rated = status[a, p] == RATED
        b_rated = status[b, p] == RATED
        if a_rated and b_rated:  # A7
            ra = rating[a, p]
            rb = rating[b, p]
            d = ra - rb if ra >= rb else rb - ra
            high = pd_high[min(round_div(d, ONE_POINT), last)]  # Table B reads a whole D
            pda = high if ra >= rb else ONE_POINT - high
            pdb = high if rb >= ra else ONE_POINT - high
            ka = _arena_k(games[a, p], p, params)  # A8
            kb = _arena_k(games[b, p], p, params)
            na = ra + (sa * HALF_POINT - pda) * ka
            nb = rb + (sb * HALF_POINT - pdb) * kb
            for x, nx in ((a, na), (b, nb)):
                if nx < floor:  # A10: the rating is lost in this pool
                    status[x, p] = UNRATED
                    rating[x, p] = 0
                    games[x, p] = 0
                else:
                    rating[x, p] = nx
                    games[x, p] += 1
        elif a_rated or b_rated:  # A6 for the other player, A9 for the rated one
            x = b if a_rated else a
            s = sb if a_rated else sa
            opponent = rating[a, p] if a_rated else rating[b, p]
            if status[x, p] == UNRATED and s < 1:
                continue  # a loss before the count starts is ignored
            q_count[x, p] += 1
            q_sum[x, p] += opponent
            q_halves[x, p] += s
            n = q_count[x, p]
            if n < params[A_QUALIFYING]:
                status[x, p] = QUALIFYING
                continue
            ra = round_div(q_sum[x, p], n)  # Ra, the opponents' mean
            halves = q_halves[x, p]
            if halves == n:  # 50 %
                rf = ra
            elif halves > n:  # a bonus per half point over 50 %
                rf = ra + (halves - n) * params[A_BONUS]
            else:  # Table A on p = s/n, read in hundredths
                rf = ra + dp[round_div(HALF_POINT * halves, n)] * ONE_POINT
            q_count[x, p] = 0
            q_sum[x, p] = 0
            q_halves[x, p] = 0
            if rf < floor:
                status[x, p] = UNRATED
                rating[x, p] = 0
                games[x, p] = 0
            else:
                status[x, p] = RATED
                rating[x, p] = rf
                games[x, p] = n


@njit(cache=True)
def _arena_k(games: int, pool: int, params: Any) -> int:
    """arena A8: the new player's K until his games reach the threshold, else the
    pool's."""
    if games < params[A_NEW_GAMES]:
        return int(params[A_K_NEW])
    return int(params[A_K_POOL + pool])


@njit(cache=True, inline="always")
def _corr_one(
    own_status: int,
    own_rating: int,
    own_games: int,
    own_sum: int,
    other_status: int,
    other_rating: int,
    halves: int,
    rules: Any,
    factored: Any,
    params: Any,
) -> tuple[bool, int, int, int, int]:
    """corr C2-C6 for one player: (counted, status, rating, games, sum). ``rules`` holds
    CorrRules numbers as values (see :func:`corr_kernel`), ``factored`` is C5's rounding
    (:func:`factored_in_hundredths` or :func:`factored_any`). Inlined into the kernel:
    called with a function argument, it would otherwise stay a call per player."""
    established, margin, gap_limit, clamp, win_bonus = rules
    if own_status == ESTABLISHED:  # C5, C6
        # C5 Decision: an unrated opponent's rating is the performance he earns here
        unrated = other_status == UNRATED
        opponent = own_rating + margin * (1 - halves) if unrated else other_rating
        diff = max(-clamp, min(clamp, opponent - own_rating))
        change = factored(diff, win_bonus * (halves - 1), params)
        if change < 0 and other_status != ESTABLISHED:
            change = 0
        return True, ESTABLISHED, own_rating + change, own_games + 1, 0
    if own_status != UNRATED and other_status != UNRATED:
        gap = other_rating - own_rating
        if gap >= gap_limit or gap <= -gap_limit:  # C4: not counted at all
            return False, own_status, own_rating, own_games, own_sum
    if other_status == UNRATED:  # C3
        performance = params[C_UNRATED + halves]
    else:
        performance = other_rating + margin * (halves - 1)
    total = own_sum + performance
    count = own_games + 1
    status = ESTABLISHED if count >= established else PROVISIONAL
    return True, status, round_div(total, count), count, total


@njit(cache=True)
def factored_in_hundredths(diff: int, bonus: int, params: Any) -> int:
    """corr C5's factor x diff + bonus, rounded, for a factor in hundredths (0.04 is 4):
    a division by a constant, the usual case."""
    return round_div(diff * params[C_FACTOR_NUM] + bonus * ONE_POINT, ONE_POINT)


@njit(cache=True)
def factored_any(diff: int, bonus: int, params: Any) -> int:
    """corr C5's factor x diff + bonus, rounded, for any exact factor."""
    denominator = params[C_FACTOR_DEN]
    return round_div(diff * params[C_FACTOR_NUM] + bonus * denominator, denominator)


@njit(cache=True)
def corr_kernel(
    order: Any,
    white: Any,
    black: Any,
    white_halves: Any,
    status: Any,
    rating: Any,
    games: Any,
    total: Any,
    params: Any,
    factored: Any,
) -> None:
    """corr C2-C6 for every game of ``order``; both players from pre-game states;
    ``params`` the ``CorrRules`` (:func:`chessrate.fast.params.corr_params`), its
    numbers read once into values (not from the array again after each state write)."""
    rules = (
        params[C_ESTABLISHED], params[C_MARGIN], params[C_GAP], params[C_CLAMP],
        params[C_BONUS],
    )  # fmt: skip
    for t in range(order.shape[0]):
        g = order[t]
        a = white[g]
        b = black[g]
        sa = white_halves[g]
        ca, sta, ra, ga, ta = _corr_one(
            status[a],
            rating[a],
            games[a],
            total[a],
            status[b],
            rating[b],
            sa,
            rules,
            factored,
            params,
        )
        cb, stb, rb, gb, tb = _corr_one(
            status[b],
            rating[b],
            games[b],
            total[b],
            status[a],
            rating[a],
            2 - sa,
            rules,
            factored,
            params,
        )
        if ca:
            status[a], rating[a], games[a], total[a] = sta, ra, ga, ta
        if cb:
            status[b], rating[b], games[b], total[b] = stb, rb, gb, tb


@njit(cache=True)
def _site_change(
    own: int,
    opponent: int,
    halves: int,
    games: int,
    pool: int,
    table: Any,
    params: Any,
    weighted: Any,
) -> int:
    """site S3-S5: the rating after the game, K x w x (score - expected) rounded,
    never below the floor; w is ``pool``'s weight (1 for a type rating)."""
    d = own - opponent
    last = table.shape[0] - 1
    expected = table[min(d, last)] if d >= 0 else ONE_POINT - table[min(-d, last)]
    k = params[S_K_NEW] if games < params[S_K_GAMES] else params[S_K]
    scaled = k * params[S_WEIGHTS + pool] * (halves * HALF_POINT - expected)
    after = own + weighted(scaled, params)
    return int(max(after, params[S_FLOOR]))


@njit(cache=True)
def site_kernel(
    order: Any,
    kind_pool: Any,
    white: Any,
    black: Any,
    white_halves: Any,
    is_bot: Any,
    bot_rating: Any,
    rating: Any,
    games: Any,
    expected: Any,
    changes: Any,
    params: Any,
    weighted: Any,
) -> None:
    """site S1-S7 for every game of ``order``: the type rating (w = 1) and the site
    Elo (pool 0, w = the type's weight). ``expected[d]`` is the higher rated side's
    expected score (hundredths) for a difference of d hundredths; ``params`` the
    ``SiteRules`` (:func:`chessrate.fast.params.site_params`). ``changes[t]`` gets
    the four changes (type white, type black, site white, site black; 0 for a bot,
    who has none) for S10."""
    for t in range(order.shape[0]):
        g = order[t]
        a = white[g]
        b = black[g]
        sa = white_halves[g]
        for slot in range(2):
            p = kind_pool[g] if slot == 0 else 0
            weight = 0 if slot == 0 else kind_pool[g]  # the site Elo weighs by the type
            ra = bot_rating[a] if is_bot[a] else rating[a, p]
            rb = bot_rating[b] if is_bot[b] else rating[b, p]
            na = ra
            nb = rb
            if not is_bot[a]:
                na = _site_change(ra, rb, sa, games[a, p], weight, expected, params, weighted)
            if not is_bot[b]:
                nb = _site_change(rb, ra, 2 - sa, games[b, p], weight, expected, params, weighted)
            if is_bot[a]:
                changes[t, 2 * slot] = 0
            else:
                changes[t, 2 * slot] = na - ra
                rating[a, p] = na
                games[a, p] += 1
            if is_bot[b]:
                changes[t, 2 * slot + 1] = 0
            else:
                changes[t, 2 * slot + 1] = nb - rb
                rating[b, p] = nb
                games[b, p] += 1


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
