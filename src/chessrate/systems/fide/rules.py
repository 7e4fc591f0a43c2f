"""The rulesets' parameters (:class:`FideRules`), :data:`RULESETS`, the three lists
(:class:`ListKind`) and the amendments in force by date (:data:`AMENDMENTS`,
:meth:`FideRules.for_period`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import Decimal
from enum import StrEnum

from ..base import Rules

POOL = "fide"


class ListKind(StrEnum):
    """FIDE's three lists. A period is rated for one of them; the rate of play of its
    tournaments must belong to it (1.1; rapid and blitz regulations 1.1.1, 1.1.2)."""

    STANDARD = "standard"
    RAPID = "rapid"
    BLITZ = "blitz"


LIST_POOLS: Mapping[str, str] = {
    ListKind.STANDARD.value: POOL,
    ListKind.RAPID.value: f"{POOL}-{ListKind.RAPID.value}",
    ListKind.BLITZ.value: f"{POOL}-{ListKind.BLITZ.value}",
}
"""The pool each list publishes into: the standard list is ``fide``, the rapid and
blitz lists ``fide-rapid`` and ``fide-blitz`` beside it (each its own leaderboard)."""
POOL_LABELS: Mapping[str, str] = {pool: kind for kind, pool in LIST_POOLS.items()}
"""A list's pool by the list's name (``fide-rapid``: rapid)."""


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
    # -- the list and the rate of play (1.1; rapid and blitz 1.1.1, 1.1.2) ---------------
    list_kind: str = ListKind.STANDARD.value
    standard_minutes: int = 60  # 1.1: at least 60 minutes for 60 moves...
    standard_minutes_1800: int = 90  # ...90 when a player of the game is rated 1800...
    standard_minutes_2400: int = 120  # ...120 when one is rated 2400 or more
    rapid_more_than: int = 10  # rapid 1.1.1: more than 10 minutes...
    rapid_less_than: int = 60  # ...but less than 60
    blitz_more_than: int = 3  # blitz 1.1.2: more than 3 minutes...
    blitz_at_most: int = 10  # ...but not more than 10
    rate_of_play_bands: bool = False  # 2024 1.1: a game below its band is not rated
    # -- rapid and blitz ----------------------------------------------------------------
    standard_for_unrated: bool = False  # R&B 7.2.1: an unrated player's standard rating
    excluded_difference: int | None = None  # R&B 7.3.1 (1 Dec 2024): 600 or more...
    excluded_above: int = 2600  # ...with a player rated above 2600: not rated
    # -- matches (6.1, 6.2) and inactivity (7.2.2) -------------------------------------
    match_rules: bool = False  # 6.1 unrated player: not rated; 6.2 decided: not rated
    inactive_months: int | None = None  # 7.2.2: no rated game in a year: inactive
    # -- rules by date: the amendments this object was made with (for_period) ----------
    amendments: tuple[str, ...] = ()  # the keys of AMENDMENTS applied
    dated: bool = False  # made by for_period for a period's date

    @classmethod
    def for_period(
        cls, name: str, list_kind: str = ListKind.STANDARD.value, period: date | None = None
    ) -> FideRules:
        """The ruleset called ``name`` for ``list_kind``, as in force for the period whose
        list is dated ``period``.

        ``seed`` is the seed's edition: the standard list only, no dates. ``fide-2024``
        is the regulation of 1 March 2024 with each amendment of :data:`AMENDMENTS`
        whose date the period's games reach: a period's games are those before its list
        date, so an amendment effective from D applies to lists dated after D (the
        list of 1 November 2025 is the first with the 2650 rule of 1 October 2025).
        Without a date: every amendment to date (the rules as they stand). ValueError
        names what is wrong (an unknown ruleset or list, a period before 1 March 2024,
        the seed asked for rapid or blitz)."""
        base = cls.named(name)
        try:
            kind = ListKind(list_kind)
        except ValueError:
            known = ", ".join(k.value for k in ListKind)
            raise ValueError(f"unknown list {list_kind!r} (known: {known})") from None
        if name == Ruleset.SEED.value:
            if kind is not ListKind.STANDARD:
                raise ValueError(
                    "the seed's edition has no rapid or blitz rules: rate the "
                    f"{kind.value} list with the fide-2024 rules"
                )
            return base
        if period is not None and period < IN_FORCE_2024:
            raise ValueError(
                f"a list dated {period.isoformat()} is before {IN_FORCE_2024:%-d %B %Y}, the "
                "first list of the 2024 regulations: rate it with the rules of its time (the "
                "seed's edition, --rules seed)"
            )
        rules = base if kind is ListKind.STANDARD else faster(base)
        rules = replace(rules, list_kind=kind.value, dated=period is not None)
        applied = []
        for key, amendment in AMENDMENTS.items():
            in_force = kind.value in amendment.kinds and amendment.applies(period)
            values = {field: after if in_force else before
                      for field, before, after in amendment.changes}  # fmt: skip
            rules = replace(rules, **values)  # type: ignore[arg-type]
            if in_force:
                applied.append(key)
        return replace(rules, amendments=tuple(applied))

    def amendments_for(self, period: date | None) -> list[tuple[Amendment, bool]]:
        """Each amendment of :data:`AMENDMENTS` for this list, and whether it applied to
        the period (for the period's report)."""
        return [
            (amendment, key in self.amendments)
            for key, amendment in AMENDMENTS.items()
            if self.list_kind in amendment.kinds
        ]

    @classmethod
    def named(cls, name: str) -> FideRules:
        """The ruleset called ``name`` (``seed`` or ``fide-2024``); ValueError names
        the known ones."""
        try:
            return RULESETS[name]
        except KeyError:
            known = ", ".join(RULESETS)
            raise ValueError(f"unknown FIDE ruleset {name!r} (known: {known})") from None


@dataclass(frozen=True, slots=True)
class Amendment:
    """An amendment of the 2024 regulations: the article, its effective date, the lists
    it is part of, what it says, and the :class:`FideRules` fields it sets."""

    article: str
    since: date
    kinds: tuple[str, ...]
    says: str
    changes: tuple[tuple[str, object, object], ...]
    """(field, its value before the amendment, its value from the amendment on)."""

    def applies(self, period: date | None) -> bool:
        """Whether it applies to the period whose list is dated ``period``: the
        period's games (before the list date) reach the effective date. No date: the
        rules as they stand today, every amendment applies."""
        return period is None or period - timedelta(days=1) >= self.since


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
        rate_of_play_bands=True,
        match_rules=True,
        inactive_months=12,
    ),
}
"""The rulesets by name; ``seed`` is the default (``FideRules()``). ``fide-2024`` is
the standard list's regulation as it stands today (every amendment to date applied);
:meth:`FideRules.for_period` gives it for a list and a period's date."""

IN_FORCE_2024 = date(2024, 3, 1)
"""The 2024 regulations apply from 1 March 2024 (the list of that date is the first)."""


def faster(rules: FideRules) -> FideRules:
    """What the rapid and blitz regulations of 1 March 2024 change in the standard ones:
    an unrated player's standard rating counts (R&B 7.2.1), and the rate of play is the
    list's (R&B 1.1), not the standard bands. K, the tables, the first-rating rules,
    the 400-point cap (without the 2650 exemption) and the rounding are the same text."""
    return replace(rules, standard_for_unrated=True, rate_of_play_bands=False)


AMENDMENTS: Mapping[str, Amendment] = {
    "8.3.1-2650": Amendment(
        "8.3.1",
        date(2025, 10, 1),
        (ListKind.STANDARD.value,),
        "a difference of more than 400 points counts as 400 only for players rated below "
        "2650; for players rated 2650 and above the real difference is used",
        (("uncapped_from", None, 2650),),
    ),
    "7.3.1-600": Amendment(
        "7.3.1 (rapid and blitz)",
        date(2024, 12, 1),
        (ListKind.RAPID.value, ListKind.BLITZ.value),
        "games between players whose ratings differ by 600 points or more are not rated "
        "if at least one of them is rated above 2600 on the relevant list",
        (("excluded_difference", None, 600),),
    ),
}
"""The amendments of the 2024 regulations with their effective dates, by key."""
