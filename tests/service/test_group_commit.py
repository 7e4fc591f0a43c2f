"""Group commit (issue 13): games that reach a worker together are rated and committed
together, and each request is answered with its own result, after the commit.

A group is made for certain by holding the database first (SQLite: another write
transaction; PostgreSQL: the players' rows locked by another transaction): the writer
takes the first game and waits for the database, the next games queue behind it, and
when the database is let go they are one group. Every test runs on SQLite and on
PostgreSQL; the last one kills a real server with SIGKILL while it commits groups.
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from sqlalchemy import select, text

from chessrate import Player
from chessrate.application import services
from chessrate.application.group import GroupCommitter
from chessrate.cli import main
from chessrate.ledger import Ledger
from chessrate.ledger.schema import players
from tests.service.conftest import Api
from tests.support.server import server_process

PLAYERS = [f"p{n:02d}" for n in range(12)]


@pytest.fixture
def api(site: Api) -> Api:
    for player_id in PLAYERS:
        site.player(player_id)
    return site


def game(
    game_id: str, white: str, black: str, result: str = "1-0", **fields: Any
) -> dict[str, Any]:
    return {
        "id": game_id,
        "played_at": "2026-03-01T18:00:00Z",
        "white": white,
        "black": black,
        "result": result,
        "time_control": "5m+3s",
        "plies": 40,
        **fields,
    }


def committer_of(api: Api) -> GroupCommitter:
    committer = api.client.app.state.committer  # type: ignore[attr-defined]
    assert isinstance(committer, GroupCommitter)
    return committer


def wait_until(condition: Callable[[], bool]) -> None:
    """Poll (no deadline: the suite's own timeout is the backstop, nothing is timed)."""
    while not condition():
        time.sleep(0.005)


@contextmanager
def database_held(ledger: Ledger) -> Iterator[None]:
    """Hold what a group needs first: SQLite's write lock (``BEGIN IMMEDIATE``), or
    (PostgreSQL) every player's row. The writer waits until the block ends."""
    with ledger.engine.connect() as conn, conn.begin() as transaction:
        if ledger.postgres:
            conn.execute(select(players.c.id).with_for_update()).all()
        yield
        transaction.rollback()


class Group:
    """Posts games from threads into ONE group of the app's committer: a first game is
    taken by the writer and waits for the held database; the games sent then queue, in
    the order sent, and form the next group."""

    def __init__(self, api: Api) -> None:
        self.api = api
        self.committer = committer_of(api)
        self.answers: dict[int, Any] = {}
        self.threads: list[threading.Thread] = []

    def post(self, index: int, body: dict[str, Any]) -> None:
        def send() -> None:
            self.answers[index] = self.api.post("/games", body)

        thread = threading.Thread(target=send)
        self.threads.append(thread)
        thread.start()

    def run(self, first: dict[str, Any], bodies: list[dict[str, Any]]) -> list[Any]:
        """Answers of ``bodies`` (in order), which were committed as one group."""
        groups, games = self.committer.groups, self.committer.games
        with database_held(self.api.ledger):
            self.post(-1, first)
            wait_until(lambda: self.committer.games == games + 1)  # taken, waiting
            for index, body in enumerate(bodies):
                self.post(index, body)
                # In the order sent: each game is queued before the next is sent.
                wait_until(lambda n=index: self.committer.queued == n + 1)
        for thread in self.threads:
            thread.join()
        assert self.answers[-1].status_code == 201, self.answers[-1].text
        # The first game's group, then ONE group with every other game.
        assert (self.committer.groups, self.committer.games) == (
            groups + 2, games + 1 + len(bodies),
        )  # fmt: skip
        return [self.answers[index] for index in range(len(bodies))]


def test_a_group_answers_each_request_with_its_own_result(api: Api) -> None:
    rng = random.Random(13)
    bodies = []
    for number in range(24):
        white, black = rng.sample(PLAYERS, 2)
        bodies.append(game(f"g{number}", white, black, rng.choice(["1-0", "0-1", "1/2-1/2"])))
    answers = Group(api).run(game("first", "p00", "p01"), bodies)
    seqs = []
    for body, answer in zip(bodies, answers, strict=True):
        assert answer.status_code == 201, answer.text
        shown = answer.json()
        assert (shown["id"], shown["white"], shown["black"], shown["result"]) == (
            body["id"], body["white"], body["black"], body["result"],
        )  # fmt: skip
        assert {c["player"] for c in shown["changes"]} == {body["white"], body["black"]}
        assert answer.headers["location"] == f"/api/v1/games/{body['id']}"
        assert api.get(f"/games/{body['id']}").json() == shown  # stored as answered
        seqs.append(shown["seq"])
    assert seqs == sorted(seqs)  # rated and committed in arrival order
    result = CliRunner().invoke(main, ["verify", "--db", api.ledger.url])
    assert result.exit_code == 0, result.output


def test_resubmission_inside_one_group(api: Api) -> None:
    same = game("twice", "p02", "p03", "1/2-1/2")
    different = game("clash", "p04", "p05", "1-0")
    answers = Group(api).run(
        game("first", "p00", "p01"),
        [same, different, dict(same), {**different, "result": "0-1"}, game("after", "p04", "p02")],
    )
    assert [a.status_code for a in answers] == [201, 201, 200, 409, 201]
    assert answers[2].json() == answers[0].json()  # the stored answer, nothing changed
    assert answers[3].json()["detail"] == "game clash: id: already used for a different game"
    assert api.get("/games/clash").json()["result"] == "1-0"
    history = api.get("/players/p04/history/blitz").json()["items"]
    assert [item["change"]["game"] for item in history] == ["clash", "after"]
    result = CliRunner().invoke(main, ["verify", "--db", api.ledger.url])
    assert result.exit_code == 0, result.output


def test_a_bad_game_in_a_group_is_refused_alone(api: Api) -> None:
    answers = Group(api).run(
        game("first", "p00", "p01"),
        [
            game("good1", "p06", "p07"),
            game("stranger", "p06", "nobody"),  # refused by the ledger: unknown player
            game("good2", "p07", "p06", "0-1"),
            game("good3", "p08", "p09", "1/2-1/2"),
        ],
    )
    assert [a.status_code for a in answers] == [201, 422, 201, 201]
    assert answers[1].json()["detail"][0]["message"] == (
        "game stranger: black: unknown player 'nobody'"
    )
    assert api.get("/games/stranger").status_code == 404
    for answer in (answers[0], answers[2], answers[3]):
        assert api.get(f"/games/{answer.json()['id']}").json() == answer.json()
    result = CliRunner().invoke(main, ["verify", "--db", api.ledger.url])
    assert result.exit_code == 0, result.output


# -- a worker killed while it commits groups --------------------------------------------


def test_a_killed_worker_loses_only_unanswered_games(ledger_url: str) -> None:
    now = datetime(2026, 5, 1, tzinfo=UTC)
    ledger = Ledger.create(ledger_url, "site", now)
    for player_id in PLAYERS:
        ledger.create_player(Player(player_id), now)
    token = ledger.create_token("writer", "kill test", now)
    ledger.dispose()

    rng = random.Random(9)
    stream = []
    for number in range(900):
        white, black = rng.sample(PLAYERS, 2)
        played = (now + timedelta(seconds=number)).isoformat()
        stream.append(game(f"k{number:04d}", white, black, rng.choice(["1-0", "0-1"]),
                           played_at=played))  # fmt: skip
    clients = 12
    acknowledged: dict[str, dict[str, Any]] = {}
    unanswered: list[dict[str, Any]] = []
    lock = threading.Lock()
    enough = threading.Event()

    def client(mine: list[dict[str, Any]], base: str) -> None:
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
            for index, body in enumerate(mine):
                try:
                    response = http.post("/api/v1/games", json=body)
                except httpx.HTTPError:  # the worker died with this game in hand
                    with lock:
                        unanswered.extend(mine[index:])
                    return
                assert response.status_code == 201, response.text
                with lock:
                    acknowledged[body["id"]] = response.json()
                    if len(acknowledged) >= 200:
                        enough.set()
        with lock:
            enough.set()

    workers = 2 if ledger_url.startswith("postgresql") else 1
    with server_process(ledger_url, workers=workers) as (base, process):
        threads = [
            threading.Thread(target=client, args=(stream[n::clients], base)) for n in range(clients)
        ]
        for thread in threads:
            thread.start()
        enough.wait()
        os.killpg(process.pid, signal.SIGKILL)  # the server and its workers, mid-group
        process.wait()
        for thread in threads:
            thread.join()
    assert unanswered, "the server was killed after every game was answered"

    result = CliRunner().invoke(main, ["verify", "--db", ledger_url])
    assert result.exit_code == 0, result.output
    ledger = Ledger(ledger_url)
    try:
        for game_id, answer in acknowledged.items():  # every acknowledged game is stored
            stored = ledger.get_game(game_id)
            assert (stored.seq, stored.outcome, stored.record.result.value) == (
                answer["seq"], answer["outcome"], answer["result"],
            ), game_id  # fmt: skip
        with ledger.engine.connect() as conn:
            stored_ids = set(conn.execute(text("SELECT id FROM games")).scalars())
    finally:
        ledger.dispose()
    # An unanswered game was lost, or committed without its answer: sent again, it is
    # rated now (201) or answered as stored (200), and the ledger still verifies.
    statuses: dict[str, int] = {}

    def resend(mine: list[dict[str, Any]], base: str) -> None:
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
            for body in mine:
                statuses[body["id"]] = http.post("/api/v1/games", json=body).status_code

    with server_process(ledger_url, workers=workers) as (base, _):
        threads = [
            threading.Thread(target=resend, args=(unanswered[n::clients], base))
            for n in range(clients)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert statuses == {body["id"]: 200 if body["id"] in stored_ids else 201 for body in unanswered}
    result = CliRunner().invoke(main, ["verify", "--db", ledger_url])
    assert result.exit_code == 0, result.output


def test_several_writers_and_a_restart(api: Api) -> None:
    """``CHESSRATE_GROUP_WRITERS`` > 1: groups commit side by side, every game is
    answered once; after close() (the app's shutdown) a game starts the writers again."""
    committer = GroupCommitter(api.ledger, max_group=4, writers=3)
    rng = random.Random(3)
    records = []
    for number in range(40):
        white, black = rng.sample(PLAYERS, 2)
        body = game(f"w{number}", white, black)
        records.append(services.game_record(api.ledger, body))
    futures = [committer.enqueue(record, api.clock.now) for record in records]
    assert [f.result()[0].id for f in futures] == [r.id for r in records]
    assert all(f.result()[1] for f in futures)
    committer.close()
    again = committer.enqueue(records[0], api.clock.now).result()
    assert (again[0].seq, again[1]) == (futures[0].result()[0].seq, False)
    committer.close()
    assert committer.games == 41
    result = CliRunner().invoke(main, ["verify", "--db", api.ledger.url])
    assert result.exit_code == 0, result.output
