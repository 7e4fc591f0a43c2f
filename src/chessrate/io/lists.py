"""Writing rating lists and rating histories (CSV, JSON, JSON Lines)."""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from ..engine import Annulment
from ..errors import InvalidInput
from ..systems.base import HISTORY_COLUMNS, Change, GameRating, ListEntry

LIST_COLUMNS = ("player", "pool", "rating", "display", "state", "games")
HISTORY_FILE_COLUMNS = ("game", "played_at", *HISTORY_COLUMNS[1:])


def rating_list_text(entries: Iterable[ListEntry], path: Path) -> str:
    """A rating list as ``path``'s format wants it (spec README "Pools and the
    rating list"): a JSON array of objects, or CSV with the same columns."""
    rows = [entry.as_mapping() for entry in entries]
    suffix = path.suffix.lower()
    if suffix == ".json":
        return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
    if suffix == ".csv":
        return _csv_text(LIST_COLUMNS, rows)
    raise InvalidInput(f"{path}: a rating list is written as .json or .csv")


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
        return _csv_text(HISTORY_FILE_COLUMNS, rows)
    if suffix == ".jsonl":
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    raise InvalidInput(f"{path}: a history is written as .csv or .jsonl")


def _csv_text(columns: Sequence[str], rows: Iterable[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: "" if row.get(k) is None else row[k] for k in columns})
    return buffer.getvalue()


def write_all(files: dict[Path, str]) -> None:
    """Write several files all-or-nothing: every text goes to a temporary file next to
    its target first; only when all are written are they moved into place."""
    staged: list[tuple[str, Path]] = []
    try:
        for path, text in files.items():
            handle, temporary = tempfile.mkstemp(
                dir=path.parent or Path("."), prefix=f".{path.name}.", suffix=".tmp"
            )
            staged.append((temporary, path))
            with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
                out.write(text)
    except OSError as error:
        for temporary, _ in staged:
            Path(temporary).unlink(missing_ok=True)
        raise InvalidInput(f"cannot write: {error}") from None
    for temporary, path in staged:
        os.replace(temporary, path)
