"""Writers that wait for a lock another transaction holds (a ``chessrate import``, a big
batch) wait at most ``CHESSRATE_BUSY_SECONDS``, then answer 503 with ``Retry-After``:
never a 500, nothing half-applied. SQLite: the database's one write lock; PostgreSQL:
the rows a transaction holds (other players' writes go on)."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select

from chessrate import Player
from chessrate.errors import LedgerUnavailable
from chessrate.ledger import Ledger
from chessrate.ledger import database_url as ledger_url
from chessrate.ledger.connection import connection_errors
from chessrate.ledger.schema import events, live_games, players
from chessrate.ledger.schema import games as games_table
from chessrate.operations import import_file
from chessrate.server import create_app
from chessrate.service.errors import RETRY_SECONDS
from tests.support.server import server_process

from .conftest import API, NOW, Api, FakeClock, TestClient

BUSY = 0.2
"""The tests' lock wait: short, so that a refused write answers at once."""


@contextmanager
def busy_api(url: str) -> Iterator[Api]:
    """A site ledger (alice, bob, carol, dave; live game L1 between alice and bob, one
    rated game g0) behind an app whose ledger waits ``BUSY`` seconds for a lock."""
    made = Ledger.create(url, "site", NOW)
    made.dispose()
    ledger = Ledger(url, busy_seconds=BUSY)
    clock = FakeClock()
    app = create_app(ledger, clock=clock, sweep_every=0, pair_every=0)
    writer = ledger.tokens.create("writer", "busy writer", NOW)
    moderator = ledger.tokens.create("moderator", "busy moderator", NOW)
    with TestClient(app) as client:
        api = Api(client, ledger, clock, writer={"Authorization": f"Bearer {writer}"},
                  moderator={"Authorization": f"Bearer {moderator}"})  # fmt: skip
        for player in ("alice", "bob", "carol", "dave"):
            api.player(player)
        api.game("g0", "alice", "bob", "1-0", time_control="5m+3s")
        answer = api.post("/live-games", {"id": "L1", "white": "alice", "black": "bob",
                                          "time_control": "5m+3s"})  # fmt: skip
        assert answer.status_code == 201, answer.text
        assert api.get("/reviews", headers=api.moderator).status_code == 200  # cached
        yield api
    ledger.dispose()


GAME = {"played_at": "2026-03-01T10:00:00Z", "result": "1-0", "time_control": "5m+3s"}


def alice_writes(api: Api) -> dict[str, Any]:
    """Every kind of write that touches alice (or live game L1), answered."""
    line = json.dumps({"id": "b1", "white": "alice", "black": "bob", **GAME}).encode()
    return {
        "game": api.post("/games", {"id": "g1", "white": "alice", "black": "bob", **GAME}),
        "update": api.patch("/players/alice", {"name": "Alice A."}),
        "move": api.post("/live-games/L1/moves", {"ply": 1, "move": "e4"}),
        "batch": api.post(
            "/games/batch",
            content=line + b"\n",
            headers={"content-type": "application/x-ndjson"},
        ),
        "report": api.post("/games/g0/reports", {"by": "bob", "reason": "engine"}),
        "annul": api.post("/games/g0/annul", {"reason": "fair play"}, auth="moderator"),
    }


AGAIN = {"game": 201, "update": 200, "move": 200, "batch": 201, "report": 201, "annul": 200}
"""The same writes once the lock is given back."""


def assert_unavailable(answers: dict[str, Any]) -> None:
    for what, answer in answers.items():
        assert answer.status_code == 503, (what, answer.status_code, answer.text)
        assert answer.headers["retry-after"] == str(RETRY_SECONDS), what
        assert answer.json()["status"] == "unavailable", what


def assert_nothing_applied(api: Api) -> None:
    assert api.ledger.verify() == []
    assert api.get("/games/g1").status_code == 404
    assert api.get("/games/b1").status_code == 404
    assert api.get("/players/alice").json()["name"] is None
    assert api.get("/live-games/L1").json()["moves"] == []
    assert api.get("/annulments").json()["total"] == 0
    assert api.get("/reviews", headers=api.moderator).json()["total"] == 0


def test_sqlite_writers_behind_a_long_transaction_get_503_and_retry_after(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ledger.db"
    with busy_api(f"sqlite:///{path}") as api:
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # what an import's transaction holds
        try:
            answers = alice_writes(api)
            answers["player"] = api.post("/players", {"id": "erin"})
            statuses: Counter[int] = Counter()

            def write(number: int) -> None:
                # More writers than the pool has connections: each waits for a
                # connection, then for the lock, and still answers 503, never 500.
                answer = api.post("/players", {"id": f"p{number}"})
                statuses[answer.status_code] += 1

            threads = [threading.Thread(target=write, args=(n,)) for n in range(30)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert api.get("/players/alice").status_code == 200  # reads go on (WAL)
        finally:
            holder.rollback()
            holder.close()
        assert_unavailable(answers)
        assert statuses == Counter({503: 30})
        assert_nothing_applied(api)
        assert api.get("/players/erin").status_code == 404
        again = alice_writes(api)
        assert {what: a.status_code for what, a in again.items()} == AGAIN
        assert api.ledger.verify() == []


def test_postgres_writers_behind_held_rows_get_503_and_others_go_on(postgres_url: str) -> None:
    with busy_api(postgres_url) as api:
        holder = create_engine(ledger_url(postgres_url))
        try:
            with holder.begin() as conn:  # a transaction that holds alice, bob and L1
                conn.execute(
                    select(players.c.id).where(players.c.id.in_(["alice", "bob"])).with_for_update()
                )
                conn.execute(
                    select(live_games.c.id).where(live_games.c.id == "L1").with_for_update()
                )
                answers = alice_writes(api)
                # Writes that need none of the held rows are not blocked.
                assert api.post("/players", {"id": "erin"}).status_code == 201
                other = {"id": "g2", "white": "carol", "black": "dave", **GAME}
                assert api.post("/games", other).status_code == 201
        finally:
            holder.dispose()
        assert_unavailable(answers)  # "canceling statement due to lock timeout"
        assert_nothing_applied(api)
        again = alice_writes(api)
        assert {what: a.status_code for what, a in again.items()} == AGAIN
        assert api.ledger.verify() == []


def test_a_pool_with_no_free_connection_is_unavailable_not_a_500() -> None:
    """SQLAlchemy's pool timeout (every connection waiting for a lock) is mapped with
    the database's own errors."""
    from sqlalchemy.exc import TimeoutError as PoolTimeout

    with pytest.raises(LedgerUnavailable, match="no connection free in time"):  # noqa: SIM117
        with connection_errors():
            raise PoolTimeout("QueuePool limit of size 5 overflow 10 reached")


@pytest.mark.slow  # a real server
def test_the_served_ledger_waits_busy_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``chessrate serve`` opens its ledger with ``CHESSRATE_BUSY_SECONDS``: a game
    posted while another process holds SQLite's write lock is a 503 with
    ``Retry-After``, and is stored once the lock is given back."""
    path = tmp_path / "served.db"
    ledger = Ledger.create(f"sqlite:///{path}", "site", NOW)
    for player in ("alice", "bob"):
        ledger.players.create(Player(player), NOW)
    token = ledger.tokens.create("writer", "served", NOW)
    ledger.dispose()
    monkeypatch.setenv("CHESSRATE_BUSY_SECONDS", "0.5")
    body = {"id": "g1", "white": "alice", "black": "bob", **GAME}
    headers = {"Authorization": f"Bearer {token}"}
    with server_process(str(path)) as (base, _):
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            refused = httpx.post(f"{base}{API}/games", json=body, headers=headers, timeout=60)
        finally:
            holder.rollback()
            holder.close()
        assert refused.status_code == 503, refused.text
        assert refused.headers["retry-after"] == str(RETRY_SECONDS)
        stored = httpx.post(f"{base}{API}/games", json=body, headers=headers, timeout=60)
        assert stored.status_code == 201, stored.text


def test_writes_during_an_import_wait_for_it_then_answer_503(
    ledger_url: str, tmp_path: Path
) -> None:
    """A ``chessrate import`` under way (paused halfway through writing its games) is
    the ledger's only writer, on SQLite (its write lock) and on PostgreSQL (a bulk
    import numbers its events itself: the writers' lock): the service's writes, for
    the import's players or others, answer 503 with ``Retry-After``; reads go on and
    show the ledger as before the import; afterwards every event has its own seq and
    ``verify`` passes."""
    games = tmp_path / "games.jsonl"
    games.write_text("".join(
        json.dumps({"id": f"i{n}", "played_at": f"2026-03-02T10:{n:02d}:00Z",
                    "white": "alice", "black": "bob", "result": "1-0",
                    "time_control": "5m+3s"}) + "\n"
        for n in range(50)
    ))  # fmt: skip
    with busy_api(ledger_url) as api:
        importer = Ledger(ledger_url)  # as the command line opens it
        halfway, go_on = threading.Event(), threading.Event()
        failed: list[BaseException] = []

        def progress(stage: str, advance: int, total: int) -> None:
            if stage == "rating and storing":
                halfway.set()
                go_on.wait(60)

        def run() -> None:
            try:
                import_file(importer, games, None, [], NOW, progress=progress)
            except BaseException as error:  # reported below
                failed.append(error)

        thread = threading.Thread(target=run)
        thread.start()
        try:
            assert halfway.wait(60), failed
            answers = {
                "game of the import's players": api.post(
                    "/games", {"id": "s1", "white": "alice", "black": "bob", **GAME}
                ),
                "game of others": api.post(
                    "/games", {"id": "s2", "white": "carol", "black": "dave", **GAME}
                ),
                "player": api.post("/players", {"id": "erin"}),
            }
            assert api.get("/players/alice/games").json()["total"] == 1  # g0 only
        finally:
            go_on.set()
            thread.join()
            importer.dispose()
        assert failed == []
        assert_unavailable(answers)
        assert api.get("/players/alice/games").json()["total"] == 51
        assert api.post("/players", {"id": "erin"}).status_code == 201
        other = {"id": "s2", "white": "carol", "black": "dave", **GAME}
        assert api.post("/games", other).status_code == 201
        assert api.ledger.verify() == []
        with api.ledger.reading() as conn:
            seqs = [*conn.execute(select(events.c.seq)).scalars(),
                    *conn.execute(select(games_table.c.seq)).scalars()]  # fmt: skip
        assert len(seqs) == len(set(seqs))  # one sequence: no event shares a seq
