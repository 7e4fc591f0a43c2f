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


@njit(cache=True)
def _verify(b: Any, v0: Any, v1: Any, rows: Any, codes: Any, arena: Any, arena_at: Any) -> bool:
    """Whether every row's value bytes are its code's bytes."""
    for i in range(rows.size):
        t = rows[i]
        code = codes[i]
        a0 = arena_at[code]
        size = v1[t] - v0[t]
        if arena_at[code + 1] - a0 != size:
            return False
        start = v0[t]
        for k in range(size):
            if arena[a0 + k] != b[start + k]:
                return False
    return True


@dataclass
class _Column:
    values: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    known_hashes: Any = field(default_factory=lambda: np.zeros(0, np.uint64))
    known_codes: Any = field(default_factory=lambda: np.zeros(0, np.int64))
    arena: list[bytes] = field(default_factory=list)
    arena_bytes: Any = field(default_factory=lambda: np.zeros(0, np.uint8))
    arena_at: Any = field(default_factory=lambda: np.zeros(1, np.int64))
    codes: list[Any] = field(default_factory=list)

    def code(self, value: str) -> int:
        code = self.index.get(value)
        if code is None:
            code = self.index[value] = len(self.values)
            self.values.append(value)
            self.arena.append(value.encode("utf-8"))
        return code

    def sync_arena(self) -> None:
        if len(self.arena) + 1 != self.arena_at.size:
            sizes = np.fromiter((len(v) for v in self.arena), np.int64, len(self.arena))
            self.arena_at = np.zeros(len(self.arena) + 1, np.int64)
            np.cumsum(sizes, out=self.arena_at[1:])
            self.arena_bytes = np.frombuffer(b"".join(self.arena), np.uint8)


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
                tag_rows = slot[rows[first[new]], w]
                for k, t in zip(new.tolist(), tag_rows.tolist(), strict=True):
                    unique_codes[k] = column.code(buffer[v0[t] : v1[t]].decode("utf-8"))
                merged = np.concatenate([column.known_hashes, unique[new]])
                order = np.argsort(merged, kind="stable")
                column.known_hashes = merged[order]
                column.known_codes = np.concatenate([column.known_codes, unique_codes[new]])[order]
            row_codes = unique_codes[inverse.ravel()]
            column.sync_arena()
            if not _verify(
                b, v0, v1, slot[rows, w], row_codes, column.arena_bytes, column.arena_at
            ):
                raise AssertionError(f"64-bit hash collision in {wanted[w]} values")
            codes[rows] = row_codes
        for row, tags in zip(slow_rows.tolist(), slow_tags, strict=True):
            value = tags.get(wanted[w])
            if value is not None:
                codes[row] = column.code(value)
        column.codes.append(codes)


__all__ = ["RECORD_TAGS", "PgnColumns", "read_pgn_columns"]
