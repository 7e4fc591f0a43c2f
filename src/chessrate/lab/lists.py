"""What a variant does to a final list against the base rules' list: Spearman's rank
correlation, the largest risers and fallers, the players whose state changed."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

import numpy as np
import numpy.typing as npt

from ..systems.base import ListEntry

MOVERS = 5
"""How many risers and fallers a comparison lists."""


@dataclass(frozen=True, slots=True)
class Mover:
    player: str
    base: Decimal
    variant: Decimal
    name: str = ""
    """The player's name where the list has one beside the id (fide's lists)."""

    @property
    def shown(self) -> str:
        """The player as people read him: ``name (id)``, or the id."""
        return (
            f"{self.name} ({self.player})"
            if self.name and self.name != self.player
            else self.player
        )

    @property
    def change(self) -> Decimal:
        return self.variant - self.base


@dataclass(frozen=True, slots=True)
class Comparison:
    """A variant's final list against the base rules' (players rated in both)."""

    players: int
    spearman: float | None
    risers: tuple[Mover, ...]
    fallers: tuple[Mover, ...]
    state_changed: int


def ranks(values: Sequence[Decimal] | npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """Ranks from 1, ties given their average rank (of exact ratings: Decimals, or
    hundredths in an array)."""
    _, inverse, counts = np.unique(np.asarray(values), return_inverse=True, return_counts=True)
    first = np.cumsum(counts) - counts
    average: npt.NDArray[np.float64] = (2 * first + counts - 1) / 2 + 1
    ranked: npt.NDArray[np.float64] = average[inverse.reshape(-1)]
    return ranked


def spearman(
    xs: Sequence[Decimal] | npt.NDArray[np.int64], ys: Sequence[Decimal] | npt.NDArray[np.int64]
) -> float | None:
    """Spearman's rank correlation (the Pearson correlation of the ranks, ties
    averaged; numpy's sums); None for fewer than two players or a list with no spread."""
    if len(xs) < 2:
        return None
    rx, ry = ranks(xs), ranks(ys)
    dx, dy = rx - rx.mean(), ry - ry.mean()
    vx, vy = float((dx * dx).sum()), float((dy * dy).sum())
    if vx == 0 or vy == 0:
        return None
    return float((dx * dy).sum()) / math.sqrt(vx * vy)


def compare(
    base: Sequence[ListEntry],
    variant: Sequence[ListEntry],
    names: Mapping[str, str] | None = None,
) -> Comparison:
    """What the variant did to one pool's list (``names``: the players' names by id,
    for lists that have them)."""
    base_by = {e.player: e for e in base}
    variant_by = {e.player: e for e in variant}
    both = sorted(set(base_by) & set(variant_by))
    changed = sum(1 for p in both if base_by[p].state != variant_by[p].state)
    movers = []
    for p in both:
        b, v = base_by[p].rating, variant_by[p].rating
        if b is not None and v is not None:
            movers.append(Mover(p, b, v, (names or {}).get(p, "")))
    rho = spearman([m.base for m in movers], [m.variant for m in movers])
    risers = sorted((m for m in movers if m.change > 0), key=lambda m: (-m.change, m.player))
    fallers = sorted((m for m in movers if m.change < 0), key=lambda m: (m.change, m.player))
    return Comparison(len(movers), rho, tuple(risers[:MOVERS]), tuple(fallers[:MOVERS]), changed)
