"""The compiled replay's emitted rows against the reference engine's changes.

``replay(..., on_rows=...)`` gives every kept game's outcome and reason code and every
change as numbers (:mod:`chessrate.fast.rows`). For each system's sample and for
random streams (the strategies of ``test_replay_properties``), game by game: the same
games in the same order as ``Engine`` applies them, the same outcome and reason
codes, and each change equal to ``chessrate.ledger.rows.change_row`` of the
reference's change, with the player codes turned into the same integer keys.
"""

from __future__ import annotations

import contextlib
import sys
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessrate.engine import Engine, in_rating_order
from chessrate.errors import InvalidRecord
from chessrate.fast import Annul, CompiledReplay, encode, replay
from chessrate.fast import rows as fast_rows
from chessrate.fast.rows import NULL, RowChunk
from chessrate.io.games import parse_annulments, parse_games, parse_players
from chessrate.ledger import rows
from chessrate.records import GameRecord, Player
from chessrate.samples import SAMPLE_FILES, sample_text
from chessrate.systems import get_system
from chessrate.systems.base import CHANGE_COLUMNS, GameRating, RatingSystem
from chessrate.systems.site import SiteRules, SiteSystem
from tests.fast.test_replay_properties import games, players, qualification_stream

AT = datetime(2026, 6, 1, tzinfo=UTC)
Game = tuple[GameRecord, int, int, list[dict[str, Any]]]
"""A game as compared: its record, outcome code, reason code and change rows."""


class Keys:
    """Integer keys for player ids, as the ledger's players table gives them."""

    def __init__(self) -> None:
        self.keys: dict[str, int] = {}

    def key(self, name: str) -> int:
        return self.keys.setdefault(name, len(self.keys))


def reference_games(system: RatingSystem[Any], applied: list[GameRating[Any]],
                    keys: Keys) -> list[Game]:  # fmt: skip
    return [
        (
            rating.game,
            rows.OUTCOMES.index(rating.outcome),
            rating.reason_code,
            [rows.change_row(system, c, slot, keys.key) for slot, c in enumerate(rating.changes)],
        )
        for rating in applied
    ]


def emitted_games(result: CompiledReplay, chunks: list[RowChunk], keys: Keys) -> list[Game]:
    """The chunks' games and changes, checked for their shape on the way."""
    found: list[Game] = []
    for chunk in chunks:
        assert chunk.outcome.dtype == np.int8 and chunk.reason.dtype == np.int16
        assert len(chunk) > 0
        for name in CHANGE_COLUMNS:
            assert chunk.column(name).dtype == np.int64
            assert chunk.column(name).shape == (chunk.changes,)
        assert bool((np.diff(chunk.game) >= 0).all())
        changes: list[list[dict[str, Any]]] = [[] for _ in range(len(chunk))]
        for game, row in zip(chunk.game.tolist(), chunk.change_rows(), strict=True):
            assert row["slot"] == len(changes[game])
            player, opponent = row["player"], row["opponent"]
            assert player is not None and opponent is not None
            row["player"] = keys.key(result.names[player])
            row["opponent"] = keys.key(result.names[opponent])
            changes[game].append(row)
        for i, row_number in enumerate(chunk.rows.tolist()):
            record = result.batch.record(row_number)
            found.append((record, int(chunk.outcome[i]), int(chunk.reason[i]), changes[i]))
    if chunks:
        assert np.array_equal(np.concatenate([c.rows for c in chunks]), result.kept)
    else:
        assert result.kept.shape[0] == 0
    return found


def assert_same(expected: list[Game], got: list[Game]) -> None:
    assert [g[0].id for g in got] == [g[0].id for g in expected]
    for mine, theirs in zip(got, expected, strict=True):
        assert mine == theirs, mine[0].id


def check_emitted(system: RatingSystem[Any], roster: list[Player], records: list[GameRecord],
                  annul: dict[int, list[str]] | None = None) -> int:  # fmt: skip
    """Both engines on the same stream, annulments (by rows before them in rating order)
    interleaved; the emitted rows must be the reference's. The number of changes."""
    annul = annul or {}
    engine: Engine[Any] = Engine(system, roster)
    ordered = in_rating_order(records)
    for i in range(len(ordered) + 1):
        for game_id in annul.get(i, []):
            with contextlib.suppress(InvalidRecord):
                engine.annul(game_id, "fair play", AT)
        if i == len(ordered):
            break
        try:
            engine.apply(ordered[i])  # a repeat is answered, not applied again
        except InvalidRecord:
            continue
    chunks: list[RowChunk] = []
    annulments = [Annul(g, "fair play", AT, after=i) for i, ids in annul.items() for g in ids]
    result = replay(
        system, encode(records), roster, annulments=annulments, on_invalid=lambda e: None,
        on_rows=chunks.append,
    )  # fmt: skip
    keys = Keys()
    expected = reference_games(system, engine.ratings, keys)
    assert_same(expected, emitted_games(result, chunks, keys))
    assert result.rating_lists() == engine.rating_lists()
    return sum(len(g[3]) for g in expected)


def sample(system_id: str) -> tuple[list[Player], list[GameRecord], list[str]]:
    files = SAMPLE_FILES[system_id]
    roster = parse_players(sample_text(files[1]), files[1])
    records = parse_games(sample_text(files[0]), files[0])
    annulled = (
        [game_id for _, game_id, _ in parse_annulments(sample_text(files[2]), files[2])]
        if len(files) > 2
        else []
    )
    return roster, records, annulled


def test_the_columns_are_the_ledgers() -> None:
    assert vars(fast_rows)["CHANGE_COLUMNS"] is CHANGE_COLUMNS  # one copy, in systems.base
    assert fast_rows.OUTCOMES == rows.OUTCOMES
    assert ("game", *CHANGE_COLUMNS) == fast_rows.KERNEL_COLUMNS
    assert tuple(RowChunk.__dataclass_fields__)[4:] == CHANGE_COLUMNS
    assert np.iinfo(np.int64).min == NULL


@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
def test_every_sample_game_is_emitted_as_the_reference_rates_it(system_id: str) -> None:
    roster, records, _ = sample(system_id)
    assert check_emitted(get_system(system_id), roster, records) > 300


def test_site_sample_with_its_annulments_among_the_games() -> None:
    roster, records, annulled = sample("site")
    ordered = in_rating_order(records)
    position = {record.id: i for i, record in enumerate(ordered)}
    annul: dict[int, list[str]] = {}
    for n, game_id in enumerate(annulled):  # each a few games after its own, or at the end
        after = min(len(ordered), position[game_id] + 1 + 7 * n)
        annul.setdefault(after, []).append(game_id)
    assert annulled
    check_emitted(get_system("site"), roster, records, annul)


def test_other_rules_are_emitted_as_their_reference_rates() -> None:
    """A system object with its own rules: the codes and numbers follow them."""
    roster, records, _ = sample("site")
    system = SiteSystem(SiteRules(k=10, k_new=40, k_new_games=5, floor=SiteRules().floor))
    check_emitted(system, roster, records)


def test_many_chunks_and_games_after_the_last_rated(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small kernel chunks: each chunk's games follow the last; unrated games at the end
    come in a chunk of their own."""
    monkeypatch.setattr(sys.modules["chessrate.fast.replay"], "ROW_CHUNK", 7)
    monkeypatch.setattr(fast_rows, "ROW_CHUNK", 5)
    roster, records, annulled = sample("site")
    last = max(r.played_at for r in records)
    tail = [
        GameRecord.from_mapping(
            {"id": f"tail{i}", "played_at": last.isoformat(), "white": records[0].white,
             "black": records[0].black, "result": "1-0", "rated": False},
            f"tail:{i}",
        )
        for i in range(12)
    ]  # fmt: skip
    chunks: list[RowChunk] = []
    replay("site", encode(records + tail), roster, on_invalid=lambda e: None,
           on_rows=chunks.append)  # fmt: skip
    assert len(chunks) > 10
    assert [len(c) for c in chunks[-3:]] == [5, 5, 2]
    assert all(c.changes == 0 for c in chunks[-3:])
    check_emitted(get_system("site"), roster, records + tail, {40: annulled[:2]})


def test_nothing_kept_nothing_emitted() -> None:
    chunks: list[RowChunk] = []
    result = replay("corr", encode([]), [], on_rows=chunks.append)
    assert chunks == [] and result.games == 0


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow  # generated streams, both engines
@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
@SETTINGS
@given(data=st.data())
def test_random_streams_are_emitted_as_the_reference_rates_them(
    system_id: str, data: st.DataObject
) -> None:
    roster = data.draw(players(system_id))
    records = data.draw(games(system_id))
    annul: dict[int, list[str]] = {}
    if system_id == "site" and records:
        for game_id in data.draw(st.lists(st.sampled_from([r.id for r in records]), max_size=4)):
            annul.setdefault(data.draw(st.integers(0, len(records))), []).append(game_id)
    check_emitted(get_system(system_id), roster, records, annul)


@pytest.mark.slow  # long generated streams, both engines
@SETTINGS
@given(data=st.data())
def test_arena_qualifications_and_floors_are_emitted(data: st.DataObject) -> None:
    """arena A6 completions (Ra, points), A10 losses of the rating, often."""
    roster, records = qualification_stream(data)
    check_emitted(get_system("arena"), roster, records)
