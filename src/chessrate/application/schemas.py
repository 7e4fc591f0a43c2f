"""The API's shapes (pydantic): ``…Create``/``…Update`` for what clients send,
``…Public`` for what the API answers.

Exact numbers travel as strings with their digits (``"1516.00"``), never as floats.
Game and player bodies are documented by :class:`GameCreate`, :class:`PlayerCreate`
and :class:`PlayerUpdate` but validated by ``GameRecord.from_mapping`` and
``Player.from_mapping``, so the API refuses a record with the same words as the
command line.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ResultText = Literal["1-0", "0-1", "1/2-1/2", "*"]
TerminationText = Literal[
    "normal", "resign", "timeout", "abandon", "disconnect", "forfeit", "bot_no_move", "expired"
]
VenueText = Literal["online", "otb"]

_IMPORTED_PROPERTIES: dict[str, Any] = {
    "patternProperties": {
        "^rating_[a-z]+$": {
            "anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}],
            "description": "an imported rating in that pool (two decimals)",
        },
        "^games_[a-z]+$": {
            "anyOf": [{"type": "integer"}, {"type": "null"}],
            "description": "the number of games behind the imported rating",
        },
    }
}


# -- requests ---------------------------------------------------------------------------


class GameCreate(BaseModel):
    """A game record (spec README "The game record")."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "id": "g1",
                    "played_at": "2026-03-01T18:30:00Z",
                    "white": "alice",
                    "black": "bob",
                    "result": "1-0",
                    "time_control": "5m+3s",
                    "plies": 61,
                }
            ]
        },
    )

    id: str = Field(description="unique in the ledger; resubmitting it is idempotent")
    played_at: datetime = Field(description="when the game ended (ISO 8601)")
    white: str
    black: str
    result: ResultText
    rated: bool = True
    time_control: str | None = Field(
        default=None, description="`300+3`, `5m+3s`, `15m`, `-` (no clock), `3d` (days per move)"
    )
    termination: TerminationText = "normal"
    plies: int | None = Field(default=None, ge=0)
    venue: VenueText = "online"
    confirmed: bool | None = Field(default=None, description="otb only")


class PreviewRequest(BaseModel):
    """A game to preview: a game record without its result (every result is shown)."""

    model_config = ConfigDict(extra="forbid")

    white: str
    black: str
    time_control: str | None = None
    played_at: datetime | None = Field(default=None, description="default: now")
    rated: bool = True
    termination: TerminationText = "normal"
    plies: int | None = Field(default=None, ge=0)
    venue: VenueText = "online"
    confirmed: bool | None = None
    id: str | None = Field(default=None, description="default: `preview`")


class PlayerCreate(BaseModel):
    """A player's attributes (spec README, players table); ``rating_<pool>`` and
    ``games_<pool>`` import a rating."""

    model_config = ConfigDict(extra="allow", json_schema_extra=_IMPORTED_PROPERTIES)

    id: str
    name: str | None = None
    membership_until: date | None = Field(default=None, description="arena: inclusive")
    bot: bool = False
    bot_rating: str | None = Field(default=None, description="site: a bot's fixed rating")


class PlayerUpdate(BaseModel):
    """The attributes to change; ``null`` removes one (e.g. an imported rating)."""

    model_config = ConfigDict(extra="allow", json_schema_extra=_IMPORTED_PROPERTIES)

    name: str | None = None
    membership_until: date | None = None
    bot: bool | None = None
    bot_rating: str | None = None


class AnnulmentCreate(BaseModel):
    reason: str = Field(min_length=1, max_length=2000, description="why (fair play, …)")


class LiveGameCreate(BaseModel):
    """Open a live game (site S7-S9), or register an over-the-board result (``venue:
    otb`` with ``result`` and ``by``) for the other player to confirm."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"id": "L1", "white": "alice", "black": "bob", "time_control": "3+2"},
                {"id": "O1", "white": "alice", "black": "bob", "venue": "otb",
                 "result": "1-0", "by": "alice", "played_at": "2026-03-01T18:30:00Z"},
            ]
        },
    )  # fmt: skip

    id: str = Field(description="the game's id: the ledger's game id once it ends")
    white: str
    black: str
    rated: bool = True
    time_control: str | None = Field(
        default=None,
        description="required online: `180+2`, `3m+2s`, `-` (no clock), `3d` (days per move)",
    )
    venue: VenueText = "online"
    bot: Literal["white", "black"] | None = Field(
        default=None, description="the bot's side; must agree with the players' `bot`"
    )
    result: ResultText | None = Field(default=None, description="otb: the registered result")
    by: str | None = Field(default=None, description="otb: the player registering it")
    played_at: datetime | None = Field(default=None, description="otb: default now")


class LiveMoveCreate(BaseModel):
    """One ply: its number (1 = White's first move); the service stamps its time."""

    model_config = ConfigDict(extra="forbid")

    ply: int = Field(ge=1)
    move: str | None = Field(default=None, max_length=16, description="SAN or UCI, optional")
    by: str | None = Field(default=None, description="the player moving (checked if given)")


class LiveFinish(BaseModel):
    """How the game ended, as the site saw it (``expired`` and ``bot_no_move`` are the
    service's own, when their deadline passes)."""

    model_config = ConfigDict(extra="forbid")

    result: ResultText
    termination: TerminationText = "normal"
    by: str | None = Field(default=None, description="the player who ended it, if one did")


class LiveBy(BaseModel):
    """Who acts: a player of the game."""

    model_config = ConfigDict(extra="forbid")

    by: str


class LiveDispute(LiveBy):
    reason: str = Field(default="", max_length=2000)


class PeriodCreate(BaseModel):
    """A fide rating period: its name, rules and starting rating list (CSV text with
    the columns ``id,name,rating,games,reached_2400``)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    bonus: Decimal = Field(
        default=Decimal("12.5"),
        ge=0,
        max_digits=6,
        decimal_places=2,
        description="first-rating bonus per half point over 50% (fide F4)",
    )
    floor: int = Field(default=1000, ge=0, description="the rating floor (fide F6)")
    start_list: str = Field(description="the starting list, CSV text")


# -- answers ----------------------------------------------------------------------------


class RatingPublic(BaseModel):
    """One player's rating in one pool (spec README "the rating list")."""

    player: str
    name: str | None = Field(default=None, description="the player's name, when known")
    pool: str
    rating: str | None = Field(description="exact, two decimals; null while unrated")
    display: str = Field(description="the displayed form (`1512`, `1512?`)")
    state: str
    games: int
    listed: bool = Field(description="whether the player is on the pool's list")


class ImportedRatingPublic(BaseModel):
    rating: str
    games: int


class PlayerSummaryPublic(BaseModel):
    id: str
    name: str | None
    membership_until: date | None
    bot: bool
    bot_rating: str | None
    imported: dict[str, ImportedRatingPublic]


class PlayerPublic(PlayerSummaryPublic):
    ratings: list[RatingPublic] = Field(description="every pool the player has a rating in")


class PlayersPublic(BaseModel):
    players: list[PlayerSummaryPublic]
    count: int


class ChangePublic(BaseModel):
    """One player's change in one pool, with the numbers that explain it (exact
    numbers as strings)."""

    game: str
    player: str
    pool: str
    rule: str = Field(description="the spec rule applied (`site S3`)")
    opponent: str
    score: str
    before: str | None
    after: str | None
    state_before: str
    state_after: str
    games_before: int
    games_after: int
    opponent_rating: str | None
    k: int | None
    d: str | None
    pd: str | None = Field(description="the expected score")
    delta: str | None = Field(description="score − expected")
    change: str | None
    note: str = Field(description="the calculation in words")


class GamePublic(BaseModel):
    """A stored game: its record, the system's decision and every change."""

    id: str
    seq: int = Field(description="commit order in the ledger")
    played_at: str
    white: str
    black: str
    result: str
    rated: bool
    time_control: str | None
    termination: str
    plies: int | None
    venue: str
    confirmed: bool | None
    outcome: Literal["rated", "unrated", "void"]
    reason: str
    annulled: bool
    submitted_at: datetime
    changes: list[ChangePublic]
    explanation: list[str] = Field(description="the decision and each change, in words")


class BatchItemPublic(BaseModel):
    line: int
    id: str
    seq: int
    outcome: str
    reason: str
    created: bool


class BatchPublic(BaseModel):
    created: int
    existing: int
    games: list[BatchItemPublic]


class HistoryItemPublic(BaseModel):
    seq: int
    kind: Literal["game", "annulment"]
    at: datetime = Field(description="when the game was played, or when it was annulled")
    opponent_name: str | None = Field(default=None, description="the opponent's name, when known")
    change: ChangePublic


class HistoryPublic(BaseModel):
    player: str
    name: str | None = Field(default=None, description="the player's name, when known")
    pool: str
    items: list[HistoryItemPublic]


MAX_OFFSET = 2**31 - 1
"""The largest offset a list accepts (a larger one is a 422, never a database error)."""


class LeaderboardEntryPublic(RatingPublic):
    rank: int
    state_words: str = Field(description="the state in words (`provisional (7 of 10 games)`)")


class LeaderboardPublic(BaseModel):
    system: str
    pool: str
    offset: int
    limit: int
    total: int = Field(description="players on this list")
    established_only: bool = Field(
        description="true: the pool's established players (the default); false: everyone "
        "listed (`all=true`, or a system whose list is a period's published list)"
    )
    listed: str = Field(description="who is on this list, in words")
    ledger_date: date | None = Field(
        description="the day (UTC) of the ledger's most recently recorded game, which "
        "'active' and memberships are counted on"
    )
    active_days: int | None = Field(
        description="site: an established player played a rated game in the pool in the "
        "last this many days before the ledger's date"
    )
    active_since: date | None = Field(description="site: the first day such a game counts")
    entries: list[LeaderboardEntryPublic]


class LeaderboardRankPublic(BaseModel):
    """Where a player stands on a pool's list."""

    system: str
    pool: str
    player: str
    name: str | None
    rank: int
    total: int = Field(description="players on this list")
    established_only: bool
    offset: int = Field(description="the offset of the list's page (of `limit`) with the player")
    limit: int
    page: int = Field(description="that page's number, from 1")


class PoolPublic(BaseModel):
    pool: str
    total: int = Field(description="established players (the default list)")
    established: int = Field(description="established players (the default list)")
    everyone: int = Field(description="every listed player (`all=true`)")


class LeaderboardsPublic(BaseModel):
    system: str
    pools: list[PoolPublic]


class PreviewOutcomePublic(BaseModel):
    result: str
    outcome: str
    reason: str
    changes: list[ChangePublic]


class PreviewPublic(BaseModel):
    """What each result would do now; nothing is stored."""

    white: str
    black: str
    results: dict[str, PreviewOutcomePublic] = Field(description="keyed `1-0`, `1/2-1/2`, `0-1`")


class AnnulmentPublic(BaseModel):
    game: str
    seq: int
    at: datetime
    by: str | None
    reason: str
    changes: list[ChangePublic] = Field(description="the reversing changes (site S10)")


class AnnulmentsPublic(BaseModel):
    annulments: list[AnnulmentPublic]


class PeriodPublic(BaseModel):
    id: int
    name: str
    bonus: str
    floor: int
    created_at: datetime
    closed_at: datetime | None
    closed: bool
    files: list[str]


class PeriodsPublic(BaseModel):
    periods: list[PeriodPublic]


class PeriodEntryPublic(BaseModel):
    position: int
    player: str
    name: str
    old_rating: int | None
    new_rating: int | None
    games: int


class PeriodListPublic(BaseModel):
    period: int
    entries: list[PeriodEntryPublic]


class FideReportPublic(BaseModel):
    """A player's whole calculation for the period (the rating officer's report)."""

    model_config = ConfigDict(extra="allow")

    player: str
    name: str
    old_rating: int | None
    new_rating: int | None
    old_games: int
    new_games: int
    k: int | None = None
    games: list[dict[str, Any]] = Field(default_factory=list)
    sum_delta: str | None = None
    expected: str | None = None
    change: str | None = None
    first_rating: list[dict[str, Any]] = Field(default_factory=list)
    combined: str = ""
    notes: list[str] = Field(default_factory=list)


class PlyPublic(BaseModel):
    ply: int
    at: datetime
    move: str | None


class DeadlinePublic(BaseModel):
    at: datetime
    kind: Literal["first_move", "bot_move", "clock", "expiry"]
    side: Literal["white", "black"]
    player: str
    rule: str
    note: str


class LiveGamePublic(BaseModel):
    """A live game: where it is, its next deadline, and how it ended."""

    id: str
    white: str
    black: str
    rated: bool
    time_control: str | None
    venue: VenueText
    bot: Literal["white", "black"] | None
    status: Literal["open", "awaiting_confirmation", "disputed", "ended"]
    opened_at: datetime
    plies: int
    to_move: Literal["white", "black"] | None
    moves: list[PlyPublic]
    deadline: DeadlinePublic | None
    result: ResultText | None
    termination: TerminationText | None
    played_at: datetime | None
    registered_by: str | None
    ended_at: datetime | None
    ended_by: str | None
    ending: str | None
    outcome: Literal["rated", "unrated", "void"] | None = Field(
        description="the stored game's outcome once the live game has ended"
    )
    game: str | None = Field(description="the stored game's API path once it has ended")


class LiveGamesPublic(BaseModel):
    games: list[LiveGamePublic]
    count: int


class SweepPublic(BaseModel):
    """What a sweep ended (S7-S9 deadlines), and what it could not end."""

    ended: list[LiveGamePublic]
    failed: dict[str, str]


class HealthPublic(BaseModel):
    status: Literal["ok"]
    system: str


def request_body(model: type[BaseModel]) -> dict[str, Any]:
    """``openapi_extra`` documenting a JSON body by ``model`` for an endpoint that
    validates the body itself (through the records' own validation)."""
    schema = model.model_json_schema()
    assert "$defs" not in schema, f"{model.__name__}: keep documented bodies flat"
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}
