"""FIDE Tournament Report Files (TRF-16): read and write.

A TRF file is a list of lines, each starting with a three-character record
code. ``001`` lines are players, in fixed columns (TRF-16, FIDE Handbook C.04
Annex 2)::

    001 SSSS sTTT NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN RRRR FFF IIIIIIIIIII BBBB/BB/BB PPPP RRRR
    ... then  1111 1 1  2222 2 2 ...

    columns: start rank 5-8, sex 10, title 11-13, name 15-47, rating 49-52,
    federation 54-56, FIDE id 58-68, birth date 70-79, points 81-84, rank 86-89,
    then one 10-column block a round from column 92: opponent 92-95, colour 97,
    result 99 (round 2 at 102, ...).

Every other line (``012`` tournament name, ``092`` type, ``013`` teams, ``132``
round dates, lichess's ``XXR``/``XXC``, comments, ...) is kept verbatim in
:attr:`Tournament.headers`, so that :func:`write_trf` gives the file back.

The reader is lenient about layout (UTF-8 or latin-1, CRLF or LF, trailing
blanks, blank lines, lines cut after their last non-blank column) and strict
about content: every malformed field raises :class:`InvalidRecord` naming
``FILE:LINE``, the field and the reason, and so do duplicate start ranks,
opponents that no ``001`` line has and pairings or results that the two
players' lines do not agree on. The writer is strict: a value that does not
fit its columns raises :class:`InvalidInput`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from pathlib import Path

from ..errors import InvalidInput, InvalidRecord
from ..numbers import HALF, ONE

__all__ = [
    "RATED_CODES",
    "RESULT_CODES",
    "Tournament",
    "TrfPlayer",
    "TrfRound",
    "parse_trf",
    "read_trf",
    "write_trf",
]

RESULT_CODES = "10=+-wdlhfuz "
"""TRF-16 result codes, as stored (letters lower-case; the reader accepts either
case): ``1 0 =`` a game, ``+ -`` forfeit win / loss, ``w d l`` a win, draw or
loss in a game that lasted less than one move (not rated), ``h`` half-point
bye, ``f`` full-point bye, ``u`` pairing-allocated bye, ``z`` zero-point bye,
blank: no result."""

RATED_CODES = frozenset("10=")
"""The only result codes of a rated game (with an opponent)."""

_ZERO = Decimal("0")
_POINTS: dict[str, Decimal | None] = {
    "1": ONE,
    "0": _ZERO,
    "=": HALF,
    "+": ONE,
    "-": _ZERO,
    "w": ONE,
    "d": HALF,
    "l": _ZERO,
    "h": HALF,
    "f": ONE,
    "u": ONE,
    "z": _ZERO,
    " ": None,
}
_COMPLEMENT = {"1": "0", "0": "1", "=": "="}


class TrfColour(StrEnum):
    """A round's colour in a ``001`` record: white, black, or none (a bye, unpaired)."""

    WHITE = "w"
    BLACK = "b"
    NONE = "-"


_COLOURS = "".join(TrfColour)
_FIRST_ROUND_COLUMN = 92
_ROUND_WIDTH = 10
_PLAYER_CODE = "001"
_PLAYERS_MARKER = (_PLAYER_CODE, "")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_POINTS_TEXT = re.compile(r"\d{1,3}(\.\d{1,2})?")

# The columns of the static part of a 001 record, 1-based and inclusive.
_START_RANK = (5, 8)
_SEX = (10, 10)
_TITLE = (11, 13)
_NAME = (15, 47)
_RATING = (49, 52)
_FEDERATION = (54, 56)
_FIDE_ID = (58, 68)
_BIRTH = (70, 79)
_PLAYER_POINTS = (81, 84)
_RANK = (86, 89)
_STATIC_WIDTH = 89
# Columns that must be blank, with the field to their left (a character there
# means the record is misaligned or a value overflows its columns).
_SEPARATORS = (
    (4, "start_rank"),
    (9, "start_rank"),
    (14, "title"),
    (48, "name"),
    (53, "rating"),
    (57, "federation"),
    (69, "fide_id"),
    (80, "birth"),
    (85, "points"),
    (90, "rank"),
    (91, "rank"),
)
# Tournament fields and the header codes they come from.
_FIELD_CODES = (
    ("name", "012"),
    ("city", "022"),
    ("federation", "032"),
    ("start", "042"),
    ("end", "052"),
    ("kind", "092"),
    ("rate_of_play", "122"),
)
_ROUND_ROBIN_WORDS = (
    "roundrobin",
    "rundenturnier",
    "schev",
    "berger",
    "allplayall",
    "toutesrondes",
    "todoscontratodos",
)
_SWISS_WORDS = ("swiss", "schweiz", "suisse", "suizo", "svizzer")


@dataclass(frozen=True, slots=True)
class TrfRound:
    """One round of a player's ``001`` record: opponent, colour and result."""

    round: int
    """1-based round number (from the block's position in the line)."""
    opponent: int | None
    """The opponent's start rank; ``None`` for ``0000`` or blank (byes, unpaired)."""
    colour: str
    """A :class:`TrfColour` value: ``"w"``, ``"b"`` or ``"-"`` (a blank colour is read as
    ``"-"``)."""
    code: str
    """One character of :data:`RESULT_CODES` (blank: ``" "``)."""

    @property
    def rated(self) -> bool:
        """A rated game: a result code of :data:`RATED_CODES` against an opponent."""
        return self.code in RATED_CODES and self.opponent is not None

    @property
    def score(self) -> Decimal | None:
        """The points this round gave: 1, 0.5 or 0 (byes and forfeits included:
        ``+ f u w`` 1, ``h d`` 0.5, ``- z l`` 0); ``None`` for a blank result."""
        return _POINTS[self.code]


@dataclass(frozen=True, slots=True)
class TrfPlayer:
    """A player's ``001`` record."""

    start_rank: int
    sex: str
    """``"m"``, ``"w"`` (some programs write ``"f"``) or ``""``; lower-case."""
    title: str
    """As in the file, stripped: ``"g"``, ``"wg"``, ``"m"``, ``"GM"``, ... or ``""``."""
    name: str
    rating: int | None
    """The FIDE rating; ``None`` when blank or 0 (unrated)."""
    federation: str
    fide_id: str | None
    """The FIDE id (digits, without leading zeros); ``None`` when blank or 0."""
    birth: str
    """The birth date as written, stripped (``"1969.12.06"``, ``"2014/00/00"``, ...)."""
    points: Decimal | None
    rank: int | None
    rounds: tuple[TrfRound, ...]
    """One entry per round block; trailing blocks that are blank (or ``0000``
    with no colour and no result: not paired) are not kept."""
    line: int = field(compare=False)
    """The line number in the file (1-based). Where a record was read from, not
    what it says: it does not take part in equality, so that a tournament
    written and read back equals the original."""


@dataclass(frozen=True, slots=True)
class Tournament:
    """A TRF-16 file: the tournament's headers and its players."""

    name: str
    """Record ``012`` (stripped; ``""`` when absent)."""
    city: str
    """Record ``022``."""
    federation: str
    """Record ``032``."""
    start: str
    """Record ``042``, as written."""
    end: str
    """Record ``052``, as written."""
    kind: str
    """Record ``092``, the type of tournament, as written."""
    rate_of_play: str
    """Record ``122``."""
    players: tuple[TrfPlayer, ...]
    """The ``001`` records in file order."""
    headers: tuple[tuple[str, str], ...]
    """Every other non-blank line in file order, as ``(code, rest)``: ``code`` is
    the first three characters and ``rest`` what follows the blank in column 4
    (trailing blanks stripped). A line whose column 4 is not blank is not a TRF
    record (e.g. Swiss-Manager's column ruler ``1234567890...``): it is kept whole
    as its code, with an empty rest.

    Where the players stand: when some lines follow the first ``001`` line (e.g.
    Swiss-Manager's ``013`` team records), the entry ``("001", "")`` marks the
    position of the first ``001`` line; :func:`write_trf` writes every player
    there. Without that entry the players are written after all the headers."""
    source: str
    """The file path as given (or the ``source`` given to :func:`parse_trf`)."""
    rate_of_play_line: int = field(default=0, compare=False)
    """The line number of the ``122`` record (0: none), for errors about it."""

    @property
    def is_round_robin(self) -> bool | None:
        """What the ``092`` record says: ``True`` for a round robin (also a
        Scheveningen), ``False`` for a Swiss, ``None`` when it says neither."""
        letters = "".join(char for char in self.kind.casefold() if char.isalpha())
        if any(word in letters for word in _ROUND_ROBIN_WORDS):
            return True
        if any(word in letters for word in _SWISS_WORDS):
            return False
        return None

    def player(self, start_rank: int) -> TrfPlayer:
        """The player with this start rank; :class:`KeyError` if there is none."""
        if 1 <= start_rank <= len(self.players):
            guess = self.players[start_rank - 1]
            if guess.start_rank == start_rank:
                return guess
        for candidate in self.players:
            if candidate.start_rank == start_rank:
                return candidate
        raise KeyError(start_rank)


def read_trf(path: Path) -> Tournament:
    """Read a TRF-16 file (UTF-8, or latin-1 when it is not valid UTF-8)."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InvalidInput(f"{path}: cannot read: {error.strerror}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return parse_trf(text, str(path))


def parse_trf(text: str, source: str) -> Tournament:
    """Parse the text of a TRF-16 file; ``source`` names it in error messages. A NUL
    character anywhere is refused."""
    text = text.removeprefix("\ufeff")
    headers: list[tuple[str, str]] = []
    players: list[TrfPlayer] = []
    first_player_at: int | None = None
    rate_line = 0
    seen: dict[int, TrfPlayer] = {}
    for number, raw in enumerate(_LINE_BREAK.split(text), start=1):
        line = raw.rstrip()
        if not line:
            continue
        if "\x00" in line:  # (no database stores it; never what a person typed)
            raise InvalidRecord(f"{source}:{number}", "record", "must not contain a NUL character")
        if line.startswith(_PLAYER_CODE):
            if first_player_at is None:
                first_player_at = len(headers)
            player = _parse_player(line, f"{source}:{number}", number)
            earlier = seen.get(player.start_rank)
            if earlier is not None:
                raise InvalidRecord(
                    f"{source}:{number}",
                    "start_rank",
                    f"{player.start_rank} is already the start rank of line {earlier.line} "
                    f"({earlier.name})",
                )
            seen[player.start_rank] = player
            players.append(player)
        else:
            headers.append(_split_header(line))
            if not rate_line and line.startswith("122"):
                rate_line = number
    if not players:
        raise InvalidInput(f"{source}: no player records (001)")
    _check_pairings(players, seen, source)
    if first_player_at is not None and first_player_at < len(headers):
        headers.insert(first_player_at, _PLAYERS_MARKER)
    found: dict[str, str] = {}
    for code, rest in headers:
        if (code, rest) != _PLAYERS_MARKER:
            found.setdefault(code, rest.strip())
    return Tournament(
        name=found.get("012", ""),
        city=found.get("022", ""),
        federation=found.get("032", ""),
        start=found.get("042", ""),
        end=found.get("052", ""),
        kind=found.get("092", ""),
        rate_of_play=found.get("122", ""),
        players=tuple(players),
        headers=tuple(headers),
        source=source,
        rate_of_play_line=rate_line,
    )


def write_trf(tournament: Tournament) -> str:
    """The TRF-16 text of a tournament (``\\n`` line ends, no trailing blanks).

    Header lines are written as ``code + " " + rest`` in their order, the
    players at the ``("001", "")`` marker (else after the headers), ``001``
    records in their fixed columns. A non-empty tournament field (``name``,
    ``city``, ...) that differs from its header line replaces that line's text;
    one that has no header line is written first (``012`` before ``022`` ...).
    ``parse_trf(write_trf(t), t.source) == t`` for a parsed ``t``. Raises
    :class:`InvalidInput` when a value does not fit its columns.
    """
    overrides: dict[str, str] = {}
    present = {code for code, _ in tournament.headers}
    lines: list[str] = []
    for name, code in _FIELD_CODES:
        value = str(getattr(tournament, name))
        _check_text(tournament, name, value)
        if not value:
            continue
        if code in present:
            overrides[code] = value
        else:
            lines.append(f"{code} {value}")
    player_lines = [_format_player(player, tournament.source) for player in tournament.players]
    written_players = False
    replaced: set[str] = set()
    for code, rest in tournament.headers:
        if (code, rest) == _PLAYERS_MARKER:
            if not written_players:
                lines.extend(player_lines)
                written_players = True
            continue
        _check_text(tournament, f"header {code!r}", code + rest)
        if code in overrides and code not in replaced:
            replaced.add(code)
            if overrides[code] != rest.strip():
                rest = overrides[code]
        lines.append(f"{code} {rest}".rstrip() if rest else code)
    if not written_players:
        lines.extend(player_lines)
    return "".join(line + "\n" for line in lines)


# --- reading -------------------------------------------------------------------------------


def _split_header(line: str) -> tuple[str, str]:
    if len(line) <= 3 or line[3] == " ":
        return line[:3], line[4:]
    return line, ""


def _columns(line: str, span: tuple[int, int]) -> str:
    return line[span[0] - 1 : span[1]]


def _truncated(where: str, name: str, line: str, span: tuple[int, int]) -> InvalidRecord:
    return InvalidRecord(
        where,
        name,
        f"the line ends at column {len(line)}, inside the field (columns {span[0]}-{span[1]}): "
        "truncated record?",
    )


def _whole_number(
    line: str, span: tuple[int, int], name: str, where: str, what: str = "a whole number"
) -> int | None:
    """A right-aligned number field: ``None`` when blank."""
    if span[0] <= len(line) < span[1]:
        raise _truncated(where, name, line, span)
    text = _columns(line, span).strip()
    if not text:
        return None
    if not (text.isascii() and text.isdigit()):
        raise InvalidRecord(where, name, f"{text!r} in columns {span[0]}-{span[1]} is not {what}")
    return int(text)


def _parse_player(line: str, where: str, number: int) -> TrfPlayer:
    for column, name in _SEPARATORS:
        if len(line) >= column and line[column - 1] != " ":
            raise InvalidRecord(
                where,
                name,
                f"{line[column - 1]!r} in column {column}, which must be blank: "
                "misaligned record or a value wider than its columns?",
            )
    start_rank = _whole_number(line, _START_RANK, "start_rank", where)
    if start_rank is None:
        raise InvalidRecord(where, "start_rank", "missing (columns 5-8)")
    if start_rank == 0:
        raise InvalidRecord(where, "start_rank", "must be 1-9999 (columns 5-8)")
    name = _columns(line, _NAME).strip()
    if not name:
        if len(line) < _NAME[0]:
            reason = (
                f"the line ends at column {len(line)}, before the name "
                f"(columns {_NAME[0]}-{_NAME[1]}): truncated record?"
            )
        else:
            reason = f"blank (columns {_NAME[0]}-{_NAME[1]})"
        raise InvalidRecord(where, "name", reason)
    rating = _whole_number(line, _RATING, "rating", where)
    fide_id = _whole_number(line, _FIDE_ID, "fide_id", where, "a FIDE id (digits only)")
    points = _parse_points(line, where)
    rank = _whole_number(line, _RANK, "rank", where)
    return TrfPlayer(
        start_rank=start_rank,
        sex=_columns(line, _SEX).strip().lower(),
        title=_columns(line, _TITLE).strip(),
        name=name,
        rating=rating or None,
        federation=_columns(line, _FEDERATION).strip(),
        fide_id=str(fide_id) if fide_id else None,
        birth=_columns(line, _BIRTH).strip(),
        points=points,
        rank=rank,
        rounds=_parse_rounds(line, where),
        line=number,
    )


def _parse_points(line: str, where: str) -> Decimal | None:
    if _PLAYER_POINTS[0] <= len(line) < _PLAYER_POINTS[1]:
        raise _truncated(where, "points", line, _PLAYER_POINTS)
    text = _columns(line, _PLAYER_POINTS).strip()
    if not text:
        return None
    if not (text.isascii() and _POINTS_TEXT.fullmatch(text)):
        raise InvalidRecord(
            where, "points", f"{text!r} in columns 81-84 is not a number of points like 4.5"
        )
    return Decimal(text)


def _parse_rounds(line: str, where: str) -> tuple[TrfRound, ...]:
    rounds: list[TrfRound] = []
    start = _FIRST_ROUND_COLUMN - 1
    for number, offset in enumerate(range(start, len(line), _ROUND_WIDTH), start=1):
        rounds.append(_parse_round(line, offset, number, where))
    while rounds and _unpaired(rounds[-1]):
        rounds.pop()
    return tuple(rounds)


def _unpaired(entry: TrfRound) -> bool:
    return entry.opponent is None and entry.colour == "-" and entry.code == " "


def _parse_round(line: str, offset: int, number: int, where: str) -> TrfRound:
    """The round block starting at 0-based ``offset``: ``NNNN C R`` then two blanks."""
    block = line[offset : offset + _ROUND_WIDTH]
    first = offset + 1  # 1-based column of the block's first character
    label = f"round {number}"
    for index in (4, 6, 8, 9):
        if index < len(block) and block[index] != " ":
            raise InvalidRecord(
                where,
                label,
                f"{block[index]!r} in column {first + index}, which must be blank "
                f"(the round's block is 'NNNN C R' in columns {first}-{first + 7}): "
                "misaligned record?",
            )
    opponent = _whole_number(line, (first, first + 3), f"{label} opponent", where, "a start rank")
    colour = block[5:6].strip().lower() or "-"
    if colour not in _COLOURS:
        raise InvalidRecord(
            where,
            f"{label} colour",
            f"{block[5]!r} is not a colour (w, b, - or blank; column {first + 5})",
        )
    code = block[7:8].lower() or " "
    if code not in RESULT_CODES:
        raise InvalidRecord(
            where,
            f"{label} result",
            f"{block[7]!r} is not a TRF-16 result code "
            f"(1 0 = + - W D L H F U Z or blank; column {first + 7})",
        )
    return TrfRound(round=number, opponent=opponent or None, colour=colour, code=code)


def _check_pairings(players: list[TrfPlayer], by_rank: dict[int, TrfPlayer], source: str) -> None:
    """Every opponent's line names the player back in the same round, and a rated
    result is matched by the complementary rated result (1-0, 0-1, =-=); then, every
    opponent exists. (In that order, so that a line cut short in a truncated file is
    named before the start ranks that the file lost after it.)"""
    for player in players:
        where = f"{source}:{player.line}"
        for entry in player.rounds:
            other = None if entry.opponent is None else by_rank.get(entry.opponent)
            if other is None:
                continue
            label = f"round {entry.round}"
            if other is player:
                raise InvalidRecord(
                    where, f"{label} opponent", f"{entry.opponent} is the player's own start rank"
                )
            back = other.rounds[entry.round - 1] if entry.round <= len(other.rounds) else None
            if back is None or back.opponent != player.start_rank:
                has = (
                    "has no such round"
                    if back is None
                    else "has no opponent"
                    if back.opponent is None
                    else f"has opponent {back.opponent}"
                )
                raise InvalidRecord(
                    where,
                    f"{label} opponent",
                    f"inconsistent pairing: {player.start_rank} ({player.name}) meets "
                    f"{other.start_rank} ({other.name}), whose {label} (line {other.line}) {has}",
                )
            if (entry.code in RATED_CODES or back.code in RATED_CODES) and _COMPLEMENT.get(
                entry.code
            ) != back.code:
                raise InvalidRecord(
                    where,
                    f"{label} result",
                    f"inconsistent result: {player.start_rank} ({player.name}) has "
                    f"{_describe(entry.code)} against {other.start_rank} ({other.name}), "
                    f"whose {label} (line {other.line}) has {_describe(back.code)}",
                )
    highest = max(by_rank)
    for player in players:
        for entry in player.rounds:
            if entry.opponent is not None and entry.opponent not in by_rank:
                hint = (
                    f" (the highest start rank in the file is {highest}: truncated file?)"
                    if entry.opponent > highest
                    else ""
                )
                raise InvalidRecord(
                    f"{source}:{player.line}",
                    f"round {entry.round} opponent",
                    f"no player has start rank {entry.opponent}{hint}",
                )


def _describe(code: str) -> str:
    return "a blank result" if code == " " else repr(code.upper())


# --- writing -------------------------------------------------------------------------------


def _check_text(tournament: Tournament, name: str, value: str) -> None:
    if "\n" in value or "\r" in value:
        raise InvalidInput(f"{tournament.source}: {name}: contains a line break")


def _fit(value: str, span: tuple[int, int], name: str, player: TrfPlayer, source: str) -> str:
    width = span[1] - span[0] + 1
    if len(value) > width or "\n" in value or "\r" in value:
        raise InvalidInput(
            f"{source}: player {player.start_rank} ({player.name}): {name}: {value!r} does "
            f"not fit columns {span[0]}-{span[1]}"
        )
    return value


def _format_points(points: Decimal | None) -> str:
    if points is None:
        return ""
    if points == points.quantize(Decimal("0.1")):
        return f"{points:.1f}"
    return f"{points:f}"


def _format_player(player: TrfPlayer, source: str) -> str:
    cells = [" "] * _STATIC_WIDTH
    cells[0:3] = _PLAYER_CODE

    def put(span: tuple[int, int], value: str, name: str, right: bool = False) -> None:
        text = _fit(value, span, name, player, source)
        width = span[1] - span[0] + 1
        cells[span[0] - 1 : span[1]] = text.rjust(width) if right else text.ljust(width)

    def number(value: int | None) -> str:
        return "" if value is None else str(value)

    if player.start_rank < 1 or player.start_rank > 9999:
        raise InvalidInput(
            f"{source}: player {player.start_rank} ({player.name}): start_rank: must be 1-9999"
        )
    put(_START_RANK, str(player.start_rank), "start_rank", right=True)
    put(_SEX, player.sex, "sex")
    put(_TITLE, player.title, "title", right=True)
    put(_NAME, player.name, "name")
    put(_RATING, number(player.rating), "rating", right=True)
    put(_FEDERATION, player.federation, "federation")
    put(_FIDE_ID, player.fide_id or "", "fide_id", right=True)
    put(_BIRTH, player.birth, "birth")
    put(_PLAYER_POINTS, _format_points(player.points), "points", right=True)
    put(_RANK, number(player.rank), "rank", right=True)
    blocks = [
        _format_round(entry, index, player, source) for index, entry in enumerate(player.rounds, 1)
    ]
    return ("".join(cells) + "  " + "".join(blocks)).rstrip()


def _format_round(entry: TrfRound, index: int, player: TrfPlayer, source: str) -> str:
    where = f"{source}: player {player.start_rank} ({player.name}): round {index}"
    if entry.round != index:
        raise InvalidInput(f"{where}: numbered {entry.round}; rounds must be 1, 2, 3, ... in order")
    if entry.colour not in _COLOURS or len(entry.colour) != 1:
        raise InvalidInput(f"{where}: colour {entry.colour!r} is not w, b or -")
    if len(entry.code) != 1 or entry.code not in RESULT_CODES:
        raise InvalidInput(f"{where}: result {entry.code!r} is not one of {RESULT_CODES!r}")
    if entry.opponent is not None and not 1 <= entry.opponent <= 9999:
        raise InvalidInput(f"{where}: opponent {entry.opponent} is not a start rank 1-9999")
    if _unpaired(entry):
        return " " * _ROUND_WIDTH
    opponent = "0000" if entry.opponent is None else f"{entry.opponent:>4}"
    return f"{opponent} {entry.colour} {entry.code.upper()}  "
