"""Small builders for the conformance tests: members, rated members, games, an engine."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from chessrate import ArenaRules, ArenaSystem, Change, Engine, GameRating, GameRecord, Player
from chessrate.records import ImportedRating
from chessrate.systems.arena import ArenaState, ArenaStatus

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
"""The day every game of these tests is played on (one minute apart)."""

MEMBER_UNTIL = date(2026, 12, 31)

_game_numbers = itertools.count(1)


def member(
    player_id: str,
    *,
    until: date | None = MEMBER_UNTIL,
    **imported: tuple[str, int],
) -> Player:
    """A player with a membership (until ``until``) and optional imported ratings,
    e.g. ``member("ann", blitz=("1800.00", 40))``."""
    return Player(
        player_id,
        membership_until=until,
        imported={
            pool: ImportedRating(Decimal(rating), games)
            for pool, (rating, games) in imported.items()
        },
    )


def game(
    white: str,
    black: str,
    result: str,
    *,
    tc: str | None = "5m+3s",
    rated: bool = True,
    termination: str | None = None,
    played_at: datetime | None = None,
    game_id: str | None = None,
) -> GameRecord:
    """A game record built through ``GameRecord.from_mapping`` (blitz 5+3 by default)."""
    number = next(_game_numbers)
    data: dict[str, object] = {
        "id": game_id or f"g{number}",
        "played_at": (played_at or START + timedelta(minutes=number)).isoformat(),
        "white": white,
        "black": black,
        "result": result,
        "rated": rated,
    }
    if tc is not None:
        data["time_control"] = tc
    if termination is not None:
        data["termination"] = termination
    return GameRecord.from_mapping(data, f"test:{number}")


def arena(*players: Player, rules: ArenaRules | None = None) -> Engine[ArenaState]:
    """An in-memory arena engine with these players."""
    return Engine(ArenaSystem(rules), players=players)


def play(
    engine: Engine[ArenaState],
    white: str,
    black: str,
    result: str,
    *,
    tc: str | None = "5m+3s",
    rated: bool = True,
    termination: str | None = None,
) -> GameRating[ArenaState]:
    """Build one game and apply it."""
    return engine.apply(game(white, black, result, tc=tc, rated=rated, termination=termination))


def rating(engine: Engine[ArenaState], player_id: str, pool: str = "blitz") -> Decimal | None:
    return engine.state(player_id, pool).rating


def change_of(result: GameRating[ArenaState], player_id: str) -> Change:
    """The one change of ``player_id`` in a rated game."""
    (change,) = [c for c in result.changes if c.player == player_id]
    return change


def rated(rating_text: str, games: int) -> ArenaState:
    """The state of a player rated ``rating_text`` with ``games`` rated games."""
    return ArenaState(ArenaStatus.RATED, Decimal(rating_text), games)
