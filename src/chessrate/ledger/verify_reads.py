"""What ``verify`` reads of a ledger (:func:`read_stored`): the players, events and
current ratings, and every game and change, as of one moment of the ledger; the games
and changes (millions of rows) as columns through the ADBC drivers
(:mod:`chessrate.ledger.arrow`), several connections at once."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from sqlalchemy import func, select

from ..errors import LedgerUnavailable
from . import arrow
from .bulk import RATING_COLUMNS
from .connection import sqlite_path
from .schema import changes, events, players

if TYPE_CHECKING:
    from .store import Ledger


def stored_ratings(conn: Any) -> dict[tuple[str, str], tuple[Any, ...]]:
    """Every stored current rating: (player, pool) → its :data:`RATING_COLUMNS`, read
    through the driver's own cursor (a ledger holds a row per player and pool: building
    SQLAlchemy's row objects for them cost more than comparing them); ``listed`` as a
    bool on both databases (SQLite gives 0 or 1)."""
    listed = 2 + RATING_COLUMNS.index("listed")
    cursor = conn.connection.dbapi_connection.cursor()
    try:
        cursor.execute(f"SELECT player_id, pool, {', '.join(RATING_COLUMNS)} FROM ratings")
        return {
            (row[0], row[1]): (*row[2:listed], bool(row[listed]), *row[listed + 1 :])
            for row in cursor.fetchall()
        }
    finally:
        cursor.close()


GAME_READ = ("seq", "id", "played_at", "white", "black", "result", "rated", "time_control",
             "termination", "plies", "venue", "confirmed", "outcome", "reason")  # fmt: skip
CHANGE_READ = ("seq", "slot", "player", "pool", "rule", "opponent", "score", "before", "after",
               "state_before", "state_after", "games_before", "games_after",
               "opponent_rating", "k", "d", "pd", "basis", "code", "game")  # fmt: skip
"""The stored columns the compiled verify reads (changes: NULL as the emitted rows'
sentinel)."""

NULL_TEXT = str(np.iinfo(np.int64).min)


def _coalesced(name: str) -> str:
    """A changes column as the compiled verify reads it (NULL as the sentinel)."""
    return f"coalesce({name}, {NULL_TEXT})" if changes.c[name].nullable else name


GAME_NULLS = {"plies": "-1", "confirmed": "-1", "time_control": "''"}
"""What the compiled verify reads for a game's NULL (one type per column for Arrow)."""


def _game_column(name: str) -> str:
    """A games column as the Arrow read gives it (booleans as integers, NULL as
    :data:`GAME_NULLS`)."""
    column = f"CAST({name} AS INTEGER)" if name in ("rated", "confirmed") else name
    return f"coalesce({column}, {GAME_NULLS[name]})" if name in GAME_NULLS else column


MARK_SQL = "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM events)"
"""What a read of the ledger saw, to tell two reads' moments apart: every write that
``verify`` would see (a game, a player's event, an annulment) adds a game or an event
row, so two reads that count as many of both saw the same ledger."""

READ_ATTEMPTS = 5
"""How many times ``verify`` reads the ledger again when a write came between its two
connections' reads."""


class Stored(NamedTuple):
    """Everything the compiled verify compares, as of one moment of the ledger."""

    people: list[tuple[int, str, str]]  # (key, id, attributes) in key order
    games: Columns
    changes: list[Any]  # the CHANGE_READ columns (int64 arrays), in any row order
    ratings: dict[tuple[str, str], tuple[Any, ...]]
    seeded: dict[str, int]  # player id -> the seq of the player's last event
    annulled: list[tuple[Any, ...]]  # (seq, game id, payload, at) in seq order


def read_stored(ledger: Ledger) -> Stored:
    """The stored players, games, changes, ratings and events, all as of one moment.

    The players, ratings and events come first, through the ledger's read connection
    in one read transaction (:meth:`LedgerConnection.snapshot
    <chessrate.ledger.connection.LedgerConnection.snapshot>`); then the games and
    changes (millions of rows) through the ADBC driver (:func:`_read_arrow`), on
    connections of their own. When a write commits between those transactions'
    starts, they would see two ledgers (a rating moved by a game the replay never
    saw): the counts of :data:`MARK_SQL` then differ, and the ledger is read again.

    On SQLite the ledger's own connections are closed before the driver's open: the
    driver carries its own copy of SQLite, and two copies in one process do not see
    each other's locks (the file's locks are the process's: when one copy closes the
    file, the other's locks go with it, and another process's writer may then
    checkpoint under a read that is still going on)."""
    in_memory = sqlite_path(ledger.url) is None and not ledger.postgres
    for _attempt in range(READ_ATTEMPTS):
        with ledger.snapshot() as conn:
            mark = tuple(conn.exec_driver_sql(MARK_SQL).one())
            people = [
                (int(r.key), r.id, r.attributes)
                for r in conn.execute(
                    select(players.c.key, players.c.id, players.c.attributes)
                    .order_by(players.c.key)
                )
            ]  # fmt: skip
            seeded = {
                ref: int(seq)
                for ref, seq in conn.execute(
                    select(events.c.ref, func.max(events.c.seq))
                    .where(events.c.kind == "player")
                    .group_by(events.c.ref)
                ).all()
            }
            annulled = [
                tuple(row)
                for row in conn.execute(
                    select(events.c.seq, events.c.ref, events.c.payload, events.c.at)
                    .where(events.c.kind == "annulment")
                    .order_by(events.c.seq)
                )
            ]  # fmt: skip
            ratings = stored_ratings(conn)
            if in_memory:  # one connection only, and no other writer
                stored_games, stored_changes = _fetched(conn)
                return Stored(people, stored_games, stored_changes, ratings, seeded, annulled)
        if not ledger.postgres:
            ledger.dispose()
        stored_games, stored_changes, marks = _read_arrow(ledger, [key for key, *_ in people])
        if all(theirs == mark for theirs in marks):
            return Stored(people, stored_games, stored_changes, ratings, seeded, annulled)
    raise LedgerUnavailable(
        f"the ledger changed while verify read it, {READ_ATTEMPTS} times in a row: run "
        "it again when fewer writes arrive"
    )


READ_WORKERS = 4
"""At most this many connections read the games and changes at once (one a core)."""

SPLIT_PLAYERS = 2_000
"""From this many players on, the changes are read in ranges of players, apart."""


def _read_arrow(
    ledger: Ledger, keys: Sequence[int]
) -> tuple[Columns, list[Any], list[tuple[int, ...]]]:
    """The stored games (by column), the changes (their columns) and each
    connection's :data:`MARK_SQL` counts, as Arrow reads them
    (:mod:`chessrate.ledger.arrow`): the games on one connection, the changes in
    ranges of the players' ``keys`` (the table's order) on others, at once."""
    workers = max(1, min(READ_WORKERS, os.cpu_count() or 1))
    parts = 2 * workers - 1 if len(keys) >= SPLIT_PLAYERS and workers > 1 else 1
    cuts = [keys[len(keys) * n // parts] for n in range(1, parts)]
    ranges = [
        " AND ".join(
            ([f"player >= {cuts[n - 1]}"] if n > 0 else [])
            + ([f"player < {cuts[n]}"] if n < len(cuts) else [])
        )
        for n in range(parts)
    ]
    games_sql = f"SELECT {', '.join(map(_game_column, GAME_READ))} FROM games ORDER BY seq"
    changes_sql = f"SELECT {', '.join(map(_coalesced, CHANGE_READ))} FROM changes"
    jobs = [[MARK_SQL, games_sql]]
    jobs += [[MARK_SQL, f"{changes_sql} WHERE {where}" if where else changes_sql]
             for where in ranges]  # fmt: skip
    done = arrow.read_apart(ledger, jobs, workers)
    marks = [
        tuple(int(mark.column(n)[0].as_py()) for n in range(mark.num_columns))
        for mark, *_tables in done
    ]  # fmt: skip
    game_table = done[0][1]
    columns: dict[str, Any] = {}
    controls = None
    for n, name in enumerate(GAME_READ):
        values = game_table.column(n)
        if name == "id":
            columns[name] = _byte_strings(values)
        elif name == "time_control":  # its distinct texts, and each game's among them
            encoded = values.combine_chunks().dictionary_encode()
            texts = [text or None for text in encoded.dictionary.to_pylist()]
            controls = (texts, encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64))
            columns[name] = None
        else:
            columns[name] = np.asarray(values.to_numpy(), np.int64)
    found = _int_columns([tables[1] for tables in done[1:]], len(CHANGE_READ))
    return Columns.of(GAME_READ, columns, game_table.num_rows, controls), found, marks


def _int_columns(tables: Sequence[Any], width: int) -> list[Any]:
    """The ``width`` integer columns of Arrow tables read apart, each one int64 array
    (copied once, a batch at a time)."""
    total = sum(table.num_rows for table in tables)
    found = [np.empty(total, np.int64) for _ in range(width)]
    for n, column in enumerate(found):
        at = 0
        for table in tables:
            for chunk in table.column(n).chunks:
                column[at : at + len(chunk)] = chunk.to_numpy(zero_copy_only=False)
                at += len(chunk)
    return found


def _byte_strings(values: Any) -> Any:
    """A column of distinct strings as :class:`~chessrate.fast.strings.ByteStrings` on
    Arrow's own buffers (a game is found by its id with a hash probe, and no Python
    string is made for the others)."""
    import pyarrow as pa

    from ..fast.strings import ByteStrings, hash_strings

    array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    wide = pa.types.is_large_string(array.type)
    _validity, offsets, data = array.buffers()
    given = np.frombuffer(offsets, np.int64 if wide else np.int32)
    bounds = given[array.offset : array.offset + len(array) + 1].astype(np.int64)
    pool = np.zeros(0, np.uint8) if data is None else np.frombuffer(data, np.uint8)
    return ByteStrings(pool, bounds, hashes=hash_strings(pool, bounds))


def _fetched(conn: Any) -> tuple[Columns, list[Any]]:
    """:func:`_read_arrow` through the SQLAlchemy connection's driver (row by row)."""
    cursor = conn.connection.dbapi_connection.cursor()
    try:
        cursor.execute(f"SELECT {', '.join(GAME_READ)} FROM games ORDER BY seq")
        stored_games = Columns(GAME_READ, list(cursor.fetchall()))
        cursor.execute(f"SELECT {', '.join(map(_coalesced, CHANGE_READ))} FROM changes")
        stored = np.array(cursor.fetchall(), np.int64).reshape(-1, len(CHANGE_READ))
    finally:
        cursor.close()
    return stored_games, [stored[:, n].copy() for n in range(len(CHANGE_READ))]


def rows_of(ids: Sequence[str], wanted: Sequence[str]) -> dict[str, int]:
    """The row of each of ``wanted`` among the stored games' ``ids`` (they are)."""
    from ..fast.strings import ByteStrings

    if isinstance(ids, ByteStrings):
        return {ref: code for ref in wanted if (code := ids.code(ref)) is not None}
    chosen = set(wanted)
    return {game_id: row for row, game_id in enumerate(ids) if game_id in chosen} if chosen else {}


class Columns:
    """Rows fetched from the driver, by column."""

    def __init__(self, names: Sequence[str], fetched: list[tuple[Any, ...]]) -> None:
        self.count = len(fetched)
        values = list(zip(*fetched, strict=True)) if fetched else [() for _ in names]
        self.columns = dict(zip(names, values, strict=True))
        self._controls: tuple[list[str | None], Any] | None = None

    @classmethod
    def of(
        cls,
        names: Sequence[str],
        columns: dict[str, Any],
        count: int,
        controls: tuple[list[str | None], Any] | None = None,
    ) -> Columns:
        """Columns read as such (numpy arrays or sequences), and the time controls as
        their distinct texts and each row's code among them."""
        made = cls(names, [])
        made.count = count
        made.columns = {name: columns[name] for name in names}
        made._controls = controls
        return made

    def controls(self) -> tuple[list[str | None], Any]:
        """The distinct time controls (None: not given) and each row's among them."""
        if self._controls is None:
            texts = ["" if t is None else t for t in self.columns["time_control"]]
            distinct, inverse = np.unique(np.array(texts, dtype=object), return_inverse=True)
            self._controls = ([t or None for t in distinct.tolist()], inverse.astype(np.int64))
        return self._controls

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, name: str) -> Any:
        return self.columns[name]
