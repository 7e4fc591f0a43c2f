"""Databases copied from templates made once per test session (per xdist worker, per
database kind): running every migration or loading a sample takes from a fraction of a
second to seconds, a copy takes milliseconds. SQLite copies with ``VACUUM INTO``,
PostgreSQL with ``CREATE DATABASE ... TEMPLATE``; a PostgreSQL template's name is fixed
per xdist worker (a server given by ``CHESSRATE_TEST_POSTGRES_URL`` is shared) and
replaced by each session."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing

import psycopg
import pytest

from chessrate.ledger import Ledger
from tests.support import postgres

_made: dict[tuple[str, str], str] = {}
"""(template name, "sqlite" or "postgres") → the template's path or database name."""


def _postgres_template(admin: str, name: str, make: Callable[[str], None]) -> str:
    """The name of the PostgreSQL template ``name`` on the cluster of ``admin``, which
    ``make(url)`` fills the first time."""
    template = _made.get((name, "postgres"))
    if template is None:
        template = f"chessrate_template_{name}_{postgres.worker_index()}"
        with psycopg.connect(postgres._libpq(admin), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{template}" WITH (FORCE)')
            postgres.create_database(conn, template)
        make(postgres.database_url(admin, template))
        _made[(name, "postgres")] = template
    return template


def copy_of(
    request: pytest.FixtureRequest, url: str, name: str, make: Callable[[str], None]
) -> str:
    """Make the database at ``url`` (SQLite or PostgreSQL, from the ``ledger_url`` or
    ``postgres_url`` fixtures, which hold no ledger yet) a copy of the template
    ``name``, which ``make(url)`` fills the first time; return ``url``."""
    if url.startswith("sqlite"):
        template = _made.get((name, "sqlite"))
        if template is None:
            factory: pytest.TempPathFactory = request.getfixturevalue("tmp_path_factory")
            template = str(factory.mktemp("template") / f"{name}.db")
            make(f"sqlite:///{template}")
            _made[(name, "sqlite")] = template
        with closing(sqlite3.connect(template)) as conn:
            conn.execute("VACUUM INTO ?", (url.removeprefix("sqlite:///"),))
        return url
    admin: str = request.getfixturevalue("postgres_admin_url")
    template = _postgres_template(admin, name, make)
    database = url.partition("?")[0].rsplit("/", 1)[1]
    with psycopg.connect(postgres._libpq(admin), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{database}" WITH (FORCE)')
        postgres.create_database(conn, database, template)
    return url


def _migrate(url: str) -> None:
    ledger = Ledger(url)
    try:
        ledger.migrate()
    finally:
        ledger.dispose()


def new_migrated_postgres(request: pytest.FixtureRequest) -> str:
    """A new PostgreSQL database on the session's cluster with the latest schema and no
    ledger yet, copied from the ``schema`` template (a few milliseconds instead of the
    0.15-0.3 s of running every migration, which was most of a PostgreSQL test's
    set-up); its URL. What the ``ledger_url`` and ``postgres_url`` fixtures give."""
    admin: str = request.getfixturevalue("postgres_admin_url")
    return postgres.fresh_database(admin, _postgres_template(admin, "schema", _migrate))


def migrated(request: pytest.FixtureRequest, url: str) -> str:
    """Make the database at ``url`` hold the latest schema (every migration run)
    and no ledger yet: ``Ledger.create(url, system)`` then only records the system. For
    tests of what is built on a ledger; the migrations themselves are tested on empty
    databases (``tests/ledger/test_migration.py``, the ``empty_ledger_url`` fixture).
    Only a SQLite file is copied: the fixtures' PostgreSQL databases hold the schema
    already (:func:`new_migrated_postgres`), and any other is migrated by
    ``Ledger.create`` all the same, only slower."""
    if not url.startswith("sqlite"):
        return url
    return copy_of(request, url, "schema", _migrate)
