"""Reference predictors for the rating lab: not regulations, only yardsticks.

Each predictor rates nothing that is published: it gives an expected score before a
game and learns from the result, so that ``chessrate evaluate`` can say how well a
system's rules predict compared with two well-known baselines. Floats are fine here
(exact arithmetic is the rule for ratings, and these are not ratings of record).

- :class:`PlainElo`: Elo with a fixed K (20), everyone starting at 1500, updated
  after every game.
- :class:`LichessGlicko2`: Glicko-2 (Glickman, "Example of the Glicko-2 system") as
  lichess runs it, read from its source (lila's ``Glicko.scala`` and
  ``PerfsUpdater.scala``, scalachess's Glicko calculator): a new player at rating 1500,
  deviation 500, volatility 0.09; tau 0.75. Each game is its own rating period, with
  no step-6 growth of the deviation in it (lichess's ``skipDeviationIncrease``); the
  deviation grows instead with the time since the player's last game in the pool,
  0.21436 rating periods a day (lichess's "live" deviation), and is kept between 45 and
  500 before and after each game; after a game the volatility is kept at 0.1 or less
  and the rating at 400 or more. The expected score of a game uses both players'
  deviations (Glickman's prediction formula), so White's and Black's add up to 1.
  Not modelled: lichess's colour advantage and its small multipliers of rating gains
  by speed (``RatingRegulator``), both newer than the parameters above.

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
from datetime import datetime
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np
import numpy.typing as npt

GLICKO2_SCALE = 173.7178
"""Glicko-2's conversion between the Glicko scale and its own (Glickman, step 2)."""

NO_GAME = np.iinfo(np.int64).min
"""The compiled form's time of the last game of a player who has none in the pool."""


R = TypeVar("R")
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]


class Predictor(ABC, Generic[R]):
    """A reference predictor: a rating ``R`` per (player, pool), everyone starting at
    :attr:`new`; :meth:`expected` before a game, :meth:`update` after it (``at``: when
    it was played). :meth:`replay` is the compiled form of a whole stream of both."""

    label: ClassVar[str]
    description: ClassVar[str]

    def __init__(self, new: R) -> None:
        self.new = new
        """The rating of a player in a pool before his first game there."""
        self.ratings: dict[tuple[str, str], R] = {}

    def rating(self, player: str, pool: str) -> R:
        return self.ratings.get((player, pool), self.new)

    @abstractmethod
    def expected(self, white: str, black: str, pool: str, at: datetime | None = None) -> float:
        """White's expected score against Black in the pool (at ``at``)."""

    @abstractmethod
    def update(
        self, white: str, black: str, pool: str, white_score: float, at: datetime | None = None
    ) -> None:
        """Both players' ratings in the pool after a game White scored ``white_score`` in."""

    def replay(
        self, white: I64, black: I64, pool: I64, score: F64, at: I64, players: int, pools: int
    ) -> F64:
        """White's expected score before each game of a stream (players and pools as
        codes below ``players`` and ``pools``, White's score, when it was played in
        microseconds since 1970), every game learnt after it is predicted: what
        :meth:`expected` then :meth:`update` give game after game, from fresh ratings,
        computed by a numba kernel."""
        return self.learn(self.begin(players, pools), white, black, pool, score, at)

    @abstractmethod
    def begin(self, players: int, pools: int) -> tuple[Any, ...]:
        """The compiled form's ratings: everyone new, ``players`` by ``pools``."""

    @abstractmethod
    def learn(
        self, state: tuple[Any, ...], white: I64, black: I64, pool: I64, score: F64, at: I64
    ) -> F64:
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

    def expected(self, white: str, black: str, pool: str, at: datetime | None = None) -> float:
        return elo_expected(self.rating(white, pool), self.rating(black, pool))

    def update(
        self, white: str, black: str, pool: str, white_score: float, at: datetime | None = None
    ) -> None:
        expected = self.expected(white, black, pool)
        change = self.k * (white_score - expected)
        self.ratings[(white, pool)] = self.rating(white, pool) + change
        self.ratings[(black, pool)] = self.rating(black, pool) - change

    def begin(self, players: int, pools: int) -> tuple[Any, ...]:
        return (pools, np.full(players * pools, self.new))

    def learn(
        self, state: tuple[Any, ...], white: I64, black: I64, pool: I64, score: F64, at: I64
    ) -> F64:
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
    periods: float = 1.0,
) -> Glicko2Rating:
    """One rating period of Glicko-2 (Glickman's steps 2-8) for ``player`` against
    ``results`` (opponent, score); no games: only the deviation grows (step 6).
    ``periods``: the rating periods step 6 grows the deviation by (Glickman: 1;
    lichess rates each game with 0, its deviation growing with time instead)."""
    mu = (player.rating - 1500.0) / GLICKO2_SCALE
    phi = player.deviation / GLICKO2_SCALE
    sigma = player.volatility
    if not results:
        return Glicko2Rating(
            player.rating, math.sqrt(phi * phi + periods * sigma * sigma) * GLICKO2_SCALE, sigma
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
    phi_star = math.sqrt(phi * phi + periods * new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * delta_sum
    return Glicko2Rating(new_mu * GLICKO2_SCALE + 1500.0, new_phi * GLICKO2_SCALE, new_sigma)


class LichessGlicko2(Predictor[Glicko2Rating]):
    """Glicko-2 as lichess runs it, one rating period per game (see the module)."""

    label = "glicko2-lichess"
    description = (
        "Glicko-2 as lichess runs it: start 1500, RD 500, volatility 0.09, tau 0.75, one "
        "rating period per game, RD growing 0.21436 periods a day between games and kept "
        "in [45, 500], volatility at most 0.1, rating at least 400 (not a regulation)"
    )

    def __init__(
        self,
        start: float = 1500.0,
        deviation: float = 500.0,
        volatility: float = 0.09,
        tau: float = 0.75,
        min_deviation: float = 45.0,
        max_deviation: float = 500.0,
        max_volatility: float = 0.1,
        min_rating: float = 400.0,
        periods_per_day: float = 0.21436,
    ) -> None:
        super().__init__(Glicko2Rating(start, deviation, volatility))
        self.tau = tau
        self.min_deviation = min_deviation
        self.max_deviation = max_deviation
        self.max_volatility = max_volatility
        self.min_rating = min_rating
        self.periods_per_day = periods_per_day
        self.last: dict[tuple[str, str], datetime] = {}

    def live(self, player: str, pool: str, at: datetime | None = None) -> Glicko2Rating:
        """The rating at ``at``: its deviation grown by the rating periods since the
        player's last game in the pool (step 6), kept in [45, 500]."""
        rating = self.rating(player, pool)
        last = self.last.get((player, pool))
        if at is None or last is None or at <= last:
            return self._bounded(rating)
        periods = (at - last).total_seconds() / 86400.0 * self.periods_per_day
        phi = rating.deviation / GLICKO2_SCALE
        grown = math.sqrt(phi * phi + periods * rating.volatility * rating.volatility)
        return self._bounded(Glicko2Rating(rating.rating, grown * GLICKO2_SCALE, rating.volatility))

    def expected(self, white: str, black: str, pool: str, at: datetime | None = None) -> float:
        """Glickman's expected score of a game: 1 / (1 + 10^(-g(sqrt(RDa² + RDb²))
        (Ra - Rb) / 400)), g on the Glicko scale, with the live deviations at ``at``."""
        a, b = self.live(white, pool, at), self.live(black, pool, at)
        q = math.log(10.0) / 400.0
        combined = a.deviation * a.deviation + b.deviation * b.deviation
        g = 1.0 / math.sqrt(1.0 + 3.0 * q * q * combined / (math.pi * math.pi))
        return 1.0 / (1.0 + math.pow(10.0, -g * (a.rating - b.rating) / 400.0))

    def update(
        self, white: str, black: str, pool: str, white_score: float, at: datetime | None = None
    ) -> None:
        a, b = self.live(white, pool, at), self.live(black, pool, at)
        after_a = glicko2_update(a, [(b, white_score)], self.tau, periods=0.0)
        after_b = glicko2_update(b, [(a, 1.0 - white_score)], self.tau, periods=0.0)
        self.ratings[(white, pool)] = self._capped(after_a)
        self.ratings[(black, pool)] = self._capped(after_b)
        if at is not None:
            self.last[(white, pool)] = at
            self.last[(black, pool)] = at

    def _bounded(self, rating: Glicko2Rating) -> Glicko2Rating:
        deviation = min(max(rating.deviation, self.min_deviation), self.max_deviation)
        return Glicko2Rating(rating.rating, deviation, rating.volatility)

    def _capped(self, rating: Glicko2Rating) -> Glicko2Rating:
        """lichess's caps after a game: rating, deviation and volatility."""
        bounded = self._bounded(rating)
        return Glicko2Rating(
            max(bounded.rating, self.min_rating),
            bounded.deviation,
            min(bounded.volatility, self.max_volatility),
        )

    def begin(self, players: int, pools: int) -> tuple[Any, ...]:
        n = players * pools
        new = self.new
        return (pools, np.full(n, new.rating), np.full(n, new.deviation),
                np.full(n, new.volatility), np.full(n, NO_GAME, np.int64))  # fmt: skip

    def learn(
        self, state: tuple[Any, ...], white: I64, black: I64, pool: I64, score: F64, at: I64
    ) -> F64:
        from .kernels import glicko2_learn

        pools, rating, deviation, volatility, last = state
        expected: F64 = glicko2_learn(
            white, black, pool, score, at, pools, rating, deviation, volatility, last,
            self.tau, self.min_deviation, self.max_deviation, self.max_volatility,
            self.min_rating, self.periods_per_day,
        )  # fmt: skip
        return expected


PREDICTORS: tuple[type[PlainElo] | type[LichessGlicko2], ...] = (PlainElo, LichessGlicko2)
"""The reference predictors ``chessrate evaluate`` runs beside the rules."""
