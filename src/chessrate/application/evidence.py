"""A tolerant reader of the fair-play evidence stored with analyses and reports.

Two kinds of evidence, in two versions, are read into one shape for the pages:

- a **game's** evidence: per side the statistics, who is flagged, every analysed move.
  Version 2 (``"version": 2``) has per side ``score``, ``loss``, the expected values
  and a ``window`` (and, since the choice score, ``choice_score`` and the shares of
  moves outside the engine's two best), and each move as ``{"ply", "played", "best",
  "loss", "expected", "counted", "suspicious"}``; version 1 (no ``version``) has per
  side ``match_rate`` and ``acpl`` and each move as ``[ply, played, best, loss]``.
- a **record** (``"kind": "record"``): a player flagged on their last games together,
  ``{"player", "score", "limit", "games": [{"game", "side", "score", "moves",
  "flagged"}]}``.

Whatever is missing, of the wrong type or unknown is left out (None): reading never
fails, so old or odd evidence still shows what it holds. :func:`game_moves` puts the
analysed moves on the game's whole move list (SAN, the move's number and side) when
the moves can be replayed from the start.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import chess

from ..moves import legal_move

SIDES = ("white", "black")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def _text(value: Any, longest: int = 200) -> str | None:
    return value[:longest] if isinstance(value, str) and value else None


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


@dataclass(frozen=True, slots=True)
class Window:
    from_ply: int | None
    to_ply: int | None
    moves: int | None
    score: float | None


@dataclass(frozen=True, slots=True)
class SideEvidence:
    """One side's statistics (any may be None: not in this evidence)."""

    side: str
    rating: float | None = None
    moves: int | None = None
    matches: int | None = None
    match_rate: float | None = None
    expected_match_rate: float | None = None
    loss: float | None = None
    expected_loss: float | None = None
    acpl: float | None = None
    score: float | None = None
    window: Window | None = None
    flagged: bool = False
    reason: str | None = None
    choice_score: float | None = None
    outside_rate: float | None = None
    expected_outside_rate: float | None = None


@dataclass(frozen=True, slots=True)
class MoveEvidence:
    """One analysed move (``ply`` 1 is White's first)."""

    ply: int
    played: str | None = None
    best: str | None = None
    loss: float | None = None
    expected: float | None = None
    counted: bool | None = None
    suspicious: bool = False

    @property
    def side(self) -> str:
        return "white" if self.ply % 2 else "black"

    @property
    def matched(self) -> bool | None:
        if self.played is None or self.best is None:
            return None
        return self.played == self.best


@dataclass(frozen=True, slots=True)
class GameEvidence:
    version: int
    engine: str | None = None
    complete: bool | None = None
    sides: dict[str, SideEvidence] = field(default_factory=dict)
    flagged: tuple[str, ...] = ()
    moves: tuple[MoveEvidence, ...] = ()

    kind = "game"

    @property
    def suspicious(self) -> tuple[MoveEvidence, ...]:
        return tuple(m for m in self.moves if m.suspicious)


@dataclass(frozen=True, slots=True)
class RecordGame:
    game: str
    side: str | None = None
    score: float | None = None
    moves: int | None = None
    flagged: bool | None = None
    choice_score: float | None = None


@dataclass(frozen=True, slots=True)
class RecordEvidence:
    version: int
    player: str | None = None
    score: float | None = None
    limit: int | None = None
    games: tuple[RecordGame, ...] = ()
    choice_score: float | None = None
    by: str | None = None
    """What flagged the record: ``score``, ``choices`` or ``game`` (None: not said, as
    in a report filed before the record's choice score)."""

    kind = "record"


Evidence = GameEvidence | RecordEvidence


def _window(value: Any) -> Window | None:
    if not isinstance(value, Mapping):
        return None
    return Window(
        _int(value.get("from_ply")), _int(value.get("to_ply")), _int(value.get("moves")),
        _number(value.get("score")),
    )  # fmt: skip


def _side(side: str, value: Any, flagged: Iterable[str]) -> SideEvidence | None:
    if not isinstance(value, Mapping):
        return None
    reason = _text(value.get("reason"), 32)
    flag = _flag(value.get("flagged"))
    return SideEvidence(
        side=side,
        rating=_number(value.get("rating")),
        moves=_int(value.get("moves")),
        matches=_int(value.get("matches")),
        match_rate=_number(value.get("match_rate")),
        expected_match_rate=_number(value.get("expected_match_rate")),
        loss=_number(value.get("loss")),
        expected_loss=_number(value.get("expected_loss")),
        acpl=_number(value.get("acpl")),
        score=_number(value.get("score")),
        window=_window(value.get("window")),
        flagged=flag if flag is not None else side in flagged,
        reason=reason,
        choice_score=_number(value.get("choice_score")),
        outside_rate=_number(value.get("outside_rate")),
        expected_outside_rate=_number(value.get("expected_outside_rate")),
    )


def _move(value: Any) -> MoveEvidence | None:
    if isinstance(value, Mapping):
        ply = _int(value.get("ply"))
        if ply is None or ply < 1:
            return None
        return MoveEvidence(
            ply, _text(value.get("played"), 16), _text(value.get("best"), 16),
            _number(value.get("loss")), _number(value.get("expected")),
            _flag(value.get("counted")), _flag(value.get("suspicious")) is True,
        )  # fmt: skip
    if isinstance(value, Sequence) and not isinstance(value, str) and value:
        ply = _int(value[0])
        if ply is None or ply < 1:
            return None
        more = [*value[1:4], None, None, None]
        return MoveEvidence(ply, _text(more[0], 16), _text(more[1], 16), _number(more[2]))
    return None


def read_evidence(data: Any) -> Evidence | None:
    """The evidence in ``data`` (a game's or a record, version 1 or 2), or None when it
    is not evidence at all (not a JSON object)."""
    if not isinstance(data, Mapping):
        return None
    version = _int(data.get("version")) or 1
    if data.get("kind") == "record":
        found = data.get("games")
        games = tuple(
            RecordGame(
                game,
                _text(g.get("side"), 8),
                _number(g.get("score")),
                _int(g.get("moves")),
                _flag(g.get("flagged")),
                _number(g.get("choice_score")),
            )
            for g in (found if isinstance(found, list) else [])
            if isinstance(g, Mapping) and (game := _text(g.get("game"))) is not None
        )
        by = _text(data.get("by"), 16)
        return RecordEvidence(
            version, _text(data.get("player")), _number(data.get("score")),
            _int(data.get("limit")), games, _number(data.get("choice_score")),
            by if by in ("score", "choices", "game") else None,
        )  # fmt: skip
    listed = data.get("flagged")
    flagged = tuple(
        s for s in (listed if isinstance(listed, list) else []) if isinstance(s, str) and s in SIDES
    )
    sides = {side: found for side in SIDES if (found := _side(side, data.get(side), flagged))}
    moves_found = data.get("moves")
    moves = tuple(
        m for m in (_move(v) for v in (moves_found if isinstance(moves_found, list) else []))
        if m is not None
    )  # fmt: skip
    flagged = tuple(dict.fromkeys((*flagged, *(s for s, e in sides.items() if e.flagged))))
    return GameEvidence(
        version, _text(data.get("engine"), 64), _flag(data.get("complete")), sides, flagged,
        tuple(sorted(moves, key=lambda m: m.ply)),
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class PlayedMove:
    """A ply of the game as the case page lists it: the move (SAN when the game could
    be replayed, else as given), and its analysis when it was analysed."""

    ply: int
    number: int
    side: str
    move: str | None
    uci: str | None
    best: str | None
    """The engine's choice (SAN when the position is known, else UCI)."""
    analysis: MoveEvidence | None
    fen_before: str | None = None

    @property
    def suspicious(self) -> bool:
        return self.analysis is not None and self.analysis.suspicious


def _san(board: chess.Board, uci: str | None) -> str | None:
    if uci is None:
        return None
    try:
        move = chess.Move.from_uci(uci)
    except ValueError:
        return uci
    return board.san(move) if board.is_legal(move) else uci


def game_moves(
    recorded: Sequence[str | None] | None, evidence: GameEvidence | None
) -> tuple[list[PlayedMove], bool]:
    """Every ply of the game with its analysis, and whether the positions are known.

    The moves are the game's recorded ones (``recorded``, SAN or UCI, from the start)
    when given, else the evidence's own moves when they run from ply 1 without a gap.
    Replayed with python-chess, each ply gets its SAN and the position before it; a
    move that cannot be replayed ends the replay (the rest is listed as given)."""
    analysed = {m.ply: m for m in evidence.moves} if evidence else {}
    sequence: list[str | None]
    if recorded:
        sequence = list(recorded)
    elif analysed and sorted(analysed) == list(range(1, len(analysed) + 1)):
        sequence = [analysed[ply].played for ply in range(1, len(analysed) + 1)]
    else:
        sequence = []
    board: chess.Board | None = chess.Board()
    listed: list[PlayedMove] = []
    for ply, text in enumerate(sequence, 1):
        mark = analysed.get(ply)
        side = "white" if ply % 2 else "black"
        number = (ply + 1) // 2
        move = None if board is None or not text else legal_move(board, text.strip())
        if board is not None and move is not None:
            listed.append(
                PlayedMove(
                    ply, number, side, board.san(move), move.uci(),
                    _san(board, mark.best if mark else None), mark, board.fen(),
                )
            )  # fmt: skip
            board.push(move)
        else:
            board = None
            listed.append(PlayedMove(ply, number, side, text, None,
                                     mark.best if mark else None, mark))  # fmt: skip
    if not listed:  # no whole game: the analysed moves alone, as given
        for ply, mark in sorted(analysed.items()):
            listed.append(
                PlayedMove(ply, (ply + 1) // 2, mark.side, mark.played, mark.played, mark.best,
                           mark)
            )  # fmt: skip
        return listed, False
    for ply, mark in sorted(analysed.items()):  # analysed plies past the recorded ones
        if ply > len(sequence):
            listed.append(
                PlayedMove(ply, (ply + 1) // 2, mark.side, mark.played, mark.played, mark.best,
                           mark)
            )  # fmt: skip
    return listed, board is not None


__all__ = [
    "Evidence",
    "GameEvidence",
    "MoveEvidence",
    "PlayedMove",
    "RecordEvidence",
    "RecordGame",
    "SideEvidence",
    "game_moves",
    "read_evidence",
]
