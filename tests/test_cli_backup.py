"""``chessrate backup``: an online copy of a SQLite ledger, taken while another
connection keeps writing games, restores and passes ``chessrate verify``."""

from __future__ import annotations

import stat
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner

from chessrate import GameRecord, Player
from chessrate.cli import main
from chessrate.ledger import Ledger
from chessrate.records import Result
from chessrate.timecontrol import parse_written_time_control

NOW = datetime(2026, 5, 1, tzinfo=UTC)
BLITZ = parse_written_time_control("5m+3s")


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_a_backup_taken_while_games_are_written_verifies(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    ledger = Ledger.create(url, "site", NOW)
    for name in ("ann", "ben", "cy"):
        ledger.players.create(Player(name), NOW)
    ledger.dispose()

    writer = Ledger(url)  # the service's writes: another connection, another thread
    written = 0
    enough = threading.Event()
    stop = threading.Event()
    pairs = [("ann", "ben"), ("ben", "cy"), ("cy", "ann")]

    def write() -> None:
        nonlocal written
        while not stop.is_set() or written < 20:
            white, black = pairs[written % 3]
            record = GameRecord(
                id=f"g{written}", played_at=NOW + timedelta(minutes=written), white=white,
                black=black, result=Result.WHITE_WINS, time_control=BLITZ, plies=40,
            )  # fmt: skip
            writer.games.submit(record, NOW)
            written += 1
            if written == 10:
                enough.set()

    thread = threading.Thread(target=write)
    thread.start()
    try:
        assert enough.wait(60)
        copy = tmp_path / "copy" / "ledger-copy.db"
        copy.parent.mkdir()
        code, out, err = invoke("backup", copy, "--db", url)
    finally:
        stop.set()
        thread.join()
        writer.dispose()
    assert code == 0, err
    assert out.startswith(f"backed up sqlite:///{tmp_path / 'ledger.db'} to {copy} (")
    assert f"chessrate verify --db {copy}" in err
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert [p.name for p in copy.parent.iterdir()] == ["ledger-copy.db"]  # nothing partial

    code, out, err = invoke("verify", "--db", copy)
    assert code == 0, out + err
    restored = Ledger(f"sqlite:///{copy}")
    games = restored.counts()["games"]
    restored.dispose()
    assert 10 <= games <= written  # the ledger at one moment of the writes
    code, out, _ = invoke("verify", "--db", url)
    assert code == 0 and f"3 players, {written} games" in out


def test_a_backup_refuses_an_existing_file_and_postgresql(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    Ledger.create(url, "site", NOW).dispose()
    taken = tmp_path / "taken.db"
    taken.write_bytes(b"keep me")
    code, _, err = invoke("backup", taken, "--db", url)
    assert (code, err) == (2, f"error: {taken}: exists; back up to a new file\n")
    assert taken.read_bytes() == b"keep me"
    code, _, err = invoke("backup", tmp_path / "pg.dump", "--db", "postgresql://nobody@/nowhere")
    assert code == 2
    assert "back up a PostgreSQL ledger with pg_dump" in err
    assert not (tmp_path / "pg.dump").exists()
