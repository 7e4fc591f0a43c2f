"""What the ledger's reads and writes answer: plain frozen records, no database rows.
The service, the pages and the command line build their answers from these."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum

from ..records import GameRecord, Player
from ..systems.base import Change


class HistoryKind(StrEnum):
    """What put a change in a player's history: a game, or a game's annulment."""

    GAME = "game"
    ANNULMENT = "annulment"


class Colour(StrEnum):
    """The side a player had in a game."""

    WHITE = "white"
    BLACK = "black"


@dataclass(frozen=True, slots=True)
class RatingView:
    player: str
    pool: str
    rating: Decimal | None
    display: str
    state: str
    games: int
    listed: bool
    name: str | None = None
    """The player's name, when the player has one."""
    last_played: date | None = None
    """The day (UTC) of the rating's last rated game, when a leaderboard with an
    activity condition read it (None otherwise)."""


@dataclass(frozen=True, slots=True)
class PlayerView:
    player: Player
    ratings: tuple[RatingView, ...]


@dataclass(frozen=True, slots=True)
class GameView:
    id: str
    seq: int
    record: GameRecord
    outcome: str
    reason: str
    annulled: bool
    changes: tuple[Change, ...]
    submitted_at: datetime
    annulment: AnnulmentNote | None = None
    """Who annulled the game, when and why (site S10), when it is annulled."""


@dataclass(frozen=True, slots=True)
class AnnulmentNote:
    at: datetime
    by: str | None
    reason: str


@dataclass(frozen=True, slots=True)
class HistoryItem:
    seq: int
    kind: str  # a HistoryKind value: "game" or "annulment"
    played_at: datetime
    change: Change


@dataclass(frozen=True, slots=True)
class AnnulmentView:
    game_id: str
    seq: int
    at: datetime
    by: str | None
    reason: str
    changes: tuple[Change, ...]


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One game of a player's games list, seen from the player's side."""

    seq: int
    record: GameRecord
    colour: str  # a Colour value: "white" or "black"
    opponent: str
    opponent_name: str | None
    opponent_rating: Decimal | None
    """The opponent's rating at the game: the player's change's ``opponent_rating``
    (its first pool), else the opponent's rating before the game (a bot's games)."""
    outcome: str  # rated | unrated | void (as decided; an annulled game stays "rated")
    annulled: bool
    annulment: str | None
    """Why the game was annulled, when it was."""
    changes: tuple[Change, ...]
    """The player's changes at the game (every pool), in the game's slot order."""
    reason: str = ""
    """The system's decision in words (``system.reason``), as the game's page says it."""

    @property
    def score(self) -> Decimal | None:
        """The player's score (1, 0.5, 0), None without a result."""
        return self.record.result.score(self.colour == "white")


@dataclass(frozen=True, slots=True)
class PoolSummary:
    """A player's record in one pool (annulled games left out)."""

    pool: str
    first_rating: Decimal | None
    """The rating before the first change in the pool (where the chart starts)."""
    peak: Decimal | None
    peak_at: datetime | None
    peak_game: str | None
    wins: int
    draws: int
    losses: int
    rank: int | None
    """The place on the pool's list (1 = first), None when not listed."""


@dataclass(frozen=True, slots=True)
class SeriesPoint:
    """One change on a rating chart, as integers: ``at`` in microseconds since 1970
    UTC (the game's moment, an annulment's too: it is drawn at the game it annuls;
    never before the game point before it), ``after`` and ``change`` in hundredths."""

    seq: int
    at: int
    after: int
    change: int | None
    game: str
    kind: str  # a HistoryKind value: "game" or "annulment"
    opponent: str | None = None
    """The opponent's name (else id), when known."""
    confirmed: int | None = None
    """An annulment's own moment (when it was confirmed), in microseconds."""
    game_after: int | None = None
    """An annulment's game: the player's rating after it in the pool (hundredths),
    where the chart's marker sits."""


@dataclass(frozen=True, slots=True)
class ChartSeries:
    """The changes of a player's rating in a pool since a moment, bucketed to at most
    :data:`~chessrate.ledger.people.MAX_POINTS` (each bucket's min and max kept, every
    annulment kept), with the rating the range starts from."""

    pool: str
    start: tuple[int, int] | None
    """(moment, rating in hundredths) where the line starts: before the first change
    in the range (the first change's ``before`` for the whole history)."""
    points: tuple[SeriesPoint, ...]
    changes: int
    """The changes in the range before bucketing."""
    last: int | None
    """The moment of the pool's last change (ranges count back from it)."""
