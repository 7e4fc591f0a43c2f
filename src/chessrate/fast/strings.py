"""Interned strings without a Python object per row: an open-addressing hash table
on the bytes gives each distinct string a dense code (:func:`intern`), and
:class:`ByteStrings` keeps the distinct strings as one byte pool, decoded only when
one is asked for. Used by the CSV scanner (:mod:`chessrate.fast.csvscan`) for the
ids and the low-cardinality cells, and by the replay to find a game by its id.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any, overload

import numpy as np
import numpy.typing as npt
from numba import njit

U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]


@njit(cache=True, nogil=True)
def hash_bytes(data: Any, start: int, end: int) -> Any:
    """FNV-1a of the bytes, mixed, as a non-negative int64."""
    h = np.uint64(14695981039346656037)
    prime = np.uint64(1099511628211)
    for j in range(start, end):
        h = (h ^ np.uint64(data[j])) * prime
    # murmur3's finaliser: FNV's low bits (the slot) are weak on near-equal ids
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    h ^= h >> np.uint64(33)
    return np.int64(h >> np.uint64(1))


@njit(cache=True, nogil=True)
def _slot(
    data: Any, start: int, end: int, h: Any, table: Any, pool: Any, offsets: Any
) -> tuple[int, int]:
    """(code, slot) of the string ``data[start:end]`` of hash ``h``: its code, or -1 and
    the empty slot for it. A table entry is ``fingerprint << 32 | code`` (-1 when
    empty), so a probe reads the pool only when the fingerprints agree."""
    mask = table.shape[0] - 1
    slot = h & mask
    fingerprint = (h >> 32) & 0x7FFFFFFF
    n = end - start
    while True:
        entry = table[slot]
        if entry < 0:
            return -1, slot
        if entry >> 32 == fingerprint:
            code = entry & 0xFFFFFFFF
            at = offsets[code]
            if offsets[code + 1] - at == n:
                same = True
                for j in range(n):
                    if pool[at + j] != data[start + j]:
                        same = False
                        break
                if same:
                    return code, slot
        slot = (slot + 1) & mask


@njit(cache=True, nogil=True)
def intern(
    data: Any,
    rows: Any,
    starts: Any,
    ends: Any,
    table: Any,
    pool: Any,
    offsets: Any,
    count: int,
) -> tuple[Any, int, Any]:
    """Codes for the strings ``data[starts[r]:ends[r]]`` of ``rows``, new ones
    numbered from ``count`` on in order of first appearance. A new string is copied
    to ``pool`` (``pool[offsets[c]:offsets[c + 1]]`` is string ``c``; both need room
    for every row). The table (a power of two long, -1 where empty) is doubled when
    half full. Returns (codes, count, table)."""
    codes = np.empty(rows.shape[0], np.int64)
    for t in range(rows.shape[0]):
        r = rows[t]
        start, end = starts[r], ends[r]
        h = hash_bytes(data, start, end)
        code, slot = _slot(data, start, end, h, table, pool, offsets)
        if code < 0:
            code = count
            at = offsets[code]
            for j in range(end - start):
                pool[at + j] = data[start + j]
            offsets[code + 1] = at + end - start
            table[slot] = (((h >> 32) & 0x7FFFFFFF) << 32) | code
            count += 1
            if 2 * count > table.shape[0]:
                table = _grown(table, pool, offsets, count)
        codes[t] = code
    return codes, count, table


@njit(cache=True, nogil=True)
def intern_cell(
    data: Any,
    start: int,
    end: int,
    key: int,
    table: Any,
    pool: Any,
    offsets: Any,
    keys: Any,
    count: int,
) -> tuple[int, int, Any]:
    """:func:`intern` of one string ``data[start:end]`` under ``key`` (a column): the
    same bytes under two keys are two strings; ``keys[c]`` is string ``c``'s key.
    Returns (code, count, table)."""
    h = hash_bytes(data, start, end)
    mask = table.shape[0] - 1
    slot = h & mask
    fingerprint = (h >> 32) & 0x7FFFFFFF
    n = end - start
    while True:
        entry = table[slot]
        if entry < 0:
            break
        if entry >> 32 == fingerprint:
            code = entry & 0xFFFFFFFF
            at = offsets[code]
            if keys[code] == key and offsets[code + 1] - at == n:
                same = True
                for j in range(n):
                    if pool[at + j] != data[start + j]:
                        same = False
                        break
                if same:
                    return code, count, table
        slot = (slot + 1) & mask
    code = count
    at = offsets[code]
    for j in range(n):
        pool[at + j] = data[start + j]
    offsets[code + 1] = at + n
    keys[code] = key
    table[slot] = (fingerprint << 32) | code
    count += 1
    if 2 * count > table.shape[0]:
        table = _grown(table, pool, offsets, count)
    return code, count, table


@njit(cache=True, nogil=True)
def _grown(table: Any, pool: Any, offsets: Any, count: int) -> Any:
    bigger = np.full(table.shape[0] * 2, -1, np.int64)
    mask = bigger.shape[0] - 1
    for code in range(count):
        h = hash_bytes(pool, offsets[code], offsets[code + 1])
        slot = h & mask
        while bigger[slot] >= 0:
            slot = (slot + 1) & mask
        bigger[slot] = (((h >> 32) & 0x7FFFFFFF) << 32) | code
    return bigger


@njit(cache=True, nogil=True)
def lookup(key: Any, table: Any, pool: Any, offsets: Any) -> int:
    """The code of the string ``key`` (its bytes), or -1."""
    code, _ = _slot(key, 0, key.shape[0], hash_bytes(key, 0, key.shape[0]), table, pool, offsets)
    return int(code)


@njit(cache=True, nogil=True)
def gather(data: Any, rows: Any, starts: Any, ends: Any, pool: Any, offsets: Any) -> Any:
    """The strings of ``rows`` copied one after the other into ``pool`` (string t is
    ``pool[offsets[t]:offsets[t + 1]]``), and their hashes."""
    hashes = np.empty(rows.shape[0], np.int64)
    at = 0
    for t in range(rows.shape[0]):
        r = rows[t]
        start, end = starts[r], ends[r]
        offsets[t] = at
        for j in range(start, end):
            pool[at] = data[j]
            at += 1
        hashes[t] = hash_bytes(data, start, end)
    offsets[rows.shape[0]] = at
    return hashes


@njit(cache=True, nogil=True)
def hash_strings(pool: Any, offsets: Any) -> Any:
    """:func:`hash_bytes` of each string ``pool[offsets[c]:offsets[c + 1]]``."""
    hashes = np.empty(offsets.shape[0] - 1, np.int64)
    for c in range(hashes.shape[0]):
        hashes[c] = hash_bytes(pool, offsets[c], offsets[c + 1])
    return hashes


@njit(cache=True, nogil=True)
def key_hash(key: Any) -> Any:
    """:func:`hash_bytes` of a whole byte array."""
    return hash_bytes(key, 0, key.shape[0])


def table_for(count: int) -> I64:
    """An empty hash table with room for ``count`` strings without growing."""
    return np.full(1 << max(4, (2 * count).bit_length()), -1, np.int64)


class ByteStrings(Sequence[str]):
    """Interned strings as one byte pool and offsets (string ``c`` is
    ``pool[offsets[c]:offsets[c + 1]]``, decoded when asked for), with their hash
    table for :meth:`code`."""

    def __init__(
        self, pool: U8, offsets: I64, table: I64 | None = None, hashes: I64 | None = None
    ) -> None:
        """Without ``table`` the strings are distinct and ``hashes`` holds each one's
        :func:`hash_bytes`: :meth:`code` then searches them sorted."""
        self.pool, self.offsets, self.table = pool, offsets, table
        self.hashes = hashes
        self._sorted: tuple[I64, I64] | None = None

    def __len__(self) -> int:
        return int(self.offsets.shape[0]) - 1

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        start, end = int(self.offsets[index]), int(self.offsets[index + 1])
        return self.pool[start:end].tobytes().decode("utf-8")

    def __iter__(self) -> Iterator[str]:
        return iter(self.strings())

    def code(self, name: str) -> int | None:
        """The code of ``name``, or None (a hash probe: no dictionary is built)."""
        key = np.frombuffer(name.encode("utf-8"), np.uint8)
        if self.table is not None:
            code = int(lookup(key, self.table, self.pool, self.offsets))
            return None if code < 0 else code
        assert self.hashes is not None
        if self._sorted is None:
            order = np.argsort(self.hashes)
            self._sorted = (self.hashes[order], order)
        hashes, order = self._sorted
        wanted = int(key_hash(key))
        at = int(np.searchsorted(hashes, wanted))
        while at < hashes.shape[0] and int(hashes[at]) == wanted:
            code = int(order[at])
            if self.pool[self.offsets[code] : self.offsets[code + 1]].tobytes() == key.tobytes():
                return code
            at += 1
        return None

    def strings(self) -> list[str]:
        """All of them as Python strings."""
        pool = self.pool.tobytes()
        bounds = self.offsets.tolist()
        if pool.isascii():  # one decode: character offsets are byte offsets
            text = pool.decode("ascii")
            return [text[s:e] for s, e in itertools.pairwise(bounds)]
        return [pool[s:e].decode("utf-8") for s, e in itertools.pairwise(bounds)]
