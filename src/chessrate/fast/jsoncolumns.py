"""JSON Lines game files read column by column with pyarrow, for
:func:`chessrate.fast.columnar.read_batch`: the distinct values of the
low-cardinality fields decided by the reference field readers, ids and timestamps
through the CSV path's screens, the other rows read by the reference parser. A file
pyarrow refuses, or types differently from :func:`json.loads` (a float, an unknown
field), raises :class:`~chessrate.fast.columnar.Fallback`.
"""

from __future__ import annotations

import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from ..records import GAME_FIELDS, MOVE_FIELDS
from . import csvscan
from .batch import GameBatch
from .columnar import (
    PLACED,
    Fallback,
    OnInvalid,
    decided_columns,
    place,
    reference_rows,
    take_rows,
)
from .csvscan import SPANS
from .fields import INTERNED, Decided, decide

I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]
_TYPED = (pa.string(), pa.int64(), pa.bool_(), pa.null())
"""The types an interned field may have: their values are the ones json.loads gives."""
NESTING_SPARE = 1000
"""How many ``{`` and ``[`` a file may hold beyond one per record before the reference
reader reads it: a record is one flat object, and pyarrow's JSON reader crashes the
process on objects nested some ten thousand deep (the reference refuses them)."""


def read_jsonl(path: Path, data: bytes, on_invalid: OnInvalid | None) -> GameBatch:
    """Every game record of a JSON Lines file's bytes, as ``read_batch`` promises."""
    lines = data.split(b"\n")
    numbers = np.array([n for n, line in enumerate(lines, start=1) if line.strip()], np.int64)
    if data.count(b"{") + data.count(b"[") > len(numbers) + NESTING_SPARE:
        raise Fallback  # maybe nested deep: pyarrow's reader crashes (SIGSEGV) on it
    try:
        columns, slow, strings = _decided(data, len(numbers))
    except pa.ArrowException:
        raise Fallback from None
    n = len(numbers)

    def mapping(row: int) -> dict[str, object]:
        value: dict[str, object] = json.loads(lines[int(numbers[row]) - 1], parse_float=Decimal)
        return value

    records = reference_rows(
        np.flatnonzero(slow).tolist(), mapping, lambda row: f"{path}:{int(numbers[row])}",
        on_invalid,
    )  # fmt: skip
    keep = ~slow
    rows = place(columns, records)
    keep[rows] = True
    if rows.shape[0]:  # the reference's strings for its rows (e.g. trimmed)
        patch = np.zeros(n, np.bool_)
        patch[rows] = True
        for name in ("id", "white", "black"):
            values = [getattr(records[row], name) for row in rows.tolist()]
            strings[name] = pc.replace_with_mask(
                strings[name], pa.array(patch), pa.array(values, pa.string())
            )
    kept = pa.array(keep)
    kept_rows = np.flatnonzero(keep)
    game = pc.dictionary_encode(strings["id"].filter(kept))
    both = pa.concat_arrays([strings["white"].filter(kept), strings["black"].filter(kept)])
    players = pc.dictionary_encode(both)
    player_codes = np.asarray(players.indices.to_numpy(), np.int32)
    count = int(keep.sum())
    return GameBatch(
        game=np.asarray(game.indices.to_numpy(), np.int64),
        game_ids=game.dictionary.to_pylist(),
        white=player_codes[:count],
        black=player_codes[count:],
        player_ids=players.dictionary.to_pylist(),
        **{name: take_rows(columns[name], kept_rows) for name in PLACED},
        source=str(path),
        lines=take_rows(numbers, kept_rows),
    )


def _decided(
    data: bytes, rows: int
) -> tuple[dict[str, Any], npt.NDArray[np.bool_], dict[str, Any]]:
    """The batch columns decided from the file, the rows the reference must read, and
    the id and timestamp columns as pyarrow arrays."""
    schema = pa.schema([(name, pa.string()) for name in SPANS])
    table = pa_json.read_json(
        io.BytesIO(data),
        parse_options=pa_json.ParseOptions(
            explicit_schema=schema, unexpected_field_behavior="infer"
        ),
    )
    if table.num_rows != rows or set(table.column_names) - set(GAME_FIELDS):
        raise Fallback  # an unknown field, even null, is the reference's error to give
    if set(table.column_names) & set(MOVE_FIELDS):
        raise Fallback  # the moves are checked legal by the reference reader
    fields: dict[str, tuple[Decided, I64]] = {}
    for name in INTERNED:
        if name not in table.column_names:
            fields[name] = (decide(name, [None]), np.zeros(rows, np.int64))
            continue
        column = table.column(name).combine_chunks()
        if column.type not in _TYPED:
            raise Fallback  # e.g. a float: json.loads gives a Decimal of its spelling
        encoded = pc.dictionary_encode(column)
        values: list[Any] = encoded.dictionary.to_pylist()
        codes = pc.fill_null(encoded.indices, len(values)).to_numpy(zero_copy_only=False)
        fields[name] = (decide(name, [*values, None]), np.asarray(codes, np.int64))
    columns, slow = decided_columns(rows, fields)

    strings = {name: table.column(name).combine_chunks() for name in SPANS}
    plain = np.empty(rows, np.bool_)
    for name, column in strings.items():
        cells, starts, ends = _spans(column)
        if name == "played_at":
            columns["played_at"] = np.empty(rows, np.int64)
            csvscan.timestamps(cells, starts, ends, columns["played_at"], plain)
        else:
            csvscan.plain_ids(cells, starts, ends, plain)
        slow |= ~plain
    same = pc.equal(strings["white"], strings["black"])
    slow |= np.asarray(pc.fill_null(same, False).to_numpy(zero_copy_only=False), np.bool_)
    return columns, slow, strings


def _spans(column: Any) -> tuple[U8, I64, I64]:
    """A string array's bytes and each cell's (start, end) in them; -1 for a null."""
    _, offsets_buffer, data_buffer = column.buffers()
    n = len(column)
    if n == 0:
        return np.zeros(0, np.uint8), np.zeros(0, np.int64), np.zeros(0, np.int64)
    offsets = np.frombuffer(offsets_buffer, np.int32)[column.offset : column.offset + n + 1]
    cells = np.zeros(0, np.uint8) if data_buffer is None else np.frombuffer(data_buffer, np.uint8)
    starts = offsets[:-1].astype(np.int64)
    ends = offsets[1:].astype(np.int64)
    if column.null_count:
        null = ~np.asarray(pc.is_valid(column).to_numpy(zero_copy_only=False), np.bool_)
        starts[null] = ends[null] = -1
    return cells, starts, ends
