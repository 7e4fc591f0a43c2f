"""A ledger's tables read as Arrow columns (``verify``'s bulk reads).

The compiled ``verify`` reads every game and every change of a ledger: millions of
rows. Through SQLAlchemy's driver each row becomes a Python tuple, and each number a
Python int, before numpy gets them; the ADBC drivers (``adbc-driver-sqlite``,
``adbc-driver-postgresql``) read a query's result straight into Arrow columns in C
(on PostgreSQL with ``COPY``), which numpy then takes without a copy. :func:`read`
opens one ADBC connection to the ledger's database, reads the queries in one read
transaction (SQLite: one snapshot of the WAL; PostgreSQL: ``REPEATABLE READ``, one
snapshot too) and closes it.

The queries give no NULL and one type per column (``coalesce``, ``CAST``): the SQLite
driver infers a column's type from its first rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from sqlalchemy.engine import make_url

from ..errors import LedgerUnavailable
from .connection import SQLITE_BUSY_SECONDS, sqlite_path

if TYPE_CHECKING:
    from .connection import LedgerConnection


def read(ledger: LedgerConnection, queries: Sequence[str]) -> list[Any]:
    """Each query's result as a ``pyarrow.Table``, all read in one transaction.

    It uses the drivers' low-level bindings, not their DB-API module: that module
    imports ``pyarrow.dataset`` (and with it pandas, where pandas is installed), which
    costs a command more time than the reads it makes."""
    tables: list[Any] = read_apart(ledger, [queries], 1)[0]
    return tables


def read_apart(ledger: LedgerConnection, jobs: Sequence[Sequence[str]], workers: int) -> list[Any]:
    """Each job's queries read as :func:`read` reads them (one connection and one
    transaction a job), the jobs on up to ``workers`` threads at once: the drivers
    read in C without Python's lock, so a big read split into jobs uses every core.
    The jobs' transactions start one after the other: a caller that needs them to see
    one moment of the ledger checks it (``verify`` counts the rows in each)."""
    if workers <= 1 or len(jobs) <= 1:
        return [_read_job(ledger, queries) for queries in jobs]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="arrow-read") as pool:
        return list(pool.map(lambda queries: _read_job(ledger, queries), jobs))


BATCH_ROWS = 65_536
"""Rows per Arrow batch from SQLite (its driver's default, 1,024, makes thousands of
small batches of a big table)."""


def _read_job(ledger: LedgerConnection, queries: Sequence[str]) -> list[Any]:
    import pyarrow
    from adbc_driver_manager import AdbcConnection, AdbcStatement

    database = _database(ledger)
    try:
        connection = AdbcConnection(database)
        try:
            connection.set_autocommit(False)  # the first statement begins a transaction
            statement = AdbcStatement(connection)
            try:  # PostgreSQL: one snapshot; SQLite: wait for a lock as the ledger does
                statement.set_sql_query(
                    "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"
                    if ledger.postgres
                    else f"PRAGMA busy_timeout = {round(SQLITE_BUSY_SECONDS * 1000)}"
                )
                statement.execute_update()
            finally:
                statement.close()
            tables = []
            for query in queries:
                statement = AdbcStatement(connection)
                try:
                    if not ledger.postgres:
                        statement.set_options(**{"adbc.sqlite.query.batch_rows": BATCH_ROWS})
                    statement.set_sql_query(query)
                    handle, _rows = statement.execute_query()
                    reader = pyarrow.RecordBatchReader._import_from_c(handle.address)
                    tables.append(reader.read_all())
                finally:
                    statement.close()
            connection.rollback()  # nothing was written
            return tables
        finally:
            connection.close()
    finally:
        database.close()


def _database(ledger: LedgerConnection) -> Any:
    """An ADBC database handle on the ledger's database (SQLite: the file, read only)."""
    try:
        if ledger.postgres:
            import adbc_driver_postgresql

            url = make_url(ledger.url).set(drivername="postgresql")
            return adbc_driver_postgresql.connect(url.render_as_string(hide_password=False))
        import adbc_driver_sqlite

        path = sqlite_path(ledger.url)
        if path is None:
            raise LedgerUnavailable("an in-memory SQLite ledger has no second connection")
        return adbc_driver_sqlite.connect(f"file:{quote(str(path.resolve()))}?mode=ro")
    except ImportError as error:  # pragma: no cover - a dependency of the package
        raise LedgerUnavailable(f"the ADBC driver is not installed ({error})") from None
