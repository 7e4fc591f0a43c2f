"""Fixtures shared by the suite: ledgers on SQLite and on a real PostgreSQL.

The suite runs in several processes (pytest-xdist, ``./test`` passes ``-n auto``): a
session fixture is made once per worker process, and each test must leave the process
as it found it (see ``environment_restored``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import postgres

DATABASES = ("sqlite", "postgres")


@pytest.fixture(autouse=True)
def environment_restored() -> Iterator[None]:
    """Each test leaves ``os.environ`` as it found it. ``chessrate serve`` run in-process
    sets ``CHESSRATE_DATABASE_URL`` for its workers; under xdist which test runs next in
    the same process is not fixed, so a leaked variable would make failures that depend
    on the order."""
    saved = dict(os.environ)
    yield
    if os.environ != saved:
        for name in set(os.environ) - set(saved):
            del os.environ[name]
        os.environ.update(saved)


@pytest.fixture(scope="session")
def postgres_admin_url() -> Iterator[str]:
    """A throw-away PostgreSQL cluster for the session (started on first use)."""
    with postgres.cluster() as url:
        yield url


@pytest.fixture(params=DATABASES)
def ledger_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database URL, once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ledger.db'}"
        return
    admin = request.getfixturevalue("postgres_admin_url")
    url = postgres.fresh_database(admin)
    try:
        yield url
    finally:
        postgres.drop_database(admin, url)


@pytest.fixture
def postgres_url(postgres_admin_url: str) -> Iterator[str]:
    """An empty PostgreSQL database only."""
    url = postgres.fresh_database(postgres_admin_url)
    try:
        yield url
    finally:
        postgres.drop_database(postgres_admin_url, url)
