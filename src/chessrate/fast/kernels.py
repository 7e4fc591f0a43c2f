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

Given ``rows`` (``(out, reason, codes)``, see :mod:`chessrate.fast.rows`), a kernel also
writes every change it makes as one column of ``out`` (the rows' numbers as the
reference ``Change`` holds them, :data:`chessrate.fast.rows.NULL` for its Nones) and,
arena and corr, each game's reason code into ``reason``; the rule, state and reason
codes are read from ``codes`` (:func:`chessrate.fast.params.arena_codes`, ...). With
``rows`` None numba prunes every branch that writes them: the kernel compiled for it is
the one without rows.
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
    EA_A6,
    EA_A7,
    EA_A10,
    EA_BOTH,
    EA_LOSS_IGNORED,
    EA_NEITHER,
    EA_QUALIFIES,
    EA_STATE,
    EC_C2,
    EC_C5,
    EC_C6,
    EC_NEITHER,
    EC_RATED,
    EC_STATE,
    ES_KIND,
    ES_RATED,
    ES_S3,
    ES_S5,
    ESTABLISHED,
    HALF_POINT,
    ONE_POINT,
    PROVISIONAL,
    QUALIFYING,
    RATED,
    S_DENOMINATOR,
    S_FLOOR,
    S_K,
    S_K_GAMES,
    S_K_NEW,
    S_SHIFT,
    S_WEIGHTS,
    UNRATED,
)
from .rows import NULL

__all__ = ["ESTABLISHED", "PROVISIONAL", "QUALIFYING", "RATED", "UNRATED"]
"""The kernels' states (arena A5, corr C1), from :mod:`chessrate.fast.params`."""


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
def weighted(scaled: int, params: Any, by_shift: Any) -> int:
    """A site change over the weights' common denominator: :func:`round_shift` when
    ``by_shift`` is True (the denominator is ``1 << params[S_SHIFT]``, the usual case:
    the weights are halves and quarters), :func:`round_div` by any denominator when it
    is None. A flag by its type: numba compiles (and caches) one kernel for each, with
    no test per game (a function passed as an argument would do it too, but numba's
    cache cannot find such a kernel again: it compiled in every process)."""
    if by_shift is None:
        return round_div(scaled, params[S_DENOMINATOR])
    return round_shift(scaled, params[S_SHIFT])


@njit(cache=True, inline="always")
def _row(
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
    rows: Any = None,
) -> int:
    """arena A6-A10 for every game of ``order`` (all of them rated, with a result); the
    number of changes written to ``rows`` (0 without).

    ``pd_high[D]`` is Table B's PD of the higher rated (hundredths) for a whole D, its
    last entry standing for every larger D; ``dp[p]`` is Table A for p in hundredths;
    ``params`` the ``ArenaRules`` (:func:`chessrate.fast.params.arena_params`)."""
    floor = params[A_FLOOR]
    last = pd_high.shape[0] - 1
    c = 0
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
            if rows is not None:
                out, reason, codes = rows
                reason[t] = codes[EA_BOTH]
                c = _arena_row(out, c, t, 0, a, b, p, sa, ra, na, games[a, p], rb, ka, d, pda,
                               floor, codes)  # fmt: skip
                c = _arena_row(out, c, t, 1, b, a, p, sb, rb, nb, games[b, p], ra, kb, d, pdb,
                               floor, codes)  # fmt: skip
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
                if rows is not None:  # a loss before the count starts is ignored
                    out, reason, codes = rows
                    reason[t] = codes[EA_LOSS_IGNORED + (1 if a_rated else 0)]
                continue
            status_before = status[x, p]
            count_before = q_count[x, p]
            q_count[x, p] += 1
            q_sum[x, p] += opponent
            q_halves[x, p] += s
            n = q_count[x, p]
            if n < params[A_QUALIFYING]:
                status[x, p] = QUALIFYING
                if rows is not None:
                    out, reason, codes = rows
                    reason[t] = codes[EA_QUALIFIES + (1 if a_rated else 0)]
                    c = _row(
                        out, c, t, 0, x, p, codes[EA_A6], a if a_rated else b, s, NULL, NULL,
                        codes[EA_STATE + status_before], codes[EA_STATE + QUALIFYING],
                        count_before, n, opponent, NULL, NULL, NULL, NULL, NULL,
                    )  # fmt: skip
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
            if rows is not None:  # A6's basis: Ra; its code: the points in half points
                out, reason, codes = rows
                reason[t] = codes[EA_QUALIFIES + (1 if a_rated else 0)]
                c = _row(
                    out, c, t, 0, x, p, codes[EA_A6], a if a_rated else b, s, NULL, rf,
                    codes[EA_STATE + status_before], codes[EA_STATE + status[x, p]],
                    count_before, games[x, p], opponent, NULL, NULL, NULL, ra, halves,
                )  # fmt: skip
        elif rows is not None:  # neither is rated: the game counts for neither (A6)
            out, reason, codes = rows
            reason[t] = codes[EA_NEITHER]
    return c


@njit(cache=True, inline="always")
def _arena_row(
    out: Any, c: int, t: int, slot: int, own: int, other: int, p: int, halves: int,
    before: int, after: int, games: int, other_rating: int, k: int, d: int, pd: int,
    floor: int, codes: Any,
) -> int:  # fmt: skip
    """A7's change of one player (A10 when ``after`` is below the floor)."""
    lost = after < floor
    return _row(
        out, c, t, slot, own, p, codes[EA_A10] if lost else codes[EA_A7], other, halves,
        before, after, codes[EA_STATE + RATED], codes[EA_STATE + (UNRATED if lost else RATED)],
        games, 0 if lost else games + 1, other_rating, k, d, pd, NULL, NULL,
    )  # fmt: skip


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
    in_hundredths: Any,
    params: Any,
) -> tuple[bool, int, int, int, int, int, int]:
    """corr C2-C6 for one player: (counted, status, rating, games, sum, rule, opponent's
    rating): the rule as its ``EC_*`` code, the opponent's rating as C5 read it (C2: his
    rating). ``rules`` holds CorrRules numbers as values (see :func:`corr_kernel`),
    ``in_hundredths`` C5's rounding (:func:`factored`). Inlined into the kernel."""
    established, margin, gap_limit, clamp, win_bonus = rules
    if own_status == ESTABLISHED:  # C5, C6
        # C5 Decision: an unrated opponent's rating is the performance he earns here
        unrated = other_status == UNRATED
        opponent = own_rating + margin * (1 - halves) if unrated else other_rating
        diff = max(-clamp, min(clamp, opponent - own_rating))
        change = factored(diff, win_bonus * (halves - 1), params, in_hundredths)
        rule = EC_C5
        if change < 0 and other_status != ESTABLISHED:
            change = 0
            rule = EC_C6
        return True, ESTABLISHED, own_rating + change, own_games + 1, 0, rule, opponent
    if own_status != UNRATED and other_status != UNRATED:
        gap = other_rating - own_rating
        if gap >= gap_limit or gap <= -gap_limit:  # C4: not counted at all
            return False, own_status, own_rating, own_games, own_sum, EC_C2, other_rating
    if other_status == UNRATED:  # C3
        performance = params[C_UNRATED + halves]
    else:
        performance = other_rating + margin * (halves - 1)
    total = own_sum + performance
    count = own_games + 1
    status = ESTABLISHED if count >= established else PROVISIONAL
    return True, status, round_div(total, count), count, total, EC_C2, other_rating


@njit(cache=True, inline="always")
def _corr_row(
    out: Any, c: int, t: int, slot: int, own: int, other: int, halves: int, own_status: int,
    own_rating: int, own_games: int, other_status: int, after: int, status: int,
    games: int, total: int, rule: int, opponent: int, codes: Any,
) -> int:  # fmt: skip
    """One player's corr change: C2 with the sum of the performances as its basis (no
    rating before or opponent's rating where one is unrated); C5/C6 with D and the
    opponent's state as its code."""
    before = NULL if own_status == UNRATED else own_rating
    if rule == EC_C2:
        rated_opponent = NULL if other_status == UNRATED else opponent
        d, basis, code = NULL, total, NULL
    else:
        rated_opponent = opponent
        d, basis, code = opponent - own_rating, NULL, codes[EC_STATE + other_status]
    return _row(
        out, c, t, slot, own, 0, codes[rule], other, halves, before, after,
        codes[EC_STATE + own_status], codes[EC_STATE + status], own_games, games,
        rated_opponent, NULL, d, NULL, basis, code,
    )  # fmt: skip


@njit(cache=True)
def factored(diff: int, bonus: int, params: Any, in_hundredths: Any) -> int:
    """corr C5's factor x diff + bonus, rounded: when ``in_hundredths`` is True the
    factor is in hundredths (0.04 is 4) and the division is by a constant, the usual
    case; when it is None, by the factor's own denominator. A flag by its type (see
    :func:`weighted`)."""
    if in_hundredths is None:
        denominator = params[C_FACTOR_DEN]
        return round_div(diff * params[C_FACTOR_NUM] + bonus * denominator, denominator)
    return round_div(diff * params[C_FACTOR_NUM] + bonus * ONE_POINT, ONE_POINT)


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
    in_hundredths: Any,
    rows: Any = None,
) -> int:
    """corr C2-C6 for every game of ``order``; both players from pre-game states;
    ``params`` the ``CorrRules`` (:func:`chessrate.fast.params.corr_params`), its
    numbers read once into values (not from the array again after each state write);
    ``in_hundredths`` True for a factor in hundredths, else None (:func:`factored`).
    The number of changes written to ``rows`` (0 without)."""
    rules = (
        params[C_ESTABLISHED], params[C_MARGIN], params[C_GAP], params[C_CLAMP],
        params[C_BONUS],
    )  # fmt: skip
    c = 0
    for t in range(order.shape[0]):
        g = order[t]
        a = white[g]
        b = black[g]
        sa = white_halves[g]
        ca, sta, ra, ga, ta, rule_a, opponent_a = _corr_one(
            status[a],
            rating[a],
            games[a],
            total[a],
            status[b],
            rating[b],
            sa,
            rules,
            in_hundredths,
            params,
        )
        cb, stb, rb, gb, tb, rule_b, opponent_b = _corr_one(
            status[b],
            rating[b],
            games[b],
            total[b],
            status[a],
            rating[a],
            2 - sa,
            rules,
            in_hundredths,
            params,
        )
        if rows is not None:
            out, reason, codes = rows
            reason[t] = codes[EC_RATED] if ca or cb else codes[EC_NEITHER]
            if ca:
                c = _corr_row(out, c, t, 0, a, b, sa, status[a], rating[a], games[a], status[b],
                              ra, sta, ga, ta, rule_a, opponent_a, codes)  # fmt: skip
            if cb:
                c = _corr_row(out, c, t, 1 if ca else 0, b, a, 2 - sa, status[b], rating[b],
                              games[b], status[a], rb, stb, gb, tb, rule_b, opponent_b,
                              codes)  # fmt: skip
        if ca:
            status[a], rating[a], games[a], total[a] = sta, ra, ga, ta
        if cb:
            status[b], rating[b], games[b], total[b] = stb, rb, gb, tb
    return c


@njit(cache=True)
def _site_change(
    own: int,
    opponent: int,
    halves: int,
    games: int,
    pool: int,
    table: Any,
    params: Any,
    by_shift: Any,
) -> tuple[int, int, int, bool]:
    """site S3-S5: (the rating after the game, K, the expected score, whether the floor
    stopped it): K x w x (score - expected) rounded, never below the floor; w is
    ``pool``'s weight (1 for a type rating)."""
    d = own - opponent
    last = table.shape[0] - 1
    expected = table[min(d, last)] if d >= 0 else ONE_POINT - table[min(-d, last)]
    k = params[S_K_NEW] if games < params[S_K_GAMES] else params[S_K]
    scaled = k * params[S_WEIGHTS + pool] * (halves * HALF_POINT - expected)
    after = own + weighted(scaled, params, by_shift)
    floor = params[S_FLOOR]
    return int(max(after, floor)), int(k), int(expected), after < floor


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
    by_shift: Any,
    rows: Any = None,
) -> int:
    """site S1-S7 for every game of ``order``: the type rating (w = 1) and the site
    Elo (pool 0, w = the type's weight). ``expected[d]`` is the higher rated side's
    expected score (hundredths) for a difference of d hundredths; ``params`` the
    ``SiteRules`` (:func:`chessrate.fast.params.site_params`); ``by_shift`` how the
    weights' denominator divides (:func:`weighted`). ``changes[t]`` gets
    the four changes (type white, type black, site white, site black; 0 for a bot,
    who has none) for S10. The number of changes written to ``rows`` (0 without; a
    game's reason is its type's, decided before the kernel)."""
    c = 0
    for t in range(order.shape[0]):
        g = order[t]
        a = white[g]
        b = black[g]
        sa = white_halves[g]
        slot = 0  # the change's place among the game's changes
        for step in range(2):
            p = kind_pool[g] if step == 0 else 0
            weight = 0 if step == 0 else kind_pool[g]  # the site Elo weighs by the type
            ra = bot_rating[a] if is_bot[a] else rating[a, p]
            rb = bot_rating[b] if is_bot[b] else rating[b, p]
            na, ka, ea, fa = ra, 0, 0, False
            nb, kb, eb, fb = rb, 0, 0, False
            if not is_bot[a]:
                na, ka, ea, fa = _site_change(
                    ra, rb, sa, games[a, p], weight, expected, params, by_shift
                )
            if not is_bot[b]:
                nb, kb, eb, fb = _site_change(
                    rb, ra, 2 - sa, games[b, p], weight, expected, params, by_shift
                )
            if rows is not None:
                out, _, codes = rows
                code = NULL if step == 0 else codes[ES_KIND + kind_pool[g]]
                if not is_bot[a]:
                    c = _site_row(out, c, t, slot, a, b, p, sa, ra, na, games[a, p], rb, ka, ea,
                                  fa, code, codes)  # fmt: skip
                    slot += 1
                if not is_bot[b]:
                    c = _site_row(out, c, t, slot, b, a, p, 2 - sa, rb, nb, games[b, p], ra, kb,
                                  eb, fb, code, codes)  # fmt: skip
                    slot += 1
            if is_bot[a]:
                changes[t, 2 * step] = 0
            else:
                changes[t, 2 * step] = na - ra
                rating[a, p] = na
                games[a, p] += 1
            if is_bot[b]:
                changes[t, 2 * step + 1] = 0
            else:
                changes[t, 2 * step + 1] = nb - rb
                rating[b, p] = nb
                games[b, p] += 1
    return c


@njit(cache=True, inline="always")
def _site_row(
    out: Any, c: int, t: int, slot: int, own: int, other: int, p: int, halves: int,
    before: int, after: int, games: int, other_rating: int, k: int, expected: int,
    floored: bool, code: int, codes: Any,
) -> int:  # fmt: skip
    """One human's site change (S5 when the floor stopped it)."""
    rated = codes[ES_RATED]
    return _row(
        out, c, t, slot, own, p, codes[ES_S5] if floored else codes[ES_S3], other, halves,
        before, after, rated, rated, games, games + 1, other_rating, k, other_rating - before,
        expected, NULL, code,
    )  # fmt: skip


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
