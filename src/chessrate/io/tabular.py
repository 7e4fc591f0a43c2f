"""JSON Lines and CSV records, each with its ``FILE:LINE`` location."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

from ..errors import InvalidInput, InvalidRecord
from ..records import strict_json

FORMATS = ("jsonl", "csv", "pgn")
_SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".pgn": "pgn"}
_COMPRESSED = (".gz", ".zst")
"""Compressed PGN: ``games.pgn.gz``, ``games.pgn.zst`` (read by :mod:`chessrate.io.pgn`)."""

RawRecord = tuple[str, dict[str, object]]
"""(where, fields): ``where`` is ``FILE:LINE``."""


def detect_format(path: Path, given: str | None = None) -> str:
    """The format named by ``given``, else by the file's extension."""
    if given is not None:
        if given not in FORMATS:
            raise InvalidInput(f"unknown format {given!r} (known: {', '.join(FORMATS)})")
        return given
    suffix = path.suffix.lower()
    if suffix in _COMPRESSED and path.with_suffix("").suffix.lower() == ".pgn":
        return "pgn"
    found = _SUFFIXES.get(suffix)
    if found is None:
        raise InvalidInput(
            f"{path}: cannot tell the format from the extension {path.suffix!r} "
            f"(use .jsonl, .csv, .pgn, .pgn.gz or .pgn.zst, or --format {'|'.join(FORMATS)})"
        )
    return found


def read_records(path: Path, fmt: str | None = None) -> Iterator[RawRecord]:
    """Yield every record of a JSON Lines or CSV file with its location.

    A line that is not a record at all raises :class:`InvalidRecord` (field
    ``record``); field-level validation is the caller's.
    """
    kind = detect_format(path, fmt)
    if kind == "pgn":
        raise InvalidInput(f"{path}: PGN holds games only (read them with read_games)")
    try:
        handle = path.open(encoding="utf-8", newline="")
    except OSError as error:
        raise InvalidInput(f"{path}: cannot read: {error.strerror}") from None
    with handle:
        try:
            if kind == "jsonl":
                yield from _jsonl(path, handle)
            else:
                yield from _csv(path, handle)
        except UnicodeDecodeError as error:
            raise not_utf8(path, error) from None


def not_utf8(path: Path, error: UnicodeDecodeError) -> InvalidRecord:
    """The error of a file that is not UTF-8 text, naming its first line that is not
    (``FILE:LINE: record: not UTF-8 text (…)``): the file is read again, as bytes."""
    try:
        with path.open("rb") as handle:
            for number, line in enumerate(handle, start=1):
                try:
                    line.decode("utf-8")
                except UnicodeDecodeError as found:
                    reason = f"not UTF-8 text ({found.reason} at byte {found.start + 1})"
                    return InvalidRecord(f"{path}:{number}", "record", reason)
    except OSError:
        pass
    return InvalidRecord(str(path), "record", f"not UTF-8 text ({error.reason})")


def parse_records(text: str, source: str, kind: str) -> Iterator[RawRecord]:
    """The records of a JSON Lines or CSV text (e.g. an upload); ``source`` names it."""
    lines = iter(text.splitlines(keepends=True))
    if kind == "jsonl":
        yield from _jsonl(source, lines)
    elif kind == "csv":
        yield from _csv(source, lines)
    else:
        raise InvalidInput(f"unknown format {kind!r} (known: {', '.join(FORMATS)})")


def _jsonl(path: Path | str, lines: Iterator[str]) -> Iterator[RawRecord]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            value = strict_json(line)
        except json.JSONDecodeError as error:
            raise InvalidRecord(where, "record", f"not valid JSON ({error.msg})") from None
        except ValueError as error:
            raise InvalidRecord(where, "record", f"not valid JSON ({error})") from None
        if not isinstance(value, dict):
            raise InvalidRecord(where, "record", "must be a JSON object")
        yield where, value


def _csv(path: Path | str, lines: Iterator[str]) -> Iterator[RawRecord]:
    reader = csv.DictReader(lines)
    try:
        fieldnames = reader.fieldnames
    except csv.Error as error:  # (a cell longer than the csv module's field limit)
        raise InvalidRecord(f"{path}:1", "header", f"not CSV ({error})") from None
    if fieldnames is None:
        return
    header = [name.strip() for name in fieldnames]
    if len(set(header)) != len(header) or "" in header:
        raise InvalidRecord(f"{path}:1", "header", "column names must be unique and non-empty")
    reader.fieldnames = header
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            where = f"{path}:{reader.reader.line_num}"  # (DictReader.line_num is the last row's)
            raise InvalidRecord(where, "record", f"not CSV ({error})") from None
        where = f"{path}:{reader.line_num}"
        if None in row:
            raise InvalidRecord(where, "record", f"more cells than the {len(header)} columns")
        values: dict[str, object] = {}
        for name, cell in row.items():
            if cell is None:
                raise InvalidRecord(where, "record", f"fewer cells than the {len(header)} columns")
            if cell.strip():
                values[name] = cell
        yield where, values
