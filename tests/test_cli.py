"""The ``chessrate rate`` command: lists, files out, errors that name the record."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from chessrate.cli import main

PLAYERS = """id,name,membership_until,rating_blitz,games_blitz,rating_bullet,games_bullet
alice,Alice,2026-12-31,1799.60,40,,
bob,Bob,2026-12-31,2340.00,40,1500.00,50
carol,Carol,2026-12-31,,,,
"""

GAMES = [
    {"id": "g1", "played_at": "2026-01-02T10:00:00Z", "white": "alice", "black": "bob",
     "result": "1-0", "time_control": "300+3"},
    {"id": "g2", "played_at": "2026-01-03T10:00:00Z", "white": "carol", "black": "bob",
     "result": "1/2-1/2", "time_control": "5m+3s"},
    {"id": "g3", "played_at": "2026-01-04T10:00:00Z", "white": "carol", "black": "alice",
     "result": "0-1", "time_control": "420+5", "rated": False},
]  # fmt: skip


def write_inputs(tmp_path: Path, games: list[dict[str, object]] | None = None) -> tuple[Path, Path]:
    games_path = tmp_path / "games.jsonl"
    games_path.write_text("".join(json.dumps(g) + "\n" for g in games or GAMES))
    players_path = tmp_path / "players.csv"
    players_path.write_text(PLAYERS)
    return games_path, players_path


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def test_rate_prints_one_list_per_pool(tmp_path: Path) -> None:
    games, players = write_inputs(tmp_path)
    code, out, err = invoke("rate", games, "--system", "arena", "--players", players)
    assert code == 0, err
    assert "arena · rapid: no players yet" in out
    assert "arena · blitz (3 players)" in out
    assert "arena · bullet (1 players)" in out
    # alice 1799.60 beats bob 2340.00: D 540 -> PD 0.03, +0.97 x 20 = +19.40 -> 1819.00
    assert "Alice (alice)" in out
    assert "1819" in out
    assert "3 games from" in err
    assert "2 rated, 1 unrated, 0 void" in err


def test_rate_out_json_is_the_spec_rating_list(tmp_path: Path) -> None:
    games, players = write_inputs(tmp_path)
    out_path = tmp_path / "r.json"
    code, _, err = invoke(
        "rate", games, "--system", "arena", "--players", players, "--out", out_path
    )
    assert code == 0, err
    rows = json.loads(out_path.read_text())
    assert rows == [
        {"player": "bob", "pool": "blitz", "rating": "2320.60", "display": "2321",
         "state": "rated", "games": 41},
        {"player": "alice", "pool": "blitz", "rating": "1819.00", "display": "1819",
         "state": "rated", "games": 41},
        {"player": "carol", "pool": "blitz", "rating": None, "display": "1500",
         "state": "qualifying", "games": 1},
        {"player": "bob", "pool": "bullet", "rating": "1500.00", "display": "1500",
         "state": "rated", "games": 50},
    ]  # fmt: skip


def test_rate_out_csv_has_the_same_columns(tmp_path: Path) -> None:
    games, players = write_inputs(tmp_path)
    out_path = tmp_path / "r.csv"
    code, _, err = invoke(
        "rate", games, "--system", "arena", "--players", players, "--out", out_path
    )
    assert code == 0, err
    rows = list(csv.DictReader(out_path.open()))
    assert list(rows[0]) == ["player", "pool", "rating", "display", "state", "games"]
    assert rows[2] == {"player": "carol", "pool": "blitz", "rating": "", "display": "1500",
                       "state": "qualifying", "games": "1"}  # fmt: skip


def test_rate_history_explains_each_change(tmp_path: Path) -> None:
    games, players = write_inputs(tmp_path)
    history = tmp_path / "h.csv"
    code, _, err = invoke(
        "rate", games, "--system", "arena", "--players", players, "--history", history
    )
    assert code == 0, err
    rows = list(csv.DictReader(history.open()))
    assert [(r["game"], r["player"], r["rule"]) for r in rows] == [
        ("g1", "alice", "arena A7"),
        ("g1", "bob", "arena A7"),
        ("g2", "carol", "arena A6"),
    ]
    alice = rows[0]
    assert (alice["k"], alice["d"], alice["pd"], alice["delta"], alice["change"]) == (
        "20", "540.40", "0.03", "0.97", "19.40",
    )  # fmt: skip
    assert (alice["before"], alice["after"]) == ("1799.60", "1819.00")
    assert "qualifying game 1 of 5" in rows[2]["note"]


def test_rate_history_jsonl(tmp_path: Path) -> None:
    games, players = write_inputs(tmp_path)
    history = tmp_path / "h.jsonl"
    code, _, err = invoke(
        "rate", games, "--system", "arena", "--players", players, "--history", history
    )
    assert code == 0, err
    rows = [json.loads(line) for line in history.read_text().splitlines()]
    assert rows[1]["change"] == "-19.40"


def test_malformed_record_exits_2_naming_line_and_field_and_writes_nothing(
    tmp_path: Path,
) -> None:
    games, players = write_inputs(tmp_path)
    lines = games.read_text().splitlines()
    lines[1] = lines[1].replace('"1/2-1/2"', '"2-0"')
    games.write_text("\n".join(lines) + "\n")
    out_path, history = tmp_path / "r.json", tmp_path / "h.csv"
    code, out, err = invoke(
        "rate", games, "--system", "arena", "--players", players,
        "--out", out_path, "--history", history,
    )  # fmt: skip
    assert code == 2
    assert f"{games}:2: result: '2-0' is not one of" in err
    assert out == ""
    assert not out_path.exists()
    assert not history.exists()
    assert set(tmp_path.iterdir()) == {games, players}  # no temporary files left either


def test_invalid_json_line_exits_2(tmp_path: Path) -> None:
    games, players = write_inputs(tmp_path)
    games.write_text(games.read_text() + '{"id": "g4", \n')
    code, _, err = invoke("rate", games, "--system", "arena", "--players", players)
    assert code == 2
    assert f"{games}:4: record: not valid JSON" in err


def test_refused_by_the_system_exits_2_naming_the_line(tmp_path: Path) -> None:
    bad = [*GAMES, {"id": "g4", "played_at": "2026-01-05T10:00:00Z", "white": "alice",
                    "black": "bob", "result": "1-0", "time_control": "420+0"}]  # fmt: skip
    games, players = write_inputs(tmp_path, bad)
    out_path = tmp_path / "r.json"
    code, _, err = invoke(
        "rate", games, "--system", "arena", "--players", players, "--out", out_path
    )
    assert code == 2
    assert f"{games}:4: time_control: 7m is not an official arena control" in err
    assert not out_path.exists()


def test_skip_invalid_rates_the_rest_and_lists_the_skipped(tmp_path: Path) -> None:
    bad = [
        *GAMES,
        {"id": "g4", "played_at": "2026-01-05T10:00:00Z", "white": "alice", "black": "bob",
         "result": "1-0", "time_control": "420+0"},
        {"id": "g5", "white": "alice", "black": "bob", "result": "1-0"},
    ]  # fmt: skip
    games, players = write_inputs(tmp_path, bad)
    out_path = tmp_path / "r.json"
    code, _, err = invoke(
        "rate", games, "--system", "arena", "--players", players, "--out", out_path,
        "--skip-invalid",
    )  # fmt: skip
    assert code == 0, err
    assert f"skipped {games}:5: played_at: is required" in err
    assert f"skipped {games}:4: time_control:" in err
    assert "2 invalid records skipped" in err
    assert json.loads(out_path.read_text())[0]["rating"] == "2320.60"


def test_csv_games_are_read_like_json_lines(tmp_path: Path) -> None:
    _, players = write_inputs(tmp_path)
    games = tmp_path / "games.csv"
    games.write_text(
        "id,played_at,white,black,result,rated,time_control,termination\n"
        "g1,2026-01-02T10:00:00Z,alice,bob,1-0,true,300+3,\n"
        "g2,2026-01-03T10:00:00Z,alice,bob,0-1,yes,300+3,forfeit\n"
    )
    out_path = tmp_path / "r.json"
    code, _, err = invoke(
        "rate", games, "--system", "arena", "--players", players, "--out", out_path
    )
    assert code == 0, err
    assert json.loads(out_path.read_text())[1]["rating"] == "1819.00"


def test_unknown_extension_needs_format(tmp_path: Path) -> None:
    games, players = write_inputs(tmp_path)
    renamed = games.rename(tmp_path / "games.txt")
    code, _, err = invoke("rate", renamed, "--system", "arena", "--players", players)
    assert code == 2
    assert "--format" in err
    code, _, err = invoke(
        "rate", renamed, "--system", "arena", "--players", players, "--format", "jsonl"
    )
    assert code == 0, err


def test_invalid_players_file_exits_2(tmp_path: Path) -> None:
    games, players = write_inputs(tmp_path)
    players.write_text(PLAYERS.replace("2340.00,40", "2340.00,"))
    code, _, err = invoke("rate", games, "--system", "arena", "--players", players)
    assert code == 2
    assert f"{players}:3: games_blitz: is required with rating_blitz" in err


@pytest.mark.parametrize("command", [[], ["rate"]])
def test_every_command_has_help(command: list[str]) -> None:
    code, out, _ = invoke(*command, "--help")
    assert code == 0
    assert "Usage:" in out


def test_version() -> None:
    code, out, _ = invoke("--version")
    assert code == 0
    assert "chessrate" in out
