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

GAMES: list[dict[str, object]] = [
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
    bad: list[dict[str, object]] = [
        *GAMES, {"id": "g4", "played_at": "2026-01-05T10:00:00Z", "white": "alice",
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
    bad: list[dict[str, object]] = [
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


@pytest.mark.parametrize("command", [[], ["rate"], ["evaluate"]])
def test_every_command_has_help(command: list[str]) -> None:
    code, out, _ = invoke(*command, "--help")
    assert code == 0
    assert "Usage:" in out


def test_version() -> None:
    code, out, _ = invoke("--version")
    assert code == 0
    assert "chessrate" in out


SITE_PLAYERS = "id,name,bot,bot_rating\nbot1,Bot One,true,1800\n"
SITE_GAMES = [
    {"id": "s1", "played_at": "2026-01-01T10:00:00Z", "white": "ann", "black": "ben",
     "result": "1-0", "time_control": "5m+3s", "plies": 40},
    {"id": "s2", "played_at": "2026-01-01T11:00:00Z", "white": "ann", "black": "bot1",
     "result": "0-1", "time_control": "10m", "plies": 40},
    {"id": "s3", "played_at": "2026-01-01T12:00:00Z", "white": "ann", "black": "ben",
     "result": "1-0", "time_control": "2m+1s", "plies": 1, "termination": "resign"},
]  # fmt: skip


def write_site(tmp_path: Path) -> tuple[Path, Path]:
    games = tmp_path / "site.jsonl"
    games.write_text("".join(json.dumps(g) + "\n" for g in SITE_GAMES))
    players = tmp_path / "site_players.csv"
    players.write_text(SITE_PLAYERS)
    return games, players


def test_rate_site_lists_the_site_elo_and_every_type(tmp_path: Path) -> None:
    games, players = write_site(tmp_path)
    out_path = tmp_path / "r.json"
    code, out, err = invoke(
        "rate", games, "--system", "site", "--players", players, "--out", out_path
    )
    assert code == 0, err
    assert "site · site Elo (2 players)" in out
    for pool in ("bullet", "rapid", "classical", "unclocked", "correspondence", "otb"):
        assert f"site · {pool}: no players yet" in out
    assert "site · blitz (2 players)" in out
    assert "site · bots (1 players)" in out
    assert "3 games from" in err
    assert "2 rated, 0 unrated, 1 void" in err
    rows = {(r["player"], r["pool"]): r for r in json.loads(out_path.read_text())}
    # s1: blitz 1516.00 / 1484.00 and site Elo 1512.00 / 1488.00 (the spec's site example);
    # s2: ann (site 1512.00, 1 game) loses to the 1800 bot at weight 0.5, K 32:
    # expected = 1 - 1/(1 + 10^(288/400)) = 0.160049 -> 32 x 0.5 x -0.160049 = -2.56
    assert rows[("ann", "blitz")]["rating"] == "1516.00"
    assert rows[("ben", "blitz")]["rating"] == "1484.00"
    assert rows[("ann", "site")] == {"player": "ann", "pool": "site", "rating": "1509.44",
                                     "display": "1509?", "state": "rated", "games": 2}  # fmt: skip
    assert rows[("ben", "site")]["rating"] == "1488.00"
    assert ("bot1", "bots") not in rows
    assert all(r["player"] != "bot1" for r in rows.values())


def test_rate_annul_reverses_the_game_and_reports_it(tmp_path: Path) -> None:
    games, players = write_site(tmp_path)
    annul = tmp_path / "annul.txt"
    annul.write_text("# game id, then the reason\ns1 engine assistance confirmed\n")
    out_path, history = tmp_path / "r.json", tmp_path / "h.csv"
    code, out, err = invoke(
        "rate", games, "--system", "site", "--players", players, "--annul", annul,
        "--annulled-at", "2026-06-01", "--out", out_path, "--history", history,
    )  # fmt: skip
    assert code == 0, err
    assert (
        "annulled s1 (engine assistance confirmed): "
        "ann blitz -16.00, ben blitz +16.00, ann site -12.00, ben site +12.00"
    ) in out
    assert "1 rated, 0 unrated, 2 void (1 annulled)" in err
    rows = {(r["player"], r["pool"]): r for r in json.loads(out_path.read_text())}
    assert rows[("ann", "site")]["rating"] == "1497.44"
    assert rows[("ann", "site")]["games"] == 1
    assert ("ben", "site") not in rows  # back to no rated games
    assert ("ann", "blitz") not in rows
    s10 = [r for r in csv.DictReader(history.open()) if r["rule"] == "site S10"]
    assert {r["played_at"] for r in s10} == {"2026-06-01T00:00:00Z"}
    assert [(r["player"], r["pool"], r["change"]) for r in s10] == [
        ("ann", "blitz", "-16.00"),
        ("ben", "blitz", "16.00"),
        ("ann", "site", "-12.00"),
        ("ben", "site", "12.00"),
    ]


def test_rate_annul_unknown_game_exits_2_naming_the_line(tmp_path: Path) -> None:
    games, players = write_site(tmp_path)
    annul = tmp_path / "annul.txt"
    annul.write_text("s1 confirmed\nnope\n")
    out_path = tmp_path / "r.json"
    code, _, err = invoke(
        "rate", games, "--system", "site", "--players", players, "--annul", annul,
        "--out", out_path,
    )  # fmt: skip
    assert code == 2
    assert f"{annul}:2: id: nope: no such game to annul" in err
    assert not out_path.exists()


def test_rate_annul_is_refused_by_systems_without_annulment(tmp_path: Path) -> None:
    games, players = write_inputs(tmp_path)
    annul = tmp_path / "annul.txt"
    annul.write_text("g1\n")
    code, _, err = invoke(
        "rate", games, "--system", "arena", "--players", players, "--annul", annul
    )
    assert code == 2
    assert "the arena regulation has no fair-play annulment" in err


def test_rate_corr_displays_provisional_ratings(tmp_path: Path) -> None:
    games = tmp_path / "corr.jsonl"
    games.write_text(
        json.dumps({"id": "c1", "played_at": "2026-01-01T10:00:00Z", "white": "a",
                    "black": "b", "result": "1-0", "time_control": "3d"}) + "\n"
    )  # fmt: skip
    out_path = tmp_path / "r.csv"
    code, out, err = invoke("rate", games, "--system", "corr", "--out", out_path)
    assert code == 0, err
    assert "1500P (1)" in out
    assert "1100P (1)" in out
    rows = list(csv.DictReader(out_path.open()))
    assert rows == [
        {"player": "a", "pool": "corr", "rating": "1500.00", "display": "1500P (1)",
         "state": "provisional", "games": "1"},
        {"player": "b", "pool": "corr", "rating": "1100.00", "display": "1100P (1)",
         "state": "provisional", "games": "1"},
    ]  # fmt: skip


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_rate_prints_the_top_of_each_pool_and_says_how_many_more(tmp_path: Path) -> None:
    """rate prints 20 entries a pool by default, --top N of them, --all every one; a line
    says how many more there are and where the whole list is."""
    args: list[str | Path] = [EXAMPLES / "corr_games.jsonl", "--system", "corr",
            "--players", EXAMPLES / "corr_players.csv"]  # fmt: skip
    code, everything, err = invoke("rate", *args, "--all")
    assert code == 0, err
    assert "more in" not in everything
    size = int(everything.split("corr · corr (")[1].split(" players)")[0])
    assert size > 20
    listed = [line for line in everything.splitlines()[2:] if line.strip()]
    assert len(listed) == size

    code, default, _ = invoke("rate", *args)
    assert [line for line in default.splitlines()[2:22]] == listed[:20]
    assert (
        default.splitlines()[22]
        == f"… {size - 20:,} more in corr: --all prints it, --out writes it"
    )
    code, three, _ = invoke("rate", *args, "--top", "3", "--out", tmp_path / "all.json")
    assert [line.split() for line in three.splitlines()[2:5]] == [
        line.split() for line in listed[:3]
    ]
    assert (
        three.splitlines()[5]
        == f"… {size - 3:,} more in corr: the whole list is in {tmp_path / 'all.json'}"
    )
    assert len(json.loads((tmp_path / "all.json").read_text(encoding="utf-8"))) == size


def test_rate_prints_plain_text_when_stdout_is_not_a_terminal(tmp_path: Path) -> None:
    """Piped or redirected, the lists are aligned plain text: a title line, a header
    and one line per entry, without rich's box drawing."""
    games, players = write_inputs(tmp_path)
    code, out, err = invoke("rate", games, "--system", "arena", "--players", players)
    assert code == 0, err
    assert not set("┃│┏━┡╇") & set(out)
    lines = out.splitlines()
    at = lines.index("arena · blitz (3 players)")
    assert lines[at + 1].split() == ["#", "player", "rating", "state", "games"]
    assert lines[at + 2].split() == ["1", "Bob", "(bob)", "2321", "rated", "41"]
