"""``chessrate.rate_file``: rate a file as a library call, one result type whichever
engine ran."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from chessrate import InvalidInput, InvalidRecord, Outcome, Player, RatedFile, rate_file
from chessrate.engine import Engine
from chessrate.io.games import read_annulments, read_games, read_players
from chessrate.records import ImportedRating
from chessrate.systems import ArenaRules, ArenaSystem, get_system

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
AT = datetime(2026, 2, 1, tzinfo=UTC)


def sample(system_id: str, engine: str) -> RatedFile:
    annulments = EXAMPLES / "site_annulments.txt" if system_id == "site" else None
    return rate_file(
        EXAMPLES / f"{system_id}_games.jsonl",
        system_id,
        players=EXAMPLES / f"{system_id}_players.csv",
        annulments=annulments,
        engine=engine,
        annulled_at=AT,
    )


@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
def test_rate_file_gives_the_engines_answers_with_either_engine(system_id: str) -> None:
    """Both engines: the lists, outcomes, counts and lookups the reference Engine gives."""
    engine: Engine[object] = Engine(
        get_system(system_id), read_players(EXAMPLES / f"{system_id}_players.csv")
    )
    engine.replay(read_games(EXAMPLES / f"{system_id}_games.jsonl"))
    if system_id == "site":
        path = EXAMPLES / "site_annulments.txt"
        for _where, game_id, reason in read_annulments(path):
            engine.annul(game_id, reason, AT, str(path))
    lists = engine.rating_lists()
    outcomes = Counter(engine.outcome(r.game.id) for r in engine.ratings)
    for name in ("reference", "compiled"):
        rated = sample(system_id, name)
        assert rated.engine == name
        assert rated.rating_lists() == lists
        assert rated.games == len(engine.ratings)
        assert rated.outcome_counts() == outcomes
        assert list(rated.annulments) == list(engine.annulments.values())
        for rating in engine.ratings[:50]:
            assert rated.outcome(rating.game.id) == engine.outcome(rating.game.id)
        assert rated.outcome("no-such-game") is None
        for pool, entries in lists.items():
            assert rated.pool_size(pool) == len(entries)
            assert rated.top(pool, 3) == entries[:3]
            rank = 0
            for entry in entries:
                rank += entry.rating is not None
                shown = rank if entry.rating is not None else None
                assert rated.entries_of(entry.player)[pool] == (shown, entry)
        assert list(rated.entries()) == [e for pool in lists.values() for e in pool]
        assert rated.entries_of("nobody") == {}


def test_rate_file_takes_players_and_annulments_as_values_and_a_system_object(
    tmp_path: Path,
) -> None:
    """Players as objects, annulments as (game id, reason) pairs, a system with its own
    rules: the same answers from both engines, by those rules."""
    games = tmp_path / "games.csv"
    games.write_text(
        "id,played_at,white,black,result,time_control\n"
        "g1,2026-03-01T10:00:00Z,ann,bob,1-0,3m+2s\n"
        "g2,2026-03-01T11:00:00Z,bob,ann,1/2-1/2,3m+2s\n"
    )
    players = [
        Player(p, membership_until=datetime(2027, 1, 1).date(),
               imported={"blitz": ImportedRating(Decimal("1500.00"), 40)})
        for p in ("ann", "bob")
    ]  # fmt: skip
    system = ArenaSystem(ArenaRules(k={"rapid": 20, "blitz": 30, "bullet": 10}))
    runs = [rate_file(games, system, players=players, engine=e) for e in ("reference", "compiled")]
    assert runs[0].rating_lists() == runs[1].rating_lists()
    # K 30: g1 +0.50 x 30 = +15.00; g2 D 30 -> PD 0.54, (0.5 - 0.54) x 30 = -1.20
    assert runs[0].top("blitz")[0].rating == Decimal("1513.80")
    site = tmp_path / "site.csv"
    site.write_text(games.read_text().replace("3m+2s", "5m+3s"))
    for name in ("reference", "compiled"):
        rated = rate_file(site, "site", annulments=[("g1", "engine use")], engine=name)
        (annulment,) = rated.annulments
        assert (annulment.game_id, annulment.reason, annulment.by) == ("g1", "engine use", None)
        assert rated.outcome("g1") is Outcome.VOID


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_rate_file_refuses_bad_input_or_reports_it(tmp_path: Path, engine: str) -> None:
    """An invalid record raises its FILE:LINE: field: reason; with on_invalid every one
    is reported, left out, and kept in ``skipped``; a bad annulment names its line."""
    games = tmp_path / "games.jsonl"
    games.write_text(
        '{"id": "g1", "played_at": "2026-03-01T10:00:00Z", "white": "a", "black": "b", '
        '"result": "1-0", "time_control": "5+3"}\n'
        '{"id": "g2", "played_at": "2026-03-01T11:00:00Z", "white": "a", "black": "b", '
        '"result": "2-0", "time_control": "5+3"}\n'
    )
    with pytest.raises(InvalidRecord, match=rf"^{games}:2: result: "):
        rate_file(games, "site", engine=engine)
    annulments = tmp_path / "annul.txt"
    annulments.write_text("g1\tcheating\nnope\tcheating\n")
    reported: list[InvalidRecord] = []
    rated = rate_file(
        games, "site", annulments=annulments, engine=engine, on_invalid=reported.append
    )
    assert [str(e) for e in reported] == [str(e) for e in rated.skipped]
    assert [e.where for e in reported] == [f"{games}:2", f"{annulments}:2"]
    assert str(reported[1]) == f"{annulments}:2: id: nope: no such game to annul"
    assert rated.games == 1 and rated.outcome_counts()[Outcome.VOID] == 1


def test_rate_file_history_needs_the_reference_engine(tmp_path: Path) -> None:
    games = EXAMPLES / "corr_games.jsonl"
    with pytest.raises(InvalidInput, match="reference engine"):
        rate_file(games, "corr", engine="compiled", history=True)
    rated = rate_file(games, "corr", history=True)
    assert rated.engine == "reference" and len(rated.ratings) == rated.games
    with pytest.raises(InvalidInput, match="reference engine"):
        _ = rate_file(games, "corr", engine="compiled").ratings
    with pytest.raises(InvalidInput, match="unknown engine"):
        rate_file(games, "corr", engine="fast")


def test_rate_file_reports_progress_by_stage() -> None:
    calls: list[tuple[str, int, int]] = []
    rated = rate_file(
        EXAMPLES / "arena_games.jsonl",
        "arena",
        players=EXAMPLES / "arena_players.csv",
        engine="compiled",
        progress=lambda stage, advance, total: calls.append((stage, advance, total)),
    )
    assert {stage for stage, _, _ in calls} == {"rating"}
    assert sum(advance for _, advance, _ in calls) == rated.games
    assert {total for _, _, total in calls} == {419}


def test_import_chessrate_loads_neither_numba_nor_pyarrow() -> None:
    """``import chessrate`` (and the rate_file it exports) stays quick: the compiled
    path's libraries load only when it runs."""
    probe = "import sys, chessrate; print(sorted({'numba', 'pyarrow'} & set(sys.modules)))"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"
