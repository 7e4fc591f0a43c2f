"""Concurrent writers through one Ledger, on SQLite and on PostgreSQL: games that share
players are serialized (no lost update), and one game id sent by several writers at
once is stored once, every writer getting the same answer."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from chessrate.errors import InvalidRecord
from chessrate.ledger import GameView, Ledger

from .helpers import NOW, game, ledger_with

THREADS = 8
GAMES_PER_THREAD = 20
PLAYERS = ("ana", "ben", "cleo", "dev")
T = TypeVar("T")


def all_at_once(work: Callable[[int], T]) -> list[T]:
    """Run ``work(0..THREADS-1)`` on THREADS threads released together."""
    barrier = threading.Barrier(THREADS)

    def start(index: int) -> T:
        barrier.wait()
        return work(index)

    with ThreadPoolExecutor(THREADS) as pool:
        return list(pool.map(start, range(THREADS)))


def test_concurrent_games_for_the_same_players_lose_no_update(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", *PLAYERS)
    results = ["1-0", "0-1", "1/2-1/2"]
    controls = ["10m", "3m+2s"]

    def submit(thread: int) -> list[tuple[GameView, bool]]:
        answers = []
        for n in range(GAMES_PER_THREAD):
            white = PLAYERS[(thread + n) % len(PLAYERS)]
            black = PLAYERS[(thread + n + 1 + n % 2) % len(PLAYERS)]
            record = game(
                f"t{thread}-{n}", white, black, result=results[(thread + n) % 3],
                time_control=controls[n % 2],
            )  # fmt: skip
            answers.append(ledger.games.submit(record, NOW))
        return answers

    answers = [a for thread in all_at_once(submit) for a in thread]
    submitted = THREADS * GAMES_PER_THREAD
    assert all(created for _, created in answers)
    assert len({view.id for view, _ in answers}) == submitted
    assert len({view.seq for view, _ in answers}) == submitted
    assert ledger.counts()["games"] == submitted
    assert len(list(ledger.games.export())) == submitted
    # Every game counted once in each player's site Elo: no update was lost.
    played = Counter(p for view, _ in answers for p in (view.record.white, view.record.black))
    site = {r.player: r.games for r in ledger.boards.leaderboard("site", limit=100)[0]}
    assert site == dict(played)
    # The replay in commit order reproduces every stored rating and change.
    assert ledger.verify() == []


def test_concurrent_batches_are_each_all_or_nothing(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", *PLAYERS)

    def submit(thread: int) -> int:
        batch = [
            game(f"b{thread}-{n}", PLAYERS[n % 4], PLAYERS[(n + 1 + thread % 3) % 4])
            for n in range(5)
        ]
        if thread == 0:  # one batch is refused whole: its last game names a stranger
            batch.append(game("b0-bad", "ana", "stranger"))
        try:
            ledger.games.submit_many(batch, NOW)
        except InvalidRecord:
            return 0
        return len(batch)

    stored = all_at_once(submit)
    assert stored[0] == 0
    assert ledger.counts()["games"] == sum(stored) == (THREADS - 1) * 5
    assert all(not g.id.startswith("b0-") for g in ledger.games.export())
    assert ledger.verify() == []


def test_the_same_game_sent_at_once_is_stored_once_with_one_answer(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", *PLAYERS)
    ledger.games.submit(game("warm-up", "cleo", "dev"), NOW)
    record = game("same", "ana", "ben")

    answers = all_at_once(lambda _: ledger.games.submit(record, NOW))

    assert sum(created for _, created in answers) == 1
    views = [view for view, _ in answers]
    first = views[0]
    assert all(
        (v.id, v.seq, v.record, v.outcome, v.reason, v.changes, v.submitted_at)
        == (first.id, first.seq, first.record, first.outcome, first.reason, first.changes,
            first.submitted_at)
        for v in views
    )  # fmt: skip
    assert ledger.counts()["games"] == 2
    assert [h.change.game_id for h in ledger.players.history("ana", "rapid")] == ["same"]
    assert ledger.verify() == []


def test_one_ledger_per_thread_also_serializes(ledger_url: str) -> None:
    """Separate Ledger objects (as separate API workers have) on the same database."""
    ledger_with(ledger_url, "site", *PLAYERS).dispose()

    def submit(thread: int) -> int:
        own = Ledger(ledger_url)
        try:
            for n in range(10):
                white, black = PLAYERS[n % 4], PLAYERS[(n + 1) % 4]
                own.games.submit(game(f"w{thread}-{n}", white, black), NOW)
        finally:
            own.dispose()
        return 10

    stored = sum(all_at_once(submit))
    ledger = Ledger(ledger_url)
    assert ledger.counts()["games"] == stored
    assert ledger.verify() == []
