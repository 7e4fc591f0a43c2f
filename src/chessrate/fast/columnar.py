"""Game files (CSV, JSON Lines) read column by column into a :class:`GameBatch`.

Building one ``GameRecord`` per row in Python costs more than rating the game in
the compiled replay; this reader keeps the whole path columnar. CSV is scanned by
numba kernels (:mod:`chessrate.fast.csvscan`: one pass over the bytes, ids interned
on the bytes, no Python object per row); JSON Lines by pyarrow's reader and
compute functions (regular expressions, membership) on whole columns.

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
import pyarrow.json as pa_json

from ..errors import InvalidInput, InvalidRecord
from ..io.games import read_games
from ..io.tabular import detect_format
from ..records import DECISIVE_TERMINATIONS, GAME_FIELDS, GameRecord, Result, Venue
from . import csvscan
from .batch import (
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
from .strings import ByteStrings, gather, intern, table_for

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
    as :func:`chessrate.io.games.read_games` validates it (same errors, same order).
    PGN is refused: the PGN batch reader (``read_pgn_batch``) reads it."""
    kind = detect_format(path, fmt)
    if kind == "pgn":
        raise InvalidInput(
            f"{path}: read_batch reads CSV and JSON Lines; read PGN with the PGN batch "
            "reader (read_pgn_batch)"
        )
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InvalidInput(f"{path}: cannot read: {error.strerror}") from None
    try:
        if b"\r" in data or data.startswith(b"\xef\xbb\xbf"):
            raise _Fallback
        if kind == "csv":
            return _scan_csv(path, data, on_invalid)
        table, lines = _read_jsonl(data)
        return _Columns(path, kind, data, table, lines).batch(on_invalid)
    except (_Fallback, pa.ArrowException):
        return encode(read_games(path, fmt, on_invalid))


def _scan_csv(path: Path, data: bytes, on_invalid: OnInvalid | None) -> GameBatch:
    """The CSV fast path: :func:`csvscan.scan` decodes the plain cells of every row in
    one pass over the bytes; the rows it marks slow go to the reference parser; the
    ids are interned on the bytes (:func:`csvscan.intern`)."""
    if b'"' in data:
        raise _Fallback  # quoted cells (maybe over several lines): the csv module's rules
    header_end = data.find(b"\n")
    if header_end < 0:
        header_end = len(data)
    names = [name.strip() for name in data[:header_end].decode("utf-8").split(",")]
    if len(set(names)) != len(names) or "" in names:
        raise _Fallback
    buffer = np.frombuffer(data, np.uint8)
    capacity = int(csvscan.count_lines(buffer))
    roles = np.array([csvscan.ROLES.get(name, csvscan.R_OTHER) for name in names], np.int64)
    results, result_lengths = csvscan.literals([r.value for r in RESULTS])
    terminations, termination_lengths = csvscan.literals([t.value for t in TERMINATIONS])
    venues, venue_lengths = csvscan.literals([Venue.ONLINE.value, Venue.OTB.value])
    flags, flag_lengths = csvscan.literals(_TRUE + _FALSE)
    flag_values = np.array([1] * len(_TRUE) + [0] * len(_FALSE), np.int8)
    decisive = np.array([t in DECISIVE_TERMINATIONS for t in TERMINATIONS], np.bool_)
    i64 = [np.empty(capacity, np.int64) for _ in range(13)]
    lines, line_start, id_start, id_end, white_start, white_end, black_start, black_end = i64[:8]
    played_at, tc_base, tc_increment, tc_days, plies64 = i64[8:]
    result, rated, tc_kind, termination, venue, confirmed = (
        np.empty(capacity, np.int8) for _ in range(6)
    )
    slow = np.empty(capacity, np.bool_)
    n = int(
        csvscan.scan(
            buffer, min(header_end + 1, len(data)), roles,
            results, result_lengths, terminations, termination_lengths, decisive,
            RESULTS.index(Result.DRAW), venues, venue_lengths, OTB,
            flags, flag_lengths, flag_values,
            lines, line_start, id_start, id_end, white_start, white_end, black_start, black_end,
            played_at, result, rated, tc_kind, tc_base, tc_increment, tc_days, termination,
            plies64, venue, confirmed, slow,
        )
    )  # fmt: skip
    if n == csvscan.RAGGED:
        raise _Fallback
    keep = ~slow[:n]
    records: dict[int, GameRecord] = {}
    errors: list[InvalidRecord] = []
    for row in np.flatnonzero(slow[:n]).tolist():
        start = int(line_start[row])
        stop = data.find(b"\n", start)
        try:
            text = data[start : len(data) if stop < 0 else stop].decode("utf-8")
        except UnicodeDecodeError:
            raise _Fallback from None
        mapping = {
            name: cell for name, cell in zip(names, text.split(","), strict=True) if cell.strip()
        }
        try:
            records[row] = GameRecord.from_mapping(mapping, f"{path}:{int(lines[row])}")
        except InvalidRecord as refused:
            errors.append(refused)
    if errors and on_invalid is None:
        raise errors[0]
    for error in errors:
        assert on_invalid is not None
        on_invalid(error)
    if records:
        rows = np.array(sorted(records), np.int64)
        chosen = [records[row] for row in rows.tolist()]
        keep[rows] = True
        _place(
            encode(chosen), rows, played_at, result, rated, tc_kind, tc_base, tc_increment,
            tc_days, termination, plies64, venue, confirmed,
        )  # fmt: skip
        # the reference's strings where they are not the cell's bytes (e.g. trimmed)
        extra = bytearray()
        for row, record in zip(rows.tolist(), chosen, strict=True):
            for value, starts, ends in ((record.id, id_start, id_end),
                                        (record.white, white_start, white_end),
                                        (record.black, black_start, black_end)):  # fmt: skip
                encoded = value.encode("utf-8")
                start, end = int(starts[row]), int(ends[row])
                if start < 0 or data[start:end] != encoded:
                    starts[row] = len(data) + len(extra)
                    extra += encoded
                    ends[row] = len(data) + len(extra)
        if extra:
            buffer = np.concatenate((buffer, np.frombuffer(bytes(extra), np.uint8)))
    kept = np.flatnonzero(keep)
    count = kept.shape[0]
    game, game_ids = _game_ids(buffer, kept, id_start, id_end)
    players, player_ids = _interned(
        buffer, kept, [(white_start, white_end), (black_start, black_end)], 1 << 15
    )
    return GameBatch(
        game=game,
        game_ids=game_ids,
        white=players[:count].astype(np.int32),
        black=players[count:].astype(np.int32),
        player_ids=player_ids.strings(),
        played_at=played_at[kept],
        result=result[kept],
        rated=rated[kept] != 0,
        tc_kind=tc_kind[kept],
        tc_base=tc_base[kept],
        tc_increment=tc_increment[kept],
        tc_days=tc_days[kept],
        termination=termination[kept],
        plies=plies64[kept].astype(np.int32),
        venue=venue[kept],
        confirmed=confirmed[kept],
        source=str(path),
        lines=lines[kept],
    )


def _game_ids(
    buffer: npt.NDArray[np.uint8],
    rows: npt.NDArray[np.int64],
    starts: npt.NDArray[np.int64],
    ends: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int64], ByteStrings]:
    """Game id codes: when no two ids hash alike (the usual case: ids are unique)
    every row has its own code and no hash table is built (the sort of the hashes
    proves it); else the ids are interned."""
    pool = np.empty(int((ends[rows] - starts[rows]).sum()), np.uint8)
    offsets = np.empty(rows.shape[0] + 1, np.int64)
    hashes = gather(buffer, rows, starts, ends, pool, offsets)
    ordered = np.sort(hashes)
    if not bool((ordered[1:] == ordered[:-1]).any()):
        ids = ByteStrings(pool, offsets, hashes=hashes)
        return np.arange(rows.shape[0], dtype=np.int64), ids
    return _interned(buffer, rows, [(starts, ends)], rows.shape[0])


def _interned(
    buffer: npt.NDArray[np.uint8],
    rows: npt.NDArray[np.int64],
    columns: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]],
    expected: int,
) -> tuple[npt.NDArray[np.int64], ByteStrings]:
    """The strings of ``rows`` in the (start, end) byte columns, one column after the
    other, as codes in order of first appearance, and the distinct strings."""
    lengths = [int((ends[rows] - starts[rows]).sum()) for starts, ends in columns]
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
        return self.table.column(name).combine_chunks()

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
            _place(
                encode(chosen), rows, played_at, result, rated_flag, tc_kind, tc_base,
                tc_increment, tc_days, termination, plies, venue, confirmed,
            )  # fmt: skip
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
        if self._lines is None:
            self._lines = self.data.split(b"\n")
        line = self._lines[int(self.lines[row]) - 1]
        value: dict[str, object] = json.loads(line, parse_float=Decimal)
        return value


def _place(fields: GameBatch, rows: Any, *columns: Any) -> None:
    """Put the reference parser's ``fields`` of some rows at ``rows`` of the columns
    (played_at, result, rated, tc_kind, tc_base, tc_increment, tc_days, termination,
    plies, venue, confirmed), in that order."""
    values = (
        fields.played_at, fields.result, fields.rated.astype(np.int8), fields.tc_kind,
        fields.tc_base, fields.tc_increment, fields.tc_days, fields.termination,
        fields.plies, fields.venue, fields.confirmed,
    )  # fmt: skip
    for column, value in zip(columns, values, strict=True):
        column[rows] = value
