"""Reference predictors for the rating lab: not regulations, only yardsticks.

Each predictor rates nothing that is published: it gives an expected score before a
game and learns from the result, so that ``chessrate evaluate`` can say how well a
system's rules predict compared with two well-known baselines. Floats are fine here
(exact arithmetic is the rule for ratings, and these are not ratings of record).

- :class:`PlainElo`: Elo with a fixed K (20), everyone starting at 1500, updated
  after every game.
- :class:`LichessGlicko2`: Glicko-2 (Glickman, "Example of the Glicko-2 system") with
  the parameters lichess publishes in its source: a new player at rating 1500,
  deviation 500, volatility 0.09; tau 0.75; the deviation kept between 45 and 500.
  Each game is its own rating period (an instant update after every game), and the
  deviation does not grow with the time between games (lichess's time decay is not
  modelled). The expected score of a game uses both players' deviations (Glickman's
  prediction formula), so White's and Black's expectations add up to 1.

Both are a :class:`Predictor`: a rating per (player, pool), an expected score and an
update after each game. The classes are the reference, one game at a time in Python;
:meth:`Predictor.replay` runs the same arithmetic over a whole stream of games as a
numba kernel (:mod:`chessrate.lab.kernels`, loaded when first called), for the lab's
compiled path on a million games.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np
import numpy.typing as npt

GLICKO2_SCALE = 173.7178
"""Glicko-2's conversion between the Glicko scale and its own (Glickman, step 2)."""

R = TypeVar("R")
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]


class Predictor(ABC, Generic[R]):
    """A reference predictor: a rating ``R`` per (player, pool), everyone starting at
    :attr:`new`; :meth:`expected` before a game, :meth:`update` after it.
    :meth:`replay` is the compiled form of a whole stream of both."""

    label: ClassVar[str]
    description: ClassVar[str]

    def __init__(self, new: R) -> None:
        self.new = new
        """The rating of a player in a pool before his first game there."""
        self.ratings: dict[tuple[str, str], R] = {}

    def rating(self, player: str, pool: str) -> R:
        return self.ratings.get((player, pool), self.new)

    def expected(self, white: str, black: str, pool: str) -> float:
        """White's expected score against Black in the pool now."""
        return self.expected_of(self.rating(white, pool), self.rating(black, pool))

    @abstractmethod
    def expected_of(self, own: R, opponent: R) -> float:
        """The expected score of a player rated ``own`` against ``opponent``."""

    @abstractmethod
    def update(self, white: str, black: str, pool: str, white_score: float) -> None:
        """Both players' ratings in the pool after a game White scored ``white_score`` in."""

    def replay(
        self, white: I64, black: I64, pool: I64, score: F64, players: int, pools: int
    ) -> F64:
        """White's expected score before each game of a stream (players and pools as
        codes below ``players`` and ``pools``, White's score of each game), every game
        learnt after it is predicted: what :meth:`expected` then :meth:`update` give game
        after game, from fresh ratings, computed by a numba kernel."""
        return self.learn(self.begin(players, pools), white, black, pool, score)

    @abstractmethod
    def begin(self, players: int, pools: int) -> tuple[Any, ...]:
        """The compiled form's ratings: everyone new, ``players`` by ``pools``."""

    @abstractmethod
    def learn(self, state: tuple[Any, ...], white: I64, black: I64, pool: I64, score: F64) -> F64:
        """:meth:`replay` of the next part of a stream, from the ratings ``state`` (of
        :meth:`begin`) the parts before left, which it updates."""


class PlainElo(Predictor[float]):
    """Elo with a fixed K: E = 1 / (1 + 10^((Rb - Ra) / 400)), R += K (S - E)."""

    label = "elo-k20"
    description = "plain Elo, K 20, start 1500, updated after every game (not a regulation)"

    def __init__(self, k: float = 20.0, start: float = 1500.0) -> None:
        super().__init__(start)
        self.k = k

    @property
    def start(self) -> float:
        return self.new

    def expected_of(self, own: float, opponent: float) -> float:
        return elo_expected(own, opponent)

    def update(self, white: str, black: str, pool: str, white_score: float) -> None:
        expected = self.expected(white, black, pool)
        change = self.k * (white_score - expected)
        self.ratings[(white, pool)] = self.rating(white, pool) + change
        self.ratings[(black, pool)] = self.rating(black, pool) - change

    def begin(self, players: int, pools: int) -> tuple[Any, ...]:
        return (pools, np.full(players * pools, self.new))

    def learn(self, state: tuple[Any, ...], white: I64, black: I64, pool: I64, score: F64) -> F64:
        from .kernels import elo_learn

        pools, ratings = state
        expected: F64 = elo_learn(white, black, pool, score, pools, self.k, ratings)
        return expected


def elo_expected(own: float, opponent: float) -> float:
    """The logistic Elo expectation 1 / (1 + 10^((Ro - R) / 400))."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - own) / 400.0))


@dataclass(frozen=True, slots=True)
class Glicko2Rating:
    """A Glicko-2 rating on the Glicko scale: rating, deviation (RD), volatility."""

    rating: float
    deviation: float
    volatility: float


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def glicko2_update(
    player: Glicko2Rating,
    results: list[tuple[Glicko2Rating, float]],
    tau: float,
    epsilon: float = 0.000001,
) -> Glicko2Rating:
    """One rating period of Glicko-2 (Glickman's steps 2-8) for ``player`` against
    ``results`` (opponent, score); no games: only the deviation grows (step 6)."""
    mu = (player.rating - 1500.0) / GLICKO2_SCALE
    phi = player.deviation / GLICKO2_SCALE
    sigma = player.volatility
    if not results:
        return Glicko2Rating(
            player.rating, math.sqrt(phi * phi + sigma * sigma) * GLICKO2_SCALE, sigma
        )
    v_inverse = 0.0
    delta_sum = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - 1500.0) / GLICKO2_SCALE
        g_j = _g(opponent.deviation / GLICKO2_SCALE)
        e_j = 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j)))
        v_inverse += g_j * g_j * e_j * (1.0 - e_j)
        delta_sum += g_j * (score - e_j)
    v = 1.0 / v_inverse
    delta = v * delta_sum
    # step 5: the new volatility (the Illinois algorithm)
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > epsilon:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2.0
        big_b, f_b = big_c, f_c
    new_sigma = math.exp(big_a / 2.0)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * delta_sum
    return Glicko2Rating(new_mu * GLICKO2_SCALE + 1500.0, new_phi * GLICKO2_SCALE, new_sigma)


class LichessGlicko2(Predictor[Glicko2Rating]):
    """Glicko-2 with lichess's parameters, one rating period per game (see the module)."""

    label = "glicko2-lichess"
    description = (
        "Glicko-2 as lichess sets it: start 1500, RD 500, volatility 0.09, tau 0.75, "
        "RD kept in [45, 500], one rating period per game (not a regulation)"
    )

    def __init__(
        self,
        start: float = 1500.0,
        deviation: float = 500.0,
        volatility: float = 0.09,
        tau: float = 0.75,
        min_deviation: float = 45.0,
        max_deviation: float = 500.0,
    ) -> None:
        super().__init__(Glicko2Rating(start, deviation, volatility))
        self.tau = tau
        self.min_deviation = min_deviation
        self.max_deviation = max_deviation

    def expected_of(self, own: Glicko2Rating, opponent: Glicko2Rating) -> float:
        """Glickman's expected score of a game: 1 / (1 + 10^(-g(sqrt(RDa² + RDb²))
        (Ra - Rb) / 400)), g on the Glicko scale."""
        a, b = own, opponent
        q = math.log(10.0) / 400.0
        combined = a.deviation * a.deviation + b.deviation * b.deviation
        g = 1.0 / math.sqrt(1.0 + 3.0 * q * q * combined / (math.pi * math.pi))
        return 1.0 / (1.0 + math.pow(10.0, -g * (a.rating - b.rating) / 400.0))

    def update(self, white: str, black: str, pool: str, white_score: float) -> None:
        a, b = self.rating(white, pool), self.rating(black, pool)
        self.ratings[(white, pool)] = self._bounded(glicko2_update(a, [(b, white_score)], self.tau))
        self.ratings[(black, pool)] = self._bounded(
            glicko2_update(b, [(a, 1.0 - white_score)], self.tau)
        )

    def _bounded(self, rating: Glicko2Rating) -> Glicko2Rating:
        deviation = min(max(rating.deviation, self.min_deviation), self.max_deviation)
        return Glicko2Rating(rating.rating, deviation, rating.volatility)

    def begin(self, players: int, pools: int) -> tuple[Any, ...]:
        n = players * pools
        new = self.new
        return (pools, np.full(n, new.rating), np.full(n, new.deviation),
                np.full(n, new.volatility))  # fmt: skip

    def learn(self, state: tuple[Any, ...], white: I64, black: I64, pool: I64, score: F64) -> F64:
        from .kernels import glicko2_learn

        pools, rating, deviation, volatility = state
        expected: F64 = glicko2_learn(
            white, black, pool, score, pools, rating, deviation, volatility, self.tau,
            self.min_deviation, self.max_deviation,
        )  # fmt: skip
        return expected


PREDICTORS: tuple[type[PlainElo] | type[LichessGlicko2], ...] = (PlainElo, LichessGlicko2)
"""The reference predictors ``chessrate evaluate`` runs beside the rules."""
