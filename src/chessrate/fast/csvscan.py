"""The CSV scanner of the columnar reader (numba kernels). It finds cells; it decides
nothing a field means.

:func:`scan` reads a file's bytes once: per non-empty line, its number, where the
cells of the *span* columns (ids, timestamp) start and end, and a dense code for the
cell of every *interned* column (the low-cardinality fields), one code per distinct
(column, bytes). What each distinct cell means is decided afterwards by the
reference field readers (:mod:`chessrate.fast.fields`). Two screens run on the span
cells: :func:`_plain_id` and :func:`_timestamp` pass only spellings the reference
accepts unchanged (the latter converted to the same instant); any other cell sends
its row to the reference parser. :func:`plain_ids` and :func:`timestamps` run the
same screens over other buffers (JSON Lines columns).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from ..identifiers import ID_LONGEST
from ..records import EARLIEST, LATEST
from .strings import intern_cell

I64 = npt.NDArray[np.int64]

OTHER, SPAN, INTERNED = range(3)
"""What :func:`scan` keeps of a column: nothing (a non-empty cell is flagged), where
its cells are, or their codes."""

RAGGED = -1
""":func:`scan`'s answer for a line with another number of cells than the header."""

SPANS = ("id", "played_at", "white", "black")
"""The fields :func:`scan` keeps as spans (slots of ``starts``/``ends``), in order."""
ID, PLAYED_AT, WHITE, BLACK = range(len(SPANS))

COMMA, NEWLINE = 44, 10
CACHE_BITS = 12
YEARS = (EARLIEST.year + 1, LATEST.year - 2)
"""The years of a plain timestamp: any instant of them, at any offset, is within the
range records accept (``records.EARLIEST`` .. ``LATEST``); the years at the edges go to
the reference reader, which says exactly."""


@njit(cache=True, nogil=True)
def count_lines(data: Any) -> int:
    """Newlines in ``data``, plus one for a last line without its newline."""
    n = 0
    for k in range(data.shape[0]):
        if data[k] == NEWLINE:
            n += 1
    if data.shape[0] and data[data.shape[0] - 1] != NEWLINE:
        n += 1
    return n


@njit(cache=True, nogil=True)
def ascii_only(data: Any) -> bool:
    """No byte of ``data`` is above 127."""
    for k in range(data.shape[0]):  # noqa: SIM110 (numba)
        if data[k] > 127:
            return False
    return True


@njit(cache=True, nogil=True)
def scan(
    data: Any,
    first: int,
    kinds: Any,
    slots: Any,
    lines: Any,
    line_start: Any,
    starts: Any,
    ends: Any,
    played_at: Any,
    codes: Any,
    slow: Any,
    table: Any,
    pool: Any,
    offsets: Any,
    keys: Any,
) -> tuple[int, int, Any]:
    """Every non-empty line from byte ``first`` on, one row each. Column ``c`` is of
    kind ``kinds[c]``, ``s = slots[c]``:

    * SPAN: its cell is ``data[starts[s, row]:ends[s, row]]``; a plain timestamp's
      instant is ``played_at[row]`` (:func:`_timestamp`);
    * INTERNED: its cell's code is ``codes[s, row]``; the distinct cells are
      ``pool[offsets[c]:offsets[c + 1]]``, of the column slot ``keys[c]``;
    * OTHER: nothing is kept.

    ``slow[row]`` is set when the row needs the reference parser: an id that is not
    plain (:func:`_plain_id`, checked as the cell is found), a timestamp that is not
    plain, White and Black alike, or a
    non-empty OTHER cell. A SPAN column the header does not have has starts of -1.
    Returns (rows or :data:`RAGGED`, distinct cells, the hash table)."""
    size = data.shape[0]
    columns = kinds.shape[0]
    count = 0
    # a direct-mapped cache of the codes of short cells (up to 16 bytes, packed in two
    # words with their column and length: an exact key), before the hash table
    tags = np.full(1 << CACHE_BITS, -1, np.int64)
    lows = np.zeros(1 << CACHE_BITS, np.uint64)
    highs = np.zeros(1 << CACHE_BITS, np.uint64)
    cached = np.zeros(1 << CACHE_BITS, np.int64)
    row = 0
    line = 1
    k = first
    while k < size:
        line += 1
        if data[k] == NEWLINE:  # an empty line: skipped, as the csv module does
            k += 1
            continue
        lines[row] = line
        line_start[row] = k
        played_at[row] = 0
        bad = False
        column = 0
        while True:
            if column >= columns:
                return RAGGED, count, table
            kind = kinds[column]
            key = slots[column]
            start = k
            low = high = np.uint64(0)
            if kind == SPAN and key != PLAYED_AT:  # an id: screened as it is found
                plain = True
                while k < size and data[k] != COMMA and data[k] != NEWLINE:
                    plain = plain and _plain_byte(data[k])
                    k += 1
                bad = bad or not (plain and 0 < k - start <= ID_LONGEST)
            elif kind == INTERNED:  # packed as it is found (its first 16 bytes)
                while k < size and data[k] != COMMA and data[k] != NEWLINE:
                    j = k - start
                    if j < 8:
                        low |= np.uint64(data[k]) << np.uint64(8 * j)
                    elif j < 16:
                        high |= np.uint64(data[k]) << np.uint64(8 * (j - 8))
                    k += 1
            else:
                while k < size and data[k] != COMMA and data[k] != NEWLINE:
                    k += 1
            if kind == SPAN:
                starts[key, row] = start
                ends[key, row] = k
                if key == PLAYED_AT:
                    ok, instant = _timestamp(data, start, k)
                    played_at[row] = instant
                    bad = bad or not ok
            elif kind == INTERNED:
                if k - start > 16:
                    code, count, table = intern_cell(
                        data, start, k, key, table, pool, offsets, keys, count
                    )
                else:  # the cache, else the table (and the cache remembers it)
                    tag = key * 32 + k - start
                    at = _cache_slot(low, high, tag)
                    if tags[at] == tag and lows[at] == low and highs[at] == high:
                        code = cached[at]
                    else:
                        code, count, table = intern_cell(
                            data, start, k, key, table, pool, offsets, keys, count
                        )
                        tags[at], lows[at], highs[at], cached[at] = tag, low, high, code
                codes[key, row] = code
            elif k > start:
                bad = True  # a cell in a column the record does not have
            column += 1
            if k >= size or data[k] == NEWLINE:
                k += 1
                break
            k += 1  # the comma
        if column != columns:
            return RAGGED, count, table
        if not bad and starts[WHITE, row] >= 0 and starts[BLACK, row] >= 0:
            bad = _same(data, starts[WHITE, row], ends[WHITE, row], starts[BLACK, row],
                        ends[BLACK, row])  # fmt: skip
        slow[row] = bad
        row += 1
    return row, count, table


@njit(cache=True, nogil=True)
def _same(data: Any, a: int, a_end: int, b: int, b_end: int) -> bool:
    """The cells ``data[a:a_end]`` and ``data[b:b_end]`` hold the same bytes."""
    if a_end - a != b_end - b:
        return False
    for j in range(a_end - a):  # noqa: SIM110 (numba)
        if data[a + j] != data[b + j]:
            return False
    return True


@njit(cache=True, nogil=True)
def _cache_slot(low: Any, high: Any, tag: int) -> int:
    mixed = (low ^ (high * np.uint64(0xC2B2AE3D27D4EB4F)) ^ np.uint64(tag)) * np.uint64(
        0x9E3779B97F4A7C15
    )
    return int(mixed >> np.uint64(64 - CACHE_BITS))


@njit(cache=True, nogil=True)
def _plain_id(data: Any, start: int, end: int) -> bool:
    """1 to :data:`~chessrate.identifiers.ID_LONGEST` bytes of printable ASCII without a
    space or ``/`` (:data:`~chessrate.identifiers.PLAIN_ID`): an id the reference accepts as it is
    (a negative start: no cell)."""
    if start < 0 or end <= start or end - start > ID_LONGEST:
        return False
    for j in range(start, end):  # noqa: SIM110 (numba)
        if not _plain_byte(data[j]):
            return False
    return True


@njit(cache=True, nogil=True)
def _plain_byte(byte: int) -> bool:
    """Printable ASCII, not a space or ``/``: a byte of a plain id."""
    return 33 <= byte <= 126 and byte != 47


@njit(cache=True, nogil=True)
def plain_ids(data: Any, starts: Any, ends: Any, plain: Any) -> None:
    """``plain[r]``: cell ``r`` is a plain id (:func:`_plain_id`)."""
    for r in range(starts.shape[0]):
        plain[r] = _plain_id(data, starts[r], ends[r])


@njit(cache=True, nogil=True)
def _digits(data: Any, start: int, count: int) -> int:
    """``count`` ASCII digits as a number, or -1."""
    value = 0
    for k in range(count):
        c = data[start + k]
        if c < 48 or c > 57:
            return -1
        value = value * 10 + (c - 48)
    return value


@njit(cache=True, nogil=True)
def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (valid input)."""
    y = year - 1 if month <= 2 else year
    era = y // 400
    yoe = y - era * 400
    mp = month - 3 if month > 2 else month + 9
    doy = (153 * mp + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


@njit(cache=True, nogil=True)
def _timestamp(data: Any, start: int, end: int) -> tuple[bool, int]:
    """(True, microseconds since 1970 UTC) for ``YYYY-MM-DDTHH:MM:SS``, then optionally
    ``.`` and 1 to 6 digits, then ``Z``, ``+HH:MM``, ``-HH:MM`` or nothing (UTC), a
    possible date and time in :data:`YEARS`; else (False, 0)."""
    n = end - start
    if start < 0 or n < 19:
        return False, 0
    if (data[start + 4] != 45 or data[start + 7] != 45 or data[start + 10] != 84
            or data[start + 13] != 58 or data[start + 16] != 58):  # fmt: skip
        return False, 0
    year = _digits(data, start, 4)
    month = _digits(data, start + 5, 2)
    day = _digits(data, start + 8, 2)
    hour = _digits(data, start + 11, 2)
    minute = _digits(data, start + 14, 2)
    second = _digits(data, start + 17, 2)
    if year < YEARS[0] or year > YEARS[1] or month < 1 or month > 12 or day < 1:
        return False, 0
    if hour < 0 or hour > 23 or minute < 0 or minute > 59 or second < 0 or second > 59:
        return False, 0
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        last = 29 if leap else 28
    elif month == 4 or month == 6 or month == 9 or month == 11:
        last = 30
    else:
        last = 31
    if day > last:
        return False, 0
    k = start + 19
    fraction = 0
    if k < end and data[k] == 46:  # .
        k += 1
        digits = 0
        while k < end and 48 <= data[k] <= 57 and digits < 7:
            fraction = fraction * 10 + (data[k] - 48)
            digits += 1
            k += 1
        if digits == 0 or digits > 6:
            return False, 0
        for _ in range(6 - digits):
            fraction *= 10
    offset = 0
    if k == end - 1 and data[k] == 90:  # Z
        k += 1
    elif k == end - 6 and (data[k] == 43 or data[k] == 45) and data[k + 3] == 58:  # +HH:MM
        hours = _digits(data, k + 1, 2)
        minutes = _digits(data, k + 4, 2)
        if hours < 0 or hours > 23 or minutes < 0 or minutes > 59:
            return False, 0
        offset = hours * 60 + minutes
        if data[k] == 45:
            offset = -offset
        k = end
    if k != end:
        return False, 0
    days = _days_from_civil(year, month, day)
    minutes_utc = (days * 24 + hour) * 60 + minute - offset
    return True, minutes_utc * 60_000_000 + second * 1_000_000 + fraction


@njit(cache=True, nogil=True)
def timestamps(data: Any, starts: Any, ends: Any, values: Any, plain: Any) -> None:
    """``plain[r]``: cell ``r`` is a plain timestamp (:func:`_timestamp`), and
    ``values[r]`` its instant in microseconds since 1970 UTC (else 0)."""
    for r in range(starts.shape[0]):
        ok, value = _timestamp(data, starts[r], ends[r])
        plain[r] = ok
        values[r] = value


PACKED = 32
"""The longest id :func:`intern_packed` interns (its bytes packed in four words)."""


@njit(cache=True, nogil=True, inline="always")
def _mix(h: Any, word: Any) -> Any:
    h = (h ^ word) * np.uint64(0x9E3779B97F4A7C15)
    return h ^ (h >> np.uint64(29))


@njit(cache=True, nogil=True, inline="always")
def _packed_hash(w0: Any, w1: Any, w2: Any, w3: Any, length: int) -> Any:
    return _mix(_mix(_mix(_mix(np.uint64(length), w0), w1), w2), w3) * np.uint64(0xC2B2AE3D27D4EB4F)


@njit(cache=True, nogil=True)
def intern_packed(
    data: Any, rows: Any, first_starts: Any, first_ends: Any, second_starts: Any,
    second_ends: Any, size: int,
) -> tuple[Any, int, Any, Any]:  # fmt: skip
    """Codes for the ids ``data[starts[r]:ends[r]]`` of ``rows``, the first column's then
    the second's (White's, then Black's), numbered in order of first appearance, as
    :func:`~chessrate.fast.strings.intern` numbers them. Each id's bytes are packed
    little-endian in four words, hashed and compared as words (no byte pool to probe):
    ids of up to :data:`PACKED` bytes; a longer one gives a count of -1 (intern them
    with :func:`~chessrate.fast.strings.intern`). ``size``: the hash table's first size
    (a power of two; doubled when half full). Returns (codes, count, words, lengths)."""
    n = rows.shape[0]
    codes = np.empty(2 * n, np.int64)
    table = np.full(size, -1, np.int64)
    room = 1024
    words = np.zeros((room, 4), np.uint64)
    lengths = np.zeros(room, np.int64)
    count = 0
    for side in range(2):
        starts = first_starts if side == 0 else second_starts
        ends = first_ends if side == 0 else second_ends
        for t in range(n):
            r = rows[t]
            start = starts[r]
            length = ends[r] - start
            if length > PACKED:
                return codes, -1, words, lengths
            w0 = w1 = w2 = w3 = np.uint64(0)
            for j in range(length):
                byte = np.uint64(data[start + j]) << np.uint64(8 * (j & 7))
                quarter = j >> 3
                if quarter == 0:
                    w0 |= byte
                elif quarter == 1:
                    w1 |= byte
                elif quarter == 2:
                    w2 |= byte
                else:
                    w3 |= byte
            mask = table.shape[0] - 1
            slot = np.int64(_packed_hash(w0, w1, w2, w3, length) >> np.uint64(32)) & mask
            while True:
                code = table[slot]
                if code < 0:  # a new id
                    code = count
                    if code == words.shape[0]:
                        grown = np.zeros((2 * code, 4), np.uint64)
                        grown[:code] = words
                        words = grown
                        longer = np.zeros(2 * code, np.int64)
                        longer[:code] = lengths
                        lengths = longer
                    words[code, 0] = w0
                    words[code, 1] = w1
                    words[code, 2] = w2
                    words[code, 3] = w3
                    lengths[code] = length
                    table[slot] = code
                    count += 1
                    if 2 * count > table.shape[0]:
                        table = _packed_table(words, lengths, count, 2 * table.shape[0])
                    break
                if (lengths[code] == length and words[code, 0] == w0 and words[code, 1] == w1
                        and words[code, 2] == w2 and words[code, 3] == w3):  # fmt: skip
                    break
                slot = (slot + 1) & mask
            codes[side * n + t] = code
    return codes, count, words, lengths


@njit(cache=True, nogil=True)
def _packed_table(words: Any, lengths: Any, count: int, size: int) -> Any:
    """:func:`intern_packed`'s hash table rebuilt at ``size`` for its first ``count`` ids."""
    table = np.full(size, -1, np.int64)
    mask = size - 1
    for code in range(count):
        h = _packed_hash(words[code, 0], words[code, 1], words[code, 2], words[code, 3],
                         lengths[code])  # fmt: skip
        slot = np.int64(h >> np.uint64(32)) & mask
        while table[slot] >= 0:
            slot = (slot + 1) & mask
        table[slot] = code
    return table
