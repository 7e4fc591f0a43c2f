"""Game files (CSV, JSON Lines) read column by column into a :class:`GameBatch`.

Why pyarrow: its CSV and JSON readers are multithreaded C++ that turn a file into
typed columns without a Python object per cell, and its compute functions
(regular expressions, membership, timestamp parsing) validate a whole column at
once. Building one ``GameRecord`` per row in Python costs more than rating the
game in the compiled replay; this reader keeps the whole path columnar.

Exactly the reference, by construction:

* the fast path accepts only the plain spellings it can decide with certainty
  (``1-0``, ``300+3``/``5m+3s``/``15m``/``-``/``3d``, ``2026-03-01T18:30:00Z``,
  ids without spaces, ``true``/``false``, ...). Any other cell sends its **row**
  to the reference parser (:meth:`GameRecord.from_mapping` on the same fields),
  which accepts it or raises its own ``FILE:LINE: field: reason``;
* a file whose shape the fast path does not handle (quoted CSV cells, ``\\r`` line
  ends, a BOM, ragged rows, JSON values of another type, unknown JSON fields,
  anything pyarrow refuses) is read whole by the reference reader instead;
* errors are reported in file order, and an invalid row raises before anything is
  returned (or, with ``on_invalid``, is reported and left out), as
  :func:`chessrate.io.games.read_games` does: nothing is half applied.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.json as pa_json

from ..errors import InvalidInput, InvalidRecord
from ..fast.batch import (
    NO_PLIES,
    NOT_GIVEN,
    OTB,
    RESULTS,
    TC_CLOCKED,
    TC_CORRESPONDENCE,
    TC_NONE,
    TC_UNCLOCKED,
    TERMINATIONS,
    GameBatch,
    encode,
)
from ..records import DECISIVE_TERMINATIONS, GAME_FIELDS, GameRecord, Result, Venue
from .games import read_games
from .tabular import detect_format

OnInvalid = Callable[[InvalidRecord], None]
Mask = npt.NDArray[np.bool_]

_STRING_FIELDS = ("id", "played_at", "white", "black", "result", "time_control",
                  "termination", "venue")  # fmt: skip
_ID = r"^[!-~]{1,200}$"
_TIMESTAMP = r"^[12][0-9]{3}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|\+00:00)?$"
_CLOCK = r"^(?P<base>[0-9]{1,6})(?P<unit>[ms]?)(?: *\+ *(?P<inc>[0-9]{1,6})s?)?$"
_DAYS = r"^(?P<days>[0-9]{1,6})d$"
_TRUE = ("true", "1", "yes", "y", "t")
_FALSE = ("false", "0", "no", "n", "f")


class _Fallback(Exception):
    """The fast path does not handle this file: read it with the reference reader."""


def read_batch(
    path: Path, fmt: str | None = None, on_invalid: OnInvalid | None = None
) -> GameBatch:
    """Every game record of a CSV or JSON Lines file as a :class:`GameBatch`, validated
    as :func:`chessrate.io.games.read_games` validates it (same errors, same order). A
    PGN file is read by :mod:`chessrate.io.pgn` and encoded."""
    kind = detect_format(path, fmt)
    if kind == "pgn":
        return encode(read_games(path, fmt, on_invalid))
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InvalidInput(f"{path}: cannot read: {error.strerror}") from None
    try:
        if b"\r" in data or data.startswith(b"\xef\xbb\xbf"):
            raise _Fallback
        if kind == "csv":
            table, lines = _read_csv(data)
        else:
            table, lines = _read_jsonl(data)
        return _Columns(path, kind, data, table, lines).batch(on_invalid)
    except (_Fallback, pa.ArrowException):
        return encode(read_games(path, fmt, on_invalid))


def _line_bounds(data: bytes) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(start, end) byte offsets of every physical line (end excludes the newline)."""
    newlines = np.flatnonzero(np.frombuffer(data, np.uint8) == 10).astype(np.int64)
    starts = np.concatenate(([0], newlines + 1))
    ends = np.concatenate((newlines, [len(data)]))
    if starts[-1] == len(data):  # the file ends with a newline
        starts, ends = starts[:-1], ends[:-1]
    return starts, ends


def _read_csv(data: bytes) -> tuple[pa.Table, npt.NDArray[np.int64]]:
    if b'"' in data:
        raise _Fallback  # quoted cells (maybe over several lines): the csv module's rules
    starts, ends = _line_bounds(data)
    if len(starts) == 0:
        raise _Fallback
    header = data[starts[0] : ends[0]].decode("utf-8").split(",")
    names = [name.strip() for name in header]
    if len(set(names)) != len(names) or "" in names:
        raise _Fallback
    numbers = np.flatnonzero(ends > starts) + 1  # csv skips empty lines
    numbers = numbers[numbers > 1]
    table = pa_csv.read_csv(
        io.BytesIO(data),
        read_options=pa_csv.ReadOptions(column_names=names, skip_rows=1),
        parse_options=pa_csv.ParseOptions(
            quote_char=False, double_quote=False, newlines_in_values=False,
            ignore_empty_lines=True,
        ),
        convert_options=pa_csv.ConvertOptions(
            column_types={name: pa.string() for name in names},
            strings_can_be_null=False, quoted_strings_can_be_null=False,
        ),
    )  # fmt: skip
    if table.num_rows != len(numbers):
        raise _Fallback
    return table, numbers.astype(np.int64)


def _read_jsonl(data: bytes) -> tuple[pa.Table, npt.NDArray[np.int64]]:
    numbers = np.array(
        [n for n, line in enumerate(data.split(b"\n"), start=1) if line.strip()], np.int64
    )
    schema = pa.schema([(name, pa.string()) for name in _STRING_FIELDS])
    table = pa_json.read_json(
        io.BytesIO(data),
        parse_options=pa_json.ParseOptions(
            explicit_schema=schema, unexpected_field_behavior="infer"
        ),
    )
    if table.num_rows != len(numbers) or set(table.column_names) - set(GAME_FIELDS):
        raise _Fallback  # an unknown field, even null, is the reference's error to give
    for name, allowed in (("rated", pa.bool_()), ("confirmed", pa.bool_()), ("plies", pa.int64())):
        if name in table.column_names and table.schema.field(name).type not in (allowed, pa.null()):
            raise _Fallback
    return table, numbers


def _fill(mask: Any) -> Mask:
    """A boolean arrow array as numpy, null as False."""
    return np.asarray(pc.fill_null(mask, False).to_numpy(zero_copy_only=False), np.bool_)


class _Columns:
    """The fast path: validate and convert every column at once."""

    def __init__(
        self, path: Path, kind: str, data: bytes, table: pa.Table, lines: npt.NDArray[np.int64]
    ) -> None:
        self.path, self.kind, self.data = path, kind, data
        self.table = table
        self.lines = lines
        self.n = table.num_rows
        self.slow = np.zeros(self.n, np.bool_)
        self._lines: list[bytes] | None = None

    def column(self, name: str) -> Any:
        """A column with empty (CSV) cells as null; all null when absent."""
        if name not in self.table.column_names:
            return pa.nulls(self.n, pa.string())
        column = self.table.column(name).combine_chunks()
        if self.kind == "csv":
            column = pc.if_else(pc.equal(column, ""), pa.scalar(None, pa.string()), column)
        return column

    def present(self, column: Any) -> Mask:
        return _fill(pc.is_valid(column))

    def matches(self, column: Any, pattern: str) -> Mask:
        return _fill(pc.match_substring_regex(column, pattern))

    def flag(self, name: str) -> npt.NDArray[np.int8]:
        """A boolean field: -1 absent, 0 false, 1 true; other spellings go slow."""
        column = self.column(name)
        values = np.full(self.n, NOT_GIVEN, np.int8)
        if pa.types.is_boolean(column.type):
            given = self.present(column)
            values[given] = _fill(column)[given]
            return values
        column = column.cast(pa.string())
        given = self.present(column)
        lower = pc.utf8_lower(column)
        true = _fill(pc.is_in(lower, pa.array(_TRUE)))
        false = _fill(pc.is_in(lower, pa.array(_FALSE)))
        values[true] = 1
        values[false] = 0
        self.slow |= given & ~true & ~false
        return values

    def codes(self, name: str, spellings: tuple[str, ...], default: int) -> npt.NDArray[np.int8]:
        """A field among ``spellings`` (its code is the position); absent: ``default``."""
        column = self.column(name)
        index = pc.index_in(column, value_set=pa.array(spellings))
        values = np.array(pc.fill_null(index, -1).to_numpy(zero_copy_only=False), np.int64)
        self.slow |= self.present(column) & (values < 0)
        return np.where(values < 0, default, values).astype(np.int8)

    def batch(self, on_invalid: OnInvalid | None) -> GameBatch:
        n = self.n
        ids = {name: self.column(name) for name in ("id", "white", "black")}
        for column in ids.values():
            self.slow |= ~self.matches(column, _ID)
        self.slow |= _fill(pc.equal(ids["white"], ids["black"]))

        played = self.column("played_at")
        self.slow |= ~self.matches(played, _TIMESTAMP)
        played_at = self.timestamps(played)

        result = self.codes("result", tuple(r.value for r in RESULTS), 0)
        self.slow |= ~self.present(self.column("result"))
        termination = self.codes("termination", tuple(t.value for t in TERMINATIONS), 0)
        venue = self.codes("venue", (Venue.ONLINE.value, Venue.OTB.value), 0)
        rated_flag = self.flag("rated")
        confirmed = self.flag("confirmed")
        self.slow |= (confirmed != NOT_GIVEN) & (venue != OTB)
        decisive = np.isin(termination, [TERMINATIONS.index(t) for t in DECISIVE_TERMINATIONS])
        self.slow |= (result == RESULTS.index(Result.DRAW)) & decisive

        tc_kind, tc_base, tc_increment, tc_days = self.time_controls()
        plies = self.plies()
        for name in self.table.column_names:
            if name not in GAME_FIELDS:  # the reference refuses it where a cell is given
                self.slow |= self.present(self.column(name))

        slow_rows = np.flatnonzero(self.slow)
        records: dict[int, GameRecord] = {}
        errors: list[InvalidRecord] = []
        for row in slow_rows.tolist():
            try:
                records[row] = GameRecord.from_mapping(self.mapping(row), self.where(row))
            except InvalidRecord as refused:
                errors.append(refused)
        if errors and on_invalid is None:
            raise errors[0]
        for error in errors:
            assert on_invalid is not None
            on_invalid(error)

        strings = {name: column for name, column in ids.items()}
        if records:
            rows = np.array(sorted(records), np.int64)
            chosen = [records[row] for row in rows.tolist()]
            patch = np.zeros(n, np.bool_)
            patch[rows] = True
            for name in strings:
                values = [getattr(record, name) for record in chosen]
                strings[name] = pc.replace_with_mask(
                    strings[name].cast(pa.string()), pa.array(patch), pa.array(values, pa.string())
                )
            fields = encode(chosen)
            played_at[rows] = fields.played_at
            result[rows] = fields.result
            rated_flag[rows] = fields.rated.astype(np.int8)
            tc_kind[rows], tc_base[rows] = fields.tc_kind, fields.tc_base
            tc_increment[rows], tc_days[rows] = fields.tc_increment, fields.tc_days
            termination[rows] = fields.termination
            plies[rows] = fields.plies
            venue[rows] = fields.venue
            confirmed[rows] = fields.confirmed
        keep = ~self.slow
        if records:
            keep[np.array(sorted(records), np.int64)] = True
        kept = pa.array(keep)
        game = (
            pc.dictionary_encode(strings["id"].filter(kept)).combine_chunks()
            if False
            else (pc.dictionary_encode(strings["id"].filter(kept)))
        )
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
            played_at=played_at[keep],
            result=result[keep],
            rated=(rated_flag != 0)[keep],
            tc_kind=tc_kind[keep],
            tc_base=tc_base[keep],
            tc_increment=tc_increment[keep],
            tc_days=tc_days[keep],
            termination=termination[keep],
            plies=plies[keep],
            venue=venue[keep],
            confirmed=confirmed[keep],
            source=str(self.path),
            lines=self.lines[keep],
        )

    def timestamps(self, played: Any) -> npt.NDArray[np.int64]:
        """``YYYY-MM-DDTHH:MM:SS`` as microseconds (UTC); an impossible date or time
        (02-30, 24:00) goes slow, where the reference refuses it."""

        def part(start: int, stop: int) -> npt.NDArray[np.int64]:
            text = pc.utf8_slice_codeunits(pc.fill_null(played, "2000-01-01T00:00:00"), start, stop)
            text = pc.if_else(self.matches(text, r"^[0-9]+$"), text, "1")
            return np.array(text.cast(pa.int64()).to_numpy(zero_copy_only=False), np.int64)

        year, month, day = part(0, 4), part(5, 7), part(8, 10)
        hour, minute, second = part(11, 13), part(14, 16), part(17, 19)
        month_ok = (month >= 1) & (month <= 12)
        first = (year - 1970).astype("datetime64[Y]").astype("datetime64[M]") + np.where(
            month_ok, month - 1, 0
        )
        days = ((first + 1).astype("datetime64[D]") - first.astype("datetime64[D]")).astype(
            np.int64
        )
        valid = month_ok & (day >= 1) & (day <= days) & (hour <= 23) & (minute <= 59)
        valid &= second <= 59
        self.slow |= ~valid
        since_epoch = first.astype("datetime64[D]").astype(np.int64) + day - 1
        seconds = since_epoch * 86_400 + hour * 3_600 + minute * 60 + second
        return np.where(valid, seconds * 1_000_000, 0).astype(np.int64)

    def time_controls(
        self,
    ) -> tuple[
        npt.NDArray[np.int8], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]
    ]:
        column = self.column("time_control")
        given = self.present(column)
        kind = np.full(self.n, TC_NONE, np.int8)
        base = np.zeros(self.n, np.int64)
        increment = np.zeros(self.n, np.int64)
        days = np.zeros(self.n, np.int64)
        unclocked = _fill(pc.equal(column, "-"))
        kind[unclocked] = TC_UNCLOCKED

        def numbers(parts: Any, name: str) -> npt.NDArray[np.int64]:
            text = pc.struct_field(parts, name)
            text = pc.if_else(pc.equal(text, ""), "0", text)
            return np.asarray(
                pc.fill_null(text.cast(pa.int64()), 0).to_numpy(zero_copy_only=False), np.int64
            )

        by_days = pc.extract_regex(column, _DAYS)
        is_days = self.present(by_days)
        count = numbers(by_days, "days")
        kind[is_days & (count >= 1)] = TC_CORRESPONDENCE
        days[is_days] = count[is_days]
        clock = pc.extract_regex(column, _CLOCK)
        is_clock = self.present(clock)
        minutes = _fill(pc.equal(pc.struct_field(clock, "unit"), "m"))
        seconds = numbers(clock, "base") * np.where(minutes, 60, 1)
        inc = numbers(clock, "inc")
        clocked = is_clock & ((seconds > 0) | (inc > 0))
        kind[clocked] = TC_CLOCKED
        base[clocked] = seconds[clocked]
        increment[clocked] = inc[clocked]
        self.slow |= given & (kind == TC_NONE)
        return kind, base, increment, days

    def plies(self) -> npt.NDArray[np.int32]:
        column = self.column("plies")
        plies = np.full(self.n, NO_PLIES, np.int64)
        given = self.present(column)
        if pa.types.is_integer(column.type):
            values = np.asarray(pc.fill_null(column, -1).to_numpy(zero_copy_only=False), np.int64)
            self.slow |= given & ((values < 0) | (values > 2**31 - 1))
        else:
            column = column.cast(pa.string())
            fast = self.matches(column, r"^[0-9]{1,9}$")
            self.slow |= given & ~fast
            text = pc.if_else(pa.array(fast), column, "-1")
            values = np.asarray(text.cast(pa.int64()).to_numpy(zero_copy_only=False), np.int64)
        plies[given] = values[given]
        plies[given & (plies < 0)] = NO_PLIES
        return plies.astype(np.int32)

    def where(self, row: int) -> str:
        return f"{self.path}:{int(self.lines[row])}"

    def mapping(self, row: int) -> dict[str, object]:
        """The row's fields as the reference reader hands them to ``from_mapping``."""
        if self.kind == "jsonl":
            if self._lines is None:
                self._lines = self.data.split(b"\n")
            line = self._lines[int(self.lines[row]) - 1]
            value: dict[str, object] = json.loads(line, parse_float=Decimal)
            return value
        values: dict[str, object] = {}
        for name in self.table.column_names:
            cell = self.table.column(name)[row].as_py()
            if cell is not None and cell.strip():
                values[name] = cell
        return values
