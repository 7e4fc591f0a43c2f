"""The ledger commands (init, serve, token create, verify, import, export) through
click's runner, on SQLite and on PostgreSQL (``--db`` with the fixture's URL)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import update

from chessrate.cli import common as cli_common
from chessrate.cli import ledger as cli_ledger
from chessrate.cli import main
from chessrate.cli import moderation as cli_moderation
from chessrate.ledger import Ledger, RatingView, database_url
from chessrate.ledger.schema import players as players_table
from chessrate.ledger.schema import ratings
from chessrate.ledger.tokens import ROLES
from chessrate.records import GameRecord, Player
from chessrate.systems import REGISTRY
from tests.ledger.helpers import copy_of_site_sample

EXAMPLES = Path(__file__).parent.parent / "examples"
SITE = (
    EXAMPLES / "site_games.jsonl", EXAMPLES / "site_players.csv", EXAMPLES / "site_annulments.txt"
)  # fmt: skip

GAMES = [
    {"id": "g1", "played_at": "2026-01-02T10:00:00Z", "white": "ana", "black": "ben",
     "result": "1-0", "time_control": "10m", "plies": 40},
    {"id": "g2", "played_at": "2026-01-02T11:00:00Z", "white": "ben", "black": "cleo",
     "result": "1/2-1/2", "time_control": "3m+2s", "plies": 60},
    {"id": "g3", "played_at": "2026-01-02T12:00:00Z", "white": "cleo", "black": "ana",
     "result": "0-1", "time_control": "10m", "plies": 50},
]  # fmt: skip


def invoke(*args: str | Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args], env=env)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def write_games(path: Path, games: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(g) + "\n" for g in games), encoding="utf-8")
    return path


def boards(url: str) -> dict[str, list[RatingView]]:
    ledger = Ledger(url)
    try:
        return {
            pool: ledger.boards.leaderboard(pool, limit=10_000)[0] for pool in ledger.system.pools
        }
    finally:
        ledger.dispose()


def counts(url: str) -> dict[str, int]:
    ledger = Ledger(url)
    try:
        return ledger.counts()
    finally:
        ledger.dispose()


@pytest.fixture
def site_ledger(request: pytest.FixtureRequest, ledger_url: str) -> str:
    """A site ledger with the sample loaded (a copy: see tests/ledger/helpers.py)."""
    return copy_of_site_sample(request, ledger_url)


def second_database(request: pytest.FixtureRequest, ledger_url: str, tmp_path: Path) -> str:
    """Another empty database of the same kind as ``ledger_url``."""
    if ledger_url.startswith("sqlite"):
        return f"sqlite:///{tmp_path / 'second.db'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


# -- help ---------------------------------------------------------------------------------

COMMANDS = [["init"], ["serve"], ["token"], ["token", "create"], ["verify"], ["import"],
            ["export"], ["sweep"], ["pair"], ["detect"]]  # fmt: skip


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_ledger_command_has_help(command: list[str]) -> None:
    code, out, _ = invoke(*command, "--help")
    assert code == 0
    assert out.startswith(f"Usage: main {' '.join(command)} [OPTIONS]")
    assert len(out.splitlines()) > 4
    if command != ["token"]:
        assert "--db URL" in out


def test_the_cli_lists_match_the_ledger() -> None:
    assert tuple(REGISTRY) == vars(cli_ledger)["LEDGER_SYSTEMS"]
    assert cli_moderation.ROLES == ROLES


# -- init ---------------------------------------------------------------------------------


def test_init_creates_reports_and_keeps_one_system(ledger_url: str) -> None:
    code, out, err = invoke("init", "--system", "arena", "--db", ledger_url)
    assert (code, err) == (0, "")
    shown = cli_common.shown_url(database_url(ledger_url))
    assert out == f"created a ledger at {shown} (system arena)\n"
    code, out, _ = invoke("init", "--system", "arena", "--db", ledger_url)
    assert code == 0
    assert out.endswith(
        ": a ledger of system arena with 0 players and 0 games; schema up to date\n"
    )
    code, out, err = invoke("init", "--system", "site", "--db", ledger_url)
    assert code == 2
    assert err == "error: this ledger already rates by 'arena'; one system per ledger\n"
    assert Ledger(ledger_url).system_id == "arena"


def test_init_needs_a_known_system(tmp_path: Path) -> None:
    code, _, err = invoke("init", "--system", "glicko", "--db", tmp_path / "x.db")
    assert code == 2
    assert "'glicko' is not one of" in err
    assert not (tmp_path / "x.db").exists()


def test_the_database_comes_from_the_environment_else_chessrate_db(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CHESSRATE_DATABASE_URL", raising=False)
    assert invoke("init", "--system", "corr")[0] == 0
    assert (tmp_path / "chessrate.db").exists()
    elsewhere = tmp_path / "elsewhere.db"
    code, out, _ = invoke(
        "init", "--system", "site", env={"CHESSRATE_DATABASE_URL": str(elsewhere)}
    )
    assert code == 0
    assert str(elsewhere) in out
    assert Ledger(f"sqlite:///{elsewhere}").system_id == "site"
    assert Ledger(f"sqlite:///{tmp_path / 'chessrate.db'}").system_id == "corr"


def test_a_plain_path_with_url_characters_is_that_file(tmp_path: Path) -> None:
    """A ``?``, ``#`` or ``%`` in a plain path names a file, not a URL's query or
    fragment: the ledger is made, imported into and verified at that very file."""
    folder = tmp_path / "club?season=2026#a"
    folder.mkdir()
    path = folder / "50%.db"
    games = write_games(tmp_path / "g.jsonl", GAMES)
    assert invoke("init", "--system", "site", "--db", path)[0] == 0
    assert invoke("import", games, "--db", path)[0] == 0
    code, out, _ = invoke("verify", "--db", path)
    assert code == 0, out
    assert path.is_file() and sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["club?season=2026#a", "g.jsonl"]
    )
    assert database_url(str(path)).startswith("sqlite:///")


def test_commands_on_a_missing_ledger_exit_2_and_create_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    games = write_games(tmp_path / "g.jsonl", GAMES)
    for args in (["verify"], ["token", "create", "--role", "writer"], ["import", games],
                 ["export", tmp_path / "out.jsonl"]):  # fmt: skip
        code, _, err = invoke(*args, "--db", missing)
        assert code == 2, args
        assert (
            err
            == f"error: {missing}: no ledger here (create it with chessrate init --system ...)\n"
        )
    assert not missing.exists()
    assert not (tmp_path / "out.jsonl").exists()


def test_a_database_that_cannot_be_reached_exits_2(tmp_path: Path) -> None:
    code, out, err = invoke("verify", "--db", f"postgresql://nobody@/x?host={tmp_path}&port=1")
    assert (code, out) == (2, "")
    assert err.startswith("error: database: ")
    code, _, err = invoke("verify", "--db", "nosuchdialect://x")
    assert code == 2
    assert err.startswith("error: --db: not a usable database URL")


# -- token --------------------------------------------------------------------------------


def test_token_create_prints_the_token_once_and_stores_its_hash(ledger_url: str) -> None:
    invoke("init", "--system", "site", "--db", ledger_url)
    code, out, err = invoke(
        "token", "create", "--role", "moderator", "--label", "ops", "--db", ledger_url
    )
    assert code == 0
    token = out.strip()
    assert out == token + "\n"
    assert token.startswith("cr_")
    assert "moderator token (ops) created" in err
    ledger = Ledger(ledger_url)
    assert ledger.tokens.role(token) == "moderator"
    code, out, err = invoke("token", "create", "--role", "admin", "--db", ledger_url)
    assert code == 2
    assert "'admin' is not one of 'writer', 'moderator'" in err


# -- import and verify --------------------------------------------------------------------


def test_import_prints_what_it_stored(ledger_url: str) -> None:
    invoke("init", "--system", "site", "--db", ledger_url)
    code, out, err = invoke(
        "import", SITE[0], "--players", SITE[1], "--annulments", SITE[2], "--db", ledger_url
    )
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "players: 43 created, 0 updated",
        f"games: 485 stored (430 rated, 35 unrated, 20 void) from {SITE[0]}",
        "annulled: s0154, s0164, s0222",
    ]
    assert counts(ledger_url) == {"players": 43, "games": 485}
    code, out, err = invoke("verify", "--db", ledger_url)
    assert (code, err) == (0, "")
    assert out == (
        "OK: 43 players, 485 games, 3 annulments; every stored rating matches the replay to "
        "the hundredth\n"
    )


def test_importing_again_stores_nothing_new(site_ledger: str) -> None:
    before = boards(site_ledger)
    code, out, _ = invoke(
        "import", SITE[0], "--players", SITE[1], "--annulments", SITE[2], "--db", site_ledger
    )
    assert code == 0
    assert "games: 0 stored (0 rated, 0 unrated, 0 void)" in out
    assert "485 already in the ledger" in out
    assert "players:" not in out  # nothing changed, nothing updated
    assert boards(site_ledger) == before
    assert invoke("verify", "--db", site_ledger)[0] == 0


def test_a_plain_games_file_imports_and_creates_its_players(
    ledger_url: str, tmp_path: Path
) -> None:
    invoke("init", "--system", "site", "--db", ledger_url)
    games = write_games(tmp_path / "games.jsonl", GAMES)
    code, out, err = invoke("import", games, "--db", ledger_url)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "3 players named in games were not in the ledger or a players file; created with no "
        "attributes: ana, ben, cleo",
        f"games: 3 stored (3 rated, 0 unrated, 0 void) from {games}",
    ]
    assert counts(ledger_url) == {"players": 3, "games": 3}
    assert [r.player for r in boards(ledger_url)["rapid"]] == ["ana", "cleo", "ben"]


def test_a_csv_games_file_imports_with_format(ledger_url: str, tmp_path: Path) -> None:
    invoke("init", "--system", "site", "--db", ledger_url)
    path = tmp_path / "games.txt"
    path.write_text(
        "id,played_at,white,black,result,time_control,plies\n"
        "g1,2026-01-02T10:00:00Z,ana,ben,1-0,10m,40\n",
        encoding="utf-8",
    )
    code, out, _ = invoke("import", path, "--format", "csv", "--db", ledger_url)
    assert code == 0
    assert "games: 1 stored (1 rated" in out


def test_import_updates_players_that_exist(ledger_url: str, tmp_path: Path) -> None:
    invoke("init", "--system", "site", "--db", ledger_url)
    players = tmp_path / "players.csv"
    players.write_text("id,name\nana,Ana\nben,Ben\n", encoding="utf-8")
    assert invoke("import", write_games(tmp_path / "g.jsonl", GAMES[:1]), "--players", players,
                  "--db", ledger_url)[0] == 0  # fmt: skip
    players.write_text("id,name\nana,Ana Ribeiro\ndev,Dev\n", encoding="utf-8")
    code, out, _ = invoke(
        "import", write_games(tmp_path / "g.jsonl", GAMES[:1]), "--players", players,
        "--db", ledger_url,
    )  # fmt: skip
    assert code == 0
    assert "players: 1 created, 1 updated" in out
    ledger = Ledger(ledger_url)
    assert ledger.players.get("ana").player.name == "Ana Ribeiro"
    assert ledger.players.get("ben").player.name == "Ben"


def test_one_malformed_record_exits_2_naming_file_line_field_and_stores_nothing(
    ledger_url: str, tmp_path: Path
) -> None:
    invoke("init", "--system", "site", "--db", ledger_url)
    games = write_games(tmp_path / "games.jsonl", [GAMES[0], {**GAMES[1], "result": "2-0"},
                                                   GAMES[2]])  # fmt: skip
    code, out, err = invoke("import", games, "--players", SITE[1], "--db", ledger_url)
    assert (code, out) == (2, "")
    assert err == f"error: {games}:2: result: '2-0' is not one of 1-0, 0-1, 1/2-1/2, *\n"
    assert counts(ledger_url) == {"players": 0, "games": 0}


def test_a_record_the_system_refuses_exits_2_and_stores_nothing(
    ledger_url: str, tmp_path: Path
) -> None:
    invoke("init", "--system", "site", "--db", ledger_url)
    refused = {**GAMES[2]}
    del refused["time_control"]
    games = write_games(tmp_path / "games.jsonl", [GAMES[0], GAMES[1], refused])
    code, _, err = invoke("import", games, "--players", SITE[1], "--db", ledger_url)
    assert code == 2
    assert err == f"error: {games}:3: time_control: is required for a rated game (S2)\n"
    assert counts(ledger_url) == {"players": 0, "games": 0}


def test_a_game_id_used_in_the_ledger_for_another_game_exits_2(
    ledger_url: str, tmp_path: Path
) -> None:
    invoke("init", "--system", "site", "--db", ledger_url)
    assert invoke("import", write_games(tmp_path / "a.jsonl", GAMES), "--db", ledger_url)[0] == 0
    other = write_games(tmp_path / "b.jsonl", [{**GAMES[0], "id": "g4"}, {**GAMES[1], "plies": 61}])
    code, _, err = invoke("import", other, "--db", ledger_url)
    assert code == 2
    assert err == (
        f"error: {other}:2: id: game id 'g2' is already in the ledger for a different game\n"
    )
    assert counts(ledger_url) == {"players": 3, "games": 3}


def test_an_annulment_of_an_unknown_game_exits_2_and_stores_nothing(
    ledger_url: str, tmp_path: Path
) -> None:
    invoke("init", "--system", "site", "--db", ledger_url)
    annulments = tmp_path / "annul.txt"
    annulments.write_text("# fair play\ng1 engine\ng9 engine\n", encoding="utf-8")
    games = write_games(tmp_path / "games.jsonl", GAMES)
    code, _, err = invoke("import", games, "--annulments", annulments, "--db", ledger_url)
    assert code == 2
    assert err == f"error: {annulments}:3: id: g9: no such game to annul\n"
    assert counts(ledger_url) == {"players": 0, "games": 0}


def test_annulments_alone_annul_games_already_in_the_ledger(
    ledger_url: str, tmp_path: Path
) -> None:
    invoke("init", "--system", "site", "--db", ledger_url)
    assert invoke("import", write_games(tmp_path / "a.jsonl", GAMES), "--db", ledger_url)[0] == 0
    annulments = tmp_path / "annul.txt"
    annulments.write_text("g1\tengine assistance\n", encoding="utf-8")
    empty = write_games(tmp_path / "none.jsonl", [])
    code, out, err = invoke("import", empty, "--annulments", annulments, "--db", ledger_url)
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == "annulled: g1"
    ledger = Ledger(ledger_url)
    assert [(a.game_id, a.reason, a.by) for a in ledger.annulments.list()] == [
        ("g1", "engine assistance", str(annulments))
    ]
    assert ledger.verify() == []
    # Again: already annulled, nothing to do.
    code, out, _ = invoke("import", empty, "--annulments", annulments, "--db", ledger_url)
    assert code == 0
    assert "annulled" not in out


def test_an_arena_ledger_refuses_an_annulments_file(ledger_url: str, tmp_path: Path) -> None:
    invoke("init", "--system", "arena", "--db", ledger_url)
    annulments = tmp_path / "annul.txt"
    annulments.write_text("g1 engine\n", encoding="utf-8")
    games = write_games(tmp_path / "games.jsonl", [{**GAMES[0], "rated": False}])
    code, _, err = invoke("import", games, "--annulments", annulments, "--db", ledger_url)
    assert code == 2
    assert "id: the arena regulation has no fair-play annulment" in err
    assert counts(ledger_url) == {"players": 0, "games": 0}


def test_a_fide_ledger_refuses_games(ledger_url: str, tmp_path: Path) -> None:
    invoke("init", "--system", "fide", "--db", ledger_url)
    code, _, err = invoke("import", write_games(tmp_path / "g.jsonl", GAMES), "--db", ledger_url)
    assert code == 2
    assert err == "error: a fide ledger rates periods, not single games\n"


def test_verify_lists_every_difference_and_exits_1(site_ledger: str) -> None:
    ledger = Ledger(site_ledger)
    with ledger.engine.begin() as conn:
        where = (ratings.c.player_id == "ana") & (ratings.c.pool == "site")
        done = conn.execute(
            update(ratings).where(where).values(rating_cents=ratings.c.rating_cents + 1)
        )
        assert done.rowcount == 1
    ledger.dispose()
    code, out, err = invoke("verify", "--db", site_ledger)
    assert code == 1
    assert out.startswith("ana site: rating_cents is ")
    assert len(out.splitlines()) == 1
    assert "1 differences (43 players, 485 games, 3 annulments)" in err


def test_verify_finds_a_state_that_differs_from_the_replay(site_ledger: str) -> None:
    ledger = Ledger(site_ledger)
    with ledger.engine.begin() as conn:
        where = (ratings.c.player_id == "ben") & (ratings.c.pool == "site")
        conn.execute(update(ratings).where(where).values(state='{"games":1,"rating":"1500.00"}'))
    ledger.dispose()
    code, out, _ = invoke("verify", "--db", site_ledger)
    assert code == 1
    assert out.startswith('ben site: state is \'{"games":1,"rating":"1500.00"}\' in the ledger, ')


# -- export -------------------------------------------------------------------------------


@pytest.mark.parametrize("players_name", ["players.csv", "players.jsonl"])
def test_export_then_import_into_a_fresh_ledger_gives_identical_leaderboards(
    request: pytest.FixtureRequest, site_ledger: str, tmp_path: Path, players_name: str
) -> None:
    games, players, annulled = tmp_path / "games.jsonl", tmp_path / players_name, tmp_path / "a.txt"
    code, out, err = invoke("export", games, "--players", players, "--annulments", annulled,
                            "--db", site_ledger)  # fmt: skip
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"485 games written to {games}",
        f"43 players written to {players}",
        f"3 annulments written to {annulled}",
    ]
    fresh = second_database(request, site_ledger, tmp_path)
    assert invoke("init", "--system", "site", "--db", fresh)[0] == 0
    code, _, err = invoke("import", games, "--players", players, "--annulments", annulled,
                          "--db", fresh)  # fmt: skip
    assert code == 0, err
    assert boards(fresh) == boards(site_ledger)
    assert invoke("verify", "--db", fresh)[0] == 0
    # The export of the copy is the same files.
    again = tmp_path / "again"
    again.mkdir()
    invoke("export", again / games.name, "--players", again / players.name, "--annulments",
           again / annulled.name, "--db", fresh)  # fmt: skip
    for path in (games, players, annulled):
        assert (again / path.name).read_text() == path.read_text(), path.name


def test_the_export_is_in_commit_order_in_the_record_form(ledger_url: str, tmp_path: Path) -> None:
    invoke("init", "--system", "site", "--db", ledger_url)
    # Committed out of played_at order: the export keeps the commit order.
    shuffled = [GAMES[2], GAMES[0], GAMES[1]]
    invoke("import", write_games(tmp_path / "in.jsonl", shuffled), "--db", ledger_url)
    out_path = tmp_path / "out.jsonl"
    assert invoke("export", out_path, "--db", ledger_url)[0] == 0
    rows = [json.loads(line) for line in out_path.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["g3", "g1", "g2"]
    assert rows[1] == {"id": "g1", "played_at": "2026-01-02T10:00:00Z", "white": "ana",
                       "black": "ben", "result": "1-0", "rated": True, "time_control": "600+0",
                       "plies": 40}  # fmt: skip


@pytest.mark.slow  # the arena sample exported and imported
def test_an_arena_export_round_trips_too(
    request: pytest.FixtureRequest, ledger_url: str, tmp_path: Path
) -> None:
    invoke("init", "--system", "arena", "--db", ledger_url)
    code, _, err = invoke("import", EXAMPLES / "arena_games.jsonl", "--players",
                          EXAMPLES / "arena_players.csv", "--db", ledger_url)  # fmt: skip
    assert code == 0, err
    games, players = tmp_path / "games.jsonl", tmp_path / "players.csv"
    assert invoke("export", games, "--players", players, "--db", ledger_url)[0] == 0
    fresh = second_database(request, ledger_url, tmp_path)
    invoke("init", "--system", "arena", "--db", fresh)
    assert invoke("import", games, "--players", players, "--db", fresh)[0] == 0
    assert boards(fresh) == boards(ledger_url)
    assert Ledger(fresh).players.all() == Ledger(ledger_url).players.all()


def test_export_warns_when_annulments_are_left_behind(site_ledger: str, tmp_path: Path) -> None:
    code, _, err = invoke("export", tmp_path / "games.jsonl", "--db", site_ledger)
    assert code == 0
    assert "warning: the ledger has 3 annulments: write them with --annulments FILE" in err


def test_export_writes_all_files_or_none(site_ledger: str, tmp_path: Path) -> None:
    games = tmp_path / "games.jsonl"
    code, _, err = invoke("export", games, "--players", tmp_path / "no" / "such" / "p.csv",
                          "--db", site_ledger)  # fmt: skip
    assert code == 2
    assert err.startswith("error: cannot write: ")
    assert list(tmp_path.iterdir()) == [] or not games.exists()
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())
    code, _, err = invoke("export", tmp_path / "games.csv", "--db", site_ledger)
    assert code == 2
    assert "games are exported as JSON Lines (.jsonl)" in err


# -- serve (without starting the server) --------------------------------------------------


@pytest.mark.slow  # a real server
def test_serve_creates_loads_the_sample_and_runs_uvicorn(
    ledger_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: calls.append((a, k)))
    monkeypatch.delenv("CHESSRATE_DATABASE_URL", raising=False)
    code, _, err = invoke("serve", "--sample", "--db", ledger_url, "--port", "8123",
                          "--workers", "2")  # fmt: skip
    assert code == 0, err
    ((args, kwargs),) = calls
    log_config = kwargs.pop("log_config")  # chessrate's own lines through uvicorn's handler
    assert (args, kwargs) == (
        ("chessrate.server:create_app_from_env",),
        {"factory": True, "host": "127.0.0.1", "port": 8123, "workers": 2,
         "access_log": False},  # chessrate.access logs each request instead
    )  # fmt: skip
    assert "chessrate" in log_config["loggers"]
    assert os.environ["CHESSRATE_DATABASE_URL"] == database_url(ledger_url)
    assert "(system site)" in err
    assert "serving " in err
    assert "loaded the site sample: 43 players, 485 games, 3 annulments" in err
    assert counts(ledger_url) == {"players": 43, "games": 485}
    # Again: the ledger has games, so the sample is not loaded twice; --system does not
    # change an existing ledger.
    code, _, err = invoke("serve", "--sample", "--system", "arena", "--db", ledger_url)
    assert code == 0
    assert "loaded" not in err
    assert "is a ledger of system site (--system applies to a new one)" in err
    assert counts(ledger_url) == {"players": 43, "games": 485}


# -- hostile files: exit 2 and FILE:LINE, never a traceback ----------------------

_GAME = '"played_at":"2026-01-02T10:00:00Z","white":"ana","black":"ben","result":"1-0"'
_CSV = "id,played_at,white,black,result\n"
_PGN = (
    '[Event "x"]\n[White "ana"]\n[Black "ben"]\n[Result "1-0"]\n[UTCDate "2026.01.02"]\n'
    '[TimeControl "600"]\n'
)
HOSTILE_GAMES: list[tuple[str, bytes, str]] = [
    ("games.jsonl", ('{"id":"g1",' + _GAME + ',"plies":1e17}\n').encode(), ":1: plies: "),
    ("games.jsonl", ('{"id":"g1",' + _GAME + ',"plies":NaN}\n').encode(),
     ":1: record: not valid JSON (NaN is not a JSON number)"),
    ("games.jsonl", ('{"id":"\\ud800",' + _GAME + "}\n").encode(),
     ":1: id: must not contain a lone surrogate"),
    ("games.jsonl", ('{"id":"g\\u0000",' + _GAME + "}\n").encode(),
     ":1: id: must not contain a NUL character"),
    ("games.jsonl", b'{"id":' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
     ":1: record: not valid JSON (nested too deeply"),
    ("games.jsonl", ('{"id":"a/b",' + _GAME + "}\n").encode(),
     ":1: id: 'a/b' is not a valid id: '/' is not allowed in an id"),
    ("games.csv", (_CSV + "g1,2026-01-02T10:00:00Z,a\x00na,ben,1-0\n").encode(),
     ":2: white: must not contain a NUL character"),
    ("games.csv", (_CSV + "g1,2026-01-02T10:00:00Z," + "a" * 200_000 + ",ben,1-0\n").encode(),
     ":2: record: not CSV (field larger than field limit"),
    ("games.csv", (_CSV + "g1,2026-01-02T10:00:00Z,ana,ben,1-0\n").encode() + b"g2,\xff\n",
     ":3: record: not UTF-8 text (invalid start byte at byte 4)"),
    ("games.pgn", (_PGN + '[PlyCount "' + "9" * 5000 + '"]\n\n1. e4 1-0\n').encode(),
     ":1: PlyCount: must be at most 100,000"),
    ("games.pgn", _PGN.replace("ana", "ana/x").encode() + b"\n1. e4 1-0\n",
     ":1: White: 'ana/x' is not a valid id"),
    ("games.pgn", _PGN.replace("2026.01.02", "0001.01.01").encode() + b"\n1. e4 1-0\n",
     ":1: UTCDate: '0001.01.01' is out of range"),
]  # fmt: skip
HOSTILE_PLAYERS: list[tuple[str, bytes, str]] = [
    ("players.csv", b"id,rating_blitz,games_blitz\nana,1e17,3\n",
     ":2: rating_blitz: '1e17' is out of range"),
    ("players.jsonl", b'{"id":"ana","rating_blitz":1e17,"games_blitz":3}\n',
     ":1: rating_blitz: '1E+17' is out of range"),
    ("players.jsonl", b'{"id":"ana","name":"\\ud800"}\n',
     ":1: name: must not contain a lone surrogate"),
    ("players.jsonl", b'{"id":"\\udfff"}\n', ":1: id: must not contain a lone surrogate"),
    ("players.csv", b"id,name\nana,A\x00na\n", ":2: name: must not contain a NUL character"),
    ("players.jsonl", b'{"id":' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
     ":1: record: not valid JSON (nested too deeply"),
    ("players.jsonl", b'{"id":"ana","rating_blitz":NaN,"games_blitz":3}\n',
     ":1: record: not valid JSON (NaN is not a JSON number)"),
    ("players.csv", b"id,rating_blitz,games_blitz\nana,NaN,3\n",
     ":2: rating_blitz: 'NaN' is not a finite number"),
    ("players.csv", b"id\nx/y\n", ":2: id: 'x/y' is not a valid id: '/' is not allowed"),
]  # fmt: skip
HOSTILE_ANNULMENTS: list[tuple[bytes, str]] = [
    (b"g1 fine\ng\x00 why\n", ":2: id: must not contain a NUL character"),
    (b"g1 \xff\n", ":1: record: not UTF-8 text"),
    (b"g1 " + b"x" * 2001 + b"\n", ":1: reason: is 2,001 characters long; at most 2,000"),
    (b"g\x01 why\n", ":1: id: 'g\\x01' is not a valid id (no control characters)"),
]  # fmt: skip
GOOD_GAME = ('{"id":"g1",' + _GAME + ',"time_control":"10m"}\n').encode()


def test_an_import_of_hostile_values_exits_2_naming_the_line_and_stores_nothing(
    ledger_url: str, tmp_path: Path
) -> None:
    """Every importer (games JSON Lines, CSV, PGN; players CSV, JSON Lines; annulments)
    on both databases: a bad value is ``error: FILE:LINE: field: reason`` and exit code
    2, not a traceback (PostgreSQL refuses a NUL in text: it never reaches it)."""
    assert invoke("init", "--system", "site", "--db", ledger_url)[0] == 0
    good = tmp_path / "good.jsonl"
    good.write_bytes(GOOD_GAME)
    cases: list[tuple[list[str | Path], Path, str]] = []
    for n, (name, content, expected) in enumerate(HOSTILE_GAMES):
        path = tmp_path / f"{n}-{name}"
        path.write_bytes(content)
        cases.append(([path], path, expected))
    for n, (name, content, expected) in enumerate(HOSTILE_PLAYERS):
        path = tmp_path / f"{n}-{name}"
        path.write_bytes(content)
        cases.append(([good, "--players", path], path, expected))
    for n, (content, expected) in enumerate(HOSTILE_ANNULMENTS):
        path = tmp_path / f"{n}-annulments.txt"
        path.write_bytes(content)
        cases.append(([good, "--annulments", path], path, expected))
    for args, path, expected in cases:
        code, out, err = invoke("import", *args, "--db", ledger_url)
        assert (code, out) == (2, ""), (path, err)
        assert err.startswith(f"error: {path}{expected}"), err[:300]
    assert counts(ledger_url)["games"] == 0


def test_rate_of_hostile_values_exits_2_naming_the_line(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_bytes(GOOD_GAME)
    for n, (name, content, expected) in enumerate(HOSTILE_GAMES):
        path = tmp_path / f"{n}-{name}"
        path.write_bytes(content)
        for engine in ("reference", "compiled"):
            code, _, err = invoke("rate", path, "--system", "site", "--engine", engine)
            assert code == 2, (path, err)
            assert err.startswith(f"error: {path}{expected}"), err[:300]
    for n, (name, content, expected) in enumerate(HOSTILE_PLAYERS):
        path = tmp_path / f"{n}-{name}"
        path.write_bytes(content)
        code, _, err = invoke("rate", good, "--system", "site", "--players", path)
        assert code == 2, (path, err)
        assert err.startswith(f"error: {path}{expected}"), err[:300]
    for n, (content, expected) in enumerate(HOSTILE_ANNULMENTS):
        path = tmp_path / f"{n}-annulments.txt"
        path.write_bytes(content)
        code, _, err = invoke("rate", good, "--system", "site", "--annul", path)
        assert code == 2, (path, err)
        assert err.startswith(f"error: {path}{expected}"), err[:300]


@pytest.mark.slow  # deep files read in subprocesses
def test_objects_nested_thousands_deep_do_not_crash_the_columnar_reader(tmp_path: Path) -> None:
    """pyarrow's JSON reader crashes the process (SIGSEGV) on objects nested some ten
    thousand deep: such a file goes to the reference reader, which refuses it. (A
    subprocess: a crash must fail this test, not end the suite.)"""
    path = tmp_path / "deep.jsonl"
    path.write_bytes(b'{"id":"g1","x":' + b'{"a":' * 50_000 + b"1" + b"}" * 50_000 + b"}\n")
    ledger = tmp_path / "deep.db"
    assert invoke("init", "--system", "site", "--db", ledger)[0] == 0
    for args in (["import", path, "--db", ledger],
                 ["rate", path, "--system", "site", "--engine", "compiled"]):  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "chessrate", *map(str, args)],
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        assert done.returncode == 2, done.stderr[-500:]
        assert done.stderr.startswith(f"error: {path}:1: record: not valid JSON (nested too deeply")


def test_a_ledger_holding_an_id_with_a_slash_keeps_working(ledger_url: str, tmp_path: Path) -> None:
    """Ids stored before the rule against ``/`` (a chess.com ``Link`` stored as it was,
    a player named "b/en"): the ledger reads, verifies and exports them, and an
    annulments file still names the game."""
    legacy = "https://www.chess.com/game/live/1"
    now = datetime(2026, 2, 1, tzinfo=UTC)
    ledger = Ledger.create(ledger_url, "site", now)
    for player in ("ana", "b/en"):
        ledger.players.create(Player(player, name=player.upper()), now)  # past the id check
    game = GameRecord.from_mapping({**json.loads(GOOD_GAME), "id": "x"}, "test")
    ledger.games.submit(replace(game, id=legacy, black="b/en", source=""), now)
    assert ledger.players.get("b/en").player.name == "B/EN"
    assert ledger.games.get(legacy).record.black == "b/en"
    ledger.dispose()
    later = tmp_path / "later.jsonl"
    later.write_text(GOOD_GAME.decode().replace("2026-01-02", "2026-01-03"))
    annul = tmp_path / "annul.txt"
    annul.write_text(f"{legacy}\tengine\n")
    code, out, err = invoke("import", later, "--annulments", annul, "--db", ledger_url)
    assert code == 0, err
    assert f"annulled: {legacy}" in out
    code, out, err = invoke("verify", "--db", ledger_url)
    assert code == 0, out + err
    exported = tmp_path / "out.jsonl"
    assert invoke("export", exported, "--db", ledger_url)[0] == 0
    assert json.loads(exported.read_text().splitlines()[0])["id"] == legacy


def test_verify_warns_of_a_stored_id_from_before_the_nfc_rule(ledger_url: str) -> None:
    """A stored id that is not NFC (written before ids were normalised) is listed as a
    warning, not rewritten, and does not fail verify."""
    now = datetime(2026, 2, 1, tzinfo=UTC)
    ledger = Ledger.create(ledger_url, "site", now)
    ledger.players.create(Player("old"), now)
    nfd = "Nova\u0301k"
    with ledger.transaction() as conn:
        conn.execute(update(players_table).where(players_table.c.id == "old").values(id=nfd))
    ledger.dispose()
    code, out, err = invoke("verify", "--db", ledger_url)
    assert code == 0, out + err
    assert out.startswith("OK")
    assert f"warning: player {nfd!r}: id: {nfd!r} is not in Unicode NFC" in err


def test_import_refuses_to_turn_a_rated_player_into_a_bot(ledger_url: str, tmp_path: Path) -> None:
    """``import --players`` goes through the same check as ``PATCH /players``: a player
    with rated games cannot become a bot (exit 2, naming the field), nothing is stored,
    and verify stays OK."""
    games = tmp_path / "games.jsonl"
    games.write_bytes(GOOD_GAME)
    assert invoke("init", "--system", "site", "--db", ledger_url)[0] == 0
    code, _out, err = invoke("import", games, "--db", ledger_url)
    assert code == 0, err
    people = tmp_path / "players.csv"
    people.write_text("id,bot,bot_rating\nana,true,1200\n")
    later = tmp_path / "later.jsonl"
    later.write_text(GOOD_GAME.decode().replace('"g1"', '"g2"'))
    code, _out, err = invoke("import", later, "--players", people, "--db", ledger_url)
    assert code == 2
    assert "ana: bot: cannot change: the player has rated games (the first: g1)" in err
    ledger = Ledger(ledger_url)
    try:
        assert not ledger.players.get("ana").player.bot
        assert ledger.counts()["games"] == 1
    finally:
        ledger.dispose()
    code, out, err = invoke("verify", "--db", ledger_url)
    assert code == 0, out + err
