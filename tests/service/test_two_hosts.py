"""Two hosts on one PostgreSQL database: what ``docs/operations.md`` claims of a site
that runs several ``chessrate serve`` hosts, shown.

The hosts are two ``chessrate serve`` processes, each its own process group, port and
runtime directory (``CHESSRATE_RUNTIME_DIR``: they do not share the detector's
machine lock, as two machines would not), on 127.0.0.1 (no network namespaces: the
hosts share nothing but the database, which is what makes them two hosts here). A
stream of requests is spread over both: rated games (some with their moves), reports,
seeks that the pairing passes pair, live games played to their end (analysed by the
fair-play detector) and live games left for the sweeper. One host is killed (SIGKILL
to its process group) while its detector is analysing a game; its clients send every
unanswered request again to the other host. Then: every game stored once, as
answered; no seek paired twice; every overdue live game ended once, by a sweeper;
every game with moves analysed once (the killed host's game taken over by the other
host); no report twice; ``chessrate verify`` OK.

The smaller tests below hold the pieces: a claim is held by one host and freed when
its session dies; two hosts' detection jobs analyse each game once; the analysis is
stored with its reports or not at all; ``chessrate detect`` takes the machine's lock.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import signal
import subprocess
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any

import chess.pgn
import httpx
import pytest
from click.testing import CliRunner
from sqlalchemy import select, text

from chessrate import Player
from chessrate.cli import main
from chessrate.fairplay import DetectorRules
from chessrate.fairplay.background import LOCK_NAME, MachineLock
from chessrate.fairplay.job import DetectionJob
from chessrate.ledger import Ledger
from chessrate.ledger.analyses import CLAIM_SPACE
from chessrate.ledger.schema import analyses, games, live_games, reports, reviews, seeks
from tests.fairplay.test_record_job import RULES, Scripted, submit
from tests.ledger.helpers import NOW, ledger_with
from tests.service.test_detector_service import UCI, Stub, record
from tests.support.server import server_process, written

DATA = Path(__file__).resolve().parents[1] / "data"
ANALYSING = re.compile(rb"detector: game (\S+): analysing")
STORED = re.compile(rb"detector: game (\S+): analysis stored")
SWEPT = re.compile(rb"sweep: live game (\S+) ended")


# -- the pieces ---------------------------------------------------------------------------


def test_a_claim_is_held_by_one_host_and_freed_when_its_session_dies(postgres_url: str) -> None:
    one = ledger_with(postgres_url, "site", "ana", "ben")
    other = Ledger(postgres_url)
    try:
        with contextlib.ExitStack() as held:
            assert held.enter_context(one.analyses.claim("g1")) is True
            with other.analyses.claim("g1") as mine:
                assert mine is False  # held by the first host
            with other.analyses.claim("g2") as mine:
                assert mine is True  # another game: free
            # The first host dies: its database session ends (as a SIGKILL'd process's
            # connections close), and the claim with it.
            claims = (
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = :space "
                "AND objsubid = 2"
            )
            with other.engine.connect() as conn:
                (pid,) = conn.execute(text(claims), {"space": CLAIM_SPACE}).scalars().all()
                conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
                # (the backend ends a moment later, with its locks)
                wait_until(
                    "the claim's session ended",
                    lambda: not conn.execute(text(claims), {"space": CLAIM_SPACE}).all(),
                )
            with other.analyses.claim("g1") as mine:
                assert mine is True  # taken over
            # (leaving the block, the first host's release fails on its dead connection:
            # logged, the connection thrown away)
        with one.analyses.claim("g1") as mine:
            assert mine is True  # the first host's pool serves a new connection
    finally:
        one.dispose()
        other.dispose()


def test_two_hosts_jobs_analyse_each_game_once(postgres_url: str) -> None:
    """Two ledgers (two hosts' connection pools) and two jobs: while the first analyses
    g0, the second skips it and analyses the others; g0 is stored once."""
    first_host = ledger_with(postgres_url, "site", "ana", "ben")
    second_host = Ledger(postgres_url)
    for number in range(4):
        first_host.games.submit(record(f"g{number}", number), NOW)
    release = threading.Event()
    slow = Stub(release)
    reports: list[Any] = []
    thread = threading.Thread(
        target=lambda: reports.append(DetectionJob(first_host, slow, lambda: NOW).run(1))
    )
    thread.start()
    try:
        assert slow.started.wait(30)
        other = Stub()
        second = DetectionJob(second_host, other, lambda: NOW).run(10)
    finally:
        release.set()
        thread.join(30)
    assert [view.game_id for view in reports[0].analysed] == ["g0"]
    assert [view.game_id for view in second.analysed] == ["g1", "g2", "g3"]
    assert second.raced == ["g0"]  # claimed by the first host: skipped, not analysed
    assert len(slow.seen) + len(other.seen) == 4
    with first_host.engine.connect() as conn:
        assert conn.execute(select(analyses.c.game_id)).scalars().all().__len__() == 4
    first_host.dispose()
    second_host.dispose()


class Meeting(DetectionJob):
    """A host's job that, storing a game, waits (at most 2 s) for the other host's job
    to be storing too before it judges Ana's record: unless the second is kept out
    until the first commits, both judge at once."""

    def __init__(self, ledger: Ledger, barrier: threading.Barrier) -> None:
        super().__init__(ledger, Scripted(), lambda: NOW, RULES)
        self.barrier = barrier

    def record_of(self, player: str, stored: Any = None) -> Any:
        if player == "ana" and stored is not None:
            with contextlib.suppress(threading.BrokenBarrierError):
                self.barrier.wait(2)  # kept out: the other comes after this one commits
        return super().record_of(player, stored)


def test_two_hosts_storing_one_players_games_at_once_judge_the_record_once(
    postgres_url: str, tmp_path: Path
) -> None:
    """A player's record is flagged by their f-th game. Their games f-1 and f are
    analysed by two hosts at once and stored at once: the second to store sees the
    first's analysis (the players' rows are locked first), so the record is flagged
    and reported once (judged side by side, each would see f-1 games: no flag)."""
    scratch = ledger_with(f"sqlite:///{tmp_path / 'scratch.db'}", "site", "ana", "ben")
    job = DetectionJob(scratch, Scripted(), lambda: NOW, RULES)
    flagged_at = 0
    for number in range(1, 8):
        submit(scratch, f"g{number}", number * 10)
        if job.run(5).flags:
            flagged_at = number
            break
    scratch.dispose()
    assert flagged_at > 2
    one = ledger_with(postgres_url, "site", "ana", "ben")
    other = Ledger(postgres_url)
    for number in range(1, flagged_at + 1):
        submit(one, f"g{number}", number * 10)
    first = DetectionJob(one, Scripted(), lambda: NOW, RULES).run(flagged_at - 2)
    assert not first.flags and len(first.analysed) == flagged_at - 2
    barrier = threading.Barrier(2)
    found: dict[str, Any] = {}
    threads = [
        threading.Thread(
            target=lambda name=name, ledger=ledger: found.__setitem__(
                name, Meeting(ledger, barrier).run(2)
            )
        )
        for name, ledger in (("one", one), ("other", other))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    analysed = sorted(v.game_id for report in found.values() for v in report.analysed)
    assert analysed == [f"g{flagged_at - 1}", f"g{flagged_at}"]  # one each
    flags = [flag for report in found.values() for flag in report.flags]
    assert len(flags) == 1 and flags[0][1] == "ana"
    with one.engine.connect() as conn:
        filed = conn.execute(select(reports.c.game_id, reports.c.by)).all()
    assert [(game, by) for game, by in filed] == [(flags[0][0], "detector:stockfish:white")]
    one.dispose()
    other.dispose()


def test_an_analysis_is_stored_with_its_reports_or_not_at_all(tmp_path: Path) -> None:
    """A host that dies after the analysis but before the report is filed (here: the
    report's filing raises) leaves nothing: the game still waits, no report; the next
    run stores both."""
    ledger = ledger_with(f"sqlite:///{tmp_path / 'ledger.db'}", "site", "ana", "ben")
    submit(ledger, "g1", 10)

    class Dies(DetectionJob):
        def _report(self, *args: Any) -> None:
            super()._report(*args)
            raise RuntimeError("the host died")

    with pytest.raises(RuntimeError, match="the host died"):
        Dies(ledger, Scripted(white_matches=20), lambda: NOW, RULES).run(5)
    assert ledger.analyses.list() == []
    assert [game.id for game in ledger.analyses.pending(5)] == ["g1"]
    with ledger.engine.connect() as conn:
        assert conn.execute(select(reports.c.id)).all() == []
    report = DetectionJob(ledger, Scripted(white_matches=20), lambda: NOW, RULES).run(5)
    assert report.flags == [("g1", "ana")]
    assert ledger.analyses.get("g1").flags == ("ana",)
    assert [r.by for r in ledger.reviews.get("g1").reports] == ["detector:stockfish:white"]
    ledger.dispose()


def test_chessrate_detect_takes_the_machine_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    ledger = ledger_with(url, "site", "ana", "ben")
    ledger.games.submit(record("g1", 0), NOW)
    ledger.dispose()
    monkeypatch.setenv("CHESSRATE_RUNTIME_DIR", str(tmp_path))
    # A script standing for the engine: the run never starts it while the lock is held.
    engine = tmp_path / "stockfish"
    engine.write_text("#!/bin/sh\nexit 1\n")
    engine.chmod(0o755)
    with MachineLock(tmp_path / LOCK_NAME).held() as mine:
        assert mine
        result = CliRunner().invoke(main, ["detect", "--db", url, "--stockfish", str(engine)])
    assert result.exit_code == 0, result.output
    assert "another process is analysing on this machine" in result.output
    assert str(tmp_path / LOCK_NAME) in result.output
    ledger = Ledger(url)
    assert [game.id for game in ledger.analyses.pending(5)] == ["g1"]  # nothing analysed
    ledger.dispose()


# -- two hosts, one killed ---------------------------------------------------------------

PLAYED_FROM = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=3)
"""The rated games' moments: before the hosts' clock (the service's real time)."""
PLAYERS = [f"p{n:02d}" for n in range(12)]  # rated games and reports
SEEKERS = [f"s{n:02d}" for n in range(12)]  # one seek each
LIVE = [f"q{n:02d}" for n in range(16)]  # live games, two players each
FAST = "5+0"
"""The abandoned live games' control: 5 s each. After two plies White's clock runs out
5 s later, and a sweeper ends the game (a loss on time)."""


@dataclass
class Step:
    """One request of the stream. ``first``: the statuses of its first answer;
    ``again``: those of the same request sent again to the other host after the first
    went unanswered (the killed host may have done it, or not)."""

    method: str
    path: str
    body: dict[str, Any] | None
    first: frozenset[int]
    again: frozenset[int]
    game: str | None = None
    """The game this step stores (a ``POST /games``)."""


def posted(game_id: str, white: str, black: str, n: int, **fields: Any) -> Step:
    body = {
        "id": game_id, "played_at": (PLAYED_FROM + timedelta(seconds=n)).isoformat(),
        "white": white, "black": black, "result": random.Random(n).choice(["1-0", "0-1"]),
        "time_control": "5m+3s", **fields,
    }  # fmt: skip
    if "moves" not in body:
        body["plies"] = 40
    return Step("POST", "/games", body, frozenset({201}), frozenset({200, 201}), game_id)


def live_steps(game_id: str, white: str, black: str, moves: list[str], finish: bool) -> list[Step]:
    """Open a live game, play ``moves``, then finish it (a draw) or leave it."""
    opened = {"id": game_id, "white": white, "black": black}
    opened["time_control"] = "5m+3s" if finish else FAST
    steps = [Step("POST", "/live-games", opened, frozenset({201}), frozenset({200, 201}))]
    for ply, move in enumerate(moves, 1):
        steps.append(
            Step("POST", f"/live-games/{game_id}/moves", {"ply": ply, "move": move},
                 frozenset({200}), frozenset({200}))
        )  # fmt: skip
    if finish:
        steps.append(
            Step("POST", f"/live-games/{game_id}/finish", {"result": "1/2-1/2"},
                 frozenset({200}), frozenset({200, 409}))  # 409: the killed host ended it
        )  # fmt: skip
    return steps


def long_games(count: int, plies: int) -> list[list[str]]:
    """``count`` human games' first ``plies`` moves (UCI), from the test data."""
    found: list[list[str]] = []
    with (DATA / "pgn" / "lichess_cmrade.pgn").open() as handle:
        while len(found) < count:
            game = chess.pgn.read_game(handle)
            assert game is not None, "not enough long games in the test data"
            moves = [move.uci() for move in game.mainline_moves()]
            if len(moves) >= plies:
                found.append(moves[:plies])
    return found


class Host:
    """A ``chessrate serve`` process (its own process group, port and runtime directory)
    and its log."""

    base: str
    process: subprocess.Popen[bytes]

    def __init__(self, name: str, url: str, runtime: Path, stack: contextlib.ExitStack) -> None:
        self.name = name
        self.url = url
        self.runtime = runtime
        self.log: IO[bytes] = stack.enter_context(tempfile.TemporaryFile())  # noqa: SIM115

    @contextlib.contextmanager
    def serving(self) -> Iterator[None]:
        env: dict[str, str | None] = {
            "CHESSRATE_RUNTIME_DIR": str(self.runtime),
            "CHESSRATE_SWEEP_SECONDS": "1",
            "CHESSRATE_PAIR_SECONDS": "1",
            "CHESSRATE_DETECT_SECONDS": "1",
            "CHESSRATE_DETECT_GAMES": "4",
            "CHESSRATE_STOCKFISH": None,  # Debian's
        }
        with server_process(self.url, workers=1, env=env, log=self.log) as (base, process):
            self.base, self.process = base, process
            yield

    def output(self) -> bytes:
        return written(self.log)

    def analysing(self) -> str | None:
        """The game the host's detector is analysing now (its last "analysing" line
        without the "stored" line after it), else None."""
        output = self.output()
        started = ANALYSING.findall(output)
        stored = set(STORED.findall(output))
        if started and started[-1] not in stored:
            return str(started[-1].decode())
        return None


def start_both(hosts: list[Host], stack: contextlib.ExitStack) -> None:
    """Start the hosts side by side (each waits for its own ``/healthz``); both are
    stopped when ``stack`` closes."""
    serving = [host.serving() for host in hosts]
    errors: list[BaseException] = []

    def enter(context: contextlib.AbstractContextManager[None]) -> None:
        try:
            context.__enter__()
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=enter, args=(context,)) for context in serving]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for host, context in zip(hosts, serving, strict=True):
        if hasattr(host, "process"):
            stack.push(context.__exit__)
    if errors:
        raise errors[0]


@dataclass
class Stream:
    """Clients sending their steps to a home host, one request at a time, each on a new
    connection; a request unanswered (its host died with it in hand, or nothing listens
    there any more) goes to the other host, once."""

    headers: dict[str, str]
    hosts: list[Host]
    answered: list[tuple[Step, int, Any]] = field(default_factory=list)
    again: list[tuple[Step, int, Any]] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    failed: list[BaseException] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def thread(self, target: Callable[..., None], *args: Any) -> threading.Thread:
        """A client's thread; what it raises is kept (the test fails on it)."""

        def run() -> None:
            try:
                target(*args)
            except BaseException as error:
                with self.lock:
                    self.failed.append(error)
                raise

        return threading.Thread(target=run)

    def send(self, http: list[httpx.Client], home: int, step: Step) -> Any:
        try:
            answer = http[home].request(step.method, "/api/v1" + step.path, json=step.body)
        except httpx.TransportError:
            answer = http[1 - home].request(step.method, "/api/v1" + step.path, json=step.body)
            expected, into = step.again, self.again
        else:
            expected, into = step.first, self.answered
        with self.lock:
            into.append((step, answer.status_code, answer.json()))
            if answer.status_code not in expected:
                self.wrong.append(f"{step.method} {step.path}: {answer.status_code} {answer.text}")
        return answer.json()

    def clients(self) -> list[httpx.Client]:
        no_reuse = httpx.Limits(max_keepalive_connections=0)
        return [
            httpx.Client(base_url=host.base, headers=self.headers, timeout=60, limits=no_reuse)
            for host in self.hosts
        ]


def run_client(stream: Stream, home: int, steps: list[Step], filler: Iterator[list[Step]],
               done: threading.Event, stop: threading.Event) -> None:  # fmt: skip
    """Send ``steps``, each followed by a share of ``filler`` (rated games, reports),
    then (``done`` set) filler alone until ``stop``."""
    http = stream.clients()
    try:
        for step in steps:
            stream.send(http, home, step)
            for extra in next(filler):
                stream.send(http, home, extra)
            time.sleep(0.02)  # a client's pace: the hosts' detectors get their cores
        done.set()
        while not stop.is_set():
            for extra in next(filler):
                stream.send(http, home, extra)
            time.sleep(0.02)
    finally:
        for client in http:
            client.close()


def run_seekers(stream: Stream, home: int, done: threading.Event) -> None:
    """Every seeker seeks a game; once the pairing passes have paired them, both sides
    of each game make one move, and the games are left for the sweepers."""
    http = stream.clients()
    try:
        for player in SEEKERS:
            body = {"player": player, "time_control": FAST}
            stream.send(http, home, Step("POST", "/seeks", body, frozenset({201}),
                                         frozenset({201, 409})))  # fmt: skip
            time.sleep(0.05)
        played: set[str] = set()
        deadline = time.monotonic() + 90
        while True:
            page = stream.send(http, home, Step("GET", "/seeks?status=all&limit=500", None,
                                                frozenset({200}), frozenset({200})))  # fmt: skip
            paired = {item["player"] for item in page["seeks"] if item["status"] == "paired"}
            for item in page["seeks"]:
                game_id = item["live_game"]
                if game_id and game_id not in played:
                    for ply, move in ((1, "e2e4"), (2, "e7e5")):
                        stream.send(http, home, Step(
                            "POST", f"/live-games/{game_id}/moves", {"ply": ply, "move": move},
                            frozenset({200}), frozenset({200}),
                        ))  # fmt: skip
                    played.add(game_id)
            if paired >= set(SEEKERS):
                break
            assert time.monotonic() < deadline, f"seekers never paired: {sorted(paired)}"
            time.sleep(0.3)
    finally:
        done.set()
        for client in http:
            client.close()


def wait_until(
    what: str, condition: Callable[[], object], seconds: float = 120, poll: float = 0.1
) -> None:
    """Poll until ``condition()`` (the deadline is a backstop that fails the test, not a
    timing assertion)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(poll)


@pytest.mark.slow  # two real servers, Stockfish, a kill
@pytest.mark.stockfish
def test_two_hosts_one_killed_mid_stream(postgres_url: str, tmp_path: Path) -> None:
    assert Path("/usr/games/stockfish").is_file(), "install Debian's stockfish (./test does)"
    started = time.monotonic()
    ledger = Ledger.create(postgres_url, "site", NOW)
    for player_id in PLAYERS + SEEKERS + LIVE:
        ledger.players.create(Player(player_id), NOW)
    token = ledger.tokens.create("writer", "two hosts", NOW)
    min_plies = DetectorRules().opening_plies + 1

    # The structured steps, dealt round to the six clients: games with moves (long
    # enough to keep a detector busy for a second or more each), live games played to
    # a draw (their moves analysed too), live games abandoned after two plies.
    structured: list[list[Step]] = [[] for _ in range(6)]
    with_moves = []
    for n, moves in enumerate(long_games(6, 30)):
        white, black = PLAYERS[n % 12], PLAYERS[(n + 5) % 12]
        structured[n % 6].append(posted(f"m{n}", white, black, 10_000 + n, moves=moves))
        with_moves.append(f"m{n}")
    played, abandoned = [f"L{n}" for n in range(3)], [f"T{n}" for n in range(4)]
    for n, game_id in enumerate(played):
        structured[n].extend(live_steps(game_id, LIVE[2 * n], LIVE[2 * n + 1], UCI, True))
    for n, game_id in enumerate(abandoned):
        steps = live_steps(game_id, LIVE[8 + 2 * n], LIVE[9 + 2 * n], UCI[:2], False)
        structured[2 + n].extend(steps)

    def filler(client: int) -> Iterator[list[Step]]:
        """Rated games without moves (this client's own ids), every fifth reported by
        White."""
        rng = random.Random(client)
        n = 0
        while True:
            white, black = rng.sample(PLAYERS, 2)
            game_id = f"c{client}-{n:04d}"
            steps = [posted(game_id, white, black, client * 1000 + n)]
            if n % 5 == 0:
                body = {"by": white, "reason": "two hosts: a player's report"}
                steps.append(Step("POST", f"/games/{game_id}/reports", body, frozenset({201}),
                                  frozenset({200, 201})))  # fmt: skip
            n += 1
            yield steps

    with contextlib.ExitStack() as stack:
        hosts = [Host(name, postgres_url, tmp_path / name, stack) for name in ("a", "b")]
        start_both(hosts, stack)
        up = time.monotonic()
        stream = Stream({"Authorization": f"Bearer {token}"}, hosts)
        stop, seekers_done = threading.Event(), threading.Event()
        done = [threading.Event() for _ in range(6)]
        threads = [
            stream.thread(run_client, stream, n % 2, structured[n], filler(n), done[n], stop)
            for n in range(6)
        ]
        threads.append(stream.thread(run_seekers, stream, 0, seekers_done))
        for thread in threads:
            thread.start()
        try:
            # Kill host a while its detector analyses a game (claimed, nothing stored),
            # once it has stored one: both detectors have been at work side by side.
            wait_until(
                "host a analysing a game after storing one",
                lambda: hosts[0].analysing() is not None and STORED.search(hosts[0].output()),
                poll=0.01,
            )
            os.killpg(hosts[0].process.pid, signal.SIGKILL)
            hosts[0].process.wait()
            killed_at = len(stream.answered) + len(stream.again)
            taken_over = hosts[0].analysing()
            assert taken_over is not None
            # The clients go on, on host b, until every structured step is sent, the
            # seekers have played, and each client sent some more after the kill.
            wait_until(
                "the stream sent after the kill",
                lambda: (
                    seekers_done.is_set()
                    and len(stream.answered) + len(stream.again) > killed_at + 60
                    and all(event.is_set() for event in done)
                ),
            )
        finally:
            stop.set()
            for thread in threads:
                thread.join(120)
        streamed = time.monotonic()
        assert not stream.failed, stream.failed
        assert not stream.wrong, stream.wrong[:5]
        assert stream.again, "the kill caught no request: nothing was sent again"
        again_games = Counter(status for step, status, _ in stream.again if step.game)

        # Host b alone: the sweepers end the abandoned and the seekers' games, the
        # detector analyses every game with moves, the killed host's one included.
        def settled() -> bool:
            with ledger.engine.connect() as conn:
                still = conn.execute(
                    select(live_games.c.id).where(live_games.c.status == "open")
                ).all()
            return not still and ledger.analyses.counts(min_plies).pending == 0

        wait_until("every live game ended, every game analysed", settled)
        survivor = hosts[1].output()
        killed = hosts[0].output()
    settled_at = time.monotonic()

    # Every game: stored once, as answered the first time; sent again, 200 (the killed
    # host had stored it) or 201 (it had not), and stored once.
    with ledger.engine.connect() as conn:
        stored = dict(conn.execute(select(games.c.id, games.c.seq)).all())
        live = {row.id: row for row in conn.execute(select(live_games)).all()}
        seek_rows = conn.execute(select(seeks)).all()
        report_rows = conn.execute(select(reports.c.game_id, reports.c.by)).all()
        cases = set(conn.execute(select(reviews.c.game_id)).scalars())
        analysed = conn.execute(select(analyses.c.game_id)).scalars().all()
    sent_games = {}
    for step, _, answer in stream.answered + stream.again:
        if step.game is not None:
            sent_games[step.game] = answer
            assert stored[step.game] == answer["seq"], step.game
    for step, status, _ in stream.again:
        if step.game is not None:
            assert status in (200, 201) and step.game in stored
    assert set(stored) == set(sent_games) | set(live) - {
        game_id for game_id, row in live.items() if row.status != "ended"
    }

    # No seek paired twice: each paired seek names one live game, each of those games
    # is named by exactly its two seeks, of two players; every seeker played.
    paired = [row for row in seek_rows if row.status == "paired"]
    by_game = Counter(row.live_game_id for row in paired)
    assert by_game and set(by_game.values()) == {2}
    for game_id in by_game:
        first, second = (int(part) for part in game_id.removeprefix("seek-").split("-"))
        named = {row.id: row.player_id for row in paired if row.live_game_id == game_id}
        assert set(named) == {first, second} and len(set(named.values())) == 2
    assert {row.player_id for row in paired} == set(SEEKERS)

    # The sweepers: every abandoned live game and every seekers' game ended once, on
    # time, by a sweeper (at most one host's log says it ended it).
    swept = Counter(SWEPT.findall(survivor) + SWEPT.findall(killed))
    for game_id in [*abandoned, *by_game]:
        row = live[game_id]
        assert (row.status, row.ended_by) == ("ended", "sweeper"), game_id
        assert (row.result, row.termination) == ("0-1", "timeout"), game_id  # White's clock
        assert swept[game_id.encode()] <= 1, game_id
        assert game_id in stored
    assert sum(swept.values()) >= len(abandoned) + len(by_game) - 1
    for game_id in played:
        assert (live[game_id].status, live[game_id].result) == ("ended", "1/2-1/2")

    # The detector: every game with moves analysed once, by one host (the game the
    # killed host was analysing: by host b after it); no report twice.
    expected = set(with_moves) | set(played)
    assert sorted(analysed) == sorted(expected)
    on_b = Counter(ANALYSING.findall(survivor))
    on_a = Counter(ANALYSING.findall(killed))
    assert max(on_b.values()) == 1 and max(on_a.values()) == 1
    assert set(on_a) & set(on_b) == {taken_over.encode()}
    assert {g.decode() for g in set(on_a) | set(on_b)} == expected
    assert max(Counter(report_rows).values()) == 1
    reported = {game_id for game_id, by in report_rows}
    assert cases == reported
    player_reports = {game_id for game_id, by in report_rows if not by.startswith("detector")}
    assert player_reports == {
        step.path.split("/")[2] for step, _, _ in stream.answered + stream.again
        if step.path.endswith("/reports")
    }  # fmt: skip

    # The survivor answered everything without an error of its own.
    assert b"Traceback" not in survivor and b'" 500' not in survivor
    result = CliRunner().invoke(main, ["verify", "--db", postgres_url])
    assert result.exit_code == 0, result.output
    ledger.dispose()
    print(
        f"\ntwo hosts: up in {up - started:.1f} s, stream {streamed - up:.1f} s "
        f"({len(stream.answered)} answered, {len(stream.again)} sent again, "
        f"games among them: {again_games[200]} stored by the killed host, "
        f"{again_games[201]} not), settled {settled_at - streamed:.1f} s; "
        f"{len(stored)} games, {len(analysed)} analysed, host b took over {taken_over}"
    )
