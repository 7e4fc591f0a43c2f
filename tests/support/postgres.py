"""A throw-away PostgreSQL cluster for the test session (Debian's package).

``./test`` installs the package when it is missing. The cluster lives in a
temporary directory, listens only on a Unix socket there, runs with fsync off
(it is thrown away), and is stopped at the end of the session. Under pytest-xdist each
worker process starts its own cluster (its own directory, socket and port number). When
``CHESSRATE_TEST_POSTGRES_URL`` is set, that server is used instead (by every worker: the
databases' names are unique).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

PORT = 55432
"""The port number of the first cluster (xdist worker ``gw0`` or no xdist); worker
``gwN`` uses ``PORT + N``. Only the socket file's name: the cluster listens on no TCP
address."""


def worker_index() -> int:
    """This pytest-xdist worker's number (``gw3`` → 3), 0 without xdist."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return int(name.removeprefix("gw") or 0)


def _bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if found:
        return found[-1]
    path = shutil.which(name)
    if path is None:
        raise RuntimeError(
            f"PostgreSQL's {name} is not installed: run ./test (it installs Debian's "
            "postgresql package) or apt-get install postgresql"
        )
    return path


def _as_owner(command: list[str], owner: str | None) -> list[str]:
    return ["runuser", "-u", owner, "--", *command] if owner else command


@contextmanager
def cluster() -> Iterator[str]:
    """Start a cluster; yield the admin URL (SQLAlchemy form) of its ``postgres`` db."""
    given = os.environ.get("CHESSRATE_TEST_POSTGRES_URL")
    if given:
        yield given
        return
    owner = "postgres" if os.geteuid() == 0 else None
    port = PORT + worker_index()
    base = Path(tempfile.mkdtemp(prefix="chessrate-pg-"))
    data = base / "data"
    if owner:
        shutil.chown(base, owner)
    subprocess.run(
        _as_owner([_bin("initdb"), "-D", str(data), "-U", "postgres", "-A", "trust",
                   "-E", "UTF8", "--no-sync"], owner),
        check=True, capture_output=True,
    )  # fmt: skip
    _start(base, port, owner)
    try:
        yield f"postgresql+psycopg://postgres@/postgres?host={base}&port={port}"
    finally:
        subprocess.run(
            _as_owner([_bin("pg_ctl"), "-D", str(data), "-m", "immediate", "stop"], owner),
            check=False, capture_output=True,
        )  # fmt: skip
        shutil.rmtree(base, ignore_errors=True)


def _start(base: Path, port: int, owner: str | None) -> None:
    options = (
        f"-c listen_addresses='' -c unix_socket_directories={base} -p {port} "
        "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
        "-c max_connections=200 -c shared_buffers=128MB"
    )
    subprocess.run(
        _as_owner([_bin("pg_ctl"), "-D", str(base / "data"), "-o", options, "-l",
                   str(base / "log"), "-w", "start"], owner),
        check=True, capture_output=True,
    )  # fmt: skip


@contextmanager
def stopped(admin_url: str) -> Iterator[None]:
    """The cluster of ``admin_url`` (one :func:`cluster` started, not a given
    ``CHESSRATE_TEST_POSTGRES_URL``) stopped while the block runs (``pg_ctl stop -m
    fast``: its connections are closed), then started again."""
    query = admin_url.partition("?")[2]
    fields = dict(part.split("=", 1) for part in query.split("&"))
    base, port = Path(fields["host"]), int(fields["port"])
    owner = "postgres" if os.geteuid() == 0 else None
    subprocess.run(
        _as_owner([_bin("pg_ctl"), "-D", str(base / "data"), "-m", "fast", "-w", "stop"], owner),
        check=True, capture_output=True,
    )  # fmt: skip
    try:
        yield
    finally:
        _start(base, port, owner)


def _libpq(url: str) -> str:
    """psycopg's connection string from a SQLAlchemy URL."""
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


def database_url(admin_url: str, name: str) -> str:
    """The URL of the database ``name`` on the cluster of ``admin_url``."""
    base, _, query = admin_url.partition("?")
    return f"{base.rsplit('/', 1)[0]}/{name}?{query}"


def create_database(conn: psycopg.Connection, name: str, template: str | None = None) -> None:
    """``CREATE DATABASE``: empty, or a copy of the database ``template`` (which must
    have no connection open), copied file by file: for a small database, faster than
    the WAL-logged copy PostgreSQL makes by default."""
    if template is None:
        conn.execute(f'CREATE DATABASE "{name}"')
    else:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY FILE_COPY')


def fresh_database(admin_url: str, template: str | None = None) -> str:
    """Create a database on the cluster, empty or a copy of ``template``; return its
    URL."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(_libpq(admin_url), autocommit=True) as conn:
        create_database(conn, name, template)
    return database_url(admin_url, name)


def drop_database(admin_url: str, url: str) -> None:
    name = url.partition("?")[0].rsplit("/", 1)[1]
    with psycopg.connect(_libpq(admin_url), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
