"""Game files (CSV, JSON Lines) read column by column into a :class:`GameBatch`, with
the records and errors :func:`chessrate.io.games.read_games` gives.

* Each distinct value of a low-cardinality field is decided once by the reference
  field readers (:mod:`chessrate.fast.fields`); ids and timestamps pass vectorised
  screens that accept only spellings the reference accepts unchanged.
* A row with a refused or unscreened cell is read by the reference parser
  (:meth:`GameRecord.from_mapping`), which accepts it or raises its own
  ``FILE:LINE: field: reason``; errors come in file order, and nothing is returned
  when one is raised (with ``on_invalid`` each is reported and its row left out).
* A file whose shape the scanners do not handle (quotes, ``\\r``, a BOM, ragged rows,
  JSON that pyarrow refuses or types differently) is read by the reference reader.

CSV is scanned by numba (:mod:`chessrate.fast.csvscan`, no pyarrow import); JSON
Lines is parsed by pyarrow (:mod:`chessrate.fast.jsoncolumns`). PGN is refused: the
PGN batch reader reads it. How it works: ``docs/internals.md``.
"""

from __future__ import annotations

import itertools
import mmap
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import InvalidInput, InvalidRecord
from ..io.games import read_games
from ..io.tabular import detect_format
from ..records import MOVE_FIELDS, GameRecord
from . import csvscan
from .batch import GameBatch, encode
from .csvscan import BLACK, ID, SPANS, WHITE
from .fields import INTERNED, Decided, decide, refused_pairs
from .strings import ByteStrings, gather, intern, table_for

OnInvalid = Callable[[InvalidRecord], None]
I64 = npt.NDArray[np.int64]
B = npt.NDArray[np.bool_]
Columns = dict[str, Any]
"""The batch's value columns by name (``played_at``, ``result``, ..., ``confirmed``)."""

PLACED = ("played_at", "result", "rated", "tc_kind", "tc_base", "tc_increment", "tc_days",
          "termination", "plies", "venue", "confirmed")  # fmt: skip
"""The columns the reference parser's records fill for its rows."""
FIELD_LIMIT = 131_072
"""The csv module's longest cell: a longer line is left to the reference reader."""
MAPPED_MIN_BYTES = 1 << 20
"""A CSV file at least this long is mapped into memory instead of read (a copy less)."""


class Fallback(Exception):
    """The fast path does not handle this file: read it with the reference reader."""


def read_batch(
    path: Path, fmt: str | None = None, on_invalid: OnInvalid | None = None
) -> GameBatch:
    """Every game record of a CSV or JSON Lines file as a :class:`GameBatch`, validated
    as :func:`chessrate.io.games.read_games` validates it (same records, same errors in
    the same order). PGN is refused: the PGN batch reader
    (``chessrate.fast.pgn.read_pgn_batch``) reads it."""
    kind = detect_format(path, fmt)
    if kind == "pgn":
        raise InvalidInput(
            f"{path}: read_batch reads CSV and JSON Lines; read PGN with the PGN batch "
            "reader, chessrate.fast.pgn.read_pgn_batch"
        )
    try:
        data = _contents(path, mapped=kind == "csv")
    except OSError as error:
        raise InvalidInput(f"{path}: cannot read: {error.strerror}") from None
    try:
        if data.find(b"\r") >= 0 or data[:3] == b"\xef\xbb\xbf":
            raise Fallback
        buffer = np.frombuffer(data, np.uint8)
        if not csvscan.ascii_only(buffer):
            bytes(data).decode("utf-8")  # not UTF-8: the reference reader's error
        if kind == "csv":
            return _read_csv(path, data, buffer, on_invalid)
        from .jsoncolumns import read_jsonl

        assert isinstance(data, bytes)
        return read_jsonl(path, data, on_invalid)
    except (Fallback, UnicodeDecodeError):
        return encode(read_games(path, fmt, on_invalid))


def start() -> None:
    """Load numba's machinery and the first kernel now (0.3 to 0.5 s of Python, in one
    piece): done before :func:`read_batch` runs in a thread, it leaves that thread the
    scans, which release the GIL, instead of Python that competes for it. The kernel is
    called with the type the reader calls it with (a read-only byte array), so its
    cached machine code is the one loaded."""
    csvscan.ascii_only(np.frombuffer(b"\n", np.uint8))


def _contents(path: Path, mapped: bool) -> bytes | mmap.mmap:
    """The file's bytes; mapped into memory (no copy) when ``mapped`` and it is at least
    :data:`MAPPED_MIN_BYTES` long."""
    with path.open("rb") as handle:
        if mapped and os.fstat(handle.fileno()).st_size >= max(MAPPED_MIN_BYTES, 1):
            return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        return handle.read()


# -- shared by the CSV and JSON Lines paths ---------------------------------------------


def decided_columns(n: int, fields: Mapping[str, tuple[Decided, Any]]) -> tuple[Columns, B]:
    """The batch columns of ``n`` rows from each interned field's decided distinct
    values and its rows' codes, and the rows the reference must read (a refused value,
    or a refused pair of values)."""
    columns: Columns = {}
    slow = np.zeros(n, np.bool_)
    for name in INTERNED:
        decided, codes = fields[name]
        if decided.refused.any():
            slow |= decided.refused[codes]
        for column, values in decided.columns.items():
            one = values.shape[0] == 1
            columns[column] = np.full(n, values[0], values.dtype) if one else values[codes]
    # a pair of fields is checked row by row only if a pair of their values is refused
    ending, confirmation = refused_pairs()
    results, terminations = (fields[name][0].columns[name] for name in ("result", "termination"))
    if ending[np.ix_(results, terminations)].any():
        slow |= ending[columns["result"], columns["termination"]]
    venues, confirmed = (fields[name][0].columns[name] for name in ("venue", "confirmed"))
    if confirmation[np.ix_(venues, confirmed + 1)].any():
        slow |= confirmation[columns["venue"], columns["confirmed"] + 1]
    return columns, slow


def reference_rows(
    rows: Iterable[int],
    mapping: Callable[[int], Mapping[str, object]],
    where: Callable[[int], str],
    on_invalid: OnInvalid | None,
) -> dict[int, GameRecord]:
    """The reference parser's records of ``rows`` (in file order). Its first error is
    raised, or with ``on_invalid`` every error is reported there (after all are read,
    as :func:`~chessrate.io.games.read_games` reads before the replay)."""
    records: dict[int, GameRecord] = {}
    errors: list[InvalidRecord] = []
    for row in rows:
        try:
            records[row] = GameRecord.from_mapping(mapping(row), where(row))
        except InvalidRecord as refused:
            if on_invalid is None:
                raise
            errors.append(refused)
    for error in errors:
        assert on_invalid is not None
        on_invalid(error)
    return records


def place(columns: Columns, records: dict[int, GameRecord]) -> I64:
    """Put the reference records' values at their rows of the columns; their rows."""
    rows = np.array(sorted(records), np.int64)
    if rows.shape[0]:
        encoded = encode(records[row] for row in rows.tolist())
        for name in PLACED:
            columns[name][rows] = getattr(encoded, name)
    return rows


# -- CSV ---------------------------------------------------------------------------------


def _read_csv(
    path: Path, data: bytes | mmap.mmap, buffer: npt.NDArray[np.uint8], on_invalid: OnInvalid | None
) -> GameBatch:
    """The CSV path: :func:`csvscan.scan` finds the cells and interns the low-cardinality
    ones; each distinct value is decided once; the ids are interned on the bytes."""
    if data.find(b'"') >= 0 or data.find(b"\x00") >= 0:
        raise Fallback  # quoted cells (maybe over several lines): the csv module's rules
    header_end = data.find(b"\n")
    if header_end < 0:
        header_end = len(data)
    names = [name.strip() for name in data[:header_end].decode("utf-8").split(",")]
    if len(set(names)) != len(names) or "" in names:
        raise Fallback  # the reference reader's header error
    if set(names) & set(MOVE_FIELDS):
        raise Fallback  # the moves are checked legal by the reference reader
    kinds = np.full(len(names), csvscan.OTHER, np.int64)
    slots = np.zeros(len(names), np.int64)
    for column, name in enumerate(names):
        for kind, group in ((csvscan.SPAN, SPANS), (csvscan.INTERNED, INTERNED)):
            if name in group:
                kinds[column], slots[column] = kind, group.index(name)
    capacity = int(csvscan.count_lines(buffer))
    lines, line_start = np.empty(capacity, np.int64), np.empty(capacity, np.int64)
    starts, ends = (np.empty((len(SPANS), capacity), np.int64) for _ in range(2))
    for slot, name in enumerate(SPANS):
        if name not in names:  # a required field: the reference explains its absence
            starts[slot] = ends[slot] = -1
    played_at = np.empty(capacity, np.int64)
    codes = np.empty((len(INTERNED), capacity), np.int32)
    slow = np.empty(capacity, np.bool_)
    interned = int((kinds == csvscan.INTERNED).sum())
    offsets = np.zeros(capacity * interned + 1, np.int64)
    keys = np.empty(capacity * interned, np.int64)
    pool = np.empty(len(data), np.uint8)
    n, count, _ = csvscan.scan(
        buffer, min(header_end + 1, len(data)), kinds, slots, lines, line_start,
        starts, ends, played_at, codes, slow, table_for(64), pool, offsets, keys,
    )  # fmt: skip
    if n == csvscan.RAGGED:
        raise Fallback
    line_ends = np.concatenate(([0, header_end + 1], line_start[:n], [len(data) + 1]))
    if int(np.diff(line_ends).max()) > FIELD_LIMIT:
        raise Fallback
    lines, line_start, slow = lines[:n], line_start[:n], slow[:n]
    starts, ends = starts[:, :n], ends[:, :n]
    fields = _interned_fields(names, pool, offsets, keys[:count], codes[:, :n])
    columns, refused = decided_columns(n, fields)
    slow |= refused
    columns["played_at"] = played_at[:n]
    if any(name not in names for name in SPANS):
        slow[:] = True

    def mapping(row: int) -> dict[str, object]:
        """The row as the reference reader hands it to ``from_mapping``."""
        start = int(line_start[row])
        stop = data.find(b"\n", start)
        text = data[start : len(data) if stop < 0 else stop].decode("utf-8")
        return {name: cell for name, cell in zip(names, text.split(","), strict=True)
                if cell.strip()}  # fmt: skip

    records = reference_rows(
        np.flatnonzero(slow).tolist(), mapping, lambda row: f"{path}:{int(lines[row])}", on_invalid
    )
    keep = ~slow
    rows = place(columns, records)
    keep[rows] = True
    buffer = _reference_ids(buffer, records, starts, ends)
    kept = np.flatnonzero(keep)
    game, game_ids = _game_ids(buffer, kept, starts[ID], ends[ID])
    players, player_ids = _players(buffer, kept, starts, ends)
    return GameBatch(
        game=game,
        game_ids=game_ids,
        white=players[: kept.shape[0]].astype(np.int32),
        black=players[kept.shape[0] :].astype(np.int32),
        player_ids=player_ids,
        **{name: take_rows(columns[name], kept) for name in PLACED},
        source=str(path),
        lines=take_rows(lines, kept),
    )


def _players(
    buffer: npt.NDArray[np.uint8], rows: I64, starts: I64, ends: I64
) -> tuple[I64, list[str]]:
    """White's codes then Black's for ``rows``, and the distinct player ids, numbered in
    order of first appearance among the White cells, then the Black ones: packed in
    words (:func:`csvscan.intern_packed`), or by :func:`_interned` when an id is longer
    than :data:`csvscan.PACKED` bytes."""
    codes, count, words, lengths = csvscan.intern_packed(
        buffer, rows, starts[WHITE], ends[WHITE], starts[BLACK], ends[BLACK], 1 << 17
    )
    if count < 0:
        codes, strings = _interned(
            buffer, rows, [(starts[WHITE], ends[WHITE]), (starts[BLACK], ends[BLACK])], 1 << 15
        )
        return codes, strings.strings()
    sizes = lengths[:count]
    packed = np.ascontiguousarray(words[:count]).astype("<u8").view(np.uint8)
    packed = packed.reshape(count, csvscan.PACKED)
    pool = np.ascontiguousarray(packed[np.arange(csvscan.PACKED)[None, :] < sizes[:, None]])
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    return codes, ByteStrings(pool, offsets).strings()


def _reference_ids(
    buffer: npt.NDArray[np.uint8], records: dict[int, GameRecord], starts: I64, ends: I64
) -> npt.NDArray[np.uint8]:
    """The bytes with the reference records' ids (game, White, Black) where they are
    not their cells' (e.g. trimmed): appended, and their rows' spans moved there."""
    extra = bytearray()
    size = buffer.shape[0]
    for row, record in records.items():
        for slot, value in ((ID, record.id), (WHITE, record.white), (BLACK, record.black)):
            encoded = value.encode("utf-8")
            start, end = int(starts[slot, row]), int(ends[slot, row])
            if start < 0 or buffer[start:end].tobytes() != encoded:
                starts[slot, row] = size + len(extra)
                extra += encoded
                ends[slot, row] = size + len(extra)
    if not extra:
        return buffer
    return np.concatenate((buffer, np.frombuffer(bytes(extra), np.uint8)))


def _interned_fields(
    names: list[str], pool: Any, offsets: I64, keys: I64, codes: Any
) -> dict[str, tuple[Decided, Any]]:
    """Each interned field's distinct cells (``keys``: their column slots) decided, and
    its rows' codes among them; a blank cell is an absent field, as the reference
    reader drops it, and so is a column the header does not have."""
    rows = codes.shape[1]
    count = keys.shape[0]
    raw, bounds = pool[: int(offsets[count])].tobytes(), offsets[: count + 1].tolist()
    texts = [raw[a:b].decode("utf-8") for a, b in itertools.pairwise(bounds)]
    fields: dict[str, tuple[Decided, Any]] = {}
    for slot, name in enumerate(INTERNED):
        if name not in names:
            fields[name] = (decide(name, [None]), np.zeros(rows, np.int64))
            continue
        mine = np.flatnonzero(keys == slot)
        values: list[object] = [texts[c] if texts[c].strip() else None for c in mine.tolist()]
        decided = decide(name, [*values, None])
        local = np.full(count + 1, len(values), np.int64)  # the others: never a row's
        local[mine] = np.arange(len(values))
        fields[name] = (decided.at(local), codes[slot])
    return fields


def take_rows(column: Any, rows: I64) -> Any:
    """``column[rows]``; the column itself when ``rows`` are all of its rows, in order."""
    return column if rows.shape[0] == column.shape[0] else column[rows]


def _length(rows: I64, starts: I64, ends: I64) -> int:
    """The bytes of the cells ``starts[rows]:ends[rows]`` together (no copy of the
    columns when ``rows`` are all of them, in order)."""
    return int((take_rows(ends, rows) - take_rows(starts, rows)).sum())


def _game_ids(
    buffer: npt.NDArray[np.uint8], rows: I64, starts: I64, ends: I64
) -> tuple[I64, ByteStrings]:
    """Game id codes: when no two ids hash alike (the usual case: ids are unique)
    every row has its own code and no hash table is built (the sort of the hashes
    proves it); else the ids are interned."""
    pool = np.empty(_length(rows, starts, ends), np.uint8)
    offsets = np.empty(rows.shape[0] + 1, np.int64)
    hashes = gather(buffer, rows, starts, ends, pool, offsets)
    ordered = np.sort(hashes)
    if not bool((ordered[1:] == ordered[:-1]).any()):
        ids = ByteStrings(pool, offsets, hashes=hashes)
        return np.arange(rows.shape[0], dtype=np.int64), ids
    return _interned(buffer, rows, [(starts, ends)], rows.shape[0])


def _interned(
    buffer: npt.NDArray[np.uint8], rows: I64, columns: list[tuple[I64, I64]], expected: int
) -> tuple[I64, ByteStrings]:
    """The strings of ``rows`` in the (start, end) byte columns, one column after the
    other, as codes in order of first appearance, and the distinct strings."""
    lengths = [_length(rows, starts, ends) for starts, ends in columns]
    pool = np.empty(sum(lengths), np.uint8)
    offsets = np.zeros(len(columns) * rows.shape[0] + 1, np.int64)
    table = table_for(expected)
    codes, count = [], 0
    for starts, ends in columns:
        part, count, table = intern(buffer, rows, starts, ends, table, pool, offsets, count)
        codes.append(part)
    offsets = offsets[: count + 1].copy()
    strings = ByteStrings(pool[: int(offsets[-1])].copy(), offsets, table)
    return np.concatenate(codes), strings
