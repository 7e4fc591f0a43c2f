"""Reading and writing game records, players and annulments (JSON Lines, CSV, text)."""

from __future__ import annotations

import csv
import io
import json
import mmap
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ..errors import InvalidInput, InvalidRecord
from ..records import MOVE_FIELDS, PLAYER_FIELDS, FieldReader, GameRecord, Player
from .pgn import read_pgn_games
from .players import read_players_csv
from .tabular import detect_format, not_utf8, parse_records, read_records

OnInvalid = Callable[[InvalidRecord], None]
_IMPORTED_COLUMN = re.compile(r"(rating|games)_([a-z]+)")


def read_games(
    path: Path,
    fmt: str | None = None,
    on_invalid: OnInvalid | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[GameRecord]:
    """Every game record of a file (JSON Lines, CSV, or PGN, ``.pgn.gz``, ``.pgn.zst``),
    validated.

    An invalid record raises :class:`InvalidRecord` naming ``FILE:LINE`` and the
    field, unless ``on_invalid`` is given: then it is reported there and skipped.
    ``progress`` (PGN only) is called with the number of file bytes read.
    """
    if detect_format(path, fmt) == "pgn":
        return read_pgn_games(path, on_invalid, progress=progress)
    games = []
    for where, fields in read_records(path, fmt):
        try:
            games.append(GameRecord.from_mapping(fields, where))
        except InvalidRecord as error:
            if on_invalid is None:
                raise
            on_invalid(error)
    return games


def holds_moves(path: Path, fmt: str | None = None) -> bool:
    """Whether a games file may give games' moves (a ``moves`` or ``movetext`` field or
    column): then a ledger import reads it record by record and stores the moves. A
    quick look at the bytes: a false yes only takes the slower path."""
    kind = detect_format(path, fmt)
    if kind == "pgn":
        return False
    try:
        with (
            path.open("rb") as handle,
            mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data,
        ):
            if kind == "csv":
                end = data.find(b"\n")
                header = bytes(data[: end if end >= 0 else len(data)])
                return any(name.encode() in header for name in MOVE_FIELDS)
            return any(data.find(f'"{name}"'.encode()) >= 0 for name in MOVE_FIELDS)
    except (OSError, ValueError):  # empty (cannot be mapped) or unreadable: read as usual
        return False


def read_players(path: Path, fmt: str | None = None) -> list[Player]:
    """Every player of a players file (CSV or JSON Lines), validated; the first
    invalid one raises (players are few and a wrong one would skew every rating).
    CSV is read column by column (:mod:`chessrate.io.players`), with the same result."""
    if detect_format(path, fmt) == "csv":
        players = read_players_csv(path)
        if players is not None:
            return players
    return [Player.from_mapping(fields, where) for where, fields in read_records(path, fmt)]


AnnulmentRequest = tuple[str, str, str]
"""(where, game id, reason)."""


ANNULMENT_REASON_LONGEST = 2000
"""The longest reason of an annulment, in characters (as the API's)."""


def read_annulments(path: Path) -> list[AnnulmentRequest]:
    """An annulments file: one game id a line, optionally followed by whitespace and
    the reason; blank lines and lines starting with ``#`` are skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise InvalidInput(f"{path}: cannot read: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise not_utf8(path, error) from None
    return parse_annulments(text, str(path))


def parse_annulments(text: str, source: str) -> list[AnnulmentRequest]:
    """The annulments of a text in the annulments file's form; ``source`` names it.
    Lines are split on ``\n`` only. The game id is read as ids are (a ``/`` allowed: an
    annulment names a stored game, which may be older than the rule against it), the
    reason as text of at most 2,000 characters."""
    requests = []
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        game_id, _, reason = (
            stripped.partition("\t") if "\t" in stripped else stripped.partition(" ")
        )
        fields = FieldReader({"id": game_id, "reason": reason}, f"{source}:{number}")
        requests.append(
            (
                fields.where,
                fields.ident("id", stored=True),
                fields.text("reason", longest=ANNULMENT_REASON_LONGEST) or "",
            )
        )
    return requests


def parse_games(text: str, source: str, fmt: str = "jsonl") -> list[GameRecord]:
    """Every game record of a text (JSON Lines or CSV), validated; errors name
    ``SOURCE:LINE`` and the field."""
    return [
        GameRecord.from_mapping(fields, where) for where, fields in parse_records(text, source, fmt)
    ]


def parse_players(text: str, source: str, fmt: str = "csv") -> list[Player]:
    """Every player of a text (CSV or JSON Lines), validated."""
    return [
        Player.from_mapping(fields, where) for where, fields in parse_records(text, source, fmt)
    ]


# -- writing ---------------------------------------------------------------------------


def games_text(records: Iterable[GameRecord]) -> str:
    """Game records as JSON Lines, in the record form of the spec (``to_mapping``)."""
    return "".join(games_lines(records))


def games_lines(records: Iterable[GameRecord]) -> Iterator[str]:
    """:func:`games_text` a line at a time (an export streams them to its file)."""
    for record in records:
        yield json.dumps(record.to_mapping(), ensure_ascii=False) + "\n"


def players_text(players: Iterable[Player], path: Path) -> str:
    """Players' attributes as ``path``'s format wants them: CSV (one column per
    attribute any player has) or JSON Lines; both read back by :func:`read_players`."""
    rows = [player.to_mapping() for player in players]
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    if suffix != ".csv":
        raise InvalidInput(f"{path}: players are written as .csv or .jsonl")
    present = {name for row in rows for name in row}
    pools = sorted({m.group(2) for name in present if (m := _IMPORTED_COLUMN.fullmatch(name))})
    columns = ["id", *(name for name in PLAYER_FIELDS[1:] if name in present)]
    columns += [f"{kind}_{pool}" for pool in pools for kind in ("rating", "games")]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(row.get(k)) for k in columns})
    return buffer.getvalue()


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def annulments_text(annulments: Iterable[tuple[str, str]]) -> str:
    """(game id, reason) pairs in the annulments file's form, tab-separated."""
    return "".join(f"{game_id}\t{reason}\n" for game_id, reason in annulments)
