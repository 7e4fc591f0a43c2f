"""The CSV fast path as numba kernels: one pass over the file's bytes.

:func:`scan` splits every line into cells and decodes the plain spellings the
columnar reader accepts (:mod:`chessrate.fast.columnar` lists them) straight into the
:class:`~chessrate.fast.GameBatch` columns; a row with any other cell is marked
*slow*, and the reference parser decides it. The ids are interned by
:mod:`chessrate.fast.strings`.

Nothing here decides a rule on its own: accepting fewer spellings than the
reference only sends more rows to the reference.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from ..records import MAX_PLIES
from .batch import NO_PLIES, NOT_GIVEN, TC_CLOCKED, TC_CORRESPONDENCE, TC_NONE, TC_UNCLOCKED

U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]

# what a column holds (its header name)
(R_OTHER, R_ID, R_PLAYED_AT, R_WHITE, R_BLACK, R_RESULT, R_RATED, R_TIME_CONTROL,
 R_TERMINATION, R_PLIES, R_VENUE, R_CONFIRMED) = range(12)  # fmt: skip
ROLES = {"id": R_ID, "played_at": R_PLAYED_AT, "white": R_WHITE, "black": R_BLACK,
         "result": R_RESULT, "rated": R_RATED, "time_control": R_TIME_CONTROL,
         "termination": R_TERMINATION, "plies": R_PLIES, "venue": R_VENUE,
         "confirmed": R_CONFIRMED}  # fmt: skip

RAGGED = -1
""":func:`scan`'s answer for a line with another number of cells than the header."""

COMMA, NEWLINE, SPACE, PLUS = 44, 10, 32, 43
UTC_OFFSET = np.frombuffer(b"+00:00", np.uint8)


def literals(words: Sequence[str]) -> tuple[U8, I64]:
    """Words as a padded byte matrix and their lengths (for :func:`_literal`)."""
    encoded = [word.encode("ascii") for word in words]
    table = np.zeros((len(encoded), max(len(w) for w in encoded)), np.uint8)
    for i, word in enumerate(encoded):
        table[i, : len(word)] = np.frombuffer(word, np.uint8)
    return table, np.array([len(w) for w in encoded], np.int64)


@njit(cache=True)
def _literal(data: Any, start: int, end: int, table: Any, lengths: Any, fold: bool) -> int:
    """The index of the word the cell spells (ASCII letters folded to lower case with
    ``fold``), or -1."""
    n = end - start
    for w in range(table.shape[0]):
        if lengths[w] != n:
            continue
        same = True
        for k in range(n):
            c = data[start + k]
            if fold and 65 <= c <= 90:
                c += 32
            if c != table[w, k]:
                same = False
                break
        if same:
            return w
    return -1


@njit(cache=True)
def _digits(data: Any, start: int, count: int) -> int:
    """``count`` ASCII digits as a number, or -1."""
    value = 0
    for k in range(count):
        c = data[start + k]
        if c < 48 or c > 57:
            return -1
        value = value * 10 + (c - 48)
    return value


@njit(cache=True)
def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (valid input)."""
    y = year - 1 if month <= 2 else year
    era = y // 400
    yoe = y - era * 400
    mp = month - 3 if month > 2 else month + 9
    doy = (153 * mp + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


@njit(cache=True)
def _timestamp(data: Any, start: int, end: int) -> int:
    """``YYYY-MM-DDTHH:MM:SS`` with ``Z``, ``+00:00`` or nothing after it, a possible
    date and time, year from 1000 to 2999, as microseconds since 1970 (UTC); else -1
    (such a cell goes to the reference)."""
    n = end - start
    if n == 20:
        if data[start + 19] != 90:  # Z
            return -1
    elif n == 25:
        for j in range(6):  # +00:00
            if data[start + 19 + j] != UTC_OFFSET[j]:
                return -1
    elif n != 19:
        return -1
    if (data[start + 4] != 45 or data[start + 7] != 45 or data[start + 10] != 84
            or data[start + 13] != 58 or data[start + 16] != 58):  # fmt: skip
        return -1
    first = data[start]
    if first != 49 and first != 50:  # the year starts with 1 or 2
        return -1
    year = _digits(data, start, 4)
    month = _digits(data, start + 5, 2)
    day = _digits(data, start + 8, 2)
    hour = _digits(data, start + 11, 2)
    minute = _digits(data, start + 14, 2)
    second = _digits(data, start + 17, 2)
    if year < 0 or month < 1 or month > 12 or day < 1 or hour < 0 or minute < 0 or second < 0:
        return -1
    if hour > 23 or minute > 59 or second > 59:
        return -1
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        last = 29 if leap else 28
    elif month == 4 or month == 6 or month == 9 or month == 11:
        last = 30
    else:
        last = 31
    if day > last:
        return -1
    days = _days_from_civil(year, month, day)
    return ((days * 24 + hour) * 60 + minute) * 60_000_000 + second * 1_000_000


@njit(cache=True)
def _number(data: Any, start: int, end: int, most: int) -> tuple[int, int]:
    """A run of 1 to ``most`` digits at ``start``: (value, position after it), or
    (-1, start) when there is none or it is longer."""
    k = start
    value = 0
    while k < end and 48 <= data[k] <= 57:
        value = value * 10 + (data[k] - 48)
        k += 1
    if k == start or k - start > most:
        return -1, start
    return value, k


@njit(cache=True)
def _time_control(data: Any, start: int, end: int) -> tuple[int, int, int, int]:
    """(kind, base, increment, days) of ``-``, ``Nd`` (N >= 1) or a clock
    ``B[m|s][ *+ *I[s]]`` with B, I of at most 6 digits and some time on it; kind
    TC_NONE when the cell is none of these (the reference decides it)."""
    if end - start == 1 and data[start] == 45:
        return TC_UNCLOCKED, 0, 0, 0
    base, k = _number(data, start, end, 6)
    if base < 0:
        return TC_NONE, 0, 0, 0
    if k == end - 1 and data[k] == 100:  # d
        if base >= 1:
            return TC_CORRESPONDENCE, 0, 0, base
        return TC_NONE, 0, 0, 0
    seconds = base
    if k < end and data[k] == 109:  # m
        seconds = base * 60
        k += 1
    elif k < end and data[k] == 115:  # s
        k += 1
    increment = 0
    if k < end:
        while k < end and data[k] == SPACE:
            k += 1
        if k == end or data[k] != PLUS:
            return TC_NONE, 0, 0, 0
        k += 1
        while k < end and data[k] == SPACE:
            k += 1
        increment, k = _number(data, k, end, 6)
        if increment < 0:
            return TC_NONE, 0, 0, 0
        if k < end and data[k] == 115:  # s
            k += 1
        if k != end:
            return TC_NONE, 0, 0, 0
    if seconds == 0 and increment == 0:
        return TC_NONE, 0, 0, 0
    return TC_CLOCKED, seconds, increment, 0


@njit(cache=True)
def count_lines(data: Any) -> int:
    """Newlines in ``data``, plus one for a last line without its newline."""
    n = 0
    for k in range(data.shape[0]):
        if data[k] == NEWLINE:
            n += 1
    if data.shape[0] and data[data.shape[0] - 1] != NEWLINE:
        n += 1
    return n


@njit(cache=True)
def scan(
    data: Any,
    first: int,
    roles: Any,
    results: Any,
    result_lengths: Any,
    terminations: Any,
    termination_lengths: Any,
    decisive: Any,
    draw: int,
    venues: Any,
    venue_lengths: Any,
    otb: int,
    flags: Any,
    flag_lengths: Any,
    flag_values: Any,
    lines: Any,
    line_start: Any,
    id_start: Any,
    id_end: Any,
    white_start: Any,
    white_end: Any,
    black_start: Any,
    black_end: Any,
    played_at: Any,
    result: Any,
    rated: Any,
    tc_kind: Any,
    tc_base: Any,
    tc_increment: Any,
    tc_days: Any,
    termination: Any,
    plies: Any,
    venue: Any,
    confirmed: Any,
    slow: Any,
) -> int:
    """Every non-empty line from byte ``first`` on, one row each: the cells decoded
    into the output arrays, ``slow`` set where a cell is not a plain spelling.
    Returns the number of rows, or :data:`RAGGED`."""
    size = data.shape[0]
    columns = roles.shape[0]
    row = 0
    line = 1
    k = first
    while k < size:
        line += 1
        if data[k] == NEWLINE:  # an empty line: skipped, as csv and arrow do
            k += 1
            continue
        lines[row] = line
        line_start[row] = k
        bad = False
        id_start[row] = id_end[row] = -1
        white_start[row] = white_end[row] = -1
        black_start[row] = black_end[row] = -1
        played_at[row] = 0
        result[row] = 0
        rated[row] = NOT_GIVEN
        tc_kind[row] = TC_NONE
        tc_base[row] = tc_increment[row] = tc_days[row] = 0
        termination[row] = 0
        plies[row] = NO_PLIES
        venue[row] = 0
        confirmed[row] = NOT_GIVEN
        has_result = has_played_at = False
        column = 0
        while True:
            start = k
            while k < size and data[k] != COMMA and data[k] != NEWLINE:
                k += 1
            end = k
            if column >= columns:
                return RAGGED
            role = roles[column]
            empty = end == start
            if role == R_ID or role == R_WHITE or role == R_BLACK:  # noqa: SIM109 (numba)
                if empty or end - start > 200:
                    bad = True
                for j in range(start, end):
                    if data[j] < 33 or data[j] > 126:
                        bad = True
                        break
                if role == R_ID:
                    id_start[row], id_end[row] = start, end
                elif role == R_WHITE:
                    white_start[row], white_end[row] = start, end
                else:
                    black_start[row], black_end[row] = start, end
            elif empty:
                pass  # an absent field (the required ones are checked below)
            elif role == R_PLAYED_AT:
                value = _timestamp(data, start, end)
                if value < 0:
                    bad = True
                else:
                    played_at[row] = value
                    has_played_at = True
            elif role == R_RESULT:
                code = _literal(data, start, end, results, result_lengths, False)
                if code < 0:
                    bad = True
                else:
                    result[row] = code
                    has_result = True
            elif role == R_RATED or role == R_CONFIRMED:  # noqa: SIM109 (numba)
                code = _literal(data, start, end, flags, flag_lengths, True)
                if code < 0:
                    bad = True
                elif role == R_RATED:
                    rated[row] = flag_values[code]
                else:
                    confirmed[row] = flag_values[code]
            elif role == R_TIME_CONTROL:
                kind, base, increment, days = _time_control(data, start, end)
                if kind == TC_NONE:
                    bad = True
                tc_kind[row] = kind
                tc_base[row] = base
                tc_increment[row] = increment
                tc_days[row] = days
            elif role == R_TERMINATION:
                code = _literal(data, start, end, terminations, termination_lengths, False)
                if code < 0:
                    bad = True
                else:
                    termination[row] = code
            elif role == R_PLIES:
                value, after = _number(data, start, end, 9)
                if value < 0 or after != end or value > MAX_PLIES:
                    bad = True
                else:
                    plies[row] = value
            elif role == R_VENUE:
                code = _literal(data, start, end, venues, venue_lengths, False)
                if code < 0:
                    bad = True
                else:
                    venue[row] = code
            else:
                bad = True  # a cell in a column the record does not have
            column += 1
            if k >= size or data[k] == NEWLINE:
                k += 1
                break
            k += 1  # the comma
        if column != columns:
            return RAGGED
        if not (has_result and has_played_at):  # required: the reference explains it
            bad = True
        if id_start[row] < 0 or white_start[row] < 0 or black_start[row] < 0:
            bad = True  # a column the header does not have
        if confirmed[row] != NOT_GIVEN and venue[row] != otb:
            bad = True
        if result[row] == draw and decisive[termination[row]]:
            bad = True
        if not bad and _same(data, white_start[row], white_end[row], black_start[row],
                             black_end[row]):  # fmt: skip
            bad = True
        slow[row] = bad
        row += 1
    return row


@njit(cache=True)
def _same(data: Any, a: int, a_end: int, b: int, b_end: int) -> bool:
    if a_end - a != b_end - b:
        return False
    for j in range(a_end - a):  # noqa: SIM110 (numba)
        if data[a + j] != data[b + j]:
            return False
    return True
