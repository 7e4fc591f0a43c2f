"""Columnar PGN headers: every game's needed tags as small integer codes.

:func:`read_pgn_columns` reads the tags a game record needs (``RECORD_TAGS``, or any
others) from every game of a PGN file without making a Python object per game: the
compiled scanner (:mod:`chessrate.io.pgnscan`) finds the tag spans, a second kernel
picks each game's wanted tags (the last of a repeated name, as ``dict`` does) and
hashes their values (64-bit FNV-1a), and numpy groups equal hashes. Each distinct
value is decoded once and given a code, in order of first appearance; a third
kernel checks every game's value bytes against its code's bytes, so a hash collision
cannot merge two values (it raises ``AssertionError``: none is expected below
billions of distinct values). A game the kernels leave to Python (a section the
scanner marked, a wanted value with a backslash, a chunk that is not UTF-8) gets its
tags from the Python scanner and its codes by value. The columns are exactly
:func:`chessrate.io.pgn.scan_headers`'s tags, restricted to the wanted names.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit

from .pgn import Progress, Source, _buffer_games, _pieces
from .pgnscan import FALLBACK, BufferScan

RECORD_TAGS = (
    "White", "Black", "Result", "UTCDate", "UTCTime", "Date", "Time", "TimeControl",
    "Termination", "Event", "Site", "Round", "Variant", "FEN", "GameId", "Link",
    "PlyCount", "WhiteFideId", "BlackFideId",
)  # fmt: skip
"""The tags :func:`chessrate.io.pgn.game_from_tags` reads."""

_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


@njit(cache=True)
def _pick(
    b: Any,
    games: int,
    g_sec0: Any,
    g_sec1: Any,
    s_tag0: Any,
    s_tag1: Any,
    s_flag: Any,
    t_n0: Any,
    t_n1: Any,
    t_v0: Any,
    t_v1: Any,
    t_esc: Any,
    names: Any,
    name_at: Any,
) -> tuple[Any, Any, Any]:
    """(tag index of each game's wanted tags, -1 if absent; their value hashes;
    whether a game is left to Python)."""
    wanted = name_at.size - 1
    slot = np.full((games, wanted), -1, np.int64)
    hashes = np.zeros((games, wanted), np.uint64)
    slow = np.zeros(games, np.bool_)
    for g in range(games):
        for s in range(g_sec0[g], g_sec1[g]):
            if s_flag[s] & FALLBACK:
                slow[g] = True
            for t in range(s_tag0[s], s_tag1[s]):
                n0 = t_n0[t]
                size = t_n1[t] - n0
                for w in range(wanted):
                    w0 = name_at[w]
                    if name_at[w + 1] - w0 != size or names[w0] != b[n0]:
                        continue
                    same = True
                    for k in range(1, size):
                        if names[w0 + k] != b[n0 + k]:
                            same = False
                            break
                    if same:
                        slot[g, w] = t
                        break
        for w in range(wanted):
            t = slot[g, w]
            if t >= 0:
                if t_esc[t]:
                    slow[g] = True
                h = _FNV_OFFSET
                for k in range(t_v0[t], t_v1[t]):
                    h = (h ^ np.uint64(b[k])) * _FNV_PRIME
                hashes[g, w] = h
    return slot, hashes, slow


@njit(cache=True, inline="always")
def _same(a: Any, a0: int, a1: int, b: Any, b0: int, b1: int) -> bool:
    if a1 - a0 != b1 - b0:
        return False
    for k in range(a1 - a0):  # noqa: SIM110 (a loop numba compiles)
        if a[a0 + k] != b[b0 + k]:
            return False
    return True


@njit(cache=True)
def _verify(
    b: Any,
    v0: Any,
    v1: Any,
    rows: Any,
    reps: Any,
    groups: Any,
    known: Any,
    codes: Any,
    arena: Any,
    at: Any,
) -> bool:
    """Whether every row's value bytes are those of its hash group's first row
    (``reps``), and each group that had a code from an earlier buffer (``known``) has
    that code's bytes."""
    for i in range(rows.size):
        t = rows[i]
        r = reps[i]
        if t != r and not _same(b, v0[t], v1[t], b, v0[r], v1[r]):
            return False
    for g in range(groups.size):
        if known[g]:
            t = groups[g]
            c = codes[g]
            if not _same(b, v0[t], v1[t], arena, at[c], at[c + 1]):
                return False
    return True


@njit(cache=True)
def _gather(b: Any, v0: Any, v1: Any, tags: Any) -> tuple[Any, Any]:
    """The values of ``tags`` end to end, and where each starts (plus the end)."""
    at = np.zeros(tags.size + 1, np.int64)
    for i in range(tags.size):
        at[i + 1] = at[i] + v1[tags[i]] - v0[tags[i]]
    out = np.empty(at[-1], np.uint8)
    for i in range(tags.size):
        out[at[i] : at[i + 1]] = b[v0[tags[i]] : v1[tags[i]]]
    return out, at


@dataclass
class _Column:
    """One tag's value table, the hashes of the values read as bytes and each code's
    bytes (``arena``)."""

    values: list[str] = field(default_factory=list)
    known_hashes: Any = field(default_factory=lambda: np.zeros(0, np.uint64))
    known_codes: Any = field(default_factory=lambda: np.zeros(0, np.int64))
    arena: Any = field(default_factory=lambda: np.zeros(0, np.uint8))
    arena_at: Any = field(default_factory=lambda: np.zeros(1, np.int64))
    codes: list[Any] = field(default_factory=list)
    index: dict[str, int] | None = None
    """value -> code, made when a value read by Python needs it."""

    def add(self, data: Any, at: Any) -> None:
        """New values, given as their UTF-8 bytes end to end and their offsets."""
        text = data.tobytes().decode("utf-8")
        if data.size == len(text):  # ASCII: byte offsets are text offsets
            offsets = at.tolist()
            new = [text[a:z] for a, z in itertools.pairwise(offsets)]
        else:
            raw = data.tobytes()
            offsets = at.tolist()
            new = [raw[a:z].decode("utf-8") for a, z in itertools.pairwise(offsets)]
        if self.index is not None:
            for value in new:
                self.index[value] = len(self.values)
                self.values.append(value)
        else:
            self.values.extend(new)
        self.arena = np.concatenate([self.arena, data])
        self.arena_at = np.concatenate([self.arena_at, at[1:] + self.arena_at[-1]])

    def code(self, value: str) -> int:
        if self.index is None:
            self.index = {v: c for c, v in enumerate(self.values)}
        code = self.index.get(value)
        if code is None:
            data = np.frombuffer(value.encode("utf-8"), np.uint8)
            code = len(self.values)
            self.add(data, np.array([0, data.size], np.int64))
            self.index[value] = code
        return code


@dataclass
class PgnColumns:
    """The wanted tags of every game, as codes into per-tag value tables.

    ``codes[tag][i]`` is the code of game ``i``'s ``tag`` value in ``values[tag]``,
    or -1 when the game has no such tag; ``lines[i]`` is the line of game ``i``'s
    first tag."""

    source: str
    lines: Any
    codes: dict[str, Any]
    values: dict[str, list[str]]

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
    :func:`chessrate.io.pgn.scan_headers`."""
    wanted = list(dict.fromkeys(tags))
    encoded = [name.encode("utf-8") for name in wanted]
    names = np.frombuffer(b"".join(encoded) or b"\0", np.uint8)
    name_at = np.zeros(len(wanted) + 1, np.int64)
    np.cumsum([len(name) for name in encoded], out=name_at[1:])
    columns = [_Column() for _ in wanted]
    lines: list[Any] = []
    for piece in _pieces(source, progress, True):
        if isinstance(piece, list):
            _slow_rows(piece, wanted, columns, lines)
        else:
            _fast_rows(*piece, names, name_at, wanted, columns, lines)
    name = str(source) if not hasattr(source, "read") else str(getattr(source, "name", "<pgn>"))
    return PgnColumns(
        source=name,
        lines=np.concatenate(lines) if lines else np.zeros(0, np.int64),
        codes={
            tag: (np.concatenate(c.codes) if c.codes else np.zeros(0, np.int32))
            for tag, c in zip(wanted, columns, strict=True)
        },
        values={tag: c.values for tag, c in zip(wanted, columns, strict=True)},
    )


def _slow_rows(
    games: Iterable[tuple[int, dict[str, str]]],
    wanted: list[str],
    columns: list[_Column],
    lines: list[Any],
) -> None:
    games = list(games)
    lines.append(np.array([line for line, _ in games], np.int64))
    for tag, column in zip(wanted, columns, strict=True):
        column.codes.append(
            np.array(
                [column.code(t[tag]) if tag in t else -1 for _, t in games],
                np.int32,
            )
        )


def _fast_rows(
    buffer: bytes,
    scanned: BufferScan,
    names: Any,
    name_at: Any,
    wanted: list[str],
    columns: list[_Column],
    lines: list[Any],
) -> None:
    b = np.frombuffer(buffer, np.uint8)
    games = scanned.games
    slot, hashes, slow = _pick(
        b, games, scanned.game_sec0, scanned.game_sec1, scanned.sec_tag0, scanned.sec_tag1,
        scanned.sec_flag, scanned.tag_name0, scanned.tag_name1, scanned.tag_value0,
        scanned.tag_value1, scanned.tag_escaped, names, name_at,
    )  # fmt: skip
    lines.append(scanned.game_line[:games].copy())
    slow_rows = np.flatnonzero(slow)
    slow_tags: list[dict[str, str]] = []
    if slow_rows.size:  # their tags by the Python reading of the sections
        all_games = list(_buffer_games(buffer, scanned))
        slow_tags = [all_games[row][1] for row in slow_rows.tolist()]
    v0 = scanned.tag_value0
    v1 = scanned.tag_value1
    for w, column in enumerate(columns):
        codes = np.full(games, -1, np.int32)
        rows = np.flatnonzero((slot[:, w] >= 0) & ~slow)
        if rows.size:
            unique, first, inverse = np.unique(
                hashes[rows, w], return_index=True, return_inverse=True
            )
            unique_codes = np.full(unique.size, -1, np.int64)
            found = np.zeros(unique.size, np.bool_)
            if column.known_hashes.size:
                at = np.searchsorted(column.known_hashes, unique)
                np.minimum(at, column.known_hashes.size - 1, out=at)
                found = column.known_hashes[at] == unique
                unique_codes[found] = column.known_codes[at[found]]
            new = np.flatnonzero(~found)
            if new.size:
                data, at = _gather(b, v0, v1, slot[rows[first[new]], w])
                if column.index is not None:  # a value read by Python may be one of them
                    offsets = at.tolist()
                    raw = data.tobytes()
                    for k, a, z in zip(new.tolist(), offsets, offsets[1:], strict=False):
                        unique_codes[k] = column.code(raw[a:z].decode("utf-8"))
                else:
                    unique_codes[new] = np.arange(len(column.values), len(column.values) + new.size)
                    column.add(data, at)
                where = np.searchsorted(column.known_hashes, unique[new])
                column.known_hashes = np.insert(column.known_hashes, where, unique[new])
                column.known_codes = np.insert(column.known_codes, where, unique_codes[new])
            inverse = inverse.ravel()
            row_codes = unique_codes[inverse]
            row_tags = slot[rows, w]
            group_tags = row_tags[first]
            if not _verify(
                b, v0, v1, row_tags, group_tags[inverse], group_tags, found, unique_codes,
                column.arena, column.arena_at,
            ):  # fmt: skip
                raise AssertionError(f"64-bit hash collision in {wanted[w]} values")
            codes[rows] = row_codes
        for row, tags in zip(slow_rows.tolist(), slow_tags, strict=True):
            value = tags.get(wanted[w])
            if value is not None:
                codes[row] = column.code(value)
        column.codes.append(codes)


__all__ = ["RECORD_TAGS", "PgnColumns", "read_pgn_columns"]
