"""Players: register one, change its attributes, read it with a rating in every pool,
search them; a player's history in a pool, games list, record per pool and rating
chart.

Player bodies are documented by :class:`PlayerCreate` and :class:`PlayerUpdate` but
validated by ``Player.from_mapping``, so the API refuses a player with the same words
as the command line.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import InvalidRecord, NotFound
from ..identifiers import normal_id
from ..ledger import Ledger, PlayerView
from ..ledger.views import ChartSeries, Colour, HistoryKind
from ..numbers import HALF, ONE, format_rating
from ..records import Outcome, Player, Result
from ..timecontrol import as_players_write
from .common import (
    COUNT_SCHEMA,
    LIST_PAGE_MAX,
    NAME_SCHEMA,
    ChangePublic,
    PagePublic,
    RatingPublic,
    RequestModel,
    change_public,
    changes_public,
    check_pool,
    id_field,
    rating_public,
)
from .leaderboards import leaderboard_rank

ScoreText = Literal["1", "1/2", "0"]
"""A player's score as the games list writes it."""


# -- requests ---------------------------------------------------------------------------


_IMPORTED_PROPERTIES: dict[str, Any] = {
    "patternProperties": {
        "^rating_[a-z]+$": {
            "anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}],
            "description": "an imported rating in that pool (at most two decimals, above 0 "
            "and at least the system's floor; with games_POOL); refused (409) once games "
            "have moved the player's rating in that pool",
        },
        "^games_[a-z]+$": {
            "anyOf": [{"type": "integer", **COUNT_SCHEMA}, {"type": "null"}],
            "description": "the number of games behind the imported rating (with rating_POOL)",
        },
    },
}
_NEW_BOT: dict[str, Any] = {
    # a new player's bot_rating only for a bot, and a bot needs one (site S7)
    "dependentRequired": {"bot_rating": ["bot"]},
    "if": {"properties": {"bot": {"const": True}}, "required": ["bot"]},
    "then": {"required": ["bot_rating"]},
}
_BOT = (
    "site: a bot, rated at its fixed bot_rating (required with it, and only for a bot); "
    "refused (409) once the player has a rated game"
)


class PlayerCreate(RequestModel):
    """A player's attributes (the players file's columns); ``rating_<pool>`` and
    ``games_<pool>`` import a rating."""

    model_config = ConfigDict(extra="allow", json_schema_extra={**_IMPORTED_PROPERTIES, **_NEW_BOT})

    id: str = id_field()
    name: str | None = Field(default=None, json_schema_extra=NAME_SCHEMA)
    membership_until: date | None = Field(default=None, description="arena: inclusive")
    bot: bool | None = Field(default=False, description=_BOT)
    bot_rating: str | None = Field(
        default=None, description="site: a bot's fixed rating (two decimals at most)"
    )


class PlayerUpdate(RequestModel):
    """The attributes to change; ``null`` removes one (e.g. an imported rating)."""

    model_config = ConfigDict(extra="allow", json_schema_extra=_IMPORTED_PROPERTIES)

    name: str | None = Field(default=None, json_schema_extra=NAME_SCHEMA)
    membership_until: date | None = Field(
        default=None, description="arena: inclusive; may change at any time (a renewal "
        "applies to the games rated after it)"
    )  # fmt: skip
    bot: bool | None = Field(default=None, description=_BOT)
    bot_rating: str | None = Field(
        default=None, description="site: a bot's fixed rating; refused (409) once the "
        "player has a rated game"
    )  # fmt: skip


# -- answers ----------------------------------------------------------------------------


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
    marked: bool = Field(
        default=False,
        description="a moderator marked the player for confirmed cheating: paired only "
        "with other marked players",
    )
    marked_at: datetime | None = Field(default=None, description="since when, when marked")


class PlayersPublic(BaseModel):
    players: list[PlayerPublic] = Field(
        description="the players found, each with its current ratings"
    )
    count: int
    truncated: bool = Field(
        default=False,
        description="more players match after these (ask for the next page with `offset`)",
    )


class HistoryItemPublic(BaseModel):
    seq: int
    kind: HistoryKind
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
    colour: Colour
    opponent: str
    opponent_name: str | None = Field(default=None, description="the opponent's name, when known")
    opponent_rating: str | None = Field(
        description="the opponent's rating at the game (from the player's first change, "
        "else the opponent's rating before the game); null when unknown"
    )
    result: Result
    score: ScoreText | None = Field(description="the player's score")
    rated: bool = Field(description="submitted as rated")
    time_control: str | None = Field(description="as stored: `180+2`, `-`, `3d`")
    time_control_written: str = Field(description="as players write it: `3+2`, `3 days/move`")
    outcome: Outcome = Field(description="the system's decision")
    reason: str = Field(
        default="", description="the decision in words, as the game's `reason` says it"
    )
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
    rank: int | None = Field(
        description="the place on the pool's leaderboard, the list `GET /leaderboards/{pool}` "
        "gives by default (established players; site: ranked while active); null when not "
        "ranked there (`unranked` says why)"
    )
    unranked: str | None = Field(
        default=None, description="why the player has no rank on that leaderboard, in words"
    )
    rank_everyone: int | None = Field(
        default=None, description="the place on the list of everyone listed (`all=true`)"
    )


class PlayerStatsPublic(BaseModel):
    player: str
    name: str | None = None
    standing: str | None = Field(default=None, description="a bot's standing (site S7)")
    pools: list[PoolStatsPublic]


# -- services ---------------------------------------------------------------------------


def player_summary(player: Player) -> PlayerSummaryPublic:
    return PlayerSummaryPublic(
        id=player.id,
        name=player.name,
        membership_until=player.membership_until,
        bot=player.bot,
        bot_rating=format_rating(player.bot_rating),
        imported={
            pool: ImportedRatingPublic(rating=f"{i.rating:.2f}", games=i.games)
            for pool, i in sorted(player.imported.items())
        },
    )


def player_public(ledger: Ledger, view: PlayerView) -> PlayerPublic:
    """The player with a rating in every pool: the ledger's current rating where the
    player has one, else what the system starts the player on (an imported rating)
    when that puts the player on the list."""
    stored = {row.pool: row for row in view.ratings}
    ratings: list[RatingPublic] = []
    if ledger.info.rates_periods:  # only the lists the periods published
        ratings = [rating_public(row, row.listed) for row in view.ratings]
    else:
        system = ledger.system
        for pool in system.pools:
            row = stored.pop(pool, None)
            if row is not None:
                ratings.append(rating_public(row, row.listed))
                continue
            entry = system.list_entry(view.player, pool, system.initial_state(view.player, pool))
            if entry is not None:
                ratings.append(rating_public(entry, True))
        ratings += [rating_public(row, row.listed) for row in stored.values()]
    since = ledger.marks.marked([view.player.id]).get(view.player.id)
    return PlayerPublic(
        **player_summary(view.player).model_dump(), ratings=ratings, marked=since is not None,
        marked_at=since,
    )  # fmt: skip


def create_player(ledger: Ledger, body: Mapping[str, Any], now: datetime) -> PlayerPublic:
    where = f"player {body['id']}" if isinstance(body.get("id"), str) else "player"
    player = Player.from_mapping(body, where)
    return player_public(ledger, ledger.players.create(player, now))


def update_player(
    ledger: Ledger, player_id: str, body: Mapping[str, Any], now: datetime
) -> PlayerPublic:
    given = body.get("id")
    if "id" in body and (normal_id(given) if isinstance(given, str) else given) != player_id:
        raise InvalidRecord(f"player {player_id}", "id", "a player's id cannot be changed")
    fields = {k: v for k, v in body.items() if k != "id"}
    return player_public(ledger, ledger.players.update(player_id, fields, now))


def get_player(ledger: Ledger, player_id: str) -> PlayerPublic:
    return player_public(ledger, ledger.players.get(player_id))


def search_players(ledger: Ledger, q: str, limit: int, offset: int = 0) -> PlayersPublic:
    """The players whose id or name contains ``q`` (folded: case and accents), at most
    ``limit`` from ``offset``, each with its current ratings; ``truncated`` when more
    match after them."""
    found = ledger.players.search(q, limit + 1, offset)
    shown = found[:limit]
    ratings = ledger.players.ratings_of(p.id for p in shown)
    marked = ledger.marks.marked(p.id for p in shown)
    players = [
        PlayerPublic(
            **player_summary(p).model_dump(),
            ratings=[rating_public(r, r.listed) for r in ratings.get(p.id, [])],
            marked=p.id in marked,
            marked_at=marked.get(p.id),
        )
        for p in shown
    ]
    return PlayersPublic(players=players, count=len(players), truncated=len(found) > limit)


def history(
    ledger: Ledger,
    player_id: str,
    pool: str,
    offset: int = 0,
    limit: int = LIST_PAGE_MAX,
) -> HistoryPublic:
    """A page of the changes of a player's rating in a pool, oldest first."""
    check_pool(ledger, pool)
    found, total = ledger.players.history_page(player_id, pool, offset, limit)
    names = ledger.players.names({player_id} | {item.change.opponent for item in found})
    items = [
        HistoryItemPublic(
            seq=item.seq,
            kind=HistoryKind(item.kind),
            at=item.played_at,
            opponent_name=names.get(item.change.opponent),
            change=change_public(item.change),
        )
        for item in found
    ]
    return HistoryPublic(
        player=player_id, name=names.get(player_id), pool=pool, items=items,
        total=total, offset=offset, limit=limit,
    )  # fmt: skip


GAMES_PAGE_MAX = 200
"""The most games one request of a player's games list answers."""


SCORE_TEXT: dict[Decimal, ScoreText] = {ONE: "1", HALF: "1/2", Decimal(0): "0"}


def player_games(ledger: Ledger, player_id: str, offset: int, limit: int) -> PlayerGamesPublic:
    """A page of the player's games, newest first: every game (rated, unrated, void,
    annulled) with the player's changes at it."""
    found, total = ledger.people.games(player_id, offset, limit)
    name = ledger.players.names([player_id]).get(player_id)
    items = [
        PlayerGamePublic(
            id=g.record.id,
            seq=g.seq,
            played_at=g.record.played_at,
            colour=Colour(g.colour),
            opponent=g.opponent,
            opponent_name=g.opponent_name,
            opponent_rating=format_rating(g.opponent_rating),
            result=g.record.result,
            score=None if g.score is None else SCORE_TEXT[g.score],
            rated=g.record.rated,
            time_control=None if g.record.time_control is None else str(g.record.time_control),
            time_control_written=as_players_write(g.record.time_control),
            outcome=Outcome(g.outcome),
            reason=g.reason,
            annulled=g.annulled,
            annulment_reason=g.annulment,
            changes=changes_public(g.changes),
        )
        for g in found
    ]
    return PlayerGamesPublic(
        player=player_id, name=name, total=total, offset=offset, limit=limit, games=items
    )


def player_stats(
    ledger: Ledger, player_id: str, active_days: int | None = None
) -> PlayerStatsPublic:
    """The player's record in every pool with a rating or a change: the state in words
    (the system's ``standing``; a ledger that rates periods: the state's name), first
    rating, peak, wins/draws/losses, the rank on the pool's leaderboard (the one the
    boards show, :func:`~chessrate.application.leaderboards.leaderboard_rank`) or why
    there is none, and the place among everyone listed."""
    view = ledger.players.get(player_id)
    current = {r.pool: r for r in player_public(ledger, view).ratings}
    summaries = {s.pool: s for s in ledger.people.pool_summaries(player_id)}
    periods = ledger.info.rates_periods

    def standing(pool: str, state: str, games: int) -> str:
        return state if periods else ledger.system.standing(state, games, view.player)

    pools = []
    for pool in [*ledger.pools, *(p for p in current if p not in ledger.pools)]:
        rating, summary = current.get(pool), summaries.get(pool)
        if rating is None and summary is None:
            continue
        state, games = (rating.state, rating.games) if rating else ("unrated", 0)
        rank, unranked = _board_rank(ledger, pool, player_id, active_days, summary is not None
                                     and summary.rank is not None)  # fmt: skip
        pools.append(
            PoolStatsPublic(
                pool=pool,
                display=rating.display if rating else None,
                standing=standing(pool, state, games),
                first_rating=format_rating(summary.first_rating) if summary else None,
                peak=format_rating(summary.peak) if summary else None,
                peak_at=summary.peak_at if summary else None,
                peak_game=summary.peak_game if summary else None,
                wins=summary.wins if summary else 0,
                draws=summary.draws if summary else 0,
                losses=summary.losses if summary else 0,
                rank=rank,
                unranked=unranked,
                rank_everyone=summary.rank if summary else None,
            )
        )
    bot = standing("", "", 0) if view.player.bot and not periods else None
    return PlayerStatsPublic(player=player_id, name=view.player.name, standing=bot, pools=pools)


def _board_rank(
    ledger: Ledger, pool: str, player_id: str, active_days: int | None, listed: bool
) -> tuple[int | None, str | None]:
    """The player's rank on the pool's leaderboard, or why there is none (the ledger's
    words after "not on the ... list": ``inactive since ...``, ``provisional ...``)."""
    if not listed:
        return None, None
    if pool not in ledger.pools:
        return None, None
    try:
        found = leaderboard_rank(ledger, pool, player_id, 1, False, active_days)
    except NotFound as error:
        words = str(error)
        return None, words.split(": ", 1)[1] if ": " in words else words
    return found.rank, None


def chart_series(ledger: Ledger, player_id: str, pool: str, days: int | None) -> ChartSeries:
    """The player's rating chart in ``pool`` over the last ``days`` (None: all),
    bucketed to at most ~500 points (the ledger's :meth:`~Ledger.chart_series`)."""
    check_pool(ledger, pool)
    return ledger.people.chart_series(player_id, pool, days)
