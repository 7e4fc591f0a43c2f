"""The live games' sweeper: several sweepers at once end each expired game exactly once
(two ledgers, i.e. two connection pools like two workers, on SQLite and on a real
PostgreSQL; and two ``chessrate sweep`` processes on PostgreSQL), and ``chessrate
sweep`` from the command line."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections import Counter
from datetime import timedelta

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from chessrate.cli import main
from chessrate.ledger import Ledger
from chessrate.ledger.schema import games
from chessrate.systems.site_live import LiveGame, Ply
from chessrate.timecontrol import parse_time_control

from .helpers import NOW, ledger_with

PLAYERS = [f"p{n:02d}" for n in range(40)]
GAMES = 240


def open_expiring_games(ledger: Ledger, count: int) -> list[str]:
    """``count`` games in every kind of deadline, all past due a week later."""
    live = ledger.live
    controls = ["60+0", "600+0", "-", "2d"]
    ids = []
    for n in range(count):
        white, black = PLAYERS[n % len(PLAYERS)], PLAYERS[(n * 7 + 1) % len(PLAYERS)]
        if white == black:
            black = PLAYERS[(n + 1) % len(PLAYERS)]
        game = LiveGame(f"L{n:04d}", white, black, NOW, parse_time_control(controls[n % 4]))
        live.open(game, NOW)
        for ply in range(1, n % 5 + 1):  # 0 to 4 plies: aborts, losses on time, expiry
            live.move(game.id, ply, None, None, NOW + timedelta(seconds=ply))
        ids.append(game.id)
    return ids


def ended_once(ledger: Ledger, ids: list[str]) -> None:
    with ledger.reader.connect() as conn:
        stored = conn.execute(select(func.count()).select_from(games)).scalar_one()
        refs = Counter(conn.execute(select(games.c.id)).scalars())  # a game's row is its event
    assert stored == len(ids)
    assert set(refs) == set(ids)
    assert max(refs.values()) == 1  # one game event per live game: ended once
    assert all(v.status.value == "ended" for v in ledger.live.list(limit=len(ids) + 1))
    assert ledger.verify() == []


@pytest.mark.slow  # two sweeping processes
def test_two_sweepers_at_once_end_each_expired_game_once(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", *PLAYERS)
    ids = open_expiring_games(ledger, GAMES)
    later = NOW + timedelta(days=8)
    workers = [Ledger(ledger_url), Ledger(ledger_url)]
    barrier = threading.Barrier(len(workers))
    ended: list[list[str]] = [[] for _ in workers]

    def run(index: int) -> None:
        barrier.wait()
        report = workers[index].live.sweep(later)
        assert report.failed == []
        ended[index] = [view.game.id for view in report.ended]

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(workers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for worker in workers:
        worker.dispose()
    first, second = ended
    print(f"sweepers ended {len(first)} and {len(second)} games")
    assert not set(first) & set(second)  # no game ended by both
    assert sorted(first + second) == ids  # and every game ended
    ended_once(ledger, ids)
    assert ledger.live.sweep(later).ended == []
    ledger.dispose()


def test_two_sweep_commands_at_once_on_postgresql(postgres_url: str) -> None:
    ledger = ledger_with(postgres_url, "site", *PLAYERS)
    ids = open_expiring_games(ledger, GAMES)
    command = [sys.executable, "-m", "chessrate", "sweep", "--db", postgres_url,
               "--now", (NOW + timedelta(days=8)).strftime("%Y-%m-%dT%H:%M:%S")]  # fmt: skip
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env) for _ in range(2)]  # fmt: skip
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    lines = [line.split("\t")[0] for out, _ in outputs for line in out.splitlines()]
    assert sorted(lines) == ids  # every game listed once across both commands
    ended_once(ledger, ids)
    ledger.dispose()


def test_sweep_command_ends_due_games_and_reports_them(tmp_path: object) -> None:
    url = f"sqlite:///{tmp_path}/live.db"
    ledger = ledger_with(url, "site", "ana", "ben")
    live = ledger.live
    live.open(LiveGame("early", "ana", "ben", NOW, parse_time_control("-")), NOW)
    live.open(LiveGame("fresh", "ana", "ben", NOW, parse_time_control("600+5")), NOW)
    live.move("early", 1, "e4", "ana", NOW + timedelta(minutes=1))
    ledger.dispose()

    at = (NOW + timedelta(seconds=90)).strftime("%Y-%m-%dT%H:%M:%S")
    result = CliRunner().invoke(main, ["sweep", "--db", url, "--now", at])
    assert result.exit_code == 0, result.output
    assert result.stdout.split("\t")[:4] == ["fresh", "*", "timeout", "void"]
    assert "1 live games ended" in result.stderr

    at = (NOW + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%S")
    result = CliRunner().invoke(main, ["sweep", "--db", url, "--now", at])
    assert result.stdout.split("\t")[:4] == ["early", "*", "timeout", "void"]
    again = CliRunner().invoke(main, ["sweep", "--db", url, "--now", at])
    assert again.stdout == ""
    assert "0 live games ended" in again.stderr


def test_sweep_uses_the_stored_plies(tmp_path: object) -> None:
    """A move recorded at the deadline's edge keeps the game alive: the sweeper reads the
    deadline from the stored plies, not from a stale ``deadline_at``."""
    url = f"sqlite:///{tmp_path}/live.db"
    ledger = ledger_with(url, "site", "ana", "ben")
    live = ledger.live
    live.open(LiveGame("g", "ana", "ben", NOW, parse_time_control("180+0")), NOW)
    live.move("g", 1, None, None, NOW + timedelta(seconds=29))
    assert live.sweep(NOW + timedelta(seconds=31)).ended == []
    view = live.get("g")
    assert view.game.plies == (Ply(1, NOW + timedelta(seconds=29)),)
    assert view.deadline is not None
    assert view.deadline.at == NOW + timedelta(seconds=59)
    ledger.dispose()
