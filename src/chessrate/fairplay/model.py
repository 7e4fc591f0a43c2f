"""The model of human play: how often a player of rating R finds the engine's best move,
and how much they lose, in a position like this one.

**A move's evidence.** From a :class:`~chessrate.fairplay.analysis.Position`:

* each value becomes an expected score for the mover, ``W(cp) = 1 / (1 + e^(−0.00368208
  cp))`` (the curve Lichess uses for its winning chances): a pawn at equality is worth
  much more than a pawn when already a queen up, so a loss in a decided position counts
  for little;
* the *loss* of the move played is ``W(best) − W(played)``, at least 0, at most
  ``loss_cap``; a *match* is a move played that the engine ranks first (or that has
  the first's value exactly);
* the position's *spread* is the loss of the engine's second choice, ``W(best) −
  W(second)``: the smaller it is, the more moves are as good as the best, and the less
  a match says.

A move carries no evidence when it is inside the opening (``opening_plies``), forced
(one legal move), or the only reasonable one (the second choice loses
``only_move_gap`` or more of the expected score): there, everyone finds it.

**The model.** Moves are put in cells by the player's rating band (200 points wide,
from below 1200 to 2600 and above), the spread (five buckets) and whether the
position is already decided (the best move's expected score beyond 0.5 ±
``decided``). Each cell holds, from real human games, the share of moves that matched
(``p``), and the mean and variance of the loss (``mu``, ``var``); a player's rating
between two bands' centres takes a blend of the two. A cell with few games borrows
from the same cell of every band (a weight of ``prior_moves`` moves).

**Surprise.** Over a set of moves (a game's, a run of moves, a player's last games):
``z_match = Σ(match − p) / √Σ p(1 − p)`` and ``z_loss = Σ(mu − loss) / √Σ var``, both
positive when the play is better than the model expects of a human at that rating;
their sum scaled by ``√(2(1 + rho))`` (``rho`` the two residuals' correlation in the
fit) is the *score*, roughly a standard normal for a human the model describes.

**The choices.** A second reading of the same moves looks only at where the move
played stands in the engine's list: its first choice, its second, or neither (the
cell's ``q``: the human share of moves outside the engine's two best). An engine user
is rarely outside the judge's two best even when the judge prefers the other of the
two (about one move in three, whatever its depth: among moves of nearly equal value,
what an engine searched before decides which it plays), so a game that is never or
almost never outside them says more than its matches do. ``choice_score = (Σ(match −
p) + 2 Σ(q − outside)) / √(Σ p(1 − p) + 4 Σ q(1 − q) + 4 Σ p q)``, about a standard
normal for a human too (a move is a first choice or outside, never both, hence the
``p q`` term). It ignores the size of a loss, which human tails (a strong player's
quiet, accurate game) make noisy in one game; the score keeps it, and a player's
record uses the score.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from .analysis import Position

WIN_SLOPE = 0.00368208
BAND_EDGES = (1200, 1400, 1600, 1800, 2000, 2200, 2400, 2600)
"""Rating bands: below 1200, 1200-1399, ..., 2600 and above."""
SPREAD_EDGES = (0.005, 0.02, 0.05, 0.10)
"""Spread buckets (expected score lost by the second choice): below 0.005 (several
best moves), 0.005-0.02, 0.02-0.05, 0.05-0.10, and 0.10 up to the only-move gap."""


def expected(cp: int) -> float:
    """The mover's expected score of a position worth ``cp`` centipawns to them."""
    return 1.0 / (1.0 + math.exp(-WIN_SLOPE * max(-4000, min(4000, cp))))


def band_of(rating: int) -> int:
    for index, edge in enumerate(BAND_EDGES):
        if rating < edge:
            return index
    return len(BAND_EDGES)


def band_centre(index: int) -> float:
    """The rating a band's cell stands for (its middle; the outer bands 100 past
    their edge)."""
    if index == 0:
        return BAND_EDGES[0] - 100.0
    if index == len(BAND_EDGES):
        return BAND_EDGES[-1] + 100.0
    return (BAND_EDGES[index - 1] + BAND_EDGES[index]) / 2


def blend(rating: int) -> tuple[int, int, float]:
    """Where ``rating`` falls between the bands' centres: the band whose centre is at or
    below it, the next band, and how far towards the next (0 to 1). Beyond the outer
    centres the outer band stands alone (both bands the same, 0)."""
    low = band_of(rating)
    if rating < band_centre(low):
        low -= 1
    if low < 0:
        return 0, 0, 0.0
    if low >= len(BAND_EDGES):
        return low, low, 0.0
    return low, low + 1, (rating - band_centre(low)) / (band_centre(low + 1) - band_centre(low))


def spread_of(gap: float) -> int:
    for index, edge in enumerate(SPREAD_EDGES):
        if gap < edge:
            return index
    return len(SPREAD_EDGES)


@dataclass(frozen=True, slots=True)
class MoveSettings:
    """Which moves carry evidence and how a loss is counted (DetectorRules holds the
    values)."""

    opening_plies: int
    only_move_gap: float
    decided: float
    loss_cap: float


@dataclass(frozen=True, slots=True)
class Move:
    """One move that carries evidence: its ply, the move and the engine's choice (UCI),
    whether it matched, its loss (expected score, capped), its cell's coordinates, and
    whether it is outside the engine's two best."""

    ply: int
    played: str
    best: str
    matched: bool
    loss: float
    spread: int
    decided: bool
    outside: bool = False
    """Neither the engine's first choice nor its second."""


def evidence_move(position: Position, settings: MoveSettings) -> Move | None:
    """The move's evidence, or None when it carries none (module docstring)."""
    if position.ply <= settings.opening_plies or position.legal <= 1 or not position.top:
        return None
    best_move, best_cp = position.top[0]
    best = expected(best_cp)
    gap = best - expected(position.top[1][1]) if len(position.top) > 1 else 1.0
    if gap >= settings.only_move_gap:
        return None
    played_cp = position.played_cp
    matched = position.played == best_move or played_cp == best_cp
    loss = 0.0 if matched else min(settings.loss_cap, max(0.0, best - expected(played_cp)))
    decided = abs(best - 0.5) >= settings.decided
    second = len(position.top) > 1 and position.played == position.top[1][0]
    return Move(position.ply, position.played, best_move, matched, loss, spread_of(gap), decided,
                outside=not matched and not second)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Cell:
    """What humans of one band do in one kind of position: the share that matched, the
    mean and variance of the loss, over ``n`` moves, and the share outside the engine's
    two best."""

    p: float
    mu: float
    var: float
    n: int
    q: float = 0.0


@dataclass(frozen=True, slots=True)
class Tally:
    """The sums a score is made of, over any set of moves: they add up across windows
    and games (a player's record is the sum of their games' tallies). ``outside`` and
    the three sums after it are the choice score's (a tally stored before it has
    none: its choice score is 0)."""

    moves: int = 0
    matches: int = 0
    expected_matches: float = 0.0
    match_var: float = 0.0
    loss: float = 0.0
    expected_loss: float = 0.0
    loss_var: float = 0.0
    outside: int = 0
    expected_outside: float = 0.0
    outside_var: float = 0.0
    cross: float = 0.0

    def __add__(self, other: Tally) -> Tally:
        return Tally(
            self.moves + other.moves, self.matches + other.matches,
            self.expected_matches + other.expected_matches, self.match_var + other.match_var,
            self.loss + other.loss, self.expected_loss + other.expected_loss,
            self.loss_var + other.loss_var, self.outside + other.outside,
            self.expected_outside + other.expected_outside,
            self.outside_var + other.outside_var, self.cross + other.cross,
        )  # fmt: skip

    def z_match(self) -> float:
        return (
            (self.matches - self.expected_matches) / math.sqrt(self.match_var)
            if self.match_var > 0
            else 0.0
        )

    def z_loss(self) -> float:
        return (
            (self.expected_loss - self.loss) / math.sqrt(self.loss_var)
            if self.loss_var > 0
            else 0.0
        )

    def score(self, rho: float) -> float:
        """The combined surprise (module docstring)."""
        if not self.moves:
            return 0.0
        return (self.z_match() + self.z_loss()) / math.sqrt(2.0 * (1.0 + rho))

    def choice_score(self) -> float:
        """The surprise of where the moves stand in the engine's list (module
        docstring, "The choices"); 0 for a tally without the choices' sums."""
        if self.outside_var <= 0:
            return 0.0
        first = self.matches - self.expected_matches
        rare = self.expected_outside - self.outside
        var = self.match_var + 4.0 * self.outside_var + 4.0 * self.cross
        return (first + 2.0 * rare) / math.sqrt(var)

    def to_json(self) -> dict[str, Any]:
        return {
            "moves": self.moves, "matches": self.matches,
            "expected_matches": round(self.expected_matches, 4),
            "match_var": round(self.match_var, 4), "loss": round(self.loss, 5),
            "expected_loss": round(self.expected_loss, 5), "loss_var": round(self.loss_var, 6),
            "outside": self.outside, "expected_outside": round(self.expected_outside, 4),
            "outside_var": round(self.outside_var, 4), "cross": round(self.cross, 4),
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tally:
        return cls(
            int(data["moves"]), int(data["matches"]), float(data["expected_matches"]),
            float(data["match_var"]), float(data["loss"]), float(data["expected_loss"]),
            float(data["loss_var"]), int(data.get("outside", 0)),
            float(data.get("expected_outside", 0.0)), float(data.get("outside_var", 0.0)),
            float(data.get("cross", 0.0)),
        )  # fmt: skip


@dataclass(frozen=True)
class HumanModel:
    """The fitted cells (band × spread × decided), the residuals' correlation, and a
    line saying what it was fitted on."""

    cells: dict[tuple[int, int, bool], Cell]
    rho: float
    fitted_on: str

    def cell(self, rating: int | None, spread: int, decided: bool) -> Cell:
        """The cell for a player of ``rating`` (None: the top band), blended between
        the two nearest bands' centres."""
        if rating is None:
            return self.cells[(len(BAND_EDGES), spread, decided)]
        low, high, t = blend(rating)
        a, b = self.cells[(low, spread, decided)], self.cells[(high, spread, decided)]
        return Cell(a.p + t * (b.p - a.p), a.mu + t * (b.mu - a.mu),
                    a.var + t * (b.var - a.var), min(a.n, b.n), a.q + t * (b.q - a.q))  # fmt: skip

    def tally(self, moves: Iterable[Move], rating: int | None) -> Tally:
        total = Tally()
        for move in moves:
            total = total + self.tally_move(move, rating)
        return total

    def tally_move(self, move: Move, rating: int | None) -> Tally:
        c = self.cell(rating, move.spread, move.decided)
        return Tally(1, int(move.matched), c.p, c.p * (1.0 - c.p), move.loss, c.mu, c.var,
                     int(move.outside), c.q, c.q * (1.0 - c.q), c.p * c.q)  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {
            "fitted_on": self.fitted_on, "rho": self.rho,
            "band_edges": list(BAND_EDGES), "spread_edges": list(SPREAD_EDGES),
            "cells": [[b, s, d, c.p, c.mu, c.var, c.n, c.q]
                      for (b, s, d), c in sorted(self.cells.items())],
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HumanModel:
        if list(data["band_edges"]) != list(BAND_EDGES) or list(data["spread_edges"]) != list(
            SPREAD_EDGES
        ):
            raise ValueError("the model was fitted on other bands or spreads")
        cells = {
            (int(b), int(s), bool(d)): Cell(float(p), float(mu), float(var), int(n), float(q))
            for b, s, d, p, mu, var, n, q in data["cells"]
        }
        return cls(cells, float(data["rho"]), str(data["fitted_on"]))


def fit(
    samples: Sequence[tuple[int, Sequence[Move]]], fitted_on: str, prior_moves: float = 30.0
) -> HumanModel:
    """Fit the cells on human player-games (each a rating and its evidence moves)."""
    counts: dict[tuple[int, int, bool], list[float]] = {}
    for rating, moves in samples:
        band = band_of(rating)
        for m in moves:
            acc = counts.setdefault((band, m.spread, m.decided), [0.0] * 5)
            acc[0] += 1
            acc[1] += m.matched
            acc[2] += m.loss
            acc[3] += m.loss * m.loss
            acc[4] += m.outside
    pooled: dict[tuple[int, bool], list[float]] = {}
    for (_, spread, decided), acc in counts.items():
        total = pooled.setdefault((spread, decided), [0.0] * 5)
        for i in range(5):
            total[i] += acc[i]
    cells = {}
    for band in range(len(BAND_EDGES) + 1):
        for spread in range(len(SPREAD_EDGES) + 1):
            for decided in (False, True):
                prior = pooled.get((spread, decided), [0.0] * 5)
                own = counts.get((band, spread, decided), [0.0] * 5)
                weight = prior_moves / prior[0] if prior[0] else 0.0
                n = own[0] + weight * prior[0]
                if n <= 0:
                    cells[(band, spread, decided)] = Cell(0.5, 0.05, 0.01, 0, 0.25)
                    continue
                p = (own[1] + weight * prior[1]) / n
                mu = (own[2] + weight * prior[2]) / n
                var = max(1e-6, (own[3] + weight * prior[3]) / n - mu * mu)
                q = (own[4] + weight * prior[4]) / n
                cells[(band, spread, decided)] = Cell(
                    min(0.995, max(0.005, p)),
                    mu,
                    var,
                    int(own[0]),
                    min(0.995, max(0.005, q)),
                )
    model = HumanModel(cells, 0.0, fitted_on)
    return HumanModel(cells, _rho(model, samples), fitted_on)


def _rho(model: HumanModel, samples: Sequence[tuple[int, Sequence[Move]]]) -> float:
    """The correlation of the two standardized residuals over the fitted moves."""
    xs: list[float] = []
    ys: list[float] = []
    for rating, moves in samples:
        for m in moves:
            c = model.cell(rating, m.spread, m.decided)
            xs.append((m.matched - c.p) / math.sqrt(c.p * (1 - c.p)))
            ys.append((c.mu - m.loss) / math.sqrt(c.var))
    if len(xs) < 2:
        return 0.0
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else 0.0


@cache
def default_model() -> HumanModel:
    """The model shipped with chessrate (``model.json``, fitted by
    ``bench/detector_eval.py --fit``)."""
    text = resources.files("chessrate.fairplay").joinpath("model.json").read_text("utf-8")
    return HumanModel.from_json(json.loads(text))
