"""The engine: order, idempotent resubmission, all-or-nothing application."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from chessrate import Engine, GameRecord, InvalidRecord, Player
from chessrate.records import ImportedRating
from chessrate.systems.arena import ArenaSystem


def players() -> list[Player]:
    until = date(2026, 12, 31)
    return [
        Player("a", membership_until=until, imported={"blitz": ImportedRating(Decimal(1800), 40)}),
        Player("b", membership_until=until, imported={"blitz": ImportedRating(Decimal(1700), 40)}),
    ]


def record(game_id: str, result: str, minute: int, where: str = "") -> GameRecord:
    return GameRecord.from_mapping(
        {"id": game_id, "played_at": datetime(2026, 3, 1, 12, minute, tzinfo=UTC).isoformat(),
         "white": "a", "black": "b", "result": result, "time_control": "300+3"},
        where or f"test:{game_id}",
    )  # fmt: skip


def test_same_game_twice_is_rated_once_and_answered_the_same() -> None:
    engine = Engine(ArenaSystem(), players())
    first = engine.apply(record("g1", "1-0", 0, "f:1"))
    again = engine.apply(record("g1", "1-0", 0, "f:2"))
    assert again is first
    assert engine.state("a", "blitz").rating == Decimal("1807.20")
    assert len(engine.ratings) == 1


def test_same_id_with_different_content_is_refused_and_changes_nothing() -> None:
    engine = Engine(ArenaSystem(), players())
    engine.apply(record("g1", "1-0", 0, "f:1"))
    states = dict(engine.states)
    with pytest.raises(InvalidRecord) as caught:
        engine.apply(record("g1", "0-1", 0, "f:2"))
    assert str(caught.value) == (
        "f:2: id: game id 'g1' was already used for a different game (at f:1)"
    )
    assert engine.states == states
    assert len(engine.ratings) == 1


def test_replay_orders_by_played_at_ties_in_input_order() -> None:
    engine = Engine(ArenaSystem(), players())
    late, early, tie = record("late", "1-0", 5), record("early", "0-1", 1), record("tie", "1-0", 1)
    applied = engine.replay([late, early, tie])
    assert [r.game.id for r in applied] == ["early", "tie", "late"]


def test_replay_skips_refused_games_when_asked_and_reports_them() -> None:
    engine = Engine(ArenaSystem(), players())
    refused: list[InvalidRecord] = []
    bad = GameRecord.from_mapping(
        {"id": "x", "played_at": "2026-03-01T12:03:00Z", "white": "a", "black": "nobody",
         "result": "1-0", "time_control": "300+3"},
        "f:9",
    )  # fmt: skip
    engine.replay([record("g1", "1-0", 0), bad, record("g2", "0-1", 5)], refused.append)
    assert [str(e) for e in refused] == [
        "f:9: black: player 'nobody' has no valid arena membership on 2026-03-01 (none); "
        "only members play rated games (A3)"
    ]
    assert [r.game.id for r in engine.ratings] == ["g1", "g2"]


@pytest.mark.parametrize("termination", ["resign", "abandon", "disconnect", "forfeit"])
def test_a_draw_cannot_end_by_a_decisive_termination(termination: str) -> None:
    with pytest.raises(InvalidRecord) as caught:
        GameRecord.from_mapping(
            {"id": "d", "played_at": "2026-03-01T12:00:00Z", "white": "a", "black": "b",
             "result": "1/2-1/2", "termination": termination},
            "f:3",
        )  # fmt: skip
    assert caught.value.field == "result"
    assert termination in caught.value.reason


def test_duplicate_player_is_refused() -> None:
    with pytest.raises(InvalidRecord) as caught:
        Engine(ArenaSystem(), [Player("a", source="p:2"), Player("a", source="p:3")])
    assert str(caught.value) == "p:3: id: duplicate player (first at p:2)"
