"""The two rulesets' parameters (:class:`FideRules`) and :data:`RULESETS`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from ..base import Rules

POOL = "fide"


@dataclass(frozen=True, slots=True)
class FideRules(Rules):
    """The ruleset's parameters and behaviour switches; the defaults are the seed's
    (F1-F8). ``RULESETS["fide-2024"]`` holds today's (docs/fide-2024.md)."""

    bonus_per_half_point: Decimal = Decimal("12.5")  # F4 Decision (the examples use 15)
    k: int = 30  # F3; 2024 8.3.3: 20
    k_top: int = 20  # F3: published rating reached 2400 and top_games; 2024: 10
    top_rating: int = 2400
    top_games: int = 30  # F3: games needed for k_top as well; 2024: none (0)
    floor: int = 1000  # F6; 2024 7.1.4, 7.2.1: 1400
    max_difference: int = 400  # F2, 8.54; 2024 8.3.1
    name: str = "seed"
    unlisted_games: int = 30  # F3: a player missing from the list counts 30
    # -- K (2024 8.3.3); None: the seed has no such rule --------------------------------
    k_new: int | None = None  # 40 until new_player_games
    new_player_games: int = 30
    k_junior: int | None = None  # 40 until the end of the year of the 18th birthday...
    junior_age: int = 18
    junior_below: int = 2300  # ...while the rating is below 2300
    k_games_cap: int | None = None  # K x n <= 700
    # -- games and rounding ---------------------------------------------------------------
    uncapped_from: int | None = None  # 2024 8.3.1 (1 Oct 2025): no 400 cap from 2650
    rate_games_vs_unrated: bool = True  # F7; 2024 8.3.1: only games vs rated players
    round_change: bool = False  # 8.57 rounds the new rating; 2024 8.3.4 the change
    unrate_below_floor: bool = False  # 2024 7.2.1: below the floor -> unrated
    # -- first ratings ------------------------------------------------------------------
    first_event_min_points: Decimal = Decimal(1)  # F4 8.21 (< 1); 2024 8.2.1 (zero)
    first_rating_pooled: bool = False  # 2024 7.1.4, 8.2: pooled over events and periods
    first_rating_min_games: int = 1  # 2024 7.1.4: 5 games against rated opponents
    pool_months: int | None = None  # 2024 7.1.4: results within 26 months are pooled
    hypothetical_opponents: int = 0  # 2024 8.2.2: two, each a draw...
    hypothetical_rating: int = 1800  # ...rated 1800
    first_rating_max: int | None = None  # 2024 8.2.3: 2200
    # -- the one-time adjustment of 1 March 2024 (adjust_2024) --------------------------
    adjustment_factor: Decimal = Decimal("0.4")
    adjustment_from: int = 1000
    adjustment_below: int = 2000

    @classmethod
    def named(cls, name: str) -> FideRules:
        """The ruleset called ``name`` (``seed`` or ``fide-2024``); ValueError names
        the known ones."""
        try:
            return RULESETS[name]
        except KeyError:
            known = ", ".join(RULESETS)
            raise ValueError(f"unknown FIDE ruleset {name!r} (known: {known})") from None


class Ruleset(StrEnum):
    """A FIDE ruleset by name (the keys of :data:`RULESETS`): seed, the seed's rules;
    fide-2024, the FIDE Rating Regulations in force since 1 March 2024."""

    SEED = "seed"
    FIDE_2024 = "fide-2024"


RULESETS: Mapping[str, FideRules] = {
    Ruleset.SEED.value: FideRules(),
    Ruleset.FIDE_2024.value: FideRules(
        name="fide-2024",
        k=20,
        k_top=10,
        top_games=0,
        floor=1400,
        k_new=40,
        k_junior=40,
        k_games_cap=700,
        uncapped_from=2650,
        rate_games_vs_unrated=False,
        round_change=True,
        unrate_below_floor=True,
        first_event_min_points=Decimal("0.5"),
        first_rating_pooled=True,
        first_rating_min_games=5,
        pool_months=26,
        hypothetical_opponents=2,
        first_rating_max=2200,
    ),
}
"""The rulesets by name; ``seed`` is the default (``FideRules()``)."""
