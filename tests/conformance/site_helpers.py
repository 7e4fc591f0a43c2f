"""Small builders for the ``site`` conformance tests: humans, bots, game records with
``plies``/``termination``/``venue``, an engine and look-ups of states and changes."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from chessrate import Change, Engine, GameRating, GameRecord, ListEntry, Player, SiteSystem
from chessrate.records import ImportedRating
from chessrate.systems.site import SiteState

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
"""The day every game of these tests is played on (one minute apart)."""

_game_numbers = itertools.count(1)


def human(player_id: str, **imported: tuple[str, int]) -> Player:
    """A human player with optional imported ratings, e.g.
    ``human("ann", blitz=("1800.00", 40), site=("1700.00", 12))``."""
    return Player(
        player_id,
        imported={
            pool: ImportedRating(Decimal(rating), games)
            for pool, (rating, games) in imported.items()
        },
    )


def bot(player_id: str, rating: str = "1800") -> Player:
    """A bot with a fixed rating (site S7)."""
    return Player(player_id, bot=True, bot_rating=Decimal(rating))


def record(
    white: str,
    black: str,
    result: str,
    *,
    tc: str | None = "5m+3s",
    rated: bool = True,
    termination: str | None = None,
    plies: int | None = None,
    venue: str | None = None,
    confirmed: bool | None = None,
    game_id: str | None = None,
) -> GameRecord:
    """A game record built through ``GameRecord.from_mapping`` (blitz 5+3 by default)."""
    number = next(_game_numbers)
    data: dict[str, object] = {
        "id": game_id or f"s{number}",
        "played_at": (START + timedelta(minutes=number)).isoformat(),
        "white": white,
        "black": black,
        "result": result,
        "rated": rated,
    }
    optional: dict[str, object | None] = {
        "time_control": tc,
        "termination": termination,
        "plies": plies,
        "venue": venue,
        "confirmed": confirmed,
    }
    data.update({name: value for name, value in optional.items() if value is not None})
    return GameRecord.from_mapping(data, f"site-test:{number}")


def site(*players: Player) -> Engine[SiteState]:
    """An in-memory site engine with these players."""
    return Engine(SiteSystem(), players=players)


def play(
    engine: Engine[SiteState], white: str, black: str, result: str, **fields: Any
) -> GameRating[SiteState]:
    """Build one game (see :func:`record`) and apply it."""
    return engine.apply(record(white, black, result, **fields))


def rating(engine: Engine[SiteState], player_id: str, pool: str) -> Decimal:
    return engine.state(player_id, pool).rating


def ratings_and_games(
    engine: Engine[SiteState], player_id: str, *pools: str
) -> list[tuple[Decimal, int]]:
    """The player's (rating, games) in each of ``pools``."""
    return [
        (engine.state(player_id, pool).rating, engine.state(player_id, pool).games)
        for pool in pools
    ]


def change_of(result: GameRating[SiteState], player_id: str, pool: str) -> Change:
    """The one change of ``player_id`` in ``pool`` in a rated game."""
    (change,) = [c for c in result.changes if c.player == player_id and c.pool == pool]
    return change


def listed(engine: Engine[SiteState], pool: str) -> dict[str, ListEntry]:
    """The pool's rating list by player id."""
    return {entry.player: entry for entry in engine.rating_list(pool)}


def snapshot(engine: Engine[SiteState], *player_ids: str) -> dict[tuple[str, str], SiteState]:
    """Every pool's state of these players."""
    return {
        (player_id, pool): engine.state(player_id, pool)
        for player_id in player_ids
        for pool in engine.system.pools
    }
