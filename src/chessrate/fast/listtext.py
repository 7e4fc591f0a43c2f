"""The rating list as JSON text written by a numba kernel, for ``--out LIST.json`` of a
compiled replay: the bytes :func:`chessrate.io.lists.list_columns_text` writes (``json.dumps``
of the entries with ``indent=2, ensure_ascii=False``), without a Python string per entry.

Each entry's values come from the pool's arrays: the player's id (the ids' bytes), the
rating as integer hundredths (written as ``"1800.25"``, or ``null`` without a rating), the
display and the state as codes into small tables of their JSON texts (decided in Python,
once per distinct value), and the games. A list whose player ids need a JSON escape
(``"``, ``\\``, a control character) is left to the Python writer (None).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]

_FIELDS = ("player", "pool", "rating", "display", "state", "games")
_OPEN = b'  {\n    "player": '
_BETWEEN = tuple(f',\n    "{name}": '.encode() for name in _FIELDS[1:])
_CLOSE = b"\n  }"
_TEMPLATE = np.frombuffer(_OPEN + b"".join(_BETWEEN) + _CLOSE, np.uint8)
"""The entry's fixed pieces one after the other (cut at :data:`_CUTS`)."""
_CUTS = np.cumsum([0, len(_OPEN), *map(len, _BETWEEN), len(_CLOSE)]).astype(np.int64)


class Table:
    """Distinct texts as one byte pool with offsets (text ``c`` is
    ``pool[offsets[c]:offsets[c + 1]]``)."""

    def __init__(self, texts: Sequence[str]) -> None:
        encoded = [text.encode("utf-8") for text in texts]
        self.pool: U8 = np.frombuffer(b"".join(encoded) or b"\0", np.uint8)
        self.offsets: I64 = np.cumsum([0, *map(len, encoded)]).astype(np.int64)
        self.longest = max(map(len, encoded), default=0)


def json_table(texts: Sequence[str]) -> Table:
    """The texts as JSON strings (``json.dumps(text, ensure_ascii=False)``)."""
    return Table([json.dumps(text, ensure_ascii=False) for text in texts])


def plain_names(names: Sequence[str]) -> Table | None:
    """The player ids as a :class:`Table` of their bytes, or None when one needs a JSON
    escape (they are then written by the Python writer)."""
    joined = "".join(names)
    if joined.isascii():
        pool = np.frombuffer(joined.encode("ascii") or b"\0", np.uint8)
        lengths = np.fromiter(map(len, names), np.int64, len(names))
        table = Table.__new__(Table)
        table.pool = pool
        table.offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        table.longest = int(lengths.max()) if len(names) else 0
    else:
        table = Table(names)
    escapes = (table.pool < 32) | (table.pool == ord('"')) | (table.pool == ord("\\"))
    if len(names) and bool(escapes[: int(table.offsets[-1])].any()):
        return None
    return table


class Part:
    """One pool's list for :func:`list_json`: per entry, the player's code (into the
    names), the rating in hundredths and whether there is one, the display's and the
    state's codes (into their tables), the games."""

    def __init__(
        self, pool: str, player: I64, rating: I64, has_rating: Any, display: I64,
        displays: Table, state: Any, states: Table, games: I64,
    ) -> None:  # fmt: skip
        self.pool = json_table([pool])
        self.player, self.rating, self.has_rating = player, rating, has_rating
        self.display, self.displays = display, displays
        self.state, self.states, self.games = state, states, games

    def __len__(self) -> int:
        return int(self.player.shape[0])


def list_json(names: Table, parts: Sequence[Part]) -> str:
    """The list's JSON text (exactly ``list_columns_text``'s for a ``.json`` path)."""
    total = sum(map(len, parts))
    if total == 0:
        return "[]\n"
    # room: the template, the longest of each value, ``"-...."`` with 19 digits, ``,\n``
    room = 4 + sum(
        len(part)
        * (_TEMPLATE.shape[0] + 2 + names.longest + 2 + part.pool.longest + 24
           + part.displays.longest + part.states.longest + 20)
        for part in parts
    )  # fmt: skip
    out = np.empty(room, np.uint8)
    at = _put(out, 0, np.frombuffer(b"[\n", np.uint8))
    first = True
    for part in parts:
        if len(part) == 0:
            continue
        at = _entries(
            out, at, first, _TEMPLATE, _CUTS, names.pool, names.offsets, part.pool.pool,
            int(part.pool.offsets[1]), part.player, part.rating, part.has_rating,
            part.display, part.displays.pool, part.displays.offsets, part.state.astype(np.int64),
            part.states.pool, part.states.offsets, part.games,
        )  # fmt: skip
        first = False
    at = _put(out, at, np.frombuffer(b"\n]\n", np.uint8))
    return out[:at].tobytes().decode("utf-8")


@njit(cache=True, nogil=True)
def _put(out: Any, at: int, piece: Any) -> int:
    n: int = piece.shape[0]
    for j in range(n):
        out[at + j] = piece[j]
    return at + n


@njit(cache=True, nogil=True)
def _copy(out: Any, at: int, source: Any, start: int, stop: int) -> int:
    for j in range(start, stop):
        out[at] = source[j]
        at += 1
    return at


@njit(cache=True, nogil=True)
def _digits(out: Any, at: int, value: int, least: int) -> int:
    """``value`` (not negative) in decimal, at least ``least`` digits."""
    count = 1
    rest = value // 10
    while rest > 0:
        count += 1
        rest //= 10
    count = max(count, least)
    for j in range(count - 1, -1, -1):
        out[at + j] = 48 + value % 10
        value //= 10
    return at + count


@njit(cache=True, nogil=True)
def _entries(
    out: Any, at: int, first: bool, template: Any, cuts: Any, names: Any, name_offsets: Any,
    pool: Any, pool_length: int, player: Any, rating: Any, has_rating: Any, display: Any,
    displays: Any, display_offsets: Any, state: Any, states: Any, state_offsets: Any,
    games: Any,
) -> int:  # fmt: skip
    """The part's entries written from ``out[at]`` on (each after ``,\\n`` unless it is
    the list's first); where the text ends."""
    for i in range(player.shape[0]):
        if not (first and i == 0):
            out[at] = 44  # ,
            out[at + 1] = 10
            at += 2
        at = _copy(out, at, template, cuts[0], cuts[1])
        out[at] = 34  # "
        at = _copy(out, at + 1, names, name_offsets[player[i]], name_offsets[player[i] + 1])
        out[at] = 34
        at = _copy(out, at + 1, template, cuts[1], cuts[2])
        at = _copy(out, at, pool, 0, pool_length)
        at = _copy(out, at, template, cuts[2], cuts[3])
        if has_rating[i]:
            value = rating[i]
            out[at] = 34
            at += 1
            if value < 0:
                out[at] = 45  # -
                at += 1
                value = -value
            at = _digits(out, at, value // 100, 1)
            out[at] = 46  # .
            at = _digits(out, at + 1, value % 100, 2)
            out[at] = 34
            at += 1
        else:
            for byte in (110, 117, 108, 108):  # null
                out[at] = byte
                at += 1
        at = _copy(out, at, template, cuts[3], cuts[4])
        at = _copy(out, at, displays, display_offsets[display[i]], display_offsets[display[i] + 1])
        at = _copy(out, at, template, cuts[4], cuts[5])
        at = _copy(out, at, states, state_offsets[state[i]], state_offsets[state[i] + 1])
        at = _copy(out, at, template, cuts[5], cuts[6])
        count = games[i]
        if count < 0:
            out[at] = 45
            at += 1
            count = -count
        at = _digits(out, at, count, 1)
        at = _copy(out, at, template, cuts[6], cuts[7])
    return at
