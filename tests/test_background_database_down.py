"""The background loops (sweeper, pairing pass) while the database is down: one warning
line a pass, without a traceback, and one line when it answers again; a real bug
still logs its traceback.

A real PostgreSQL cluster of the test's own is stopped (``pg_ctl stop``) under a
running loop and started again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest

from chessrate.ledger import Ledger
from chessrate.ledger.seeks import Seeks
from chessrate.server import _every, _pairer, _sweeper
from tests.support import postgres

NOW = datetime(2026, 5, 1, tzinfo=UTC)


class Passes:
    """A job that notes each pass: whether it succeeded."""

    def __init__(self, job: Callable[[], None]) -> None:
        self.job = job
        self.outcomes: list[bool] = []
        self.changed = threading.Condition()

    def __call__(self) -> None:
        try:
            self.job()
        except Exception:
            self._note(False)
            raise
        self._note(True)

    def _note(self, ok: bool) -> None:
        with self.changed:
            self.outcomes.append(ok)
            self.changed.notify_all()

    def wait(self, ok: bool, count: int) -> None:
        """Until ``count`` more passes with this outcome have run."""
        with self.changed:
            goal = self.outcomes.count(ok) + count
            assert self.changed.wait_for(lambda: self.outcomes.count(ok) >= goal, timeout=60)


def run_loops(jobs: dict[str, Passes], during: Callable[[], None]) -> None:
    """Run ``_every`` for each job (every 50 ms) on an event loop of its own while
    ``during`` runs, then cancel them."""

    async def main() -> None:
        tasks = [asyncio.create_task(_every(0.05, job, name)) for name, job in jobs.items()]
        try:
            await asyncio.get_running_loop().run_in_executor(None, during)
        finally:
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    with ThreadPoolExecutor(1) as pool:  # (another test's loop may run in this thread)
        pool.submit(asyncio.run, asyncio.wait_for(main(), timeout=120)).result()


@pytest.mark.postgres
def test_a_stopped_database_is_one_warning_a_pass_and_one_line_when_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    if os.environ.get("CHESSRATE_TEST_POSTGRES_URL"):
        pytest.skip("needs a cluster of its own to stop (not CHESSRATE_TEST_POSTGRES_URL)")
    with postgres.cluster() as admin:
        url = postgres.fresh_database(admin)
        Ledger.create(url, "site", NOW).dispose()
        ledger = Ledger(url, busy_seconds=2)  # as the service opens it
        jobs = {
            "sweep": Passes(_sweeper(ledger.live, lambda: NOW)),
            "pairing pass": Passes(_pairer(Seeks(ledger), lambda: NOW)),
        }

        def outage() -> None:
            for job in jobs.values():
                job.wait(True, 2)
            with postgres.stopped(admin):
                for job in jobs.values():
                    job.wait(False, 3)
            for job in jobs.values():
                job.wait(True, 2)

        with caplog.at_level(logging.INFO):
            run_loops(jobs, outage)
        ledger.dispose()

    for name, job in jobs.items():
        failed = job.outcomes.count(False)
        assert failed >= 3
        mine = [r for r in caplog.records if r.getMessage().startswith(f"{name}:")]
        down = [r for r in mine if "the database is unavailable" in r.getMessage()]
        # Each failed pass logs its line once the pass is over. The loops are cancelled
        # when the outage is over: a last pass that failed (a pooled connection of
        # before the restart) may still be running then, noted but never logged.
        in_flight = 1 if job.outcomes[-1] is False else 0
        assert failed - in_flight <= len(down) <= failed, [r.getMessage() for r in mine]
        assert all(r.levelno == logging.WARNING and r.exc_info is None for r in down)
        assert "trying again in 0.05 s" in down[0].getMessage()
        back = [r for r in mine if r.getMessage() == f"{name}: the database answers again"]
        assert len(back) == 1
    # No traceback anywhere (chessrate's loops, SQLAlchemy's pool) for the outage.
    assert [r.getMessage() for r in caplog.records if r.exc_info] == []
    assert not [r for r in caplog.records if r.name.startswith("chessrate") and r.levelno >= 40]


def test_a_bug_in_a_pass_still_logs_its_traceback(caplog: pytest.LogCaptureFixture) -> None:
    def broken() -> None:
        raise KeyError("a bug")

    job = Passes(broken)
    with caplog.at_level(logging.INFO):
        run_loops({"sweep": job}, lambda: job.wait(False, 2))
    failures = [r for r in caplog.records if r.getMessage().startswith("sweep failed")]
    assert len(failures) >= 2
    assert all(r.levelno == logging.ERROR and r.exc_info for r in failures)
    assert not [r for r in caplog.records if "database" in r.getMessage()]
