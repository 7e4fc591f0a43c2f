"""Correctness under concurrency: 4 server workers on PostgreSQL, 16 clients at once.

2,000 games among 40 players posted by 16 concurrent
clients to `chessrate serve --workers 4`; afterwards `chessrate verify` passes
(every stored rating equals the replay in commit order, to the hundredth) and
each game is stored once, even the ones sent twice at the same time.

And a worker's background tasks (sweeper, pairing pass, detector) outlive a failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from chessrate import Player
from chessrate.cli import main
from chessrate.ledger import Ledger
from chessrate.ledger.schema import games
from chessrate.server import _every
from tests.support.server import running_server

PLAYERS = 40
GAMES = 2_000
CLIENTS = 16
TWICE = 200  # games also sent a second time, by another client


def game_stream() -> list[dict[str, Any]]:
    rng = random.Random(5)
    start = datetime(2026, 5, 1, tzinfo=UTC)
    controls = ["1m+0s", "3m+2s", "5m+3s", "10m", "30m", "-", "2d"]
    stream = []
    for number in range(GAMES):
        white, black = rng.sample(range(PLAYERS), 2)
        stream.append({
            "id": f"w{number:05d}",
            "played_at": (start + timedelta(seconds=number)).isoformat(),
            "white": f"p{white:02d}",
            "black": f"p{black:02d}",
            "result": rng.choice(["1-0", "0-1", "1/2-1/2", "1-0", "0-1"]),
            "time_control": rng.choice(controls),
            "plies": rng.randint(2, 120),
        })  # fmt: skip
    return stream


def test_four_workers_sixteen_clients_lose_no_update(postgres_url: str) -> None:
    now = datetime(2026, 5, 1, tzinfo=UTC)
    ledger = Ledger.create(postgres_url, "site", now)
    for number in range(PLAYERS):
        ledger.players.create(Player(f"p{number:02d}"), now)
    token = ledger.tokens.create("writer", "workers test", now)
    ledger.dispose()

    stream = game_stream()
    rng = random.Random(9)
    work: list[list[dict[str, Any]]] = [[] for _ in range(CLIENTS)]
    for index, game in enumerate(stream):
        work[index % CLIENTS].append(game)
    for game in rng.sample(stream, TWICE):  # the same game again, from another client
        work[rng.randrange(CLIENTS)].append(game)
    statuses: Counter[int] = Counter()
    answers: dict[str, list[dict[str, Any]]] = {}
    lock = threading.Lock()

    def client(games_to_send: list[dict[str, Any]], base: str) -> None:
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
            for game in games_to_send:
                response = http.post("/api/v1/games", json=game)
                with lock:
                    statuses[response.status_code] += 1
                    answers.setdefault(game["id"], []).append(response.json())

    with running_server(postgres_url, workers=4) as base:
        threads = [threading.Thread(target=client, args=(w, base)) for w in work]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    assert statuses[201] == GAMES, statuses
    assert statuses[200] == TWICE, statuses
    assert sum(statuses.values()) == GAMES + TWICE
    for game_id, replies in answers.items():
        assert all(reply == replies[0] for reply in replies), game_id  # same answer

    result = CliRunner().invoke(main, ["verify", "--db", postgres_url])
    assert result.exit_code == 0, result.output

    ledger = Ledger(postgres_url)
    with ledger.engine.connect() as conn:
        stored = conn.execute(select(func.count()).select_from(games)).scalar_one()
        game_events = conn.execute(select(func.count(games.c.id.distinct()))).scalar_one()
    ledger.dispose()
    assert stored == GAMES
    assert game_events == GAMES  # each game rated once (a game's row is its event)


def test_a_background_task_logs_a_failure_and_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    """The sweeper, the pairing pass and the detector share one loop (``_every``): the
    job runs in a thread, a failure is logged and the next run still comes."""
    runs: list[str] = []

    def job() -> None:
        runs.append(threading.current_thread().name)
        if len(runs) == 1:
            raise RuntimeError("a database hiccup")

    async def run() -> None:
        task = asyncio.create_task(_every(0.001, job, "test job"))
        while len(runs) < 3:
            await asyncio.sleep(0.001)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    with caplog.at_level(logging.ERROR, logger="chessrate.server"), ThreadPoolExecutor(1) as pool:
        # (a loop of its own in a thread: another test's may be running in this one)
        pool.submit(asyncio.run, asyncio.wait_for(run(), timeout=60)).result()
    assert len(runs) >= 3
    assert threading.main_thread().name not in runs  # in a thread, off the event loop
    assert "test job failed; trying again in 0.001 s" in caplog.text
    assert "a database hiccup" in caplog.text
