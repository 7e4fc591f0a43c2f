"""The group commit's statements (:meth:`Games.submit_group`) as fixed SQL run on the
driver's cursor, beside SQLAlchemy, in the same transaction.

Why: a group of a few games is a handful of statements, and building each through
SQLAlchemy (compiling an ``IN`` list of the group's size, the execution context,
the result proxy) cost more CPU than the database's work; on PostgreSQL each
statement was also a round trip of its own. Here each statement's text is fixed
(PostgreSQL: ``= ANY(%(ids)s)`` with an array, so the driver's prepared statements
are reused; SQLite: ``IN (?, …)``, a text per size, which the driver caches)
and PostgreSQL's statements go in two pipelines, a round trip each: the reads (the
writers' lock, the players locked in id order, the group's ids already stored, the
players' states: the server runs them in that order, so the states are read under
the locks), then the writes and the COMMIT (each game's INSERT draws its seq from
the sequence, in the group's order, and its changes and ratings take that seq:
``currval``). Before, a group of PostgreSQL was about ten round trips.

The rows written are the ones SQLAlchemy's statements write (the same dicts, every
column named); a driver error is raised as SQLAlchemy raises it
(``IntegrityError``, ``OperationalError``: the callers' handling is unchanged), and a
connection the database dropped is invalidated as SQLAlchemy would.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Table
from sqlalchemy.exc import DBAPIError

from .connection import WRITERS
from .schema import changes, game_moves, games, ratings

_RATING_UPDATED = ("rating_cents", "display", "state_name", "games", "listed", "state", "seq")


def _insert(
    table: Table, postgres: bool, upsert: tuple[str, ...] = (), seq: str = "", returning: str = ""
) -> str:
    """``INSERT INTO table (every column) VALUES (a named parameter each)``; with
    ``upsert``, the columns overwritten when the primary key exists; ``seq``: the
    ``seq`` column's SQL instead of its parameter; ``returning``: a column returned."""
    names = [column.name for column in table.columns]
    marks = [
        seq if name == "seq" and seq else f"%({name})s" if postgres else f":{name}"
        for name in names
    ]
    quoted = ", ".join(f'"{name}"' for name in names)
    sql = f"INSERT INTO {table.name} ({quoted}) VALUES ({', '.join(marks)})"
    if upsert:
        keys = ", ".join(f'"{column.name}"' for column in table.primary_key.columns)
        sets = ", ".join(f'"{n}" = excluded."{n}"' for n in upsert)
        sql += f" ON CONFLICT ({keys}) DO UPDATE SET {sets}"
    return f"{sql} RETURNING {returning}" if returning else sql


DRAWN = "nextval('ledger_seq')"
"""PostgreSQL: a game's seq, drawn by its INSERT (in the group's order, under its locks)."""
CURRENT = "currval('ledger_seq')"
"""PostgreSQL: the seq this connection drew last: its game's, for the game's other rows."""


class _Dialect:
    """One database's statements."""

    def __init__(self, postgres: bool) -> None:
        self.postgres = postgres
        self.insert_moves = _insert(game_moves, postgres)
        if postgres:
            self.insert_game = _insert(games, postgres, seq=DRAWN, returning="seq")
            self.insert_change = _insert(changes, postgres, seq=CURRENT)
            self.upsert_rating = _insert(ratings, postgres, _RATING_UPDATED, seq=CURRENT)
        else:
            self.insert_game = _insert(games, postgres)
            self.insert_change = _insert(changes, postgres)
            self.upsert_rating = _insert(ratings, postgres, _RATING_UPDATED)
        if postgres:
            self.writers_lock = "SELECT pg_advisory_xact_lock_shared(%(key)s)"
            self.players = (
                "SELECT id, key, attributes FROM players WHERE id = ANY(%(ids)s) "
                "ORDER BY id FOR UPDATE"
            )
            self.stored = "SELECT id FROM games WHERE id = ANY(%(ids)s)"
            self.states = (
                "SELECT player_id, pool, state FROM ratings WHERE player_id = ANY(%(ids)s)"
            )
        else:  # "{}": the ids' question marks
            self.players = "SELECT id, key, attributes FROM players WHERE id IN ({}) ORDER BY id"
            self.stored = "SELECT id FROM games WHERE id IN ({})"
            self.states = "SELECT player_id, pool, state FROM ratings WHERE player_id IN ({})"
            self.last_seq = (
                "SELECT max(coalesce((SELECT max(seq) FROM events), 0), "
                "coalesce((SELECT max(seq) FROM games), 0))"
            )


POSTGRES = _Dialect(postgres=True)
SQLITE = _Dialect(postgres=False)


@dataclass(frozen=True, slots=True)
class GameRows:
    """A rated game's rows: its ``games`` row, its changes, its moves (none or one),
    the current ratings it leaves (those no later game of the group changes). Their
    ``seq`` is given by :meth:`Direct.store`."""

    game: dict[str, Any]
    changes: list[dict[str, Any]]
    moves: list[dict[str, Any]]
    ratings: list[dict[str, Any]]


class GroupReads:
    """What a group needs before it is rated: its players' rows (locked), which of
    its ids are stored already, its players' stored states; on SQLite also the last
    seq (the database is locked from ``BEGIN IMMEDIATE``, so the next ones are free)."""

    def __init__(
        self,
        players: list[tuple[str, int, str]],
        stored: set[str],
        states: list[tuple[str, str, str]],
        last_seq: int | None,
    ) -> None:
        self.players = players
        self.stored = stored
        self.states = states
        self.last_seq = last_seq


class Direct:
    """The group commit's statements on one SQLAlchemy connection's driver cursor,
    inside its transaction (see the module's docstring)."""

    def __init__(self, conn: Connection, postgres: bool) -> None:
        self.conn = conn
        self.sql = POSTGRES if postgres else SQLITE
        self.dbapi = conn.dialect.loaded_dbapi
        self.raw: Any = conn.connection.dbapi_connection  # psycopg's or sqlite3's
        assert self.raw is not None

    @contextmanager
    def _errors(self, statement: str) -> Iterator[None]:
        """A driver error as SQLAlchemy raises it (its class by the driver's:
        ``IntegrityError``, ``OperationalError``, ...), the connection invalidated when
        the database dropped it."""
        try:
            yield
        except self.dbapi.Error as error:
            dropped = self.conn.dialect.is_disconnect(error, self.raw, None)
            if dropped:
                self.conn.invalidate(error)
            raise DBAPIError.instance(
                statement, None, error, self.dbapi.Error,
                connection_invalidated=dropped, dialect=self.conn.dialect,
            ) from error  # fmt: skip

    def read(self, player_ids: Sequence[str], game_ids: Sequence[str]) -> GroupReads:
        """The group's reads; PostgreSQL: the writers' lock first (shared), then the
        players locked in id order, all in one round trip."""
        sql = self.sql
        if sql.postgres:
            with self._errors(sql.players), self.raw.pipeline():
                cursors = [self.raw.cursor() for _ in range(4)]
                cursors[0].execute(sql.writers_lock, WRITERS)
                cursors[1].execute(sql.players, {"ids": list(player_ids)})
                cursors[2].execute(sql.stored, {"ids": list(game_ids)})
                cursors[3].execute(sql.states, {"ids": list(player_ids)})
            with self._errors(sql.players):
                return GroupReads(
                    cursors[1].fetchall(), {row[0] for row in cursors[2].fetchall()},
                    cursors[3].fetchall(), None,
                )  # fmt: skip
        people, ids = tuple(player_ids), tuple(game_ids)
        marks, id_marks = ", ".join("?" * len(people)), ", ".join("?" * len(ids))
        with self._errors(sql.players):
            cursor = self.raw.cursor()
            found = cursor.execute(sql.players.format(marks), people).fetchall()
            stored = {row[0] for row in cursor.execute(sql.stored.format(id_marks), ids)}
            states = cursor.execute(sql.states.format(marks), people).fetchall()
            last = cursor.execute(sql.last_seq).fetchone()[0]
        return GroupReads(found, stored, states, int(last))

    def store(self, reads: GroupReads, rated: Sequence[GameRows]) -> list[int]:
        """Store the group's rated games, in order; their seqs (ascending).
        PostgreSQL: each game's statements in turn (its INSERT draws its seq, its other
        rows take that seq), then COMMIT, all in one round trip: the transaction is
        committed when this returns (SQLAlchemy's commit then has nothing to do).
        SQLite: the seqs after the last one read, one statement per table; committed by
        the caller."""
        sql = self.sql
        if reads.last_seq is None:
            with self._errors(sql.insert_game):
                drawn = [self.raw.cursor() for _ in rated]
                cursor = self.raw.cursor()
                with self.raw.pipeline():
                    for game, rows in zip(drawn, rated, strict=True):
                        game.execute(sql.insert_game, rows.game)
                        if rows.changes:
                            cursor.executemany(sql.insert_change, rows.changes)
                        if rows.moves:
                            cursor.executemany(sql.insert_moves, rows.moves)
                        if rows.ratings:
                            cursor.executemany(sql.upsert_rating, rows.ratings)
                    cursor.execute("COMMIT")
                return [int(game.fetchone()[0]) for game in drawn]
        seqs = list(range(reads.last_seq + 1, reads.last_seq + 1 + len(rated)))
        for seq, rows in zip(seqs, rated, strict=True):
            for row in (rows.game, *rows.changes, *rows.ratings):
                row["seq"] = seq
        work = (
            (sql.insert_game, [rows.game for rows in rated]),
            (sql.insert_change, [row for rows in rated for row in rows.changes]),
            (sql.insert_moves, [row for rows in rated for row in rows.moves]),
            (sql.upsert_rating, [row for rows in rated for row in rows.ratings]),
        )
        with self._errors(sql.insert_game):
            cursor = self.raw.cursor()
            for statement, table_rows in work:
                if table_rows:
                    cursor.executemany(statement, table_rows)
        return seqs
