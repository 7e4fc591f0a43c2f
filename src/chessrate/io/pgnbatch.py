"""PGN straight to a :class:`~chessrate.fast.batch.GameBatch`, by distinct values.

:func:`read_pgn_batch` gives what ``encode(read_pgn_games(path, on_invalid))`` gives
(the same rows in the same order, the same id tables, the same errors) without a
tag dict or a :class:`~chessrate.records.GameRecord` per game: the tags come as
columns of codes (:func:`chessrate.io.pgncolumns.read_pgn_columns`), and each
**distinct** value of a tag is mapped once, by the reference's own rules and
functions (:func:`~chessrate.io.pgn.parse_pgn_time_control`,
``LICHESS_TERMINATIONS``, the date, time, result, player and id rules of
:func:`~chessrate.io.pgn.game_from_tags`); the games then take their values by
code, as numpy arrays.

A value whose mapping fails (a partial date, an unknown time control, ...) or needs
the rest of the game (a chess.com termination sentence names the winner; a missing
tag; white equal to black; a draw that ended by a decisive termination) does not
decide anything here: that game's tags go to
:func:`~chessrate.io.pgn.game_from_tags` itself, which builds its record or raises
the reference's exact ``FILE:LINE: field: reason``. Errors are reported (or the first
one raised) in file order, as the reference does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np

from ..errors import InvalidRecord
from ..fast.batch import (
    NO_PLIES,
    NOT_GIVEN,
    ONLINE,
    RESULTS,
    TC_CLOCKED,
    TC_CORRESPONDENCE,
    TC_UNCLOCKED,
    TERMINATIONS,
    GameBatch,
    microseconds,
)
from ..records import DECISIVE_TERMINATIONS, MAX_PLIES, Result, Termination
from ..timecontrol import ClockKind
from .pgn import (
    _DATE,
    _ID_TEXT,
    _LICHESS_URL,
    _STANDARD,
    _START_FEN,
    _TIME,
    LICHESS_TERMINATIONS,
    OnInvalid,
    PlayerIds,
    Progress,
    Source,
    _game_id,
    _time_control,
    game_from_tags,
)
from .pgncolumns import RECORD_TAGS, PgnColumns, read_pgn_columns

_TC_KIND = {
    ClockKind.CLOCKED: TC_CLOCKED,
    ClockKind.UNCLOCKED: TC_UNCLOCKED,
    ClockKind.CORRESPONDENCE: TC_CORRESPONDENCE,
}
_RESULT_CODE = {result.value: code for code, result in enumerate(RESULTS)}
_TERMINATION_CODE = {termination: code for code, termination in enumerate(TERMINATIONS)}
_DECISIVE = np.array([t in DECISIVE_TERMINATIONS for t in TERMINATIONS], np.bool_)
_DRAW = RESULTS.index(Result.DRAW)
_NORMAL = TERMINATIONS.index(Termination.NORMAL)


class _Strings:
    """Strings to dense keys (any order); the batch renumbers them by first use."""

    def __init__(self) -> None:
        self.keys: dict[str, int] = {}
        self.names: list[str] = []

    def __call__(self, name: str) -> int:
        key = self.keys.get(name)
        if key is None:
            key = self.keys[name] = len(self.names)
            self.names.append(name)
        return key

    def many(self, names: list[str]) -> list[int]:
        """The keys of many names (as calls one by one would give)."""
        keys = self.keys
        new = [name for name in dict.fromkeys(names) if name not in keys]
        keys.update(zip(new, range(len(self.names), len(self.names) + len(new)), strict=True))
        self.names.extend(new)
        return [keys[name] for name in names]


def _per_value(
    columns: PgnColumns, tag: str, mapping: Callable[[str], Any], absent: Any, dtype: Any
) -> Any:
    """Each game's ``mapping`` of its ``tag`` value (``absent`` without the tag),
    mapping each distinct value once."""
    return _by_code(columns, tag, [*map(mapping, columns.values[tag])], absent, dtype)


def _by_code(columns: PgnColumns, tag: str, mapped: list[Any], absent: Any, dtype: Any) -> Any:
    """Each game's entry of ``mapped`` (one per distinct value of ``tag``), ``absent``
    for a game without the tag."""
    table = np.array([*mapped, absent], dtype)  # code -1: the last one
    return table[columns.codes[tag]]


def _player_name(value: str) -> str | None:
    name = value.strip()
    if not name or name == "?" or not _ID_TEXT.match(name) or len(name) > 200:
        return None
    return name


def _fide_id(value: str) -> str | None:
    fide_id = value.strip()
    return fide_id if fide_id and fide_id.strip("0") else None


def _day(value: str) -> int:
    """Microseconds at the day's start; -1 when the reference would refuse it."""
    match = _DATE.fullmatch(value.strip())
    if match is None:
        return -1
    try:
        return microseconds(
            datetime(int(match.group(1)), int(match.group(2)), int(match.group(3)), tzinfo=UTC)
        )
    except ValueError:
        return -1


def _clock(value: str) -> int:
    """Seconds into the day; -1 when the reference would refuse it."""
    clock = value.strip()
    if not clock or clock == "??:??:??":
        return 0
    found = _TIME.fullmatch(clock)
    if found is None:
        return -1
    hour, minute = int(found.group(1)), int(found.group(2))
    second = int(found.group(3) or 0)
    if hour > 23 or minute > 59 or second > 59:
        return -1
    return hour * 3600 + minute * 60 + second


def _clocks(values: list[str]) -> list[int]:
    """:func:`_clock` of many values; those written ``HH:MM:SS`` read at once."""
    joined = "".join(values)
    if len(joined) != 8 * len(values) or not joined.isascii():
        return [*map(_clock, values)]
    table = np.frombuffer(joined.encode("ascii"), np.uint8).reshape(-1, 8).astype(np.int64)
    digits = table - 48
    form = ((digits[:, [0, 1, 3, 4, 6, 7]] >= 0) & (digits[:, [0, 1, 3, 4, 6, 7]] <= 9)).all(1)
    form &= (table[:, 2] == 58) & (table[:, 5] == 58)
    hour = digits[:, 0] * 10 + digits[:, 1]
    minute = digits[:, 3] * 10 + digits[:, 4]
    second = digits[:, 6] * 10 + digits[:, 7]
    seconds = np.where(
        (hour < 24) & (minute < 60) & (second < 60), hour * 3600 + minute * 60 + second, -1
    )
    out: list[int] = seconds.tolist()
    for row in np.flatnonzero(~form).tolist():  # another form: one by one
        out[row] = _clock(values[row])
    return out


def _plies(value: str) -> int:
    """The ply count, NO_PLIES when empty, -2 when the reference would refuse it."""
    text = value.strip()
    if not text:
        return NO_PLIES
    if not text.isascii() or not text.isdigit() or int(text) > MAX_PLIES:
        return -2  # (a non-ASCII digit: the reference decides)
    return int(text)


def _termination(value: str) -> int:
    """The termination code of a word; -1 for a sentence (it names the winner: the
    reference decides) or an unknown word."""
    if not value.strip():
        return _NORMAL
    known = LICHESS_TERMINATIONS.get(" ".join(value.split()).lower())
    return -1 if known is None else _TERMINATION_CODE[known]


def _time_controls(columns: PgnColumns) -> tuple[Any, Any, Any, Any, Any]:
    """(kind, base, increment, days per move, refused) of every game."""
    values = columns.values["TimeControl"]
    table = np.zeros((len(values) + 1, 5), np.int64)  # the last row: absent
    for code, value in enumerate(values):
        try:
            control = _time_control(value)
        except ValueError:
            table[code, 4] = 1
            continue
        if control is not None:
            table[code, :4] = (
                _TC_KIND[control.kind], control.base, control.increment, control.days_per_move
            )  # fmt: skip
    rows = table[columns.codes["TimeControl"]]
    return rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3], rows[:, 4] != 0


def read_pgn_batch(
    source: Source,
    on_invalid: OnInvalid | None = None,
    *,
    progress: Progress | None = None,
    player_ids: PlayerIds = "name",
) -> GameBatch:
    """The games of a PGN file (plain, ``.gz`` or ``.zst``) as a :class:`GameBatch`:
    ``encode(read_pgn_games(source, on_invalid, player_ids=player_ids))``, by
    distinct values (see the module docstring). ``progress`` is called with the
    number of file bytes read."""
    columns = read_pgn_columns(source, RECORD_TAGS, progress=progress)
    n = len(columns)
    codes = columns.codes
    refer = np.zeros(n, np.bool_)  # games the reference's game_from_tags decides

    def ok(tag: str, test: Callable[[str], bool]) -> None:
        nonlocal refer
        refer |= ~_per_value(columns, tag, test, True, np.bool_)

    ok("Variant", lambda v: not v.strip() or v.strip().lower() in _STANDARD)
    ok("FEN", lambda v: not v.strip() or v.strip() == _START_FEN)

    players = _Strings()
    white = _player_keys(columns, "White", players, player_ids)
    black = _player_keys(columns, "Black", players, player_ids)
    refer |= (white < 0) | (black < 0) | (white == black)

    result = _per_value(columns, "Result", lambda v: _RESULT_CODE.get(v.strip(), -1), -1, np.int8)
    refer |= result < 0

    utc = codes["UTCDate"] >= 0
    day = np.where(
        utc,
        _per_value(columns, "UTCDate", _day, -1, np.int64),
        _per_value(columns, "Date", _day, -1, np.int64),
    )
    clock = np.where(
        utc,
        _by_code(columns, "UTCTime", _clocks(columns.values["UTCTime"]), 0, np.int64),
        _by_code(columns, "Time", _clocks(columns.values["Time"]), 0, np.int64),
    )
    refer |= (day < 0) | (clock < 0)
    played_at = day + clock * 1_000_000

    tc_kind, tc_base, tc_increment, tc_days, tc_refused = _time_controls(columns)
    refer |= tc_refused
    termination = _per_value(columns, "Termination", _termination, _NORMAL, np.int8)
    refer |= termination < 0
    refer |= (result == _DRAW) & _DECISIVE[termination]  # (-1: already referred)
    plies = _per_value(columns, "PlyCount", _plies, NO_PLIES, np.int32)
    refer |= plies < NO_PLIES
    rated = _per_value(
        columns, "Event", lambda v: not v.lstrip().lower().startswith("casual"), True, np.bool_
    )
    ids = _Strings()
    game = _game_keys(columns, ids, refer)
    refer |= game < 0

    keep = np.ones(n, np.bool_)
    lines = columns.lines
    for row in np.flatnonzero(refer).tolist():
        where = f"{columns.source}:{int(lines[row])}"
        try:
            record = game_from_tags(columns.tags(row), where, player_ids)
        except InvalidRecord as error:
            if on_invalid is None:
                raise
            on_invalid(error)
            keep[row] = False
            continue
        white[row] = players(record.white)
        black[row] = players(record.black)
        game[row] = ids(record.id)
        played_at[row] = microseconds(record.played_at)
        result[row] = RESULTS.index(record.result)
        rated[row] = record.rated
        control = record.time_control
        kind = base = increment = days = 0
        if control is not None:
            kind = _TC_KIND[control.kind]
            base, increment, days = control.base, control.increment, control.days_per_move
        tc_kind[row], tc_base[row], tc_increment[row], tc_days[row] = kind, base, increment, days
        termination[row] = _TERMINATION_CODE[record.termination]
        plies[row] = NO_PLIES if record.plies is None else record.plies
    pairs, player_names = _by_first_use(
        np.stack([white[keep], black[keep]], axis=1).ravel(), players.names
    )
    game_codes, game_names = _by_first_use(game[keep], ids.names)
    size = int(keep.sum())
    return GameBatch(
        game=game_codes.astype(np.int64),
        game_ids=game_names,
        white=pairs[0::2].astype(np.int32),
        black=pairs[1::2].astype(np.int32),
        player_ids=player_names,
        played_at=played_at[keep].astype(np.int64),
        result=result[keep].astype(np.int8),
        rated=rated[keep].astype(np.bool_),
        tc_kind=tc_kind[keep].astype(np.int8),
        tc_base=tc_base[keep].astype(np.int64),
        tc_increment=tc_increment[keep].astype(np.int64),
        tc_days=tc_days[keep].astype(np.int64),
        termination=termination[keep].astype(np.int8),
        plies=plies[keep].astype(np.int32),
        venue=np.full(size, ONLINE, np.int8),
        confirmed=np.full(size, NOT_GIVEN, np.int8),
        source=columns.source,
        lines=lines[keep].astype(np.int64),
    )


def _by_first_use(keys: Any, names: Sequence[str]) -> tuple[Any, list[str]]:
    """``keys`` renumbered in order of first use, and the names in that order (as
    :func:`chessrate.fast.batch.encode` interns them)."""
    if keys.size == 0:
        return keys.astype(np.int64), []
    unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(order.size, np.int64)
    rank[order] = np.arange(order.size)
    return rank[inverse.ravel()], [names[key] for key in unique[order].tolist()]


def _player_keys(columns: PgnColumns, color: str, players: _Strings, player_ids: PlayerIds) -> Any:
    """Each game's player key for ``color`` (-1: the reference decides)."""
    keys = _per_value(
        columns, color, lambda v: -1 if (name := _player_name(v)) is None else players(name),
        -1, np.int64,
    )  # fmt: skip
    if player_ids == "fide":
        fide = _per_value(
            columns, f"{color}FideId",
            lambda v: -1 if (fide_id := _fide_id(v)) is None else players(fide_id), -1, np.int64,
        )  # fmt: skip
        keys = np.where(fide >= 0, fide, keys)
    return keys


def _game_keys(columns: PgnColumns, ids: _Strings, refer: Any) -> Any:
    """Each game's id key (-1: the reference decides): ``GameId``, else the lichess
    id in ``Site``, else an http(s) ``Link``, else a hash of the roster, as
    :func:`chessrate.io.pgn._game_id` (an invalid id: -1)."""
    none = -2
    game = _by_code(
        columns, "GameId", _id_keys(columns.values["GameId"], ids, none), none, np.int64
    )
    rest = np.flatnonzero(game == none)
    if rest.size:  # only the Site values of games without a GameId are read
        game = _fill(columns, "Site", game, rest, none, lambda vs: _lichess(vs, ids, none))
        rest = np.flatnonzero(game == none)
    if rest.size:
        game = _fill(columns, "Link", game, rest, none, lambda vs: _id_keys(_links(vs), ids, none))
        rest = np.flatnonzero(game == none)
    for row in rest.tolist():  # the roster hash, game by game
        if not refer[row]:
            game[row] = _id_keys([_game_id(columns.tags(row))], ids, none)[0]
    return game


def _id_keys(values: list[str], ids: _Strings, none: int) -> list[int]:
    """The keys of game ids (stripped); ``none`` for an empty one, -1 for one the
    reference refuses."""
    if (
        values
        and "".join(values).isalnum()
        and 0 < min(map(len, values)) <= max(map(len, values)) <= 200
    ):
        return ids.many(values)  # letters and digits only: nothing to strip, all valid
    stripped = [value.strip() for value in values]
    valid = [
        (text.isalnum() or _ID_TEXT.match(text) is not None) and len(text) <= 200
        for text in stripped
    ]  # (a letter or digit is neither a space nor a control character)
    keys = iter(ids.many([text for text, ok in zip(stripped, valid, strict=True) if ok]))
    return [
        next(keys) if ok else none if not text else -1
        for text, ok in zip(stripped, valid, strict=True)
    ]


def _fill(
    columns: PgnColumns,
    tag: str,
    game: Any,
    rows: Any,
    none: int,
    mapping: Callable[[list[str]], list[int]],
) -> Any:
    """``game`` with ``rows`` set to the ``mapping`` of their ``tag`` value."""
    codes = columns.codes[tag][rows]
    values = columns.values[tag]
    needed = np.unique(codes[codes >= 0])
    mapped = np.full(len(values) + 1, none, np.int64)
    mapped[needed] = mapping([values[code] for code in needed.tolist()])
    game = game.copy()
    game[rows] = mapped[codes]
    return game


def _lichess(values: list[str], ids: _Strings, none: int) -> list[int]:
    """The keys of the lichess game ids in ``Site`` values (``none`` if not one)."""
    found: list[str | None] = []
    for value in values:
        text = value.strip()
        if len(text) == 28 and text.startswith("https://lichess.org/") and text[20:].isascii():
            found.append(text[20:] if text[20:].isalnum() else None)  # (the common form)
        else:
            lichess = _LICHESS_URL.fullmatch(text)
            found.append(lichess.group(1) if lichess else None)
    keys = iter(ids.many([text for text in found if text is not None]))
    return [none if text is None else next(keys) for text in found]  # (8 letters or digits)


def _links(values: list[str]) -> list[str]:
    """http(s) links, stripped (else empty)."""
    links = [value.strip() for value in values]
    return [link if link.startswith(("http://", "https://")) else "" for link in links]


__all__ = ["read_pgn_batch"]
