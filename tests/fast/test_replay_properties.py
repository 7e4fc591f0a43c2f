"""The compiled replay against the reference engine, on random game streams.

For each per-game system, hypothesis draws a players file (memberships, imported
ratings, bots) and a stream of games (rated and casual, official and other
controls, every termination, aborts, otb confirmations, ties in played_at, repeated
ids) and requires the compiled replay to give exactly what ``Engine`` gives: the
same refusals in the same order, the same outcome counts, the same rating lists
(ratings to the hundredth, states, games), and for ``site`` the same S10
annulments.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessrate.engine import Engine
from chessrate.errors import InvalidRecord
from chessrate.fast import encode, replay
from chessrate.records import GameRecord, ImportedRating, Player
from chessrate.systems import get_system
from chessrate.systems.base import RatingSystem

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
HUMANS = [f"p{i}" for i in range(7)]
BOTS = ["bot0", "bot1"]
RESULTS = ["1-0", "0-1", "1/2-1/2", "*"]
TERMINATIONS = [None, "resign", "timeout", "abandon", "disconnect", "forfeit",
                "bot_no_move", "expired"]  # fmt: skip
CONTROLS = {
    "arena": [
        "3+2",
        "180+2",
        "3m+2s",
        "5m+3s",
        "300+3",
        "600",
        "600+10",
        "15m",
        "60",
        "1m+2s",
        "7m",
        "-",
        None,
    ],
    "corr": ["3d", "5d", "-", None, "300+3"],
    # S2's boundaries: estimates 179/180 (bullet/blitz), 479/480 (blitz/rapid),
    # 1499/1500 s (rapid/classical), with and without increments; 7 and 8 days per move
    "site": ["1m", "2m+1s", "5m+3s", "10m", "15m+10s", "25m", "-", "3d", "7d", "8d", None,
             "179", "180", "139+1", "140+1", "479", "480", "439+1", "440+1", "1499", "1500",
             "1459+1", "1460+1"],
}  # fmt: skip
RATINGS = {  # the floors (arena A10 1000, site S5 100) and just above them included
    "arena": ["1000.00", "1000.01", "1012.40", "1050.00", "1500.00", "1801.55", "2400.00",
              "2650.50"],
    "corr": ["1100.00", "1500.00", "1525.25", "1900.00", "2300.00", "90.00"],
    "site": ["100.00", "100.01", "104.00", "1500.00", "1650.37", "2200.00", "2900.00"],
}  # fmt: skip
GAMES = [1, 5, 9, 10, 24, 25, 26, 29, 30, 31, 200]
"""Imported games: around site S6's 10, corr C1's 25, the K thresholds' 30."""
POOLS = {
    "arena": ["rapid", "blitz", "bullet"],
    "corr": ["corr"],
    "site": ["site", "bullet", "blitz", "rapid", "classical", "unclocked", "correspondence",
             "otb", "bots"],
}  # fmt: skip


@st.composite
def players(draw: st.DrawFn, system_id: str) -> list[Player]:
    chosen = []
    for player_id in HUMANS:
        if not draw(st.booleans()):
            continue
        imported = {}
        for pool in POOLS[system_id]:
            if draw(st.integers(0, 3)) == 0:
                games = draw(st.sampled_from(GAMES))
                imported[pool] = ImportedRating(
                    Decimal(draw(st.sampled_from(RATINGS[system_id]))), games
                )
        if system_id == "corr" and "corr" in imported and imported["corr"].rating < 100:
            imported.pop("corr")
        until = None
        if system_id == "arena":
            until = draw(st.sampled_from([None, date(2026, 3, 1), date(2027, 1, 1)]))
        chosen.append(Player(player_id, membership_until=until, imported=imported))
    if system_id == "site":
        for bot_id in BOTS:
            if draw(st.booleans()):
                rating = Decimal(draw(st.sampled_from(["100.00", "1400.00", "2500.00"])))
                chosen.append(Player(bot_id, bot=True, bot_rating=rating))
    return chosen


@st.composite
def games(draw: st.DrawFn, system_id: str) -> list[GameRecord]:
    everyone = HUMANS + (BOTS if system_id == "site" else [])
    records = []
    count = draw(st.integers(0, 70))
    for number in range(count):
        white = draw(st.sampled_from(everyone))
        black = draw(st.sampled_from([p for p in everyone if p != white]))
        result = draw(st.sampled_from(RESULTS))
        termination = draw(st.sampled_from(TERMINATIONS))
        if result == "1/2-1/2" and termination in ("resign", "abandon", "disconnect", "forfeit"):
            termination = None
        data: dict[str, Any] = {
            "id": f"g{draw(st.integers(0, count + 3))}" if draw(st.booleans()) else f"u{number}",
            "played_at": (START + timedelta(hours=draw(st.integers(0, 60 * 24)))).isoformat(),
            "white": white,
            "black": black,
            "result": result,
            "rated": draw(st.sampled_from([True, True, True, False])),
        }
        control = draw(st.sampled_from(CONTROLS[system_id]))
        if control is not None:
            data["time_control"] = control
        if termination is not None:
            data["termination"] = termination
        if draw(st.booleans()):
            data["plies"] = draw(st.sampled_from([0, 1, 2, 3, 17, 18, 19, 40, 41]))
        if system_id == "site" and draw(st.integers(0, 5)) == 0:
            data["venue"] = "otb"
            confirmed = draw(st.sampled_from([None, True, False]))
            if confirmed is not None:
                data["confirmed"] = confirmed
        records.append(GameRecord.from_mapping(data, f"stream:{number + 1}"))
    # a repeated record (same content): changes nothing, counted once
    if records and bool(draw(st.booleans())):
        records.append(draw(st.sampled_from(records)))
    return records


def check_same(system: str | RatingSystem[Any], roster: list[Player], records: list[GameRecord],
               annul: list[str]) -> None:  # fmt: skip
    """Engine and the compiled replay on the same players, games and annulments (the
    system by id with its default rules, or a system object with its own)."""
    chosen = get_system(system) if isinstance(system, str) else system
    reference: Engine[Any] = Engine(chosen, roster)
    reference_errors: list[InvalidRecord] = []
    reference.replay(records, reference_errors.append)
    compiled_errors: list[InvalidRecord] = []
    compiled = replay(chosen, encode(records), roster, on_invalid=compiled_errors.append)
    assert [str(e) for e in compiled_errors] == [str(e) for e in reference_errors]
    at = datetime(2026, 6, 1, tzinfo=UTC)
    for game_id in annul:
        expected: object
        try:
            expected = reference.annul(game_id, "fair play", at)
        except InvalidRecord as error:
            expected = str(error)
        try:
            got: object = compiled.annul(game_id, "fair play", at)
        except InvalidRecord as error:
            got = str(error)
        assert got == expected
    assert compiled.rating_lists() == reference.rating_lists()
    assert compiled.games == len(reference.ratings)
    outcomes = Counter(reference.outcome(rating.game.id) for rating in reference.ratings)
    assert all(o is not None and compiled.outcome_counts()[o] == outcomes[o] for o in outcomes)
    # without on_invalid, the first refusal (in rating order) stops both
    if reference_errors:
        with pytest.raises(InvalidRecord) as stopped:
            replay(chosen, encode(records), roster)
        assert str(stopped.value) == str(reference_errors[0])


def annulments(
    draw: Callable[[st.SearchStrategy[list[str]]], list[str]], records: list[GameRecord]
) -> list[str]:
    ids = [r.id for r in records] + ["nope"]
    return draw(st.lists(st.sampled_from(ids), max_size=4))


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow  # generated streams, both engines
@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
@SETTINGS
@given(data=st.data())
def test_compiled_replay_equals_the_reference_engine(system_id: str, data: st.DataObject) -> None:
    """arena A1-A10, corr C1-C6, site S1-S10: compiled replay = Engine, game for game."""
    roster = data.draw(players(system_id))
    records = data.draw(games(system_id))
    check_same(system_id, roster, records, annulments(data.draw, records))


def qualification_stream(data: st.DataObject) -> tuple[list[Player], list[GameRecord]]:
    """arena A6/A10 reached often: members only, official blitz, rated opponents near 1000."""
    rated = {0: "1010.00", 1: "1650.00", 2: "1702.30"}
    roster = [
        Player(p, membership_until=date(2027, 1, 1),
               imported={"blitz": ImportedRating(Decimal(rated[i]), 40)} if i in rated else {})
        for i, p in enumerate(HUMANS)
    ]  # fmt: skip
    records = []
    for number in range(data.draw(st.integers(5, 80))):
        white = data.draw(st.sampled_from(HUMANS))
        black = data.draw(st.sampled_from([p for p in HUMANS[:3] if p != white]))
        if data.draw(st.booleans()):
            white, black = black, white
        played_at = START + timedelta(minutes=number)
        record = {"id": f"q{number}", "played_at": played_at.isoformat(), "white": white,
                  "black": black, "result": data.draw(st.sampled_from(RESULTS[:3])),
                  "time_control": "180+2"}  # fmt: skip
        records.append(GameRecord.from_mapping(record, f"q:{number}"))
    return roster, records


@pytest.mark.slow  # long generated streams, both engines
@SETTINGS
@given(data=st.data())
def test_arena_qualification_and_floor_streams(data: st.DataObject) -> None:
    """arena A6/A10 reached often: members only, official blitz, rated opponents near 1000."""
    roster, records = qualification_stream(data)
    check_same("arena", roster, records, [])
