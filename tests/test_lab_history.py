"""The rating lab on a ledger's history (``chessrate evaluate --db``), on both databases."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from chessrate.cli import main
from chessrate.io.games import read_games
from chessrate.lab import evaluate_games, replay
from chessrate.ledger import Ledger
from chessrate.operations import evaluate_ledger, import_file, ledger_history

LICHESS = Path(__file__).parent / "data" / "pgn" / "lichess_cmrade.pgn"
NOW = datetime(2026, 12, 1, tzinfo=UTC)


def imported(url: str) -> Ledger:
    ledger = Ledger.create(url, "site", NOW)
    import_file(ledger, LICHESS, None, [], NOW, [])
    return ledger


def test_base_rules_replay_reproduces_the_ledgers_ratings(ledger_url: str) -> None:
    ledger = imported(ledger_url)
    try:
        history = ledger_history(ledger)
        assert history.system_id == "site" and history.annulled == 0
        # the commit order is the file's (a lichess export is newest first), not played_at
        assert [g.id for g in history.games] == [g.id for g in read_games(LICHESS)]
        engine = replay("site", ledger.info.rules, history.games, history.players, in_order=True)
        for pool, entries in engine.rating_lists().items():
            for entry in entries:
                stored = {r.pool: r for r in ledger.players.get(entry.player).ratings}
                assert stored[pool].rating == entry.rating, (entry.player, pool)
                assert stored[pool].games == entry.games
    finally:
        ledger.dispose()


def test_evaluate_db_is_the_file_in_commit_order(ledger_url: str) -> None:
    ledger = imported(ledger_url)
    try:
        from_db = evaluate_ledger(ledger, ["k_new=16,48"], "the ledger")
    finally:
        ledger.dispose()
    from_file = evaluate_games(
        "site", read_games(LICHESS), (), ["k_new=16,48"], "the ledger", in_order=True
    )
    assert from_db == from_file
    by_date = evaluate_games("site", read_games(LICHESS), (), ["k_new=16,48"], "the ledger")
    assert from_db != by_date  # the ledger's order is not played_at's


def test_annulled_games_are_left_out(ledger_url: str) -> None:
    ledger = imported(ledger_url)
    try:
        rated = next(
            g.id for g in ledger.games.export()
            if ledger.games.get(g.id).outcome == "rated"
        )  # fmt: skip
        ledger.annulments.annul(rated, "engine assistance", "mod", NOW)
        history = ledger_history(ledger)
        assert history.annulled == 1
        assert rated not in {g.id for g in history.games}
        evaluation = evaluate_ledger(ledger)
    finally:
        ledger.dispose()
    assert evaluation.games == 45


def test_cli_db_json_and_its_refusals(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'l.db'}"
    imported(url).dispose()
    runner = CliRunner()
    result = runner.invoke(main, ["evaluate", "--db", url, "--vary", "k=40", "--json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["system"] == "site" and data["games"] == 46 and data["source"] == url
    refusals = {
        ("--db", url, "--system", "arena"): "the ledger at",
        ("--db", url, str(LICHESS)): "give no GAMES",
        ("--db", url, "--vary", "kk=1"): "no field 'kk'",
        ("--db", str(tmp_path / "none.db")): "no ledger here",
        (): "evaluate needs GAMES and --system, or --db URL",
        (str(LICHESS),): "evaluate needs GAMES and --system, or --db URL",
    }
    for args, message in refusals.items():
        result = runner.invoke(main, ["evaluate", *args])
        assert result.exit_code == 2, (args, result.output)
        assert message in result.stderr, (args, result.stderr)


def test_cli_db_with_either_engine_and_two_jobs(tmp_path: Path) -> None:
    """--db with --engine and --jobs: the compiled replay keeps the commit order too,
    and two jobs print what one prints."""
    url = f"sqlite:///{tmp_path / 'l.db'}"
    imported(url).dispose()
    runner = CliRunner()
    args = ["evaluate", "--db", url, "--vary", "k=10,40", "--vary", "k_new=16,48", "--json"]
    printed = {}
    for engine, jobs in (("reference", "1"), ("compiled", "1"), ("compiled", "2")):
        result = runner.invoke(main, [*args, "--engine", engine, "--jobs", jobs])
        assert result.exit_code == 0, result.stderr
        printed[engine, jobs] = result.stdout
    assert printed["compiled", "2"] == printed["compiled", "1"]
    reference = json.loads(printed["reference", "1"])
    compiled = json.loads(printed["compiled", "1"])
    assert [v["label"] for v in compiled["variants"]] == [v["label"] for v in reference["variants"]]
    for ours, theirs in zip(compiled["variants"], reference["variants"], strict=True):
        assert ours["deviance"] == pytest.approx(theirs["deviance"], abs=2e-6)
        assert [p["against_base"] for p in ours["pools"]] == [
            p["against_base"] for p in theirs["pools"]
        ]
