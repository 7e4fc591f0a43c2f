"""Run ``chessrate serve`` as a real server process (uvicorn workers) for a test or a
benchmark, and wait until it answers ``/healthz``."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

import httpx

RUNNING = re.compile(rb"Uvicorn running on (http://127\.0\.0\.1:\d+)")
"""uvicorn's line once it listens, with the port it was given (0: the one it got)."""


def written(log: IO[bytes]) -> bytes:
    """What the server wrote to ``log`` so far. Read at an offset (``pread``): the server
    writes through the same open file, so moving its offset would make it write over
    what it wrote."""
    return os.pread(log.fileno(), os.fstat(log.fileno()).st_size, 0)


@contextmanager
def running_server(database_url: str, workers: int = 1, timeout: float = 60) -> Iterator[str]:
    """Serve the ledger at ``database_url``; yield the base URL. The ledger must exist."""
    with server_process(database_url, workers, timeout) as (base, _):
        yield base


@contextmanager
def server_process(
    database_url: str,
    workers: int = 1,
    timeout: float = 60,
    env: dict[str, str | None] | None = None,
    log: IO[bytes] | None = None,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """:func:`running_server`, yielding also the server's process (the leader of its own
    process group, with its workers): a test may kill it. ``env``: variables set for
    the server (None: removed); ``log``: a file the server writes its output to (one
    of its own, unless given; read it with :func:`written`)."""
    # Port 0: the server binds a port the system gives it, which no other process (a
    # parallel test, another xdist worker) can hold, and says which in its log.
    command = [sys.executable, "-m", "chessrate", "serve", "--db", database_url,
               "--host", "127.0.0.1", "--port", "0", "--workers", str(workers)]  # fmt: skip
    environment = {**os.environ, "CHESSRATE_DATABASE_URL": database_url}
    for name, value in (env or {}).items():
        if value is None:
            environment.pop(name, None)
        else:
            environment[name] = value
    # The server's output goes to a file: a pipe nobody reads would fill up with the
    # access log and block the server.
    given = log is not None
    log = log or tempfile.TemporaryFile()  # noqa: SIM115 (closed in the finally below)
    process = subprocess.Popen(
        command, env=environment, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    base = ""
    try:
        deadline = time.monotonic() + timeout
        while True:
            exited = process.poll() is not None
            output = written(log)
            if exited:
                shown = output.decode(errors="replace")
                raise RuntimeError(f"chessrate serve exited {process.returncode}:\n{shown}")
            found = RUNNING.search(output)
            if found:
                base = found.group(1).decode()
                try:
                    if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
            if time.monotonic() > deadline:
                raise RuntimeError("chessrate serve did not answer /healthz in time")
            time.sleep(0.2)
        yield base, process
    finally:
        with contextlib.suppress(ProcessLookupError):  # a test may have killed it
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if not given:
            log.close()
