"""The ledger's database: its URL, its engines, its schema (Alembic migrations), its
rating system, and its transactions.

``database_url`` turns ``--db`` / ``CHESSRATE_DATABASE_URL`` / a plain path into a
SQLAlchemy URL. :class:`LedgerConnection` opens a ledger: SQLite takes its write lock
at ``BEGIN IMMEDIATE`` (reads never take it: WAL), PostgreSQL uses a connection pool.
How long a transaction waits for a lock is ``busy_seconds``: SQLite's write lock (30 s
by default, the command line's), a PostgreSQL row lock (``lock_timeout``; by default
as long as it takes); the service waits ``CHESSRATE_BUSY_SECONDS``. Every connection
goes through :meth:`~LedgerConnection.transaction` or
:meth:`~LedgerConnection.reading`, which turn a database that does not answer (or a
lock or a pooled connection not had in time) into
:class:`~chessrate.errors.LedgerUnavailable`, as the constructor does for a URL
SQLAlchemy cannot use.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

from sqlalchemy import Connection, Engine, create_engine, event, insert, select, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from .. import metrics
from ..errors import InvalidInput, LedgerUnavailable
from ..systems import REGISTRY, SystemInfo, system_info
from ..systems.base import RatingSystem
from .schema import settings

DEFAULT_DATABASE = "chessrate.db"
WRITERS = {"key": 0x5EE6_0017}
"""The PostgreSQL advisory lock every write transaction holds shared, and the bulk
import exclusive (:meth:`LedgerConnection.exclusive`)."""
COMMITTED = "chessrate.committed"
"""Key of a write transaction's connection ``info``: the (pool, outcome) of each game it
stored (:func:`note_stored`), counted when it commits."""
SQLITE_BUSY_SECONDS = 30.0
"""How long a SQLite connection waits for the write lock unless told otherwise (the
command line: an import waits for the service's short transactions)."""


def database_url(given: str | None = None) -> str:
    """``--db`` or ``CHESSRATE_DATABASE_URL``, else ``./chessrate.db``. A plain path
    means a SQLite file."""
    url = given or os.environ.get("CHESSRATE_DATABASE_URL") or DEFAULT_DATABASE
    if "://" not in url:  # the path quoted: a ? or # in it is a file name's, not the URL's
        path = str(Path(url).resolve())
        url = URL.create("sqlite", database=path).render_as_string(hide_password=False)
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return url


@contextmanager
def url_errors() -> Iterator[None]:
    """A URL SQLAlchemy cannot use (``ArgumentError``, ``NoSuchModuleError``) as
    :class:`LedgerUnavailable` (``url`` True)."""
    try:
        yield
    except (ArgumentError, NoSuchModuleError) as error:
        raise LedgerUnavailable(f"not a usable database URL ({error})", url=True) from error


@contextmanager
def connection_errors(database: str = "") -> Iterator[None]:
    """A database that does not answer (SQLAlchemy's ``OperationalError``: cannot
    connect, locked past the timeout, gone; its ``TimeoutError``: no connection free in
    the pool in time) as :class:`LedgerUnavailable`. Every exception from the database
    is counted (:data:`chessrate.metrics.DATABASE_ERRORS`, by ``database`` and kind)."""
    try:
        yield
    except OperationalError as error:
        metrics.database_error(database, error.orig or error)
        reason = (str(error.orig).strip() if error.orig else "") or str(error)
        raise LedgerUnavailable(f"database: {reason.splitlines()[0]}") from error
    except PoolTimeout as error:  # every connection waits (for a lock, a slow database)
        metrics.DATABASE_ERRORS.labels(database, "PoolTimeout").inc()
        raise LedgerUnavailable("database: busy: no connection free in time") from error
    except DBAPIError as error:  # counted, and left to its caller (IntegrityError: a race)
        metrics.database_error(database, error.orig or error)
        raise


def note_stored(conn: Connection, pool: str, outcome: str) -> None:
    """Note a game whose rows ``conn``'s transaction has just written, to be counted
    when it commits (:meth:`LedgerConnection.transaction`)."""
    stored = conn.info.get(COMMITTED)
    if stored is not None:
        stored.append((pool, outcome))


def display_url(url: str) -> str:
    """The URL as printed: without its password."""
    with url_errors():
        return make_url(url).render_as_string(hide_password=True)


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL (None for other databases and in-memory ones)."""
    if not url.startswith("sqlite"):
        return None
    with url_errors():
        database = make_url(url).database
    return Path(database) if database and database != ":memory:" else None


def _create_private(url: str) -> None:
    """A new SQLite ledger file is made readable and writable by its owner only (0600);
    SQLite gives its ``-wal`` and ``-shm`` files the database file's mode. An existing
    file keeps its mode."""
    path = sqlite_path(url)
    if path is None or path.exists() or not path.parent.is_dir():
        return  # (a missing folder: SQLite says so when the ledger opens)
    descriptor = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    os.close(descriptor)
    os.chmod(path, 0o600)  # whatever the umask


def as_utc(moment: datetime) -> datetime:
    """SQLite returns naive datetimes: they are UTC. Aware ones are converted to UTC."""
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


def make_engine(url: str, write: bool = True, busy_seconds: float | None = None) -> Engine:
    """An engine for ``url``. SQLite: WAL, foreign keys, a busy timeout of
    ``busy_seconds`` (default :data:`SQLITE_BUSY_SECONDS`), and (for ``write``) the
    write lock taken at ``BEGIN IMMEDIATE``; PostgreSQL: a pool, and a ``lock_timeout``
    of ``busy_seconds`` when given (else a lock is waited for as long as it takes).
    A connection from the pool is waited for as long as a lock (PostgreSQL without
    ``busy_seconds``: SQLAlchemy's 30 s)."""
    if url.startswith("sqlite"):
        wait = SQLITE_BUSY_SECONDS if busy_seconds is None else busy_seconds
        # (An in-memory database has one connection per thread, no pool to wait for.)
        pooled = {} if sqlite_path(url) is None else {"pool_timeout": wait}
        engine = create_engine(
            url, connect_args={"timeout": wait, "check_same_thread": False}, **pooled
        )

        @event.listens_for(engine, "connect")
        def _connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            # WAL with synchronous=NORMAL: a commit is atomic and consistent; only the
            # last commits before a power cut (not a crash of the process) can be lost.
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={round(wait * 1000)}")
            cursor.close()

        if not write:
            return engine

        @event.listens_for(engine, "begin")
        def _begin(connection: Connection) -> None:
            # Take the write lock at the start: the read-compute-write of a game is
            # then serialized, and no transaction fails on a lock upgrade.
            connection.exec_driver_sql("BEGIN IMMEDIATE")

        return engine
    bounded: dict[str, Any] = {}
    if (
        busy_seconds is not None
    ):  # a lock not had in time: "canceling statement due to lock timeout"
        bounded["connect_args"] = {"options": f"-c lock_timeout={round(busy_seconds * 1000)}"}
    return create_engine(url, pool_size=10, max_overflow=20, pool_recycle=1800, **bounded)


class LedgerConnection:
    """One rating system's ledger in one database: engines, schema, system, transactions."""

    def __init__(self, url: str, busy_seconds: float | None = None) -> None:
        self.url = url
        self.busy_seconds = busy_seconds
        with url_errors():
            self.engine = make_engine(url, busy_seconds=busy_seconds)
            # Reads never take SQLite's write lock (WAL lets them run beside a writer).
            self.reader = (
                make_engine(url, write=False, busy_seconds=busy_seconds)
                if url.startswith("sqlite")
                else self.engine
            )
        self.postgres = self.engine.dialect.name == "postgresql"
        self.database = self.engine.dialect.name
        self._lock_waits = metrics.WRITE_LOCK_WAIT.labels(self.database)
        self._system_id: str | None = None
        self._system: RatingSystem[Any] | None = None

    @classmethod
    def create(cls, url: str, system_id: str, now: datetime | None = None) -> Self:
        """Create (migrate) the schema and fix the ledger's rating system. A new SQLite
        file is created with mode 0600 (its owner only)."""
        if system_id not in REGISTRY:
            raise InvalidInput(
                f"unknown rating system {system_id!r} (known: {', '.join(REGISTRY)})"
            )
        _create_private(url)
        ledger = cls(url)
        ledger.migrate()
        with ledger.transaction() as conn:
            existing = conn.execute(
                select(settings.c.value).where(settings.c.key == "system")
            ).scalar()
            if existing is not None and existing != system_id:
                raise InvalidInput(
                    f"this ledger already rates by {existing!r}; one system per ledger"
                )
            if existing is None:
                moment = (now or datetime.now(UTC)).isoformat()
                conn.execute(
                    insert(settings),
                    [{"key": "system", "value": system_id}, {"key": "created_at", "value": moment}],
                )
        return ledger

    def migrate(self) -> None:
        """Bring the schema to the latest migration (Alembic; imported here, as only
        ``init`` and ``migrate`` need it, and importing it is a third of a second)."""
        from alembic import command
        from alembic.config import Config

        config = Config()
        config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
        with self.transaction() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "head")

    @property
    def system_id(self) -> str:
        """The ledger's rating system (read once; InvalidInput when the database holds
        no ledger)."""
        if self._system_id is None:
            self._system_id = self._stored_system_id()
        return self._system_id

    def _stored_system_id(self) -> str:
        with self.reading() as conn:
            try:
                value = conn.execute(
                    select(settings.c.value).where(settings.c.key == "system")
                ).scalar()
            except Exception as error:  # no tables yet
                raise InvalidInput(
                    f"{self.url}: not a chessrate ledger (run chessrate init): {error}"
                ) from None
        if value is None:
            raise InvalidInput(f"{self.url}: not a chessrate ledger (run chessrate init)")
        return str(value)

    def ping(self) -> str:
        """Ask the database now (nothing cached): the ledger's system id when the
        database answers and holds a ledger, else :class:`LedgerUnavailable`."""
        try:
            return self._stored_system_id()
        except InvalidInput as error:
            raise LedgerUnavailable(str(error)) from None

    @property
    def info(self) -> SystemInfo:
        """The registry's entry of the ledger's system (its kind, its pools)."""
        return system_info(self.system_id)

    @property
    def pools(self) -> tuple[str, ...]:
        """The pools of the ledger's system, in the system's order."""
        return self.info.pools

    @property
    def system(self) -> RatingSystem[Any]:
        """The system that rates the ledger's games (InvalidInput for a system that
        rates periods)."""
        if self._system is None:
            if not self.info.rates_games:
                raise InvalidInput(f"a {self.system_id} ledger rates periods, not single games")
            self._system = self.info.rating_system()
        return self._system

    @contextmanager
    def transaction(self, writers_lock: bool = True) -> Iterator[Connection]:
        """One write transaction (SQLite: the database write lock from its start;
        PostgreSQL: the writers' lock, shared, see :meth:`exclusive`; unless
        ``writers_lock`` is False: the caller's first statement takes it). A database
        that does not answer raises :class:`LedgerUnavailable`.

        The wait for the lock is measured (:data:`chessrate.metrics.WRITE_LOCK_WAIT`;
        without ``writers_lock`` on PostgreSQL, only the wait for a connection), and
        the games the transaction stored (:data:`COMMITTED`) are counted once it has
        committed (:data:`chessrate.metrics.GAMES`)."""
        asked = time.perf_counter()
        with connection_errors(self.database):
            with self.engine.begin() as conn:
                if self.postgres and writers_lock:
                    conn.execute(text("SELECT pg_advisory_xact_lock_shared(:key)"), WRITERS)
                self._lock_waits.observe(time.perf_counter() - asked)
                stored: list[tuple[str, str]] = []
                conn.info[COMMITTED] = stored
                try:
                    yield conn
                finally:
                    del conn.info[COMMITTED]
            if stored:
                metrics.games_committed(self.system_id, stored)

    def exclusive(self, conn: Connection) -> None:
        """Make ``conn``'s transaction the only writer until it ends (PostgreSQL: the
        writers' lock, exclusive: it waits for the write transactions under way, and
        later ones wait for it; SQLite: the database write lock, held already). The
        bulk import numbers its events itself, which no other writer may do
        meanwhile."""
        if self.postgres:
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), WRITERS)

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A read connection; on SQLite it never takes the write lock. A database that
        does not answer raises :class:`LedgerUnavailable`."""
        with connection_errors(self.database), self.reader.connect() as conn:
            yield conn

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """A read connection whose reads all see the ledger at one moment, whatever
        commits meanwhile: one read transaction (SQLite: ``BEGIN``, its snapshot of the
        WAL taken at the first read; PostgreSQL: ``REPEATABLE READ``). Without it
        each statement sees the commits made before it."""
        with self.reading() as conn:
            if self.postgres:
                conn.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            else:
                conn.exec_driver_sql("BEGIN")
            yield conn

    def dispose(self) -> None:
        self.engine.dispose()
        self.reader.dispose()
