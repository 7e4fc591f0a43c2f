"""A live game's row read back as a :class:`~chessrate.systems.site_live.LiveGame`, its
moves read from the start position, and the finished game as a game record
(``ledger.live``'s helpers: what the board says about a live game, apart from the
transactions that change it).

A game's plies may carry their moves or only the clock's times. When every ply carries
a legal move the board has its say (:func:`last_board`: checkmate, stalemate, no
mating material); one replay of a game's moves serves a move's check, the board and the
record (:func:`read_moves` keeps the last few).
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..errors import InvalidRecord
from ..records import GameRecord, Result, Termination, Venue
from ..systems.site_live import Board, LiveGame, Ply, Side, timeout_problem
from ..timecontrol import parse_time_control
from .connection import as_utc

if TYPE_CHECKING:
    from ..moves import Played


def live_game(row: Any) -> LiveGame:
    plies = tuple(
        Ply(int(number), as_utc(datetime.fromisoformat(at)), move)
        for number, at, move in json.loads(row.moves)
    )
    return LiveGame(
        id=row.id,
        white=row.white,
        black=row.black,
        opened_at=as_utc(row.opened_at),
        time_control=None if row.time_control is None else parse_time_control(row.time_control),
        rated=row.rated,
        venue=Venue(row.venue),
        bot=None if row.bot is None else Side(row.bot),
        plies=plies,
    )


def game_record(
    game: LiveGame,
    result: Result,
    termination: Termination,
    played_at: datetime | None = None,
    confirmed: bool | None = None,
) -> GameRecord:
    """The finished game as a game record, validated like a submitted one."""
    data: dict[str, object] = {
        "id": game.id,
        "played_at": (played_at or game.opened_at).isoformat(),
        "white": game.white,
        "black": game.black,
        "result": result.value,
        "rated": game.rated,
        "termination": termination.value,
        "venue": game.venue.value,
    }
    if game.time_control is not None:
        data["time_control"] = str(game.time_control)
    if game.venue is Venue.ONLINE:
        data["plies"] = game.ply_count
        played = played_moves(game)
        if played is not None:
            data["moves"] = list(played.moves)
    if confirmed is not None:
        data["confirmed"] = confirmed
    return GameRecord.from_mapping(data, f"live game {game.id}", stored=True)


@lru_cache(maxsize=256)
def read_moves(moves: tuple[str, ...]) -> Played | str:
    """The moves read from the start position, or why they cannot be (one replay of a
    game's moves serves its move's check, its board and its record)."""
    from ..moves import MovesRefused, read_list

    try:
        return read_list(moves)
    except MovesRefused as error:
        return str(error)


def played_moves(game: LiveGame) -> Played | None:
    """The game's moves from the start position when every ply carries one that is
    legal there (each was checked as it came: :func:`check_move`), else None: the
    plies are then only the clock's, and the rated game has no moves."""
    moves = tuple(ply.move for ply in game.plies)
    if not moves or any(move is None for move in moves):
        return None
    read = read_moves(moves)
    return None if isinstance(read, str) else read  # str: recorded before they were checked


def last_board(game: LiveGame) -> Board | None:
    """What the moves make of the last position, when every ply carried one."""
    played = played_moves(game)
    if played is None:
        return None
    short = frozenset(Side(name) for name in played.cannot_mate)
    if played.ending is None:
        return Board(cannot_mate=short)
    return Board(played.ending.how, Result(played.ending.result), short)


def check_move(where: str, game: LiveGame, move: str | None) -> None:
    """A move after plies that all carry legal moves must be legal too (SAN or UCI),
    as on ``POST /games``; after a ply without one, a move is a label, not checked."""
    if move is None or any(ply.move is None for ply in game.plies):
        return
    read = read_moves((*(ply.move for ply in game.plies), move))
    if isinstance(read, str):
        if game.plies and played_moves(game) is None:  # the earlier plies are labels
            return
        raise InvalidRecord(where, "move", read)


def check_result(where: str, game: LiveGame, result: Result, termination: Termination) -> None:
    """A finish's result must be the one the moves' last position makes, if it makes
    one (checkmate, stalemate, no mating material): the rules of play ended the game
    there; and a loss on time cannot be against a side without mating material."""
    from ..moves import result_problem

    played = played_moves(game)
    problem = None if played is None else result_problem(result.value, played)
    if problem is None and termination is Termination.TIMEOUT:
        problem = timeout_problem(game, result, last_board(game))
    if problem is not None:
        raise InvalidRecord(where, "result", problem)


def repeated_ply(game: LiveGame, number: int, move: str | None) -> bool:
    """A ply sent again (a client's retry): the same number and the same move."""
    if not 1 <= number <= game.ply_count:
        return False
    stored = game.plies[number - 1]
    return move is None or stored.move == move
