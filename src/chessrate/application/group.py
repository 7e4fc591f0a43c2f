"""Group commit: the games that one worker receives together are rated and committed
together, and each request is answered with its own result after the commit.

One :class:`GroupCommitter` per worker process owns one writer thread (or a few:
``writers``). A request queues its game (record, time, future) and waits; the writer
takes everything queued (at most ``max_group`` games), hands it to
:meth:`Ledger.submit_group` (one transaction, the group's players locked in id order,
each game in arrival order, one commit; a refused game is undone alone), then
resolves each game's future with its (view, created) or the error that refused it.
Under load the groups grow by themselves (what arrives while a group commits is the
next group); a lone request is a group of one. Nothing is answered before its commit
returns, so a killed worker loses only games it had not answered.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from concurrent.futures import Future
from datetime import datetime

from .. import metrics
from ..ledger import GameView, Ledger
from ..records import GameRecord

DEFAULT_GROUP_MAX = 256

_Item = tuple[GameRecord, datetime, "Future[tuple[GameView, bool]]"]


class GroupCommitter:
    """A worker's writer of single games (``POST /games``): see the module's docstring.
    Usable from any thread and any event loop; the writer threads start with the first
    game and stop at :meth:`close` (the app's shutdown). ``writers``: how many groups
    a worker may commit at once (1: the largest groups; SQLite has one writer anyway;
    on PostgreSQL a group spends most of its time waiting for the database's answers,
    which more writers per worker overlap)."""

    def __init__(
        self, ledger: Ledger, max_group: int = DEFAULT_GROUP_MAX, writers: int = 1
    ) -> None:
        if max_group < 1:
            raise ValueError(f"max_group: must be at least 1, not {max_group}")
        if writers < 1:
            raise ValueError(f"writers: must be at least 1, not {writers}")
        self.ledger = ledger
        self.max_group = max_group
        self.writers = writers
        self._queue: deque[_Item] = deque()
        self._ready = threading.Condition()
        self._threads: list[threading.Thread] = []
        self._stopping = False
        self.groups = 0
        """Groups taken by the writer so far, and their games (for logs and tests)."""
        self.games = 0

    @property
    def queued(self) -> int:
        """Games waiting for the next group (not yet taken by the writer)."""
        with self._ready:
            return len(self._queue)

    async def submit(self, record: GameRecord, now: datetime) -> tuple[GameView, bool]:
        """Queue one game and wait for its commit: (view, created), or the error that
        refused it (raised here)."""
        return await asyncio.wrap_future(self.enqueue(record, now))

    def enqueue(self, record: GameRecord, now: datetime) -> Future[tuple[GameView, bool]]:
        """Queue one game; the future is resolved after the commit of its group."""
        future: Future[tuple[GameView, bool]] = Future()
        with self._ready:
            if not self._threads:
                self._threads = [
                    threading.Thread(
                        target=self._write_forever, name=f"chessrate-group-commit-{n}",
                        daemon=True,
                    )
                    for n in range(self.writers)
                ]  # fmt: skip
                for thread in self._threads:
                    thread.start()
            self._queue.append((record, now, future))
            self._ready.notify()
        return future

    def close(self, timeout: float | None = None) -> None:
        """Commit what is queued, then stop the writer threads (a later game starts
        them again)."""
        with self._ready:
            threads = self._threads
            self._stopping = True
            self._ready.notify_all()
        for thread in threads:
            thread.join(timeout)
        with self._ready:
            self._threads = []
            self._stopping = False

    def _take(self) -> list[_Item] | None:
        """The next group (everything queued, at most ``max_group``); None when asked
        to stop and nothing is queued."""
        with self._ready:
            while not self._queue:
                if self._stopping:
                    return None
                self._ready.wait()
            group: list[_Item] = []
            while self._queue and len(group) < self.max_group:
                item = self._queue.popleft()
                # From here on the game will be answered: its request can no longer
                # cancel it. A request that gave up before (cancelled) is skipped:
                # unanswered, nothing stored, as if its worker had been killed.
                if item[2].set_running_or_notify_cancel():
                    group.append(item)
            self.groups += 1 if group else 0
            self.games += len(group)
        if group:
            metrics.GROUP_SIZE.observe(len(group))
        return group

    def _write_forever(self) -> None:
        while (group := self._take()) is not None:
            if not group:
                continue
            try:
                results = self.ledger.games.submit_group(
                    [(record, now) for record, now, _ in group]
                )
            except BaseException as error:  # the database is unavailable: every game says so
                for _, _, future in group:
                    _settle(future, error)
                if not isinstance(error, Exception):
                    raise
                continue
            for (_, _, future), result in zip(group, results, strict=True):
                _settle(future, result)


def _settle(
    future: Future[tuple[GameView, bool]], result: tuple[GameView, bool] | BaseException
) -> None:
    if isinstance(result, BaseException):
        future.set_exception(result)
    else:
        future.set_result(result)
