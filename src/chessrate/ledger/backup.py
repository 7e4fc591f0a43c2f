"""An online copy of a SQLite ledger (``chessrate backup``): SQLite's backup API.

The copy is the ledger as it was at one moment, whatever writes go on meanwhile: the
whole database is copied in one step, inside one read transaction (WAL: writers are
not blocked, and what they commit meanwhile is not in the copy). It is written beside
its destination (readable by its owner only, as a new ledger) and renamed to it once
complete, so a failed backup leaves no half-written file under that name. A
PostgreSQL ledger is backed up with ``pg_dump`` (docs/deployment.md).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from ..errors import InvalidInput
from .connection import SQLITE_BUSY_SECONDS, sqlite_path


def backup_sqlite(url: str, destination: Path) -> int:
    """Copy the SQLite ledger at ``url`` to ``destination`` (a new file); its size in
    bytes. :class:`InvalidInput` for a ledger that is not a SQLite file, a
    destination that exists or cannot be written."""
    source = sqlite_path(url)
    if source is None:
        raise InvalidInput(
            "backup copies a SQLite ledger file; back up a PostgreSQL ledger with pg_dump "
            "(pg_dump --format=custom --file=FILE DATABASE), then check the restored copy "
            "with chessrate verify"
        )
    if not source.is_file():
        raise InvalidInput(f"{source}: no ledger here")
    if destination.exists():
        raise InvalidInput(f"{destination}: exists; back up to a new file")
    partial = destination.with_name(f".{destination.name}.{os.getpid()}.partial")
    try:
        os.close(os.open(partial, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except OSError as error:
        raise InvalidInput(f"{destination}: cannot write: {error.strerror}") from None
    try:
        with (
            contextlib.closing(sqlite3.connect(source, timeout=SQLITE_BUSY_SECONDS)) as read,
            contextlib.closing(sqlite3.connect(partial)) as copy,
        ):
            read.backup(copy)  # every page in one step: one consistent moment
        os.replace(partial, destination)
    except sqlite3.Error as error:
        raise InvalidInput(f"{source}: cannot back up: {error}") from None
    finally:
        partial.unlink(missing_ok=True)
    return destination.stat().st_size
