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

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..records import text_problem

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


class RequestModel(BaseModel):
    """What a client sends: every string field holds text as the records' fields do
    (no NUL character, no lone surrogate: :func:`chessrate.records.text_problem`), so a
    request the model accepts never reaches a database that cannot store it (issue 17)."""

    @field_validator("*", mode="after")
    @classmethod
    def _plain_text(cls, value: object) -> object:
        if isinstance(value, str):
            problem = text_problem(value)
            if problem is not None:
                raise ValueError(problem)
        return value


class GameCreate(RequestModel):
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


class PreviewRequest(RequestModel):
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


class PlayerCreate(RequestModel):
    """A player's attributes (spec README, players table); ``rating_<pool>`` and
    ``games_<pool>`` import a rating."""

    model_config = ConfigDict(extra="allow", json_schema_extra=_IMPORTED_PROPERTIES)

    id: str
    name: str | None = None
    membership_until: date | None = Field(default=None, description="arena: inclusive")
    bot: bool = False
    bot_rating: str | None = Field(default=None, description="site: a bot's fixed rating")


class PlayerUpdate(RequestModel):
    """The attributes to change; ``null`` removes one (e.g. an imported rating)."""

    model_config = ConfigDict(extra="allow", json_schema_extra=_IMPORTED_PROPERTIES)

    name: str | None = None
    membership_until: date | None = None
    bot: bool | None = None
    bot_rating: str | None = None


class AnnulmentCreate(RequestModel):
    reason: str = Field(min_length=1, max_length=2000, description="why (fair play, …)")


class LiveGameCreate(RequestModel):
    """Open a live game (site S7-S9), or register an over-the-board result (``venue:
    otb`` with ``result`` and ``by``) for the other player to confirm."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"id": "L1", "white": "alice", "black": "bob", "time_control": "180+2"},
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


class LiveMoveCreate(RequestModel):
    """One ply: its number (1 = White's first move); the service stamps its time."""

    model_config = ConfigDict(extra="forbid")

    ply: int = Field(ge=1)
    move: str | None = Field(default=None, max_length=16, description="SAN or UCI, optional")
    by: str | None = Field(default=None, description="the player moving (checked if given)")


class LiveFinish(RequestModel):
    """How the game ended, as the site saw it (``expired`` and ``bot_no_move`` are the
    service's own, when their deadline passes)."""

    model_config = ConfigDict(extra="forbid")

    result: ResultText
    termination: TerminationText = "normal"
    by: str | None = Field(default=None, description="the player who ended it, if one did")


class LiveBy(RequestModel):
    """Who acts: a player of the game."""

    model_config = ConfigDict(extra="forbid")

    by: str


class LiveDispute(LiveBy):
    reason: str = Field(default="", max_length=2000)


class SeekCreate(RequestModel):
    """A player seeks a game (issue 16): paired by site Elo with another seek of the
    same time control and rated flag; ``bot: true`` plays the closest bot at once."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"player": "alice", "time_control": "180+2"},
                {"player": "alice", "time_control": "600+0", "rated": False,
                 "min_rating": 1400, "max_rating": 1700},
                {"player": "alice", "time_control": "300+3", "bot": True},
            ]
        },
    )  # fmt: skip

    player: str = Field(description="the player seeking (not a bot)")
    time_control: str = Field(description="`180+2`, `3m+2s`, `-` (no clock), `3d` (days per move)")
    rated: bool = True
    min_rating: int | None = Field(default=None, description="the lowest site Elo accepted")
    max_rating: int | None = Field(default=None, description="the highest site Elo accepted")
    bot: bool = Field(default=False, description="play the bot closest to the site Elo, now")


class PeriodCreate(RequestModel):
    """A fide rating period: its name, ruleset and starting rating list (CSV text with
    the columns ``id,name,rating,games,reached_2400``, and optionally those a new list
    carries: ``k,birth_year,met_rated,pending``). Without a starting list the period
    starts from the last closed period's new list (the periods chain)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    rules: Literal["seed", "fide-2024"] = Field(
        default="seed",
        description="seed: seed 003's B.02 (spec fide.md); fide-2024: the FIDE Rating "
        "Regulations in force since 1 March 2024 (docs/fide-2024.md)",
    )
    list_date: date | None = Field(
        default=None,
        description="the date of the list the period makes (fide-2024: the junior K and "
        "the 26 months of pending results)",
    )
    bonus: Decimal | None = Field(
        default=None,
        ge=0,
        max_digits=6,
        decimal_places=2,
        description="first-rating bonus per half point over 50% (fide F4; default: the "
        "ruleset's, 12.5)",
    )
    floor: int | None = Field(
        default=None, ge=0, le=10_000,
        description="the rating floor (default: the ruleset's: seed 1000, fide-2024 1400)",
    )  # fmt: skip
    start_list: str | None = Field(
        default=None,
        description="the starting list, CSV text; none: the last closed period's new list",
    )


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


MAX_OFFSET = 2**31 - 1
"""The largest offset a list accepts (a larger one is a 422, never a database error)."""
LIST_PAGE_MAX = 1000
"""The most rows one page answers of the lists that had no paging before (a player's
history in a pool, the annulments, the fide periods, a period's new list, a player's
periods): their default ``limit`` is this most, so a list that fits one page answers
as it did."""


class PagePublic(BaseModel):
    """Where a page sits in its list."""

    total: int = Field(description="rows in the whole list")
    offset: int = Field(description="rows skipped before this page")
    limit: int = Field(description="the most rows this page could hold")


class PlayersPublic(BaseModel):
    players: list[PlayerPublic] = Field(
        description="the players found, each with its current ratings"
    )
    count: int
    truncated: bool = Field(
        default=False,
        description="more players match after these (ask for the next page with `offset`)",
    )


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


class AnnulmentNotePublic(BaseModel):
    at: datetime
    by: str | None
    reason: str


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
    annulment: AnnulmentNotePublic | None = Field(
        default=None, description="who annulled the game, when and why (site S10)"
    )


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


class HistoryPublic(PagePublic):
    player: str
    name: str | None = Field(default=None, description="the player's name, when known")
    pool: str
    items: list[HistoryItemPublic]


class PlayerGamePublic(BaseModel):
    """One game of a player's games list, seen from the player's side."""

    id: str
    seq: int = Field(description="commit order in the ledger")
    played_at: datetime
    colour: Literal["white", "black"]
    opponent: str
    opponent_name: str | None = Field(default=None, description="the opponent's name, when known")
    opponent_rating: str | None = Field(
        description="the opponent's rating at the game (from the player's first change, "
        "else the opponent's rating before the game); null when unknown"
    )
    result: ResultText
    score: Literal["1", "1/2", "0"] | None = Field(description="the player's score")
    rated: bool = Field(description="submitted as rated")
    time_control: str | None = Field(description="as stored: `180+2`, `-`, `3d`")
    time_control_written: str = Field(description="as players write it: `3+2`, `3 days/move`")
    outcome: Literal["rated", "unrated", "void"] = Field(description="the system's decision")
    annulled: bool
    annulment_reason: str | None = Field(description="why the game was annulled")
    changes: list[ChangePublic] = Field(description="the player's changes at the game")


class PlayerGamesPublic(BaseModel):
    """A page of a player's games, newest first."""

    player: str
    name: str | None = None
    total: int = Field(description="every game the player played")
    offset: int
    limit: int
    games: list[PlayerGamePublic]


class PoolStatsPublic(BaseModel):
    """A player's record in one pool (annulled games left out)."""

    pool: str
    display: str | None = Field(description="the current rating as displayed")
    standing: str = Field(description="the state in words (`provisional, 7 of 10 games`)")
    first_rating: str | None = Field(description="the rating before the first change")
    peak: str | None = Field(description="the highest rating after a game")
    peak_at: datetime | None
    peak_game: str | None
    wins: int
    draws: int
    losses: int
    rank: int | None = Field(description="the place on the pool's list; null when not listed")


class PlayerStatsPublic(BaseModel):
    player: str
    name: str | None = None
    standing: str | None = Field(default=None, description="a bot's standing (site S7)")
    pools: list[PoolStatsPublic]


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


class AnnulmentsPublic(PagePublic):
    annulments: list[AnnulmentPublic]


class PeriodPublic(BaseModel):
    id: int
    name: str
    rules: str
    list_date: date | None
    bonus: str
    floor: int
    created_at: datetime
    closed_at: datetime | None
    closed: bool
    files: list[str]
    warnings: list[str] = Field(
        default_factory=list,
        description="what the upload's reading left out and why (a player entered twice, "
        "one entry never paired)",
    )


class PeriodsPublic(PagePublic):
    periods: list[PeriodPublic]


class PeriodEntryPublic(BaseModel):
    position: int
    player: str = Field(description="the FIDE id, else the name as written in the TRF file")
    name: str
    old_rating: int | None
    new_rating: int | None
    games: int = Field(description="rated games in all, after the period")
    change: str | None = Field(
        description="K × ΣΔR (fide F2), exact, two decimals; null without a calculation "
        "(a first rating, an unrated player, no rated game)"
    )
    k: int | None = Field(description="the K used (fide F3); null without a calculation")
    period_games: int = Field(description="rated games this period counted")


class PeriodListPublic(PagePublic):
    period: int
    entries: list[PeriodEntryPublic]


class CrosstableCellPublic(BaseModel):
    """One round of a player's crosstable row, as in the TRF file and as players read
    it."""

    round: int
    opponent: int | None = Field(description="the opponent's start number; null for a bye")
    colour: Literal["w", "b", "-"]
    code: str = Field(description="the TRF-16 result code (`1 0 = + - w d l h f u z`, blank)")
    result: str = Field(description="as players read it: `1`, `½`, `0`, `+`, `-`, or empty")
    points: str | None = Field(description="the points the round gave; null: no result")
    text: str = Field(description="the cell as printed: `10b 0`, `3w ½`, `+`, `bye ½`")
    note: str = Field(description="what a code means in words (forfeits, byes, …), else empty")


class CrosstableRowPublic(BaseModel):
    start_rank: int
    rank: int | None = Field(description="the final rank the file gives, if any")
    player: str = Field(description="the player's id in the period (FIDE id, else the name)")
    name: str
    title: str
    federation: str
    rating: int | None
    points: str = Field(description="total points: the file's, else the sum of the rounds")
    report: str | None = Field(
        description="the API path of the player's report in the period (null: not in its "
        "results, e.g. while the period is open)"
    )
    rounds: list[CrosstableCellPublic]


class CrosstablePublic(BaseModel):
    """A tournament of a period as a crosstable, from its stored TRF file."""

    period: int
    number: int = Field(description="the tournament's number in the period (upload order)")
    file: str
    name: str = Field(description="record 012 (else the file's name)")
    city: str
    federation: str
    start: str
    end: str
    kind: str = Field(description="record 092, as written")
    round_robin: bool | None = Field(description="as uploaded, else what 092 says")
    rounds: int
    players: list[CrosstableRowPublic] = Field(description="by start number")


class PlayerPeriodPublic(BaseModel):
    """A player's line in one closed period."""

    period: int
    period_name: str
    closed_at: datetime
    position: int
    old_rating: int | None
    new_rating: int | None
    change: str | None = Field(description="K × ΣΔR, exact (fide F2); null: no calculation")
    k: int | None
    games: int = Field(description="rated games in all, after the period")
    period_games: int = Field(description="rated games this period counted")
    report: str = Field(description="the API path of the player's report for the period")
    report_page: str = Field(description="the web page of that report")


class PlayerPeriodsPublic(PagePublic):
    """A fide player's rating by period, oldest first."""

    player: str
    name: str | None
    periods: list[PlayerPeriodPublic]


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
    games: list[dict[str, Any]] = Field(
        default_factory=list,
        description="each game of the calculation (F2), with its opponent's `opponent_name`",
    )
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


class LiveGamesPublic(PagePublic):
    games: list[LiveGamePublic]
    count: int = Field(description="games on this page")


class SweepPublic(BaseModel):
    """What a sweep ended (S7-S9 deadlines), and what it could not end."""

    ended: list[LiveGamePublic]
    failed: dict[str, str]


class SeekPublic(BaseModel):
    """A seek: who, which game, the player's site Elo, how long it has waited and the
    difference it accepts now, and how it ended."""

    id: int
    player: str
    name: str | None = None
    time_control: str = Field(description="the control in its one stored form (`180+2`)")
    rated: bool
    min_rating: int | None
    max_rating: int | None
    bot: bool = Field(description="a game against a bot, paired at once")
    status: Literal["open", "paired", "cancelled", "expired"]
    site_elo: str = Field(description="the player's current site Elo (two decimals)")
    site_elo_display: str = Field(description="as displayed (`1500?` under 10 games, S6)")
    created_at: datetime
    expires_at: datetime
    waiting_seconds: int = Field(description="how long it has waited (till it ended)")
    window: int | None = Field(
        description="an open seek's acceptable site Elo difference now (it widens while "
        "the seek waits)"
    )
    paired_at: datetime | None
    closed_at: datetime | None = Field(description="when it was cancelled or expired")
    opponent: str | None
    live_game: str | None = Field(description="the live game's id once paired")
    live_game_url: str | None = Field(description="the live game's API path once paired")


class SeeksPublic(BaseModel):
    """A page of seeks: open ones oldest first; a player's (or another status) newest
    first."""

    total: int
    offset: int
    limit: int
    seeks: list[SeekPublic]


class PairPublic(BaseModel):
    """What a pairing pass did."""

    pairs: list[LiveGamePublic] = Field(description="the live games it opened")
    expired: int = Field(description="seeks it marked expired")
    failed: dict[str, str]
    busy: bool = Field(
        description="another pass was running (PostgreSQL): it pairs; this one did nothing"
    )


class HealthPublic(BaseModel):
    status: Literal["ok"]
    system: str


def request_body(model: type[BaseModel]) -> dict[str, Any]:
    """``openapi_extra`` documenting a JSON body by ``model`` for an endpoint that
    validates the body itself (through the records' own validation)."""
    schema = model.model_json_schema()
    assert "$defs" not in schema, f"{model.__name__}: keep documented bodies flat"
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}
