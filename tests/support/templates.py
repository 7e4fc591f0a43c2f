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


def copy_of(
    request: pytest.FixtureRequest, url: str, name: str, make: Callable[[str], None]
) -> str:
    """Make the empty database at ``url`` (SQLite or PostgreSQL, from the ``ledger_url``
    or ``postgres_url`` fixtures) a copy of the template ``name``, which ``make(url)``
    fills the first time; return ``url``."""
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
    database = url.partition("?")[0].rsplit("/", 1)[1]
    with psycopg.connect(postgres._libpq(admin), autocommit=True) as conn:
        template = _made.get((name, "postgres"))
        if template is None:
            template = f"chessrate_template_{name}_{postgres.worker_index()}"
            conn.execute(f'DROP DATABASE IF EXISTS "{template}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{template}"')
            base, _, query = admin.partition("?")
            make(f"{base.rsplit('/', 1)[0]}/{template}?{query}")
            _made[(name, "postgres")] = template
        conn.execute(f'DROP DATABASE "{database}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{database}" TEMPLATE "{template}" STRATEGY FILE_COPY')
    return url


def _migrate(url: str) -> None:
    ledger = Ledger(url)
    try:
        ledger.migrate()
    finally:
        ledger.dispose()


def migrated(request: pytest.FixtureRequest, url: str) -> str:
    """Make the empty database at ``url`` hold the latest schema (every migration run)
    and no ledger yet: ``Ledger.create(url, system)`` then only records the system. For
    tests of what is built on a ledger; the migrations themselves are tested on empty
    databases (``tests/ledger/test_migration.py``, ``Ledger.create`` elsewhere)."""
    return copy_of(request, url, "schema", _migrate)
