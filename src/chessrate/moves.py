"""A game's moves as submitted: a list of moves (SAN or UCI, one ply each) or the PGN
movetext as one string, read from the standard start position, checked legal and
normalised to UCI (what the ledger stores and the fair-play detector reads).

The limits keep hostile input cheap to refuse: at most :data:`MAX_MOVES` plies, a move
of at most :data:`MOVE_LONGEST` characters, movetext of at most
:data:`MOVETEXT_LONGEST` characters. Every refusal is a :class:`MovesRefused` naming the
ply and the move when there is one; the record's reader turns it into the record's
:class:`~chessrate.errors.InvalidRecord` (its id, the field).

python-chess reads the movetext (``chess.pgn.read_game``) but silently skips what it
does not understand, so the text is first split into the tokens movetext may hold
(move numbers, moves, comments, NAGs, variations, the result, headers) and anything
else is refused here.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import NamedTuple

import chess
import chess.pgn

from .records import Result

MAX_MOVES = 600
"""The most plies a game's moves hold (the longest games played are about 550 plies)."""
MOVE_LONGEST = 12
"""The longest move in a list, in characters (``exd8=Q+`` is 7)."""
MOVETEXT_LONGEST = 100_000
"""The longest movetext, in characters (comments included)."""
MOVES_READ = 4 * MAX_MOVES
"""The most moves movetext holds, its variations' included."""

_SAN = (
    r"(?:[NBKRQ]?[a-h]?[1-8]?[\-x]?[a-h][1-8](?:=?[nbrqkNBRQK])?|O-O(?:-O)?|0-0(?:-0)?)"
    r"[+#]?[!?]{0,2}"
)
_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
    |(?P<comment>\{[^}]*\}|;[^\n]*)
    |(?P<header>\[[^\]\n]*\])
    |(?P<result>1-0|0-1|1/2-1/2|½-½|\*)
    |(?P<number>\d+\.+)
    |(?P<nag>\$\d+|[!?]{1,2})
    |(?P<paren>[()])
    |(?P<move>"""
    + _SAN
    + r""")(?=[\s(){};$!?]|$)
    |(?P<null>--|Z0|0000)
    """,
    re.VERBOSE,
)
_GLYPHS = re.compile(r"[!?]{1,2}$")


class MovesRefused(ValueError):
    """Moves that cannot be read: ``reason`` says why (the ply and the move, when one)."""


class Ending(NamedTuple):
    """How the moves end the game by themselves: ``how`` (checkmate, stalemate,
    insufficient material) and the only result the game can then have."""

    how: str
    result: str


class Played(NamedTuple):
    """A game's moves as UCI, the ending their last position makes, if any, and the
    sides (``"white"``, ``"black"``) left without the material to mate there (a loss
    on time against such a side is a draw)."""

    moves: tuple[str, ...]
    ending: Ending | None
    cannot_mate: frozenset[str] = frozenset()
    stated: str | None = None
    """The result movetext states (its result token, else its ``Result`` tag):
    ``1-0``, ``0-1``, ``1/2-1/2`` or ``*``; None for a list of moves or movetext that
    states none."""


def _played(moves: Sequence[str], board: chess.Board | None, stated: str | None = None) -> Played:
    """The moves read, with what their last position (``board``; None: no move) says,
    and the result their movetext ``stated``."""
    if board is None:
        return Played(tuple(moves), None, stated=stated)
    short = frozenset(
        name for name, color in (("white", chess.WHITE), ("black", chess.BLACK))
        if board.has_insufficient_material(color)
    )  # fmt: skip
    return Played(tuple(moves), ending_of(board), short, stated)


def ending_of(board: chess.Board) -> Ending | None:
    """The ending ``board`` (the position after the last move) makes by the rules of
    play: checkmate is the mover's loss; stalemate and a position where neither side
    has the material to mate are draws. None when the game could go on."""
    if board.is_checkmate():
        return Ending("checkmate", "0-1" if board.turn == chess.WHITE else "1-0")
    if board.is_stalemate():
        return Ending("stalemate", "1/2-1/2")
    if board.is_insufficient_material():
        return Ending("insufficient material (neither side can mate)", "1/2-1/2")
    return None


def ply_name(ply: int, text: str) -> str:
    """``ply 5 (3. Qxh7)``: the ply and the move as a person numbers it."""
    number = (ply + 1) // 2
    dots = "." if ply % 2 else "..."
    return f"ply {ply} ({number}{dots} {text[:MOVE_LONGEST]!r})"


def legal_move(board: chess.Board, text: str) -> chess.Move | None:
    """``text`` (UCI or SAN) as a legal move in ``board``, else None; a null move is
    never one."""
    try:
        move = chess.Move.from_uci(text)
    except ValueError:
        pass
    else:
        return move if move and board.is_legal(move) else None
    try:
        move = board.parse_san(text)
    except ValueError:
        return None
    return move if move else None


def result_problem(result: str, played: Played) -> str | None:
    """Why ``result`` cannot be the result of a game whose moves are ``played``: the
    rules of play ended it at their last position with another, or its movetext
    states another; None when it can."""
    ending = played.ending
    if ending is not None and result != ending.result:
        return (
            f"is {result} but the moves end in {ending.how} after ply {len(played.moves)}: "
            f"the game's result is {ending.result}"
        )
    if played.stated is not None and result != played.stated:
        return f"is {result} but the movetext ends with {played.stated}"
    return None


def moves_from_list(moves: Sequence[object]) -> tuple[str, ...]:
    """A list of moves, one ply each (SAN or UCI, annotation glyphs such as ``!?``
    tolerated), as UCI; :class:`MovesRefused` names the first ply that is not a legal
    move."""
    return read_list(moves).moves


def read_list(moves: Sequence[object]) -> Played:
    """:func:`moves_from_list`, with the ending of the last position."""
    if len(moves) > MAX_MOVES:
        raise MovesRefused(f"holds {len(moves):,} plies; at most {MAX_MOVES}")
    board = chess.Board()
    played = []
    for ply, item in enumerate(moves, start=1):
        if not isinstance(item, str):
            raise MovesRefused(f"ply {ply}: must be a string (one move, SAN or UCI)")
        text = item.strip()
        if not text:
            raise MovesRefused(f"ply {ply}: is empty (one move, SAN or UCI)")
        if len(text) > MOVE_LONGEST:
            raise MovesRefused(
                f"ply {ply}: {text[:MOVE_LONGEST]!r}… is {len(text):,} characters long; "
                f"a move is at most {MOVE_LONGEST}"
            )
        move = legal_move(board, _GLYPHS.sub("", text) or text)
        if move is None:
            raise MovesRefused(f"{ply_name(ply, text)}: not a legal move in the position")
        board.push(move)
        played.append(move.uci())
    return _played(played, board if played else None)


def moves_from_movetext(text: str) -> tuple[str, ...]:
    """PGN movetext (``1. e4 e5 2. Nf3 …``; comments, NAGs, variations, the result
    token and tag pairs tolerated; the main line is the game) as UCI."""
    return read_movetext(text).moves


def read_movetext(text: str) -> Played:
    """:func:`moves_from_movetext`, with the ending of the main line's last position."""
    if len(text) > MOVETEXT_LONGEST:
        raise MovesRefused(f"is {len(text):,} characters long; at most {MOVETEXT_LONGEST:,}")
    token = _check_tokens(text)
    try:
        read = chess.pgn.read_game(io.StringIO(text), Visitor=_MainLine)
    except _Illegal as error:
        raise MovesRefused(error.reason) from None
    except (ValueError, RecursionError) as error:  # a header python-chess refuses
        raise MovesRefused(f"cannot be read as PGN movetext: {str(error)[:200]}") from None
    if read is None:
        return Played((), None, stated=token)
    headers, played, board = read
    tagged = _as_result(headers.get("Result", "").strip()) or None
    if tagged is not None and tagged not in {result.value for result in Result}:
        raise MovesRefused(f"its Result tag {tagged[:20]!r} is not a result (1-0, 0-1, 1/2-1/2, *)")
    if token is not None and tagged is not None and token != tagged:
        raise MovesRefused(f"its Result tag says {tagged} but it ends with {token}")
    if "FEN" in headers or headers.get("Variant", "standard").lower() not in (
        "standard", "chess", "",
    ):  # fmt: skip
        raise MovesRefused("must start from the standard position (no FEN or Variant tag)")
    for ply, move in enumerate(played, start=1):
        if not move:
            raise MovesRefused(f"ply {ply}: a null move ('--') is not a move")
        if ply > MAX_MOVES:
            raise MovesRefused(f"holds more than {MAX_MOVES} plies")
    return _played([move.uci() for move in played], board, token or tagged)  # board None: no move


def _as_result(text: str) -> str:
    """A result as movetext writes it, in the ledger's spelling (``½-½`` is
    ``1/2-1/2``)."""
    return "1/2-1/2" if text == "½-½" else text


def _check_tokens(text: str) -> str | None:
    """Refuse text that is not movetext: a word that is not a move, a move number, a
    comment, a NAG, a parenthesis, a header or the result; a second game after the
    result. Returns the result token, if the text ends with one."""
    position = 0
    started = ended = False
    token = None
    moves = 0
    while position < len(text):
        found = _TOKEN.match(text, position)
        if found is None or found.lastgroup == "null":
            word = text[position:].split(maxsplit=1)[0][:20] if text[position:].strip() else ""
            if found is not None:
                raise MovesRefused(f"{word!r}: a null move is not a move")
            raise MovesRefused(
                f"{word!r} at character {position + 1} is not a move (SAN), a move number, "
                "a comment, a NAG or a result"
            )
        kind = found.lastgroup
        if kind == "header":
            rest = text[found.end() :].split("\n", 1)[0]
            if started or rest.strip():
                raise MovesRefused(
                    f"a tag pair at character {position + 1} must stand on a line of its "
                    "own, before the moves"
                )
        elif kind not in ("space", "comment"):
            started = True
            if kind == "move":
                moves += 1
                if moves > MOVES_READ:
                    raise MovesRefused(f"holds more than {MOVES_READ:,} moves, variations included")
        if ended and kind not in ("space", "comment"):
            raise MovesRefused(
                f"holds more after the result at character {position + 1} (one game only)"
            )
        if kind == "result":
            ended = True
            token = _as_result(found.group())
        position = found.end()
    return token


class _Illegal(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _MainLine(chess.pgn.BaseVisitor[tuple[dict[str, str], list[chess.Move], chess.Board | None]]):
    """A reader of one game for ``chess.pgn.read_game``: its tags and its main line's
    moves, each parsed (legal: python-chess plays them on its board as it reads) and
    kept as it comes, without the game tree python-chess's own builder makes (a node a
    move, replayed again to list them). Variations are read and checked as the builder
    checks them, and left out; it stops at the first move it cannot play, saying which
    (the builder notes the error and drops the rest silently). The main line's board
    (python-chess plays the main line on one board throughout) is kept for the ending
    of its last position."""

    def begin_game(self) -> None:
        self.headers: dict[str, str] = {}
        self.moves: list[chess.Move] = []
        self.board: chess.Board | None = None
        self.depth = 0

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.headers[tagname] = tagvalue

    def begin_variation(self) -> None:
        self.depth += 1

    def end_variation(self) -> None:
        self.depth -= 1

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        if self.depth == 0:
            self.moves.append(move)
            self.board = board

    def parse_san(self, board: chess.Board, san: str) -> chess.Move:
        try:
            return super().parse_san(board, san)
        except ValueError:
            raise _Illegal(
                f"{ply_name(board.ply() + 1, san)}: not a legal move in the position"
            ) from None

    def handle_error(self, error: Exception) -> None:
        if isinstance(error, _Illegal):
            raise error
        raise _Illegal(f"cannot be read as PGN movetext: {str(error)[:200]}")

    def result(self) -> tuple[dict[str, str], list[chess.Move], chess.Board | None]:
        return self.headers, self.moves, self.board
