"""Group commit: games that reach a worker together are rated and committed
together, and each request is answered with its own result, after the commit.

A group is made for certain by holding the database first (SQLite: another write
transaction; PostgreSQL: the players' rows locked by another transaction): the writer
takes the first game and waits for the database, the next games queue behind it, and
when the database is let go they are one group. Every test runs on SQLite and on
PostgreSQL; two kill a real server (or one of its two workers) with SIGKILL while it
commits groups.
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
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from sqlalchemy import select, text

from chessrate import Player
from chessrate.application.games import GamePublic, game_json, game_public, game_record
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
                def queued(n: int = index) -> bool:
                    return self.committer.queued == n + 1

                wait_until(queued)
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


# -- a server or one of its workers killed while it commits groups ----------------------

KILLED_AT = datetime(2026, 5, 1, tzinfo=UTC)


class Load:
    """Clients posting a stream of games (among the 12 players) to a served site
    ledger while the test kills the server or one of its workers. Each client sends its
    share in order, one request at a time, each on a new connection (so that a worker
    that dies holds only the requests in its hands); a request that fails (the worker
    died with the game in hand, or nothing listens any more) leaves its game
    *unanswered*, and the client goes on with its next game."""

    def __init__(self, ledger_url: str, games: int = 900, clients: int = 12) -> None:
        ledger = Ledger.create(ledger_url, "site", KILLED_AT)
        for player_id in PLAYERS:
            ledger.players.create(Player(player_id), KILLED_AT)
        token = ledger.tokens.create("writer", "kill test", KILLED_AT)
        self.headers = {"Authorization": f"Bearer {token}"}
        ledger.dispose()
        self.url = ledger_url
        rng = random.Random(9)
        self.stream = []
        for number in range(games):
            white, black = rng.sample(PLAYERS, 2)
            played = (KILLED_AT + timedelta(seconds=number)).isoformat()
            self.stream.append(game(f"k{number:04d}", white, black, rng.choice(["1-0", "0-1"]),
                                    played_at=played))  # fmt: skip
        self.clients = clients
        self.acknowledged: dict[str, dict[str, Any]] = {}
        self.unanswered: list[dict[str, Any]] = []
        self.refused: list[str] = []  # any answer but 201: the test fails
        self.lock = threading.Lock()
        self.threads: list[threading.Thread] = []

    def start(self, base: str) -> None:
        self.threads = [
            threading.Thread(target=self._client, args=(self.stream[n :: self.clients], base))
            for n in range(self.clients)
        ]
        for thread in self.threads:
            thread.start()

    def _client(self, mine: list[dict[str, Any]], base: str) -> None:
        no_reuse = httpx.Limits(max_keepalive_connections=0)
        with httpx.Client(base_url=base, headers=self.headers, timeout=60, limits=no_reuse) as http:
            for body in mine:
                try:
                    response = http.post("/api/v1/games", json=body)
                except httpx.HTTPError:
                    with self.lock:
                        self.unanswered.append(body)
                    continue
                with self.lock:
                    if response.status_code == 201:
                        self.acknowledged[body["id"]] = response.json()
                    else:
                        self.refused.append(f"{body['id']}: {response.status_code} {response.text}")

    def wait_for(self, acknowledged: int, seconds: float = 60) -> None:
        """Until that many games are acknowledged (the clients are still sending)."""
        deadline = time.monotonic() + seconds
        while len(self.acknowledged) < acknowledged:
            assert any(thread.is_alive() for thread in self.threads), "the stream ran out"
            assert time.monotonic() < deadline, f"{len(self.acknowledged)} games acknowledged"
            time.sleep(0.01)

    def join(self) -> None:
        """Wait for the clients; every game was acknowledged (201) or left unanswered,
        and some were left unanswered (the kill caught games in a worker's hands)."""
        for thread in self.threads:
            thread.join()
        assert not self.refused, self.refused[:5]
        assert len(self.acknowledged) + len(self.unanswered) == len(self.stream)
        assert self.unanswered, "the kill came when no game was in a killed worker's hands"

    def check_ledger(self) -> set[str]:
        """``chessrate verify`` passes and every acknowledged game is stored as it was
        answered; return the ids of the games stored."""
        result = CliRunner().invoke(main, ["verify", "--db", self.url])
        assert result.exit_code == 0, result.output
        ledger = Ledger(self.url)
        try:
            for game_id, answer in self.acknowledged.items():
                stored = ledger.games.get(game_id)
                assert (stored.seq, stored.outcome, stored.record.result.value) == (
                    answer["seq"], answer["outcome"], answer["result"],
                ), game_id  # fmt: skip
            with ledger.engine.connect() as conn:
                return set(conn.execute(text("SELECT id FROM games")).scalars())
        finally:
            ledger.dispose()

    def resend(self, base: str, stored_ids: set[str]) -> None:
        """Send every unanswered game again (as many clients at once): a game that was
        lost is rated now (201), one committed by a worker killed before it answered is
        answered as stored (200); the ledger still verifies."""
        statuses: dict[str, int] = {}

        def resend(mine: list[dict[str, Any]]) -> None:
            with httpx.Client(base_url=base, headers=self.headers, timeout=60) as http:
                for body in mine:
                    statuses[body["id"]] = http.post("/api/v1/games", json=body).status_code

        threads = [
            threading.Thread(target=resend, args=(self.unanswered[n :: self.clients],))
            for n in range(self.clients)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        expected = {
            body["id"]: 200 if body["id"] in stored_ids else 201 for body in self.unanswered
        }
        assert statuses == expected
        result = CliRunner().invoke(main, ["verify", "--db", self.url])
        assert result.exit_code == 0, result.output


@pytest.mark.slow  # a real server killed under load
def test_a_killed_server_loses_only_unanswered_games(ledger_url: str) -> None:
    """The server and its workers killed at once (SIGKILL to its process group) after 200
    of 400 games were acknowledged; then started again for the games sent anew."""
    load = Load(ledger_url, games=400)
    workers = 2 if ledger_url.startswith("postgresql") else 1
    with server_process(ledger_url, workers=workers) as (base, process):
        load.start(base)
        load.wait_for(200)
        os.killpg(process.pid, signal.SIGKILL)  # the server and its workers, mid-group
        process.wait()
        load.join()
    stored_ids = load.check_ledger()
    with server_process(ledger_url) as (base, _):  # started again (one worker is enough)
        load.resend(base, stored_ids)


def workers_of(server: int) -> list[int]:
    """The live uvicorn workers of the server process ``server`` (its children started by
    multiprocessing's ``spawn_main``; a dead one not yet reaped is a zombie, not live)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:  # gone meanwhile
            continue
        if fields[1] == str(server) and fields[0] != "Z" and b"spawn_main" in cmdline:
            found.append(int(stat.parent.name))
    return sorted(found)


def connections_in_hand(pid: int, port: int) -> int:
    """How many accepted connections to ``port`` the process ``pid`` holds open
    (established TCP sockets among its file descriptors): requests it has taken and not
    yet closed."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:  # closed meanwhile
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    held = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == "01" and int(local.rsplit(":", 1)[1], 16) == port and inode in inodes:
                held += 1
    return held


def freeze_holding_a_request(pid: int, port: int, seconds: float = 30) -> None:
    """Stop (SIGSTOP) the worker ``pid`` at a moment it holds a request: stopped, it
    cannot answer it, so killing it then leaves a game unanswered (what the test is
    about), whichever worker the kernel handed the connections to.

    A connection open in the worker's hands is not yet a request unanswered: the worker
    may have written the whole answer just before it stopped, and the client be about to
    close. So the worker stays stopped a moment (the kernel still takes the clients' closing
    while it is stopped), and only a connection still open after it is one whose client
    waits for an answer that can no longer come."""
    deadline = time.monotonic() + seconds
    while True:
        os.kill(pid, signal.SIGSTOP)
        if connections_in_hand(pid, port):
            time.sleep(0.1)  # a client that has its answer closes meanwhile
            if connections_in_hand(pid, port):
                return
        os.kill(pid, signal.SIGCONT)
        assert time.monotonic() < deadline, "the worker never held a request"
        time.sleep(0.002)


@pytest.mark.slow  # a real server's worker killed under load
def test_one_killed_worker_leaves_the_other_serving(ledger_url: str) -> None:
    """One of two workers killed (SIGKILL) under load, after 150 of 600 games were
    acknowledged, at a moment it holds a request. The other goes on answering alone, 150
    games more (uvicorn's supervisor is paused meanwhile (SIGSTOP): it would start a new
    worker within half a second); then the supervisor, let go, replaces the dead worker,
    and the same server answers the games sent anew."""
    load = Load(ledger_url, games=600)
    with server_process(ledger_url, workers=2) as (base, server):
        killed, survivor = workers_of(server.pid)
        load.start(base)
        load.wait_for(150)
        freeze_holding_a_request(killed, int(base.rsplit(":", 1)[1]))
        os.kill(server.pid, signal.SIGSTOP)
        try:
            os.kill(killed, signal.SIGKILL)
            load.wait_for(len(load.acknowledged) + 150)  # the survivor alone answers
            assert workers_of(server.pid) == [survivor]
        finally:
            os.kill(server.pid, signal.SIGCONT)
        deadline = time.monotonic() + 60
        while len(replaced := workers_of(server.pid)) < 2:
            assert time.monotonic() < deadline, "uvicorn did not replace the killed worker"
            time.sleep(0.05)
        assert survivor in replaced and killed not in replaced
        load.join()
        stored_ids = load.check_ledger()
        load.resend(base, stored_ids)
        assert server.poll() is None  # the server itself never stopped


def test_several_writers_and_a_restart(api: Api) -> None:
    """``CHESSRATE_GROUP_WRITERS`` > 1: groups commit side by side, every game is
    answered once; after close() (the app's shutdown) a game starts the writers again."""
    committer = GroupCommitter(api.ledger, max_group=4, writers=3)
    rng = random.Random(3)
    records = []
    for number in range(40):
        white, black = rng.sample(PLAYERS, 2)
        body = game(f"w{number}", white, black)
        records.append(game_record(api.ledger, body))
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


def test_the_answer_is_the_models_json_byte_for_byte(api: Api) -> None:
    """``POST /games`` writes its answer without the models (games.game_json): it is
    what FastAPI writes of GamePublic, for a created game, a resubmission, games with
    moves, without a clock, unrated, drawn, and once annulled (read back)."""
    bodies = [
        game("j1", "p00", "p01"),
        game("j2", "p01", "p02", "1/2-1/2", time_control="-", plies=None),
        game("j3", "p02", "p03", "0-1", moves=["e4", "e5", "Nf3", "Nc6"], plies=None),
        game("j4", "p03", "p04", rated=False, time_control=None),
        game("j5", "p04", "p05", time_control="2d", termination="timeout"),
        game("j6", "p05", "p06", "1-0", venue="otb", confirmed=True),
        game("j1", "p00", "p01"),  # the same game again: 200, the stored answer
    ]
    for body in bodies:
        answer = api.post("/games", body)
        assert answer.status_code in (200, 201), answer.text
        view = api.ledger.games.get(body["id"])
        wanted = GamePublic.__pydantic_serializer__.to_json(game_public(view))
        assert answer.content == wanted == game_json(view)
        assert answer.headers["content-type"] == "application/json"
        assert answer.headers["location"] == f"/api/v1/games/{body['id']}"
    annulled = api.post("/games/j1/annul", {"reason": "engine use"}, auth="moderator")
    assert annulled.status_code == 200, annulled.text
    view = api.ledger.games.get("j1")
    assert view.annulment is not None
    assert game_json(view) == GamePublic.__pydantic_serializer__.to_json(game_public(view))
