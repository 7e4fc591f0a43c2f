"""The compiled rules: one numba kernel per system, on integer hundredths.

Every rating, rating change, table value and expected score is an integer number
of hundredths (int64); scores are counted in half points. The only rounding,
half away from zero, is :func:`round_div` (the integer form of
:func:`chessrate.numbers.round_half_away`). Table A, Table B and the ``site``
expected score are lookup arrays built in Python from the reference functions
(:mod:`chessrate.fast.tables`). Each kernel applies the games named by ``order``
(rating order, refused and repeated games already removed) to the state arrays in
place; the states are indexed ``[player, pool]``.
"""

from __future__ import annotations

from typing import Any

from numba import njit

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
    k_pool: Any,
) -> None:
    """arena A6-A10 for every game of ``order`` (all of them rated, with a result).

    ``pd_high[D]`` is Table B's PD of the higher rated (hundredths) for a whole D up
    to 735; ``dp[p]`` is Table A for p in hundredths; ``k_pool`` A8's K per pool."""
    floor = 100_000  # 1000.00 (A6, A10)
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
            whole = (d + 50) // 100  # Table B reads D rounded half up
            high = 100 if whole > 735 else pd_high[whole]
            pda = high if ra >= rb else 100 - high
            pdb = high if rb >= ra else 100 - high
            ka = 40 if games[a, p] < 30 else k_pool[p]  # A8
            kb = 40 if games[b, p] < 30 else k_pool[p]
            na = ra + (sa * 50 - pda) * ka
            nb = rb + (sb * 50 - pdb) * kb
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
            if n < 5:
                status[x, p] = QUALIFYING
                continue
            ra = (2 * q_sum[x, p] + n) // (2 * n)  # Ra, ratings are positive
            halves = q_halves[x, p]
            if halves == n:
                rf = ra
            elif halves > n:
                rf = ra + (halves - n) * 2000  # +20 per half point over 50 %
            else:
                rf = ra + dp[(100 * halves + n) // (2 * n)] * 100  # Table A on p = s/n
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
def _corr_one(
    own_status: int,
    own_rating: int,
    own_games: int,
    own_sum: int,
    other_status: int,
    other_rating: int,
    halves: int,
) -> tuple[bool, int, int, int, int]:
    """corr C2-C6 for one player: (counted, status, rating, games, sum)."""
    if own_status == ESTABLISHED:  # C5, C6
        # C5 Decision: an unrated opponent's rating is the performance he earns here
        opponent = own_rating + 40_000 * (1 - halves) if other_status == UNRATED else other_rating
        diff = opponent - own_rating
        diff = max(-35_000, min(35_000, diff))
        bonus = 1600 * (halves - 1)
        change = round_div(diff * 4 + bonus * 100, 100)
        if change < 0 and other_status != ESTABLISHED:
            change = 0
        return True, ESTABLISHED, own_rating + change, own_games + 1, 0
    if own_status != UNRATED and other_status != UNRATED:
        gap = other_rating - own_rating
        if gap >= 40_000 or gap <= -40_000:  # C4: not counted at all
            return False, own_status, own_rating, own_games, own_sum
    if other_status == UNRATED:  # C3
        performance = 110_000 + 20_000 * halves
    else:
        performance = other_rating + 40_000 * (halves - 1)
    total = own_sum + performance
    count = own_games + 1
    status = ESTABLISHED if count >= 25 else PROVISIONAL
    return True, status, round_div(total, count), count, total


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
) -> None:
    """corr C2-C6 for every game of ``order``; both players from pre-game states."""
    for t in range(order.shape[0]):
        g = order[t]
        a = white[g]
        b = black[g]
        sa = white_halves[g]
        ca, sta, ra, ga, ta = _corr_one(
            status[a], rating[a], games[a], total[a], status[b], rating[b], sa
        )
        cb, stb, rb, gb, tb = _corr_one(
            status[b], rating[b], games[b], total[b], status[a], rating[a], 2 - sa
        )
        if ca:
            status[a], rating[a], games[a], total[a] = sta, ra, ga, ta
        if cb:
            status[b], rating[b], games[b], total[b] = stb, rb, gb, tb


@njit(cache=True)
def _site_change(
    own: int, opponent: int, halves: int, games: int, quarters: int, table: Any
) -> int:
    """site S3-S5: the rating after the game (K x w x (score - expected), floor 100)."""
    d = own - opponent
    last = table.shape[0] - 1
    expected = table[min(d, last)] if d >= 0 else 100 - table[min(-d, last)]
    k = 32 if games < 30 else 20
    after = own + round_div(k * quarters * (halves * 50 - expected), 4)
    return max(after, 10_000)


@njit(cache=True)
def site_kernel(
    order: Any,
    kind_pool: Any,
    quarters: Any,
    white: Any,
    black: Any,
    white_halves: Any,
    is_bot: Any,
    bot_rating: Any,
    rating: Any,
    games: Any,
    expected: Any,
    changes: Any,
) -> None:
    """site S1-S7 for every game of ``order``: the type rating (w = 1) and the site
    Elo (pool 0, w = ``quarters``/4). ``expected[d]`` is the higher rated side's
    expected score (hundredths) for a difference of d hundredths. ``changes[t]``
    gets the four changes (type white, type black, site white, site black;
    0 for a bot, who has none) for S10."""
    for t in range(order.shape[0]):
        g = order[t]
        a = white[g]
        b = black[g]
        sa = white_halves[g]
        for slot in range(2):
            p = kind_pool[g] if slot == 0 else 0
            w = 4 if slot == 0 else quarters[g]
            ra = bot_rating[a] if is_bot[a] else rating[a, p]
            rb = bot_rating[b] if is_bot[b] else rating[b, p]
            na = ra
            nb = rb
            if not is_bot[a]:
                na = _site_change(ra, rb, sa, games[a, p], w, expected)
            if not is_bot[b]:
                nb = _site_change(rb, ra, 2 - sa, games[b, p], w, expected)
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
