"""Writing rating lists and rating histories (CSV, JSON, JSON Lines)."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..engine import Annulment
from ..errors import InvalidInput
from ..numbers import format_rating
from ..systems.base import HISTORY_COLUMNS, Change, GameRating, ListEntry

LIST_COLUMNS = ("player", "pool", "rating", "display", "state", "games")
HISTORY_FILE_COLUMNS = ("game", "played_at", *HISTORY_COLUMNS[1:])


@dataclass(frozen=True, slots=True)
class ListColumns:
    """A rating list (or a pool's part of it) as columns, one value per entry, in the
    form the files write: ``rating`` as ``"1735.58"`` or None (a qualifying player)."""

    player: Sequence[str]
    pool: Sequence[str]
    rating: Sequence[str | None]
    display: Sequence[str]
    state: Sequence[str]
    games: Sequence[int]

    @classmethod
    def of(cls, entries: Iterable[ListEntry]) -> ListColumns:
        rows = list(entries)
        return cls(
            [e.player for e in rows],
            [e.pool for e in rows],
            [format_rating(e.rating) for e in rows],
            [e.display for e in rows],
            [e.state for e in rows],
            [e.games for e in rows],
        )

    def __len__(self) -> int:
        return len(self.player)


def rating_list_text(entries: Iterable[ListEntry], path: Path) -> str:
    """A rating list as ``path``'s format wants it (the spec, "Pools and the
    rating list"): a JSON array of objects, or CSV with the same columns."""
    return list_columns_text([ListColumns.of(entries)], path)


def list_columns_text(parts: Iterable[ListColumns], path: Path) -> str:
    """:func:`rating_list_text` for a list given as columns, part after part (the
    compiled replay writes a 150,000-entry list this way without an object per entry).
    JSON: exactly ``json.dumps(rows, indent=2, ensure_ascii=False)``."""
    suffix = path.suffix.lower()
    if suffix == ".json":
        return _json_list(parts)
    if suffix == ".csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(LIST_COLUMNS)
        for part in parts:
            ratings = ("" if r is None else r for r in part.rating)
            writer.writerows(
                zip(
                    part.player,
                    part.pool,
                    ratings,
                    part.display,
                    part.state,
                    part.games,
                    strict=True,
                )
            )
        return buffer.getvalue()
    raise InvalidInput(f"{path}: a rating list is written as .json or .csv")


_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f]')


def _json_string(text: str) -> str:
    """``json.dumps(text, ensure_ascii=False)``, quick for text without escapes."""
    if _NEEDS_ESCAPE.search(text) is None:
        return f'"{text}"'
    return json.dumps(text, ensure_ascii=False)


def _json_list(parts: Iterable[ListColumns]) -> str:
    objects = []
    cached: dict[str, str] = {}

    def known(text: str) -> str:  # pools, displays and states repeat: escape each once
        found = cached.get(text)
        if found is None:
            found = cached[text] = _json_string(text)
        return found

    for part in parts:
        for player, pool, rating, shown, state, games in zip(
            part.player, part.pool, part.rating, part.display, part.state, part.games,
            strict=True,
        ):  # fmt: skip
            rating_json = "null" if rating is None else known(rating)
            objects.append(
                f'  {{\n    "player": {_json_string(player)},\n    "pool": {known(pool)},'
                f'\n    "rating": {rating_json},\n    "display": {known(shown)},'
                f'\n    "state": {known(state)},\n    "games": {games}\n  }}'
            )
    if not objects:
        return "[]\n"
    return "[\n" + ",\n".join(objects) + "\n]\n"


def history_rows(
    ratings: Iterable[GameRating[Any]], annulments: Iterable[Annulment] = ()
) -> list[dict[str, str]]:
    """One row per player per game that changed a state, with its explanation; then
    the rows of the annulments (rule ``site S10``, ``played_at`` = when annulled)."""
    rows = []
    for rating in ratings:
        rows += _rows(rating.game.played_at, rating.changes)
    for annulment in annulments:
        rows += _rows(annulment.at, annulment.changes)
    return rows


def _rows(at: datetime, changes: Iterable[Change]) -> list[dict[str, str]]:
    played_at = at.isoformat().replace("+00:00", "Z")
    return [
        {"game": row["game"], "played_at": played_at, **row}
        for row in (change.as_row() for change in changes)
    ]


def history_text(
    ratings: Iterable[GameRating[Any]], path: Path, annulments: Iterable[Annulment] = ()
) -> str:
    """The rating history as CSV, or JSON Lines for ``.jsonl``."""
    rows = history_rows(ratings, annulments)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return csv_text(HISTORY_FILE_COLUMNS, rows)
    if suffix == ".jsonl":
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    raise InvalidInput(f"{path}: a history is written as .csv or .jsonl")


def csv_text(columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> str:
    """CSV text with a header line; a missing or None value is written empty."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: "" if row.get(k) is None else row[k] for k in columns})
    return buffer.getvalue()


def _umask() -> int:
    """The process's file mode creation mask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _umask()


def _mode_for(path: Path) -> int:
    """The permissions ``path`` gets when written: those it has, or what ``open`` gives
    a new file (0666 less the umask; a temporary file is created 0600, readable by its
    owner only)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return 0o666 & ~_UMASK


def write_all(files: Mapping[Path, str | Iterable[str]]) -> None:
    """Write several files all-or-nothing: every text (or stream of text pieces) goes
    to a temporary file next to its target first; only when all are written are they
    moved into place."""
    staged: list[tuple[str, Path]] = []
    try:
        for path, text in files.items():
            handle, temporary = tempfile.mkstemp(
                dir=path.parent or Path("."), prefix=f".{path.name}.", suffix=".tmp"
            )
            staged.append((temporary, path))
            os.fchmod(handle, _mode_for(path))
            with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
                if isinstance(text, str):
                    out.write(text)
                else:
                    out.writelines(text)
    except OSError as error:
        for temporary, _ in staged:
            Path(temporary).unlink(missing_ok=True)
        raise InvalidInput(f"cannot write: {error}") from None
    for temporary, path in staged:
        os.replace(temporary, path)
