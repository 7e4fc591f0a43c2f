"""PGN tags as columns: every game's wanted tags as small integer codes.

:func:`read_pgn_columns` gives the games of :func:`chessrate.io.pgn.scan_headers`,
each game's value of every wanted tag as a code into that tag's table of distinct
values, without a Python object per game: the compiled scanner hashes the wanted
values while it finds them, and a kernel interns them in one table for the whole
file (equal codes are equal bytes, whatever the hash does). Games the compiled
scanner leaves to Python are interned from their tags. How: ``docs/internals.md``,
"PGN reading".
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from ...io.pgn.scan import FALLBACK, NotPlain, ScannedGames, scan_games, scan_mapped
from ...io.pgn.scan_numba import Wanted, value_hash
from ...io.pgn.source import Progress, ProgressOnce, Source, file_size, source_name
from ...io.pgn.tags import RECORD_TAGS

_EMPTY = np.uint64(0)
"""An empty slot of the table; else a slot is the value hash's high 32 bits and the
entry's index + 1 (low 32 bits): 8 bytes a slot, for fewer cache misses."""
_LOW = np.uint64(0xFFFFFFFF)
TAG, CODE, START, END = range(4)
"""Columns of ``entries``: tag index, code, span of the value in the arena."""


@njit(cache=True, inline="always")
def _find_or_add(
    b: Any, v0: int, v1: int, w: int, h: Any, table: Any, entries: Any, arena: Any,
    meta: Any, next_code: Any,
) -> int:  # fmt: skip
    """The code of value ``b[v0:v1]`` of tag ``w`` whose hash is ``h``: the stored
    one (same hash bits, same tag, same bytes), or a new one (the value copied to the
    arena). The caller makes sure there is room for one more value."""
    mask = table.size - 1
    i = np.int64(h & np.uint64(mask))
    high = h & ~_LOW
    size = v1 - v0
    while True:
        slot = table[i]
        if slot == _EMPTY:
            break
        if slot & ~_LOW == high:
            e = np.int64(slot & _LOW) - 1
            a0 = entries[e, START]
            if entries[e, TAG] == w and entries[e, END] - a0 == size:
                same = True
                for k in range(size):
                    if arena[a0 + k] != b[v0 + k]:
                        same = False
                        break
                if same:
                    return int(entries[e, CODE])
        i = (i + 1) & mask
    e = meta[0]
    a0 = meta[1]
    for k in range(size):  # (a slice assignment checks for overlap: slow here)
        arena[a0 + k] = b[v0 + k]
    code = next_code[w]
    next_code[w] = code + 1
    entries[e, TAG] = w
    entries[e, CODE] = code
    entries[e, START] = a0
    entries[e, END] = a0 + size
    table[i] = high | np.uint64(e + 1)
    meta[0] = e + 1
    meta[1] = a0 + size
    return int(code)


@njit(cache=True)
def _rehash(table: Any, entries: Any, arena: Any, count: int) -> None:
    """Put entries ``0..count`` in an empty table."""
    mask = table.size - 1
    for e in range(count):
        h = value_hash(arena, entries[e, START], entries[e, END], entries[e, TAG])
        i = np.int64(h & np.uint64(mask))
        while table[i] != _EMPTY:
            i = (i + 1) & mask
        table[i] = (h & ~_LOW) | np.uint64(e + 1)


@njit(cache=True)
def _unescape(b: Any, v0: int, v1: int) -> Any:
    """``b[v0:v1]`` with ``\\"`` and ``\\\\`` undone, left to right (as
    :func:`chessrate.io.pgn.scan_python.unescape`)."""
    out = np.empty(v1 - v0, np.uint8)
    j = 0
    k = v0
    while k < v1:
        c = b[k]
        if c == 92 and k + 1 < v1 and (b[k + 1] == 34 or b[k + 1] == 92):
            out[j] = b[k + 1]
            k += 2
        else:
            out[j] = c
            k += 1
        j += 1
    return out[:j]


@njit(cache=True)
def _intern_chunk(
    b: Any,
    start: int,
    games: int,
    g_sec0: Any,
    g_sec1: Any,
    s_h0: Any,
    s_h1: Any,
    s_tag0: Any,
    s_tag1: Any,
    s_flag: Any,
    t_v0: Any,
    t_v1: Any,
    t_esc: Any,
    t_w: Any,
    t_hash: Any,
    codes: Any,
    slow: Any,
    table: Any,
    entries: Any,
    arena: Any,
    meta: Any,
    next_code: Any,
) -> int:
    """Codes of the wanted tags of games ``start..games`` (``codes[w, g]``, -1 when
    absent); ``slow[g]`` for a game left to Python. Returns the game it stopped at:
    ``games``, or earlier when the table, the entries or the arena need to grow."""
    wanted = codes.shape[0]
    slot = np.empty(wanted, np.int64)
    cap = table.size
    for g in range(start, games):
        first = g_sec0[g]
        last = g_sec1[g]
        if (
            2 * (meta[0] + wanted) > cap
            or meta[0] + wanted > entries.shape[0]
            or meta[1] + s_h1[last - 1] - s_h0[first] > arena.size
        ):
            return g
        slot[:] = -1
        is_slow = False
        for s in range(first, last):
            if s_flag[s] & FALLBACK:
                is_slow = True
            for t in range(s_tag0[s], s_tag1[s]):
                w = t_w[t]
                if w >= 0:
                    slot[w] = t
        if is_slow:
            slow[g] = True
            for w in range(wanted):
                codes[w, g] = -1
            continue
        for w in range(wanted):
            t = slot[w]
            if t < 0:
                codes[w, g] = -1
            elif t_esc[t]:  # the value without its escapes
                value = _unescape(b, t_v0[t], t_v1[t])
                h = value_hash(value, 0, value.size, w)
                codes[w, g] = _find_or_add(
                    value, 0, value.size, w, h, table, entries, arena, meta, next_code
                )
            else:
                codes[w, g] = _find_or_add(
                    b, t_v0[t], t_v1[t], w, t_hash[t], table, entries, arena, meta, next_code
                )
    return games


@njit(cache=True)
def _intern_values(
    blob: Any,
    at: Any,
    tags: Any,
    out: Any,
    table: Any,
    entries: Any,
    arena: Any,
    meta: Any,
    next_code: Any,
) -> None:
    """Codes of the values ``blob[at[i]:at[i+1]]`` of tags ``tags[i]`` (room made)."""
    for i in range(tags.size):
        h = value_hash(blob, at[i], at[i + 1], tags[i])
        out[i] = _find_or_add(
            blob, at[i], at[i + 1], tags[i], h, table, entries, arena, meta, next_code
        )


class _Table:
    """The distinct values of every wanted tag: the hash table (hash, entry + 1),
    the entries (tag, code, arena span) in order of first appearance, the arena of
    their bytes, and each tag's next code."""

    def __init__(self, wanted: int, expected: int = 1 << 10) -> None:
        """``expected``: about how many distinct values (the room made at first)."""
        self.wanted = wanted
        expected = min(max(expected, 1 << 10), 1 << 24)
        self.table = np.zeros(1 << (2 * expected).bit_length(), np.uint64)
        self.entries = np.empty((expected, 4), np.int64)
        self.arena = np.empty(16 * expected, np.uint8)
        self.meta = np.zeros(2, np.int64)  # entries, arena bytes used
        self.next_code = np.zeros(max(wanted, 1), np.int32)

    def state(self) -> tuple[Any, ...]:
        return self.table, self.entries, self.arena, self.meta, self.next_code

    def reserve(self, values: int, nbytes: int) -> None:
        """Room for ``values`` more values of ``nbytes`` bytes in all."""
        count = int(self.meta[0])
        entries = count + values
        if entries > self.entries.shape[0]:
            grown = np.empty((max(2 * self.entries.shape[0], entries), 4), np.int64)
            grown[:count] = self.entries[:count]
            self.entries = grown
        used = int(self.meta[1]) + nbytes
        if used > self.arena.size:
            arena = np.empty(max(2 * self.arena.size, used), np.uint8)
            arena[: self.meta[1]] = self.arena[: self.meta[1]]
            self.arena = arena
        if 2 * entries > self.table.size:
            size = self.table.size
            while 2 * entries > size:
                size *= 2
            self.table = np.zeros(size, np.uint64)
            _rehash(self.table, self.entries, self.arena, count)

    def codes(self, tags: list[int], values: list[str]) -> Any:
        """The codes of string values (the Python scanner's), interned by their UTF-8."""
        encoded = [value.encode("utf-8") for value in values]
        blob = np.frombuffer(b"".join(encoded) or b"\0", np.uint8)
        at = np.zeros(len(encoded) + 1, np.int64)
        np.cumsum([len(value) for value in encoded], out=at[1:])
        self.reserve(len(encoded), int(at[-1]))
        out = np.empty(len(encoded), np.int32)
        _intern_values(blob, at, np.array(tags, np.int32), out, *self.state())
        return out


class _Values(Mapping[str, list[str]]):
    """Each wanted tag's distinct values in code order, decoded when first asked for."""

    def __init__(self, table: _Table, index: dict[str, int]) -> None:
        count = int(table.meta[0])
        self._entries = table.entries[:count]
        self._raw = table.arena[: table.meta[1]].tobytes()
        self._text: str | None = None
        self._index = index
        self._decoded: dict[str, list[str]] = {}

    def __getitem__(self, tag: str) -> list[str]:
        values = self._decoded.get(tag)
        if values is None:
            rows = self._entries[self._entries[:, TAG] == self._index[tag]]
            starts = rows[:, START].tolist()
            ends = rows[:, END].tolist()
            if self._text is None and self._raw.isascii():
                self._text = self._raw.decode("ascii")
            if self._text is not None:
                text = self._text
                values = [text[a:z] for a, z in zip(starts, ends, strict=True)]
            else:
                raw = self._raw
                values = [raw[a:z].decode("utf-8") for a, z in zip(starts, ends, strict=True)]
            self._decoded[tag] = values
        return values

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)


@dataclass
class PgnColumns:
    """The wanted tags of every game, as codes into per-tag value tables.

    ``codes[tag][i]`` is the code of game ``i``'s ``tag`` value in ``values[tag]``,
    or -1 when the game has no such tag; ``lines[i]`` is the line of game ``i``'s
    first tag. A tag's values are decoded when ``values[tag]`` is first read."""

    source: str
    lines: Any
    codes: dict[str, Any]
    values: Mapping[str, list[str]]

    def __len__(self) -> int:
        return int(self.lines.size)

    def tags(self, game: int) -> dict[str, str]:
        """Game ``game``'s wanted tags (in ``codes`` order, not file order)."""
        out = {}
        for tag, codes in self.codes.items():
            code = int(codes[game])
            if code >= 0:
                out[tag] = self.values[tag][code]
        return out


def read_pgn_columns(
    source: Source,
    tags: Sequence[str] = RECORD_TAGS,
    *,
    progress: Progress | None = None,
) -> PgnColumns:
    """The ``tags`` of every game of a PGN file (plain, ``.gz`` or ``.zst``) as
    :class:`PgnColumns`; the games and values of
    :func:`chessrate.io.pgn.scan_headers`. A plain file of a megabyte or more is read
    through a memory map (and read again piece by piece if it is not plain UTF-8)."""
    given = list(dict.fromkeys(tags))
    name = source_name(source)
    counted = ProgressOnce(progress)
    wanted = Wanted(given)
    expected = file_size(source) // 256  # a game: some 500 bytes, a new value or two
    mapped = scan_mapped(source, counted, wanted)
    if mapped is not None:
        try:
            return _columns(mapped, wanted, _Table(len(wanted.names), expected), given, name)
        except NotPlain:  # a carriage return or not UTF-8: piece by piece from the start
            counted.restart()
    pieces = scan_games(source, counted, compiled=True, wanted=wanted)
    return _columns(pieces, wanted, _Table(len(wanted.names), expected), given, name)


def _columns(
    pieces: Iterable[ScannedGames], wanted: Wanted, table: _Table, given: list[str], name: str
) -> PgnColumns:
    lines: list[Any] = []
    chunks: list[Any] = []
    for piece in pieces:
        if piece.spans is None:
            rows, codes = _slow_rows(piece, wanted.names, table)
        else:
            rows, codes = _fast_rows(piece, wanted.names, table)
        lines.append(rows)
        chunks.append(codes)
    if chunks:
        matrix = np.concatenate(chunks, axis=1) if len(chunks) > 1 else chunks[0]
    else:
        matrix = np.zeros((len(wanted.names), 0), np.int32)
    index = {tag: w for w, tag in enumerate(wanted.names)}
    absent = np.full(matrix.shape[1], -1, np.int32)
    return PgnColumns(
        source=name,
        lines=np.concatenate(lines) if lines else np.zeros(0, np.int64),
        codes={tag: matrix[index[tag]] if tag in index else absent for tag in given},
        values=_Values(table, {tag: index.get(tag, -1) for tag in given}),
    )


def _slow_rows(piece: ScannedGames, wanted: list[str], table: _Table) -> tuple[Any, Any]:
    games = list(piece)
    codes = np.full((len(wanted), len(games)), -1, np.int32)
    _code_tags(codes, list(range(len(games))), [tags for _, tags in games], wanted, table)
    return np.array([line for line, _ in games], np.int64), codes


def _code_tags(
    codes: Any, rows: list[int], games: list[dict[str, str]], wanted: list[str], table: _Table
) -> None:
    """Fill ``codes[:, rows]`` from the games' tag dicts."""
    where_w: list[int] = []
    where_g: list[int] = []
    values: list[str] = []
    for row, tags in zip(rows, games, strict=True):
        for w, tag in enumerate(wanted):
            value = tags.get(tag)
            if value is not None:
                where_w.append(w)
                where_g.append(row)
                values.append(value)
    if values:
        codes[where_w, where_g] = table.codes(where_w, values)


def _fast_rows(piece: ScannedGames, wanted: list[str], table: _Table) -> tuple[Any, Any]:
    scanned = piece.spans
    assert scanned is not None
    b = np.frombuffer(piece.data, np.uint8)
    games = scanned.games
    codes = np.empty((len(wanted), games), np.int32)
    slow = np.zeros(games, np.bool_)
    done = 0
    while done < games:
        done = _intern_chunk(
            b, done, games, scanned.game_sec0, scanned.game_sec1, scanned.sec_head0,
            scanned.sec_head1, scanned.sec_tag0, scanned.sec_tag1, scanned.sec_flag,
            scanned.tag_value0, scanned.tag_value1, scanned.tag_escaped, scanned.tag_wanted,
            scanned.tag_hash, codes, slow, *table.state(),
        )  # fmt: skip
        if done < games:  # room for the next game (a game's values are within its bytes)
            first = int(scanned.game_sec0[done])
            last = int(scanned.game_sec1[done]) - 1
            size = int(scanned.sec_head1[last] - scanned.sec_head0[first])
            table.reserve(max(len(wanted), (games - done) // 4), size)
    slow_rows = np.flatnonzero(slow).tolist()
    if slow_rows:
        games_tags = [piece.tags(g) for g in slow_rows]
        _code_tags(codes, slow_rows, games_tags, wanted, table)
    return scanned.game_line[:games].copy(), codes


__all__ = ["PgnColumns", "read_pgn_columns"]
