"""A game's board and moves as pages show them: the position after a ply drawn as SVG
on the server (python-chess's ``chess.svg``, no chess library in the browser), the moves
in numbered pairs (SAN) each linking to its position, a live game's clocks, and a game
as PGN (its tags escaped as the PGN standard says)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import chess
import chess.svg
from markupsafe import Markup

from ..application.games import GamePublic
from ..application.live import LiveGamePublic
from ..moves import legal_move
from ..timecontrol import ClockKind, parse_time_control
from .formats import seconds_text

BOARD_SIZE = 360
"""The board's drawn size in px (the page scales it down to a phone's width)."""


@dataclass(frozen=True, slots=True)
class Move:
    """One ply as the move list shows it."""

    ply: int
    number: int
    san: str
    white: bool


@dataclass(frozen=True, slots=True)
class Shown:
    """A game's board at ``ply`` (of ``plies``), its moves, and the board's name."""

    svg: Markup
    ply: int
    plies: int
    title: str
    moves: list[Move] = field(default_factory=list)

    def pairs(self) -> list[tuple[int, Move, Move | None]]:
        """The moves in numbered pairs: (move number, White's move, Black's or None)."""
        out: list[tuple[int, Move, Move | None]] = []
        for index in range(0, len(self.moves), 2):
            white = self.moves[index]
            black = self.moves[index + 1] if index + 1 < len(self.moves) else None
            out.append((white.number, white, black))
        return out


def _ply_asked(ply: str | None, plies: int) -> int:
    """The ply asked for: a whole number from 0 to ``plies``; anything else (text, out
    of range) is ignored and the final position shown."""
    if ply is None or not ply.strip().isdigit() or len(ply.strip()) > 4:
        return plies
    asked = int(ply.strip())
    return asked if asked <= plies else plies


def game_board(
    white: str,
    black: str,
    moves: list[str] | tuple[str, ...],
    ply: str | None,
    start: bool = False,
) -> Shown | None:
    """The board after ``ply`` of ``moves`` (UCI or SAN from the start position), with
    the moves in SAN; None when the game has no moves (unless ``start``: the start
    position). A move that does not play (it
    cannot happen for stored moves, which were checked) ends the list there."""
    if not moves and not start:
        return None
    board = chess.Board()
    played: list[Move] = []
    boards: list[chess.Board] = [board.copy(stack=False)]
    for text in moves:
        move = legal_move(board, text)
        if move is None:
            break
        san = board.san(move)
        played.append(Move(board.ply() + 1, board.fullmove_number, san, board.turn))
        board.push(move)
        boards.append(board.copy(stack=False))
    at = _ply_asked(ply, len(played))
    position = boards[at]
    last = boards[at - 1].parse_san(played[at - 1].san) if at else None
    if at == 0:
        where = "the start position"
    else:
        m = played[at - 1]
        where = f"the position after {m.number}{'.' if m.white else '...'} {m.san}"
    title = f"Board: {where} ({white} – {black})"
    check = position.king(position.turn) if position.is_check() else None
    svg = chess.svg.board(position, size=BOARD_SIZE, lastmove=last, check=check)
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{_attr(title)}" ', 1).replace(
        ">", f"><title>{_attr(title)}</title>", 1
    )
    return Shown(Markup(svg), at, len(played), title, played)


def _attr(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


@dataclass(frozen=True, slots=True)
class Clock:
    side: str
    player: str
    text: str
    running: bool


def live_clocks(game: LiveGamePublic, now: datetime | None = None) -> list[Clock] | None:
    """Each side's clock of a clocked live game, from its time control and the times
    of its moves: the base, less the time each side took, plus the increment per move
    made; the side to move's clock runs from the last move (or the opening) till
    ``now``. None for a game without a clock."""
    if not game.time_control:
        return None
    try:
        control = parse_time_control(game.time_control)
    except ValueError:
        return None
    if control.kind is not ClockKind.CLOCKED:
        return None
    left = {"white": control.base, "black": control.base}
    previous = game.opened_at
    for m in game.moves:
        side = "white" if m.ply % 2 else "black"
        if m.ply > 2:  # the first move of each side takes no time off its clock
            left[side] -= int((m.at - previous).total_seconds())
        left[side] += control.increment
        previous = m.at
    running = game.to_move.value if game.to_move is not None else None
    if running is not None and now is not None and len(game.moves) >= 2:
        left[running] -= int((now - previous).total_seconds())
    return [
        Clock(side, player, seconds_text(max(0, left[side])), side == running)
        for side, player in (("white", game.white), ("black", game.black))
    ]


def pgn_tag(value: str) -> str:
    """A tag's value as the PGN standard writes it: a backslash and a quote escaped by a
    backslash, no line breaks or tabs (they become spaces)."""
    flat = " ".join(value.replace("\t", " ").splitlines())
    return flat.replace("\\", "\\\\").replace('"', '\\"')


def _pgn_date(played_at: str) -> str:
    date = played_at[:10]
    if len(date) == 10 and date[4] == "-" and date[7] == "-":
        return date.replace("-", ".")
    return "????.??.??"


def _pgn_control(text: str | None) -> str:
    """The time control as a PGN TimeControl tag: ``180+2``, ``300``, ``-`` (none),
    ``1/259200`` (a move in 3 days), ``?`` (unknown)."""
    if not text:
        return "?"
    try:
        control = parse_time_control(text)
    except ValueError:
        return "?"
    if control.kind is ClockKind.CLOCKED:
        return f"{control.base}+{control.increment}" if control.increment else str(control.base)
    if control.days_per_move:
        return f"1/{control.days_per_move * 86400}"
    return "-"


def pgn_text(game: GamePublic, white_name: str | None, black_name: str | None) -> str:
    """The game as PGN: the seven tag roster's tags (Round unknown) with TimeControl,
    and the movetext wrapped at 79 characters, ending with the result."""
    result = game.result if game.result in ("1-0", "0-1", "1/2-1/2") else "*"
    tags = [
        ("Event", f"chessrate game {game.id}"),
        ("Site", "chessrate" if game.venue == "online" else f"chessrate ({game.venue})"),
        ("Date", _pgn_date(game.played_at)),
        ("Round", "-"),
        ("White", white_name or game.white),
        ("Black", black_name or game.black),
        ("Result", result),
        ("TimeControl", _pgn_control(game.time_control)),
    ]
    lines = [f'[{name} "{pgn_tag(value)}"]' for name, value in tags]
    shown = game_board(game.white, game.black, game.moves or (), None)
    words: list[str] = []
    for number, white, black in shown.pairs() if shown else []:
        words += [f"{number}.", white.san] + ([black.san] if black else [])
    words.append(result)
    movetext: list[str] = []
    line = ""
    for word in words:
        if line and len(line) + 1 + len(word) > 79:
            movetext.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    movetext.append(line)
    return "\n".join(lines) + "\n\n" + "\n".join(movetext) + "\n"
