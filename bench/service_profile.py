"""Where a submitted game's time goes in the service: each stage of `POST /api/v1/games`
timed alone, in one process, on SQLite and PostgreSQL.

Stages, per game (µs of this process's CPU, and of the wall clock): validating the body
(`application.games.game_record`); rating and storing it (`Ledger.submit_game`, one
transaction; `Ledger.submit_group`, groups of 16 as under load); building the answer's
JSON (`application.games.game_json`); and the whole request through the ASGI app
(uvicorn's HTTP parsing and the network excepted: FastAPI's routing, dependencies,
body parsing, the group committer and the stages above), 16 requests at a time.
`--profile` adds a cProfile summary of the ASGI run (the event loop's thread; the
writer thread is timed by the ledger rows), sorted by cumulative time, or by the key
``PROFSORT`` names (``PROFSORT=tottime``: each function's own time).

    .venv/bin/python bench/service_profile.py [--games 2000] [--databases sqlite,postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import platform
import pstats
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support import postgres

from chessrate import Player
from chessrate.application.games import game_json, game_record
from chessrate.ledger import Ledger
from chessrate.server import create_app

PLAYERS = 1_000
CONTROLS = ["1m+0s", "3m+2s", "5m+3s", "10m", "15m+10s", "30m", "-", "2d"]
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def bodies(tag: str, count: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    start = datetime(2026, 2, 1, tzinfo=UTC)
    out = []
    for number in range(count):
        white, black = rng.sample(range(PLAYERS), 2)
        out.append({
            "id": f"{tag}{number}",
            "played_at": (start + timedelta(seconds=number)).isoformat(),
            "white": f"p{white}", "black": f"p{black}",
            "result": rng.choice(["1-0", "0-1", "1/2-1/2"]),
            "time_control": rng.choice(CONTROLS), "plies": rng.randint(2, 120),
        })  # fmt: skip
    return out


def prepare(url: str) -> tuple[Ledger, str]:
    ledger = Ledger.create(url, "site", NOW)
    for number in range(PLAYERS):
        ledger.players.create(Player(f"p{number}"), NOW)
    return ledger, ledger.tokens.create("writer", "bench", NOW)


def per_game(action: Callable[[], object], count: int) -> tuple[float, float]:
    """(CPU µs of this process, wall µs) per game: the CPU is what the service pays
    for the game on a busy machine; the wall adds the waits for the database."""
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return (time.process_time() - cpu) / count * 1e6, (time.perf_counter() - wall) / count * 1e6


async def asgi_requests(app: Any, token: str, games: list[dict[str, Any]], clients: int) -> None:
    """POST each game through the ASGI app, ``clients`` requests at a time."""
    headers = [
        (b"host", b"bench"),
        (b"authorization", f"Bearer {token}".encode()),
        (b"content-type", b"application/json"),
    ]
    queue = iter(games)

    async def one(game: dict[str, Any]) -> None:
        body = json.dumps(game).encode()
        sent = False
        status: list[int] = []

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.sleep(3600)
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])

        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": "POST", "scheme": "http", "path": "/api/v1/games",
            "raw_path": b"/api/v1/games", "root_path": "", "query_string": b"",
            "headers": [*headers, (b"content-length", str(len(body)).encode())],
            "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80),
        }  # fmt: skip
        await app(scope, receive, send)
        if status != [201]:
            raise SystemExit(f"POST /games answered {status}")

    async def client() -> None:
        for game in queue:
            await one(game)

    async with app.router.lifespan_context(app):
        await asyncio.gather(*(client() for _ in range(clients)))


def measure(url: str, count: int, profile: bool) -> dict[str, tuple[float, float]]:
    ledger, token = prepare(url)
    rows: dict[str, tuple[float, float]] = {}
    try:
        sample = bodies("v", count, 1)
        records: list[Any] = []
        rows["validate the body (game_record)"] = per_game(
            lambda: records.extend(game_record(ledger, b) for b in sample), count
        )
        single = [game_record(ledger, b) for b in bodies("s", count, 2)]
        views: list[Any] = []
        rows["rate + store, one transaction a game (submit_game)"] = per_game(
            lambda: views.extend(ledger.games.submit(r, NOW)[0] for r in single), count
        )
        grouped = [game_record(ledger, b) for b in bodies("g", count, 3)]

        def groups() -> None:
            for start in range(0, count, 16):
                ledger.games.submit_group([(r, NOW) for r in grouped[start : start + 16]])

        rows["rate + store, groups of 16 (submit_group)"] = per_game(groups, count)
        rows["build the answer and its JSON (game_json, as the route does)"] = per_game(
            lambda: [game_json(v) for v in views], count
        )
        app = create_app(ledger, sweep_every=0)
        asgi = bodies("a", count, 4)
        profiler = cProfile.Profile() if profile else None

        def run() -> None:
            if profiler:
                profiler.enable()
            asyncio.run(asgi_requests(app, token, asgi, 16))
            if profiler:
                profiler.disable()

        rows["whole request through the ASGI app (16 at a time)"] = per_game(run, count)
        if profiler:
            text = io.StringIO()
            stats = pstats.Stats(profiler, stream=text)
            stats.sort_stats(os.environ.get("PROFSORT", "cumulative")).print_stats(40)
            print(text.getvalue())
    finally:
        ledger.dispose()
    return rows


@contextmanager
def database_urls(kinds: list[str]) -> Iterator[Iterator[tuple[str, str]]]:
    with tempfile.TemporaryDirectory() as folder:
        if "postgres" in kinds:
            with postgres.cluster() as admin:
                yield (
                    (kind, f"sqlite:///{folder}/profile.db" if kind == "sqlite" else
                     postgres.fresh_database(admin))
                    for kind in kinds
                )  # fmt: skip
        else:
            yield ((kind, f"sqlite:///{folder}/profile.db") for kind in kinds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--databases", default="sqlite,postgres")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    kinds = args.databases.split(",")
    machine = f"{platform.machine()}, {platform.python_implementation()}"
    print(f"machine: {machine} {platform.python_version()}; {PLAYERS} players; "
          f"{args.games} games per row")  # fmt: skip
    results = {}
    with database_urls(kinds) as urls:
        for kind, url in urls:
            results[kind] = measure(url, args.games, args.profile)
    print("| stage (µs per game: CPU / wall) | " + " | ".join(kinds) + " |")
    print("|---|" + "---:|" * len(kinds))
    for stage in results[kinds[0]]:
        cells = (f"{results[k][stage][0]:,.0f} / {results[k][stage][1]:,.0f}" for k in kinds)
        print(f"| {stage} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
