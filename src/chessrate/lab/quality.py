"""The predictive quality of expected scores against results: the mean deviance of the
Kaggle "Chess Ratings 2" contest, the Brier score, ten calibration bins, and the
deviance by the games the newer player had played (floats, with numpy)."""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

CLAMP_LOW = 0.01
CLAMP_HIGH = 0.99
"""The Kaggle "Chess Ratings 2" deviance clamps the expected score to [0.01, 0.99]."""

BINS = 10
"""Calibration bins of the expected score: [0, 0.1), ..., [0.9, 1]."""

EXPERIENCE = (0, 1, 5, 10, 20, 50, 100)
"""The lower ends of the games-played buckets of :attr:`Quality.by_games`: [0, 1),
[1, 5), ..., [100, inf). A game's experience is the number of rated games in the pool
that the less experienced of its two players had before it: how far each variant has
learnt the newer player."""


@dataclass(frozen=True, slots=True)
class Bin:
    """One calibration bin: the games whose expectation fell in [low, high)."""

    low: float
    high: float
    count: int
    mean_expected: float | None
    mean_observed: float | None


@dataclass(frozen=True, slots=True)
class Learning:
    """The games whose experience (see :data:`EXPERIENCE`) was in [low, high); ``high``
    None for the last bucket."""

    low: int
    high: int | None
    count: int
    deviance: float | None


@dataclass(frozen=True, slots=True)
class Quality:
    """How well the expected scores of ``games`` predicted their results."""

    games: int
    deviance: float | None
    brier: float | None
    bins: tuple[Bin, ...]
    expectation: str = ""
    """Where the expected scores came from: ``system`` (the system's ``pd``), ``elo``
    (the logistic Elo expectation from the pre-game ratings), ``system+elo``, or the
    predictor's own."""
    by_games: tuple[Learning, ...] = ()
    """The mean deviance by the experience of the game's newer player (one bucket per
    :data:`EXPERIENCE` entry; empty when the games' experience is not known)."""


def deviance(expected: float, score: float) -> float:
    """Kaggle "Chess Ratings 2": -(y log10(E) + (1 - y) log10(1 - E)), E clamped to
    [0.01, 0.99]."""
    e = min(max(expected, CLAMP_LOW), CLAMP_HIGH)
    return -(score * math.log10(e) + (1.0 - score) * math.log10(1.0 - e))


def experience_bucket(games: int) -> int:
    """The index in :data:`EXPERIENCE` of the bucket of ``games`` games played."""
    return bisect.bisect_right(EXPERIENCE, games) - 1


def learning_label(bucket: Learning) -> str:
    """A games-played bucket in words: ``0``, ``1-4``, ..., ``100+``."""
    if bucket.high is None:
        return f"{bucket.low}+"
    if bucket.high == bucket.low + 1:
        return str(bucket.low)
    return f"{bucket.low}-{bucket.high - 1}"


def quality(
    pairs: Iterable[tuple[float, float]],
    expectation: str = "",
    experience: Iterable[int] | None = None,
) -> Quality:
    """Mean deviance, Brier score and calibration of (expected, score) pairs; with
    ``experience`` (each pair's games played by the newer player, in the same order),
    also the deviance by games played (:func:`quality_of`)."""
    items = list(pairs)
    expected = np.array([e for e, _ in items], np.float64)
    score = np.array([y for _, y in items], np.float64)
    games = None
    if experience is not None:
        games = np.fromiter(experience, np.int64)
        if games.shape[0] != len(items):
            raise ValueError("one experience per pair")
    return quality_of(expected, score, expectation, games)


def quality_of(
    expected: npt.NDArray[np.float64],
    score: npt.NDArray[np.float64],
    expectation: str = "",
    experience: npt.NDArray[np.int64] | None = None,
) -> Quality:
    """:func:`quality` of arrays: White's expected score and score of each game, and
    the newer player's games before it (numpy; the sums in numpy's order)."""
    n = int(expected.shape[0])
    index = np.minimum((expected * BINS).astype(np.int64), BINS - 1)
    counts = np.bincount(index, minlength=BINS)
    total_e = np.bincount(index, expected, minlength=BINS)
    total_y = np.bincount(index, score, minlength=BINS)
    bins = tuple(
        Bin(
            b / BINS,
            (b + 1) / BINS,
            int(counts[b]),
            float(total_e[b] / counts[b]) if counts[b] else None,
            float(total_y[b] / counts[b]) if counts[b] else None,
        )
        for b in range(BINS)
    )
    clamped = np.clip(expected, CLAMP_LOW, CLAMP_HIGH)
    losses = -(score * np.log10(clamped) + (1.0 - score) * np.log10(1.0 - clamped))
    by_games: tuple[Learning, ...] = ()
    if experience is not None:
        bucket = np.searchsorted(np.array(EXPERIENCE), experience, side="right") - 1
        learnt = np.bincount(bucket, minlength=len(EXPERIENCE))
        total = np.bincount(bucket, losses, minlength=len(EXPERIENCE))
        by_games = tuple(
            Learning(
                low,
                EXPERIENCE[i + 1] if i + 1 < len(EXPERIENCE) else None,
                int(learnt[i]),
                float(total[i] / learnt[i]) if learnt[i] else None,
            )
            for i, low in enumerate(EXPERIENCE)
        )
    if n == 0:
        return Quality(0, None, None, bins, expectation, by_games)
    return Quality(
        n,
        float(losses.sum() / n),
        float(((expected - score) ** 2).sum() / n),
        bins,
        expectation,
        by_games,
    )
