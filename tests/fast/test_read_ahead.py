"""rate_file reads a CSV or JSON Lines games file for the compiled replay in a thread while
the players and annulments files are read: what it raises and reports is what reading the
files one after the other raised and reported (the players' and annulments' errors first,
the refused games reported in file order, nothing reported when another file fails)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chessrate import InvalidInput, InvalidRecord, rate_file

GAMES = """id,played_at,white,black,result,rated,time_control
g1,2026-03-01T10:00:00Z,ann,bob,1-0,true,5m+3s
g2,2026-03-01T10:01:00Z,ann,bob,2-0,true,5m+3s
g3,2026-03-01T10:02:00Z,bob,ann,0-1,true,5m+3s
g4,2026-02-30T10:03:00Z,bob,ann,0-1,true,5m+3s
"""


def files(tmp_path: Path, players: str) -> tuple[Path, Path]:
    games = tmp_path / "games.csv"
    games.write_text(GAMES, encoding="utf-8")
    path = tmp_path / "players.csv"
    path.write_text(players, encoding="utf-8")
    return games, path


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_refused_games_are_reported_in_file_order(engine: str, tmp_path: Path) -> None:
    games, players = files(tmp_path, "id,name\nann,Ann\nbob,Bob\n")
    reported: list[InvalidRecord] = []
    rated = rate_file(games, "site", players=players, engine=engine, on_invalid=reported.append)
    assert [error.where for error in reported] == [f"{games}:3", f"{games}:5"]
    assert rated.skipped == reported and rated.games == 2
    with pytest.raises(InvalidRecord, match=r"games.csv:3: result"):
        rate_file(games, "site", players=players, engine=engine)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_bad_players_file_is_the_error_and_no_game_is_reported(
    engine: str, tmp_path: Path
) -> None:
    games, players = files(tmp_path, "id,name,bot\nann,Ann,maybe\nbob,Bob,\n")
    reported: list[InvalidRecord] = []
    with pytest.raises(InvalidRecord, match=r"players.csv:2: bot"):
        rate_file(games, "site", players=players, engine=engine, on_invalid=reported.append)
    assert reported == []
    duplicate = tmp_path / "twice.csv"
    duplicate.write_text("id\nann\nann\n", encoding="utf-8")
    with pytest.raises(InvalidRecord, match=r"twice.csv:3: id: duplicate player"):
        rate_file(games, "site", players=duplicate, engine=engine)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_missing_annulments_file_is_the_error(engine: str, tmp_path: Path) -> None:
    games, players = files(tmp_path, "id\nann\nbob\n")
    with pytest.raises(InvalidInput, match="cannot read"):
        rate_file(games, "site", players=players, engine=engine,
                  annulments=tmp_path / "absent.txt")  # fmt: skip


def test_an_unreadable_games_file_is_refused_as_before(tmp_path: Path) -> None:
    _, players = files(tmp_path, "id\nann\nbob\n")
    with pytest.raises(InvalidInput, match=r"absent\.csv: cannot read"):
        rate_file(tmp_path / "absent.csv", "site", players=players, engine="compiled")


def test_threads_switch_often_while_the_file_is_read_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The players are read while the games file is read ahead: Python switches threads
    every half millisecond meanwhile (the reader waits for the GIL between its scans),
    and the interval is put back when the read-ahead ends, also when it fails. (The
    reader here waits until the players are read: a file this small is read at once.)"""
    import sys
    import threading

    import chessrate.rating
    from chessrate.rating import READ_AHEAD_SWITCH_SECONDS
    from chessrate.records import Player

    games, _ = files(tmp_path, "id\n")
    seen: list[float] = []
    players_read = threading.Event()
    read = chessrate.rating.read_compiled_batch

    def slow_read(*args: Any) -> Any:
        assert players_read.wait(30)
        return read(*args)

    monkeypatch.setattr(chessrate.rating, "read_compiled_batch", slow_read)

    def players() -> Iterator[Player]:
        seen.append(sys.getswitchinterval())
        players_read.set()
        yield from (Player("ann"), Player("bob"))

    before = sys.getswitchinterval()
    rate_file(games, "site", players=players(), engine="compiled", on_invalid=lambda e: None)
    assert seen == [READ_AHEAD_SWITCH_SECONDS] and before > READ_AHEAD_SWITCH_SECONDS
    assert sys.getswitchinterval() == before
    players_read.clear()
    with pytest.raises(InvalidRecord):
        rate_file(games, "site", players=players(), engine="compiled")
    assert seen[-1] == READ_AHEAD_SWITCH_SECONDS
    assert sys.getswitchinterval() == before
