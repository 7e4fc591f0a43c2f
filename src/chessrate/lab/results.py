"""What an evaluation gives: each variant's quality and list comparison per pool, the
reference predictors' quality, and the :data:`Progress` callback's form."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from ..systems import system_info
from .lists import Comparison
from .quality import Quality
from .variants import Variant


@dataclass(frozen=True, slots=True)
class PoolResult:
    pool: str
    quality: Quality
    comparison: Comparison | None  # None for the base rules


@dataclass(frozen=True, slots=True)
class VariantResult:
    variant: Variant
    pools: tuple[PoolResult, ...]

    @property
    def deviance(self) -> float:
        """The mean deviance over every pool's scored games (the sort key; no games:
        infinity, last)."""
        total = sum(p.quality.games for p in self.pools)
        if total == 0:
            return math.inf
        return sum((p.quality.deviance or 0.0) * p.quality.games for p in self.pools) / total


@dataclass(frozen=True, slots=True)
class PredictorResult:
    label: str
    description: str
    pools: tuple[PoolResult, ...]


@dataclass(frozen=True, slots=True)
class Evaluation:
    system: str
    source: str
    games: int
    variants: tuple[VariantResult, ...]
    """Best first (lowest mean deviance), the base rules among them."""
    predictors: tuple[PredictorResult, ...] = field(default=())


Progress = Callable[[str, int, int], None]
"""Told how far :func:`evaluate` went (``chessrate.rating.Progress``'s form): stage
``variants`` (variants replayed of all) and, with one job, ``games`` (games replayed,
over every variant); the amount just done, the stage's whole amount."""


def counted_side(system_id: str) -> str:
    """The side a game's prediction is counted for: White, or, in a system that rates
    periods (its calculation keeps no colour), the first player by id."""
    return "the first player by id" if system_info(system_id).rates_periods else "White"
