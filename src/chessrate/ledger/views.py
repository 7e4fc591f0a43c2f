"""What the ledger's reads and writes answer: plain frozen records, no database rows.
The service, the pages and the command line build their answers from these."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from ..records import GameRecord, Player
from ..systems.base import Change


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
    kind: str  # "game" or "annulment"
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
