"""Run ``chessrate serve`` as a real server process (uvicorn workers) for a test or a
benchmark, and wait until it answers ``/healthz``."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running_server(database_url: str, workers: int = 1, timeout: float = 60) -> Iterator[str]:
    """Serve the ledger at ``database_url``; yield the base URL. The ledger must exist."""
    with server_process(database_url, workers, timeout) as (base, _):
        yield base


@contextmanager
def server_process(
    database_url: str, workers: int = 1, timeout: float = 60
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """:func:`running_server`, yielding also the server's process (the leader of its own
    process group, with its workers): a test may kill it."""
    port = free_port()
    command = [sys.executable, "-m", "chessrate", "serve", "--db", database_url,
               "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers)]  # fmt: skip
    env = {**os.environ, "CHESSRATE_DATABASE_URL": database_url}
    # The server's output goes to a file: a pipe nobody reads would fill up with the
    # access log and block the server.
    log = tempfile.TemporaryFile()  # noqa: SIM115 (closed in the finally below)
    process = subprocess.Popen(
        command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                log.seek(0)
                output = log.read().decode(errors="replace")
                raise RuntimeError(f"chessrate serve exited {process.returncode}:\n{output}")
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
        log.close()
