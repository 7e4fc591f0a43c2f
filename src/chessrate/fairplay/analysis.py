"""What the engine says about a game's positions: the raw material of the detector.

For every position from ply ``opening_plies + 1`` to the end, one search with
``MultiPV`` = ``candidates`` at a fixed depth gives the values of the engine's best few
moves for the side to move; the value of the move actually played is read from that
list when it is there, else from the search of the position after it (negated: the
next search is from the opponent's side). A :class:`Position` keeps exactly that, in
centipawns for the mover (a mate as ``MATE_CP`` minus its distance), so the model
(:mod:`.model`) can be fitted and run again on stored analyses without the engine.

One thread, and the hash cleared (``ucinewgame``) at the game's first analysed position
and then kept from one position to the next (``keep_hash``; or cleared before every
position when it is false): the searches of one game are then the same sequence from
the same empty state, so the same game gives the same positions whatever was searched
before, and each search starts from what the last one learnt (depth 10 this way costs
about a third more than depth 9 from a cleared hash, not twice as much).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import chess
import chess.engine

MATE_CP = 10_000
"""A mate's value in centipawns (minus the plies to it): far past any position that is
still in play, so its expected score is 1 (or 0)."""


class Limits(Protocol):
    """The analysis numbers of :class:`~chessrate.fairplay.detector.DetectorRules`."""

    @property
    def opening_plies(self) -> int: ...
    @property
    def depth(self) -> int: ...
    @property
    def candidates(self) -> int: ...
    @property
    def keep_hash(self) -> bool: ...
    @property
    def max_positions(self) -> int: ...
    @property
    def game_seconds(self) -> float: ...


@dataclass(frozen=True, slots=True)
class Position:
    """One analysed position: the ply of the move played from it (1 = White's first),
    how many legal moves it had, the engine's best ``candidates`` moves with their
    values (UCI, centipawns for the side to move; best first), the move played (UCI)
    and its value when it is not among them (from the next position's search)."""

    ply: int
    legal: int
    top: tuple[tuple[str, int], ...]
    played: str
    after: int | None = None

    @property
    def played_cp(self) -> int:
        """The played move's value for the mover, in centipawns."""
        for move, cp in self.top:
            if move == self.played:
                return cp
        assert self.after is not None
        return self.after

    def to_json(self) -> list[Any]:
        return [self.ply, self.legal, [list(c) for c in self.top], self.played, self.after]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> Position:
        ply, legal, top, played, after = data
        return cls(int(ply), int(legal), tuple((str(m), int(v)) for m, v in top), str(played),
                   None if after is None else int(after))  # fmt: skip


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    """A game's analysed positions; ``complete`` false when the position limit or the
    time budget stopped the analysis before the end."""

    positions: tuple[Position, ...]
    complete: bool
    seconds: float


def _cp(score: chess.engine.PovScore, turn: chess.Color) -> int:
    value = score.pov(turn).score(mate_score=MATE_CP)
    assert value is not None
    return value


def terminal_value(board: chess.Board) -> int | None:
    """The value for the side to move of a finished position (mated: −MATE_CP; a
    stalemate or a draw by rule: 0), None for one still in play."""
    if board.is_checkmate():
        return -MATE_CP
    if board.is_game_over(claim_draw=False):
        return 0
    return None


def search(
    engine: chess.engine.SimpleEngine,
    board: chess.Board,
    depth: int,
    candidates: int,
    game: object | None = None,
) -> tuple[tuple[str, int], ...]:
    """The engine's best ``candidates`` moves in ``board`` and their values for the side
    to move, best first: from a cleared hash, or, given the token of a ``game``, from
    the hash its earlier searches left (python-chess clears it when the token
    changes)."""
    infos = engine.analyse(
        board, chess.engine.Limit(depth=depth), multipv=candidates,
        game=object() if game is None else game,
    )  # fmt: skip
    top = []
    for info in infos:
        pv = info.get("pv")
        if pv:
            top.append((pv[0].uci(), _cp(info["score"], board.turn)))
    top.sort(key=lambda c: -c[1])
    return tuple(top)


def analyse_moves(
    engine: chess.engine.SimpleEngine, moves: Sequence[chess.Move], limits: Limits
) -> GameAnalysis:
    """Search the game's positions after the opening (module docstring)."""
    started = time.monotonic()
    board = chess.Board()
    for move in moves[: limits.opening_plies]:
        board.push(move)
    todo = list(moves[limits.opening_plies :])
    complete = True
    if len(todo) > limits.max_positions:
        todo, complete = todo[: limits.max_positions], False
    positions: list[Position] = []
    game = object() if limits.keep_hash else None
    top = search(engine, board, limits.depth, limits.candidates, game) if todo else ()
    for offset, move in enumerate(todo):
        if time.monotonic() - started > limits.game_seconds:
            complete = False
            break
        ply = limits.opening_plies + offset + 1
        legal = board.legal_moves.count()
        board.push(move)
        end = terminal_value(board)
        last = offset == len(todo) - 1
        listed = any(m == move.uci() for m, _ in top)
        following: tuple[tuple[str, int], ...] = ()
        if end is None and (not last or not listed):
            following = search(engine, board, limits.depth, limits.candidates, game)
        after = None
        if not listed:
            after = -(end if end is not None else following[0][1])
        positions.append(Position(ply, legal, top, move.uci(), after))
        top = following
    return GameAnalysis(tuple(positions), complete, time.monotonic() - started)
