"""``fide``: FIDE rating regulations B.02 section 8, rated per rating period.

Two rulesets, chosen by name (:data:`RULESETS`, :meth:`FideRules.named`):

- ``seed`` (the default): the seed's edition (seed 003), as rules F1-F8 with every
  ambiguity settled. An unrated player is rated per tournament and per period; nothing
  is carried to the next period but the list itself and the fact that he has met rated
  opponents (8.21 applies to his first such tournament only).
- ``fide-2024``: the FIDE Rating Regulations in force since 1 March 2024 with the
  amendment of 1 October 2025 (handbook B.02, https://handbook.fide.com/chapter/B022024),
  restated with citations and every Decision in ``docs/fide-2024.md``. An unrated
  player's results against rated opponents are pooled over periods (7.1.4) and travel
  with the list as :class:`PendingGame` rows.

Each function cites its rule (``F4``) or the regulation's article (``8.3.3``). Pure: the
period's events, the starting list and the list date in; the new list, every player's
calculation and the next period's starting list (:meth:`FideSystem.next_list`) out.
Reading TRF files and writing lists is ``io/``'s job, not this package's.

The parts: :mod:`.rules` (the rulesets), :mod:`.model` (the inputs and the report),
:mod:`.calculation` (K and who counts as rated, shared by the rest),
:mod:`.first_ratings` (F4, F5, F6, F8), :mod:`.rated` (F2, F7), :mod:`.edition_2024`
(pooled first ratings, the adjustment of 1 March 2024) and :mod:`.system`
(:class:`FideSystem`, which rates the period).
"""

from .edition_2024 import adjust_2024, adjusted_rating, months_between
from .model import (
    Event,
    EventEntry,
    EventGame,
    FirstRatingCalc,
    GameLine,
    ListedPlayer,
    PendingGame,
    PeriodResult,
    PlayerReport,
    PooledRating,
    format_pending,
    parse_pending,
)
from .rules import (
    AMENDMENTS,
    LIST_POOLS,
    POOL,
    POOL_LABELS,
    RULESETS,
    Amendment,
    FideRules,
    ListKind,
    Ruleset,
)
from .system import FideSystem

__all__ = [
    "AMENDMENTS",
    "LIST_POOLS",
    "POOL",
    "POOL_LABELS",
    "RULESETS",
    "Amendment",
    "Event",
    "EventEntry",
    "EventGame",
    "FideRules",
    "FideSystem",
    "FirstRatingCalc",
    "GameLine",
    "ListKind",
    "ListedPlayer",
    "PendingGame",
    "PeriodResult",
    "PlayerReport",
    "PooledRating",
    "Ruleset",
    "adjust_2024",
    "adjusted_rating",
    "format_pending",
    "months_between",
    "parse_pending",
]
