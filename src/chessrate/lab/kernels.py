"""The lab's numba kernels: the reference predictors over a whole stream of games, and
what the lab takes from the compiled replay's emitted changes (:func:`collect`).

The same float operations, in the same order, as :class:`~.predictors.PlainElo` and
:class:`~.predictors.LichessGlicko2` (the reference, one game at a time in Python): the
tests hold them equal to 1e-9 on generated streams. A stream is four arrays, one entry
per game and pool in rating order: White's and Black's player codes, the pool's code and
White's score; a rating is kept per (player, pool), at ``player * pools + pool``, in
arrays a kernel updates in place, so that a stream can be learnt part after part (the
kernels release the GIL: the lab runs them in a thread while the replay goes on).
Floats are fine here: these predictors rate nothing (see :mod:`.predictors`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from ..fast.rows import NULL
from .predictors import GLICKO2_SCALE, NO_GAME

EPSILON = 0.000001
"""The convergence tolerance of the volatility's iteration (``glicko2_update``'s)."""


@njit(cache=True, nogil=True)
def elo_learn(
    white: Any, black: Any, pool: Any, score: Any, pools: int, k: float, ratings: Any
) -> Any:
    """Plain Elo over a part of a stream, from ``ratings`` (updated in place): White's
    expectation before each game."""
    out = np.empty(white.shape[0])
    for i in range(white.shape[0]):
        a = white[i] * pools + pool[i]
        b = black[i] * pools + pool[i]
        ra = ratings[a]
        rb = ratings[b]
        expected = 1.0 / (1.0 + math.pow(10.0, (rb - ra) / 400.0))
        out[i] = expected
        change = k * (score[i] - expected)
        ratings[a] = ra + change
        ratings[b] = ratings[b] - change
    return out


@njit(cache=True, nogil=True)
def _volatility_f(x: float, delta: float, phi: float, v: float, a: float, tau: float) -> float:
    ex = math.exp(x)
    return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
        x - a
    ) / (tau * tau)


@njit(cache=True, nogil=True)
def _glicko2_one(
    rating: float, deviation: float, volatility: float, opponent: float, opponent_rd: float,
    score: float, tau: float, periods: float,
) -> tuple[float, float, float]:  # fmt: skip
    """``glicko2_update`` of one player after one game (Glickman's steps 2-8), step 6
    growing the deviation by ``periods``."""
    mu = (rating - 1500.0) / GLICKO2_SCALE
    phi = deviation / GLICKO2_SCALE
    sigma = volatility
    mu_j = (opponent - 1500.0) / GLICKO2_SCALE
    phi_j = opponent_rd / GLICKO2_SCALE
    g_j = 1.0 / math.sqrt(1.0 + 3.0 * phi_j * phi_j / (math.pi * math.pi))
    e_j = 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j)))
    v_inverse = 0.0 + g_j * g_j * e_j * (1.0 - e_j)
    delta_sum = 0.0 + g_j * (score - e_j)
    v = 1.0 / v_inverse
    delta = v * delta_sum
    a = math.log(sigma * sigma)
    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while _volatility_f(a - k * tau, delta, phi, v, a, tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a = _volatility_f(big_a, delta, phi, v, a, tau)
    f_b = _volatility_f(big_b, delta, phi, v, a, tau)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = _volatility_f(big_c, delta, phi, v, a, tau)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2.0
        big_b, f_b = big_c, f_c
    new_sigma = math.exp(big_a / 2.0)
    phi_star = math.sqrt(phi * phi + periods * new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * delta_sum
    return new_mu * GLICKO2_SCALE + 1500.0, new_phi * GLICKO2_SCALE, new_sigma


@njit(cache=True, nogil=True)
def _live(
    deviation: float, volatility: float, last: int, at: int, per_day: float, low: float,
    high: float,
) -> float:  # fmt: skip
    """``LichessGlicko2.live``'s deviation: grown by the rating periods since the last
    game (none: as it is), kept in [low, high]."""
    if last != NO_GAME and at > last:
        periods = (at - last) / 1e6 / 86400.0 * per_day
        phi = deviation / GLICKO2_SCALE
        deviation = math.sqrt(phi * phi + periods * volatility * volatility) * GLICKO2_SCALE
    return min(max(deviation, low), high)


@njit(cache=True, nogil=True)
def glicko2_learn(
    white: Any, black: Any, pool: Any, score: Any, at: Any, pools: int, rating: Any, rd: Any,
    sigma: Any, last: Any, tau: float, min_deviation: float, max_deviation: float,
    max_volatility: float, min_rating: float, per_day: float,
) -> Any:  # fmt: skip
    """``LichessGlicko2`` over a part of a stream, from ``rating``, ``rd``, ``sigma`` and
    ``last`` (each player's last game in the pool, microseconds; updated in place):
    White's expectation before each game (Glickman's prediction formula with both live
    deviations), then both players' ratings after it, capped as lichess caps them."""
    q = math.log(10.0) / 400.0
    out = np.empty(white.shape[0])
    for i in range(white.shape[0]):
        a = white[i] * pools + pool[i]
        b = black[i] * pools + pool[i]
        now = at[i]
        ra, sa = rating[a], sigma[a]
        rb, sb = rating[b], sigma[b]
        da = _live(rd[a], sa, last[a], now, per_day, min_deviation, max_deviation)
        db = _live(rd[b], sb, last[b], now, per_day, min_deviation, max_deviation)
        combined = da * da + db * db
        g = 1.0 / math.sqrt(1.0 + 3.0 * q * q * combined / (math.pi * math.pi))
        out[i] = 1.0 / (1.0 + math.pow(10.0, -g * (ra - rb) / 400.0))
        y = score[i]
        r1, d1, s1 = _glicko2_one(ra, da, sa, rb, db, y, tau, 0.0)
        r2, d2, s2 = _glicko2_one(rb, db, sb, ra, da, 1.0 - y, tau, 0.0)
        rating[a] = max(r1, min_rating)
        rd[a] = min(max(d1, min_deviation), max_deviation)
        sigma[a] = min(s1, max_volatility)
        rating[b] = max(r2, min_rating)
        rd[b] = min(max(d2, min_deviation), max_deviation)
        sigma[b] = min(s2, max_volatility)
        last[a] = now
        last[b] = now
    return out


@njit(cache=True)
def collect(
    game: Any, player: Any, pool: Any, score: Any, before: Any, pd: Any, games_before: Any,
    rated: Any, white: Any, black: Any, has_result: Any, pools: int, stream: bool,
) -> tuple[Any, ...]:  # fmt: skip
    """What the lab takes from a chunk of emitted changes (``chessrate.fast.rows``: one
    entry per change, a game's changes together, in order; ``rated``, ``white``,
    ``black`` and ``has_result`` per game of the chunk), as ``scored_games`` and the
    predictors take it from the reference engine's changes.

    Scored: for each rated game and pool (in pool order) where White's and Black's
    changes (the last of each, as a dict keeps them) both have a ``before``: the game,
    the pool, White's expected score (his ``pd`` in hundredths, else the Elo
    expectation from the two ``before`` ratings), whether it was his ``pd``, his score,
    the newer player's ``games_before``. Stream (with ``stream``): for each rated game
    with a result, its pools in the order of its changes, whether that (game, pool) was
    scored and its experience."""
    n = game.shape[0]
    s_game = np.empty(n, np.int64)
    s_pool = np.empty(n, np.int64)
    s_expected = np.empty(n, np.float64)
    s_system = np.empty(n, np.bool_)
    s_score = np.empty(n, np.float64)
    s_experience = np.empty(n, np.int64)
    t_game = np.empty(n if stream else 0, np.int64)
    t_pool = np.empty(n if stream else 0, np.int64)
    t_scored = np.empty(n if stream else 0, np.bool_)
    t_experience = np.empty(n if stream else 0, np.int64)
    w_at = np.full(pools, -1, np.int64)
    b_at = np.full(pools, -1, np.int64)
    seen = np.zeros(pools, np.bool_)
    order = np.empty(pools, np.int64)
    scored = np.zeros(pools, np.bool_)
    learnt = np.zeros(pools, np.int64)
    s = 0
    t = 0
    i = 0
    while i < n:
        g = game[i]
        j = i
        while j < n and game[j] == g:
            j += 1
        if rated[g]:
            found = 0
            for c in range(i, j):
                p = pool[c]
                if player[c] == white[g]:
                    w_at[p] = c
                if player[c] == black[g]:
                    b_at[p] = c
                if not seen[p]:
                    seen[p] = True
                    order[found] = p
                    found += 1
            for p in range(pools):
                w = w_at[p]
                b = b_at[p]
                if w >= 0 and b >= 0 and before[w] != NULL and before[b] != NULL:
                    s_game[s] = g
                    s_pool[s] = p
                    if pd[w] != NULL:
                        s_expected[s] = pd[w] / 100
                        s_system[s] = True
                    else:
                        difference = before[b] / 100 - before[w] / 100
                        s_expected[s] = 1.0 / (1.0 + math.pow(10.0, difference / 400.0))
                        s_system[s] = False
                    s_score[s] = score[w] / 2
                    s_experience[s] = min(games_before[w], games_before[b])
                    scored[p] = True
                    learnt[p] = s_experience[s]
                    s += 1
            if stream and has_result[g]:
                for k in range(found):
                    p = order[k]
                    t_game[t] = g
                    t_pool[t] = p
                    t_scored[t] = scored[p]
                    t_experience[t] = learnt[p] if scored[p] else 0
                    t += 1
            for k in range(found):
                p = order[k]
                w_at[p] = -1
                b_at[p] = -1
                seen[p] = False
                scored[p] = False
        i = j
    return (
        s_game[:s], s_pool[:s], s_expected[:s], s_system[:s], s_score[:s], s_experience[:s],
        t_game[:t], t_pool[:t], t_scored[:t], t_experience[:t],
    )  # fmt: skip
