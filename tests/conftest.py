"""Fixtures shared by the suite: ledgers on SQLite and on a real PostgreSQL.

The suite runs in several processes (pytest-xdist, ``./test`` passes ``-n auto``): a
session fixture is made once per worker process, and each test must leave the process
as it found it (see ``environment_restored``).

The tiers: a test that needs PostgreSQL, Chromium or Stockfish is marked ``postgres``,
``browser`` or ``stockfish``, long-running ones ``slow``; ``./test --quick`` runs the
others. ``pytest_collection_modifyitems`` marks a test by the fixtures it uses (a
fixture parametrised over the databases marks only its PostgreSQL case); a test that
reaches one of them another way is marked where it is written.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import postgres, templates

DATABASES = ("sqlite", "postgres")

# The service runs the fair-play detector by default when Stockfish is installed: the
# suite's apps and servers do not (an analysis would take a core in the middle of
# another test, and its shutdown waits for the game being analysed). The tests of the
# detector in the service turn it on, or remove this, themselves.
os.environ.setdefault("CHESSRATE_DETECT_SECONDS", "0")
# The detector's machine lock (and `chessrate detect`'s) lives in the runtime directory:
# each test process gets one of its own, so that a detector test never finds the lock
# held by another process's test (or another checkout's suite on the same machine).
# pytest-xdist's processes inherit the environment of the one that starts them, where
# this file ran first: a directory made here is made again in each of them (only one
# the person running the suite set is kept).
_MADE = "CHESSRATE_TEST_RUNTIME_DIR_MADE"
if os.environ.get("CHESSRATE_RUNTIME_DIR") in (None, os.environ.get(_MADE)):
    os.environ["CHESSRATE_RUNTIME_DIR"] = os.environ[_MADE] = tempfile.mkdtemp(
        prefix="chessrate-run-"
    )
    atexit.register(shutil.rmtree, os.environ["CHESSRATE_RUNTIME_DIR"], True)

NEEDS = {
    "postgres": frozenset({"postgres_admin_url", "postgres_url", "empty_postgres_url"}),
    "browser": frozenset({"browser"}),
    "stockfish": frozenset({"detector"}),
}
"""Marker → the fixtures whose use means the test needs what the marker names."""


SLOW_MODULES = frozenset({"service/test_schemathesis.py"})
"""Modules whose every test is ``slow`` (each says so: ``pytestmark``) and whose import
costs seconds: schemathesis builds a test for every operation of the OpenAPI document
when the module is collected."""


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Not even import ``SLOW_MODULES`` when the ``-m`` expression leaves out the slow
    tests (``./test --quick``): their tests would all be deselected anyway."""
    expression = str(config.getoption("markexpr", "") or "")
    here = Path(__file__).parent
    if (
        "not slow" in expression
        and collection_path.is_relative_to(here)
        and collection_path.relative_to(here).as_posix() in SLOW_MODULES
    ):
        return True
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test by the fixtures it uses. A fixture parametrised over
    ``DATABASES`` that takes ``postgres_admin_url`` only in its PostgreSQL case (with
    ``request.getfixturevalue``) is seen by that case's parameter: ``"postgres"``."""
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        callspec = getattr(item, "callspec", None)
        params = callspec.params.values() if callspec is not None else ()
        for marker, fixtures in NEEDS.items():
            if used & fixtures:
                item.add_marker(marker)
        if any(isinstance(value, str) and value == "postgres" for value in params):
            item.add_marker("postgres")


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


def _database_url(request: pytest.FixtureRequest, tmp_path: Path, migrated: bool) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ledger.db'}"
        return
    admin = request.getfixturevalue("postgres_admin_url")
    url = templates.new_migrated_postgres(request) if migrated else postgres.fresh_database(admin)
    try:
        yield url
    finally:
        postgres.drop_database(admin, url)


@pytest.fixture(params=DATABASES)
def ledger_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database URL that holds no ledger yet, once on SQLite and once on PostgreSQL:
    a file that does not exist yet, or a PostgreSQL database with the ledger's schema
    migrated and no rating system chosen (``templates.new_migrated_postgres``:
    ``Ledger.create`` and ``chessrate init`` then have only the system to write)."""
    yield from _database_url(request, tmp_path, migrated=True)


@pytest.fixture(params=DATABASES)
def empty_ledger_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database URL with nothing in it, once on SQLite and once on PostgreSQL: for the
    tests of the migrations from an older schema or from none."""
    yield from _database_url(request, tmp_path, migrated=False)


@pytest.fixture
def postgres_url(request: pytest.FixtureRequest, postgres_admin_url: str) -> Iterator[str]:
    """A PostgreSQL database only, its schema migrated and no ledger in it (as
    ``ledger_url``'s)."""
    url = templates.new_migrated_postgres(request)
    try:
        yield url
    finally:
        postgres.drop_database(postgres_admin_url, url)


@pytest.fixture
def empty_postgres_url(postgres_admin_url: str) -> Iterator[str]:
    """An empty PostgreSQL database only."""
    url = postgres.fresh_database(postgres_admin_url)
    try:
        yield url
    finally:
        postgres.drop_database(postgres_admin_url, url)
