"""The ledger's numeric rows: every change and game comes back from its integers with
the same numbers and the same words.

``tests/data/notes/{system}.jsonl`` holds, for each system's sample (``examples/``),
every game's outcome, reason and change notes, and every annulment's notes, as the
systems wrote them before the notes were written from numbers (commit bacbb72, when
each system built its texts inline). Since then one thing is written differently,
on purpose: corr C2's sum of performances shows its hundredths (``1500.00/1``, not
``1500/1``), because a stored number keeps no other form.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessrate.engine import Engine, in_rating_order
from chessrate.errors import InvalidRecord
from chessrate.io.games import parse_annulments, parse_games, parse_players
from chessrate.ledger import rows
from chessrate.records import GameRecord, microseconds
from chessrate.records import moment as moment_of
from chessrate.samples import SAMPLE_FILES, sample_text
from chessrate.systems import get_system
from chessrate.systems.base import CHANGE_COLUMNS, Change, RatingSystem
from tests.fast.test_replay_properties import games, players

NOTES = Path(__file__).parents[1] / "data" / "notes"
ANNULLED_AT = datetime(2026, 6, 1, tzinfo=UTC)


class Keys:
    """Integer keys for player ids, as the ledger's players table gives them."""

    def __init__(self) -> None:
        self.keys: dict[str, int] = {}
        self.names: list[str] = []

    def key(self, name: str) -> int:
        if name not in self.keys:
            self.keys[name] = len(self.names)
            self.names.append(name)
        return self.keys[name]


def sample_engine(system_id: str) -> tuple[Engine[Any], list[GameRecord], list[tuple[str, str]]]:
    files = SAMPLE_FILES[system_id]
    system = get_system(system_id)
    roster = parse_players(sample_text(files[1]), files[1])
    records = in_rating_order(parse_games(sample_text(files[0]), files[0]))
    wanted = (
        [(game_id, reason) for _, game_id, reason in parse_annulments(sample_text(files[2]), "")]
        if len(files) > 2
        else []
    )
    return Engine(system, roster), records, wanted


def todays_form(text: str) -> str:
    """A note of commit bacbb72 as it is written today (see the module)."""
    return re.sub(r"performances (\d+)/", r"performances \1.00/", text)


@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
def test_notes_and_reasons_are_the_texts_the_systems_always_wrote(system_id: str) -> None:
    engine, records, wanted = sample_engine(system_id)
    lines = (NOTES / f"{system_id}.jsonl").read_text(encoding="utf-8").splitlines()
    expected = [json.loads(line) for line in lines]
    for item in expected:
        item["notes"] = [todays_form(note) for note in item["notes"]]
    got: list[dict[str, Any]] = []
    for record in records:
        rating = engine.apply(record)
        got.append({
            "game": record.id, "outcome": rating.outcome.value, "reason": rating.reason,
            "notes": [c.note for c in rating.changes],
        })  # fmt: skip
    for game_id, reason in wanted:
        annulment = engine.annul(game_id, reason, ANNULLED_AT, "sample")
        got.append({"annul": game_id, "notes": [c.note for c in annulment.changes]})
    assert len(got) == len(expected)
    for mine, theirs in zip(got, expected, strict=True):
        assert mine == theirs


def round_trip(system: RatingSystem[Any], change: Change, slot: int, keys: Keys) -> Change:
    row = rows.change_row(system, change, slot, keys.key)
    assert set(row) == set(CHANGE_COLUMNS)
    assert all(value is None or isinstance(value, int) for value in row.values())
    return rows.change_from_row(system, row, keys.names.__getitem__, change.game_id)


def check_stream(system_id: str, engine: Engine[Any], records: list[GameRecord],
                 wanted: list[tuple[str, str]]) -> int:  # fmt: skip
    """Rate, and require every game, reason and change to come back from its row, and
    every change to give the state the system left (``system.state_after``)."""
    system, keys, count = engine.system, Keys(), 0
    for record in records:
        before = {
            (player, pool): engine.states.get((player, pool))
            for player in (record.white, record.black)
            for pool in system.pools
        }
        try:
            rating = engine.apply(record)
        except InvalidRecord:
            continue
        for change in rating.changes:  # the state a change leaves, from its numbers
            key = (change.player, change.pool)
            earlier = before[key] or system.initial_state(engine.player(change.player), change.pool)
            assert system.state_after(change, earlier) == rating.states[key]
        back = rows.record_from_row(rows.game_row(record, keys.key), keys.names.__getitem__)
        assert back == record
        assert system.reason(record, rating.reason_code, rating.changes) == rating.reason
        for slot, change in enumerate(rating.changes):
            assert round_trip(system, change, slot, keys) == change
            count += 1
    for game_id, reason in wanted:
        try:
            annulment = engine.annul(game_id, reason, ANNULLED_AT, "test")
        except InvalidRecord:
            continue
        for slot, change in enumerate(annulment.changes):
            assert round_trip(system, change, slot, keys) == change
            count += 1
    return count


@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
def test_every_sample_change_and_game_comes_back_from_its_row_and_gives_its_state(
    system_id: str,
) -> None:
    engine, records, wanted = sample_engine(system_id)
    assert check_stream(system_id, engine, records, wanted) > 300


@pytest.mark.slow  # generated streams
@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_streams_come_back_from_their_rows_and_give_their_states(
    system_id: str, data: st.DataObject
) -> None:
    roster = data.draw(players(system_id))
    records = data.draw(games(system_id))
    engine = Engine(get_system(system_id), roster)
    wanted = [(r.id, "test") for r in records[::3]] if system_id == "site" else []
    check_stream(system_id, engine, records, wanted)


def test_a_change_whose_derived_numbers_differ_is_refused() -> None:
    engine, records, _ = sample_engine("site")
    change = next(c for r in records for c in engine.apply(r).changes)
    from dataclasses import replace

    with pytest.raises(ValueError, match="is not the one its numbers give"):
        rows.change_row(engine.system, replace(change, change=None), 0, Keys().key)


def test_moments_are_microseconds_utc() -> None:
    moment = datetime.fromisoformat("2026-06-01T10:00:00.000123+02:00")
    value = microseconds(moment)
    assert value == microseconds(datetime(2026, 6, 1, 8, 0, 0, 123, tzinfo=UTC))
    assert moment_of(value) == moment
    assert moment_of(value).utcoffset() is not None
