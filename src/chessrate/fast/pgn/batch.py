"""PGN straight to a :class:`~chessrate.fast.batch.GameBatch`, by distinct values.

:func:`read_pgn_batch` gives what ``encode(read_pgn_games(path, on_invalid))`` gives
(the same rows in the same order, the same id tables, the same errors) without a tag
dict or a game record per game. The tags come as columns of codes
(:func:`~chessrate.fast.pgn.columns.read_pgn_columns`); each **distinct** value of a
tag, or distinct combination of the tags a rule reads together, is decided once by
the public functions of :mod:`chessrate.io.pgn.tags` that
:func:`~chessrate.io.pgn.tags.game_from_tags` calls. A game with a value they refuse,
or that only the whole game decides (a chess.com termination sentence, two equal
player ids), goes to :func:`~chessrate.io.pgn.tags.game_from_tags` itself, which
builds its record or raises the reference's ``FILE:LINE: tag: reason``; errors come
in file order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from typing import Any

import numpy as np

from ...errors import InvalidRecord
from ...io.pgn.records import OnInvalid
from ...io.pgn.source import Progress, Source
from ...io.pgn.tags import (
    GAME_ID_TAGS,
    RECORD_TAGS,
    PlayerIds,
    check_ending,
    check_fen,
    check_variant,
    clock_seconds,
    date_tags,
    day_start,
    game_from_tags,
    game_id,
    game_result,
    player_id,
    plies,
    rated,
    termination_word,
    time_control,
)
from ...records import EPOCH, microseconds
from ..batch import (
    NO_PLIES,
    NOT_GIVEN,
    ONLINE,
    RESULTS,
    TERMINATIONS,
    GameBatch,
    time_control_codes,
)
from .columns import PgnColumns, read_pgn_columns

_UNDECIDED = -2


@dataclass
class _Decided:
    """A tag function's outcome for each distinct value (or combination of values),
    ``fill`` where it refused one (the positions in ``refused``), and each game's
    position in ``outcomes``."""

    outcomes: list[Any]
    refused: list[int]
    index: Any

    def refused_games(self) -> Any:
        """Each game: whether its value was refused (then game_from_tags decides it)."""
        mask = np.zeros(len(self.outcomes), np.bool_)
        mask[self.refused] = True
        return mask[self.index]

    def column(self, dtype: Any, code: Callable[[Any], Any] | None = None) -> Any:
        """Each game's outcome (or ``code`` of it) as an array."""
        table = self.outcomes if code is None else [*map(code, self.outcomes)]
        return np.array(table, dtype)[self.index]


def _outcomes(
    function: Callable[..., Any], *arguments: Iterable[Any], fill: Any = None
) -> tuple[list[Any], list[int]]:
    """``function`` of each set of arguments (taken from ``arguments`` in step, as
    ``map`` does); ``fill`` where it raises ``ValueError`` (every refusal of the tag
    functions is one: :class:`~chessrate.io.pgn.tags.RefusedTag`), and those positions."""
    iterators = [iter(argument) for argument in arguments]
    out: list[Any] = []
    refused: list[int] = []
    while True:
        try:  # (map runs in C; after a refusal it goes on with the next value)
            out.extend(map(function, *iterators))
            return out, refused
        except ValueError:
            refused.append(len(out))
            out.append(fill)


def _by_value(
    columns: PgnColumns,
    tag: str,
    function: Callable[..., Any],
    fill: Any = None,
    more: tuple[Any, ...] = (),
) -> _Decided:
    """``function(value, *more)`` of each distinct value of ``tag``, and last, of ``""``
    for the games without the tag (an absent tag reads as ``""``; code -1 is the last)."""
    values = chain(columns.values[tag], ("",))
    outcomes, refused = _outcomes(function, values, *map(repeat, more), fill=fill)
    return _Decided(outcomes, refused, columns.codes[tag])


def _combinations(
    columns: PgnColumns, tags: Sequence[str], absent: str | None = ""
) -> tuple[list[list[Any]], Any]:
    """The distinct combinations of the values of ``tags`` in the games (one list of
    values per tag, ``absent`` where a game has no such tag), and each game's
    combination."""
    present = [tag for tag in tags if bool((columns.codes[tag] >= 0).any())]
    if len(present) <= 1:  # a combination per value: nothing to combine
        values = [*columns.values[present[0]], absent] if present else [absent]
        index = columns.codes[present[0]] if present else np.zeros(len(columns), np.int64)
        return [values if tag in present else [absent] * len(values) for tag in tags], index
    index = np.zeros(len(columns), np.int64)
    combos: list[tuple[int, ...]] = [()]
    for tag in present:  # one tag at a time: the keys stay small
        width = len(columns.values[tag]) + 1
        keys, index = np.unique(index * width + columns.codes[tag] + 1, return_inverse=True)
        index = index.ravel()
        combos = [(*combos[key // width], key % width - 1) for key in keys.tolist()]
    by_tag = {
        tag: [columns.values[tag][combo[at]] if combo[at] >= 0 else absent for combo in combos]
        for at, tag in enumerate(present)
    }
    return [by_tag.get(tag, [absent] * len(combos)) for tag in tags], index


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

    def of(self, decided: _Decided, none: int = _UNDECIDED) -> Any:
        """The keys of string outcomes: -1 for a refused one, ``none`` for None."""
        outcomes = decided.outcomes
        strings = [outcome for outcome in outcomes if outcome is not None]
        keys = np.full(len(outcomes), none, np.int64)
        if len(strings) == len(outcomes):
            keys[:] = self.many(strings)
        elif strings:
            keys[[at for at, outcome in enumerate(outcomes) if outcome is not None]] = self.many(
                strings
            )
        keys[decided.refused] = -1
        return keys


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
    refer = np.zeros(n, np.bool_)  # the games game_from_tags decides

    refer |= _by_value(columns, "Variant", check_variant).refused_games()
    refer |= _by_value(columns, "FEN", check_fen).refused_games()

    players = _Strings()
    white = _player_keys(columns, "White", players, player_ids)
    black = _player_keys(columns, "Black", players, player_ids)
    refer |= (white < 0) | (black < 0)
    refer |= white == black  # (check_players: equal keys are equal ids)

    decided = _by_value(columns, "Result", game_result, fill=RESULTS[0])
    refer |= decided.refused_games()
    result = decided.column(np.int8, RESULTS.index)

    played_at, refused = _played_at(columns)
    refer |= refused

    decided = _by_value(columns, "TimeControl", time_control)
    refer |= decided.refused_games()
    tc = decided.column(np.int64, time_control_codes).reshape(-1, 4)
    tc_kind, tc_base, tc_increment, tc_days = tc.T

    decided = _by_value(columns, "Termination", termination_word)
    decided.refused += [at for at, outcome in enumerate(decided.outcomes) if outcome is None]
    refer |= decided.refused_games()  # (None: a sentence, decided with the whole game)
    termination = decided.column(np.int8, lambda t: 0 if t is None else TERMINATIONS.index(t))
    refer |= _ending_refused(result, termination, refer)

    decided = _by_value(columns, "PlyCount", plies)
    refer |= decided.refused_games()
    ply_count = decided.column(np.int32, lambda p: NO_PLIES if p is None else p)

    rated_games = _by_value(columns, "Event", rated).column(np.bool_)

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
        rated_games[row] = record.rated
        tc[row] = time_control_codes(record.time_control)
        termination[row] = TERMINATIONS.index(record.termination)
        ply_count[row] = NO_PLIES if record.plies is None else record.plies
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
        rated=rated_games[keep].astype(np.bool_),
        tc_kind=tc_kind[keep].astype(np.int8),
        tc_base=tc_base[keep].astype(np.int64),
        tc_increment=tc_increment[keep].astype(np.int64),
        tc_days=tc_days[keep].astype(np.int64),
        termination=termination[keep].astype(np.int8),
        plies=ply_count[keep].astype(np.int32),
        venue=np.full(size, ONLINE, np.int8),
        confirmed=np.full(size, NOT_GIVEN, np.int8),
        source=columns.source,
        lines=lines[keep].astype(np.int64),
    )


def _player_keys(columns: PgnColumns, color: str, players: _Strings, player_ids: PlayerIds) -> Any:
    """Each game's key of :func:`~chessrate.io.pgn.tags.player_id` (-1: refused), per
    distinct combination of the name and the FIDE id."""
    (names, fides), index = _combinations(columns, (color, f"{color}FideId"))
    outcomes, refused = _outcomes(player_id, names, fides, repeat(color), repeat(player_ids))
    return players.of(_Decided(outcomes, refused, None))[index]


def _played_at(columns: PgnColumns) -> tuple[Any, Any]:
    """(each game's start in microseconds, whether it is refused): the tags of
    :func:`~chessrate.io.pgn.tags.date_tags` per distinct combination of the dates,
    then :func:`~chessrate.io.pgn.tags.day_start` of each distinct date plus
    :func:`~chessrate.io.pgn.tags.clock_seconds` of each distinct time, as
    :func:`~chessrate.io.pgn.tags.played_at` adds them."""
    played_at = np.zeros(len(columns), np.int64)
    (utc, local), index = _combinations(columns, ("UTCDate", "Date"), absent=None)
    games = [
        {tag: value for tag, value in (("UTCDate", u), ("Date", d)) if value is not None}
        for u, d in zip(utc, local, strict=True)
    ]
    pairs = _Decided(*_outcomes(date_tags, games), index)
    refused = pairs.refused_games()
    for pair in dict.fromkeys(p for p in pairs.outcomes if p is not None):
        date_tag, time_tag = pair
        rows = np.array([p == pair for p in pairs.outcomes], np.bool_)[index]
        days = _by_value(columns, date_tag, day_start, EPOCH, (date_tag,))
        clocks = _by_value(columns, time_tag, clock_seconds, 0, (time_tag,))
        refused |= rows & (days.refused_games() | clocks.refused_games())
        start = days.column(np.int64, microseconds) + clocks.column(np.int64) * 1_000_000
        played_at[rows] = start[rows]
    return played_at, refused


def _ending_refused(result: Any, termination: Any, refer: Any) -> Any:
    """Each game: whether :func:`~chessrate.io.pgn.tags.check_ending` refuses its
    result and termination (per distinct pair; the games already referred are not
    asked about)."""
    width = len(TERMINATIONS)
    keys = np.where(refer, 0, result.astype(np.int64) * width + termination)
    pairs, index = np.unique(keys, return_inverse=True)
    endings = [(RESULTS[key // width], TERMINATIONS[key % width]) for key in pairs.tolist()]
    if not endings:  # no game
        return np.zeros(0, np.bool_)
    _, refused = _outcomes(check_ending, *zip(*endings, strict=True))
    return _Decided([None] * len(endings), refused, index.ravel()).refused_games() & ~refer


def _game_keys(columns: PgnColumns, ids: _Strings, refer: Any) -> Any:
    """Each game's id key (-1: the reference decides): the first of
    :data:`~chessrate.io.pgn.tags.GAME_ID_TAGS` whose function gives an id, per
    distinct value among the games still without one; for the games none gives one,
    :func:`~chessrate.io.pgn.tags.game_id` game by game."""
    n = len(columns)
    game = np.full(n, _UNDECIDED, np.int64)
    for tag, read in GAME_ID_TAGS:
        rows = np.flatnonzero(game == _UNDECIDED)
        if rows.size == 0:
            break
        values = columns.values[tag]
        codes = columns.codes[tag][rows]
        keys = np.full(len(values) + 1, _UNDECIDED, np.int64)  # the last one: absent
        if rows.size == n:  # every game asks: every value
            keys[:] = ids.of(_by_value(columns, tag, read))
        else:  # the values of the games that ask
            needed = [*np.unique(codes[codes >= 0]).tolist(), -1]
            asked = [values[code] if code >= 0 else "" for code in needed]
            keys[needed] = ids.of(_Decided(*_outcomes(read, asked), None))
        game[rows] = keys[codes]
    for row in np.flatnonzero((game == _UNDECIDED) & ~refer).tolist():
        game[row] = ids.of(_Decided(*_outcomes(game_id, [columns.tags(row)]), None))[0]
    return game


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


__all__ = ["read_pgn_batch"]
