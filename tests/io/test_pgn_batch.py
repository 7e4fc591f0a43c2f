"""chessrate.fast.pgn.read_pgn_batch against the reference path
``encode(read_pgn_games(...))``: the same rows, id tables and errors, on every fixture
and on random games whose tag values are drawn from valid and invalid ones."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessrate.errors import InvalidRecord
from chessrate.fast import GameBatch, encode
from chessrate.fast.pgn import read_pgn_batch
from chessrate.io.pgn import PlayerIds, read_pgn_games

DATA = Path(__file__).resolve().parent.parent / "data" / "pgn"
FILES = sorted(path.name for path in DATA.glob("*.pgn"))
ARRAYS = (
    "game", "white", "black", "played_at", "result", "rated", "tc_kind", "tc_base",
    "tc_increment", "tc_days", "termination", "plies", "venue", "confirmed",
)  # fmt: skip


def assert_same_batch(batch: GameBatch, expected: GameBatch) -> None:
    assert len(batch) == len(expected)
    for name in ARRAYS:
        got, want = getattr(batch, name), getattr(expected, name)
        assert got.dtype == want.dtype, name
        assert np.array_equal(got, want), name
    assert list(batch.game_ids) == list(expected.game_ids)
    assert batch.player_ids == expected.player_ids
    assert [batch.where(i) for i in range(len(batch))] == [
        expected.where(i) for i in range(len(expected))
    ]
    assert [batch.record(i) for i in range(len(batch))] == [
        expected.record(i) for i in range(len(expected))
    ]


def compare(source: Path | bytes, player_ids: PlayerIds = "name") -> list[str]:
    """Both paths with errors collected, then without (the same first error)."""

    def open_() -> Path | io.BytesIO:
        return io.BytesIO(source) if isinstance(source, bytes) else source

    errors: list[str] = []
    reference: list[str] = []
    batch = read_pgn_batch(open_(), lambda e: errors.append(str(e)), player_ids=player_ids)
    records = read_pgn_games(open_(), lambda e: reference.append(str(e)), player_ids=player_ids)
    assert errors == reference
    assert_same_batch(batch, encode(records))
    if reference:
        with pytest.raises(InvalidRecord) as raised:
            read_pgn_batch(open_(), player_ids=player_ids)
        assert str(raised.value) == reference[0]
    return errors


@pytest.mark.parametrize("player_ids", ["name", "fide"])
@pytest.mark.parametrize("name", FILES)
def test_batch_equals_encoded_records_on_every_fixture(name: str, player_ids: PlayerIds) -> None:
    compare(DATA / name, player_ids)


def test_batch_of_a_big_plain_file_and_its_progress(tmp_path: Path) -> None:
    """A file big enough to be memory-mapped; progress counts every byte."""
    text = "".join((DATA / name).read_text(encoding="utf-8") + "\n\n" for name in FILES)
    path = tmp_path / "all.pgn"
    path.write_text(text * (1 + (1 << 20) // len(text)), encoding="utf-8")
    assert compare(path)  # the fixtures hold invalid games
    seen: list[int] = []
    read_pgn_batch(path, lambda _: None, progress=seen.append)
    assert sum(seen) == path.stat().st_size


VALUES = {
    "White": ["Ann", "Bob", " Cy ", "?", "", "a\tb", "Bob"],
    "Black": ["Bob", "Ann", "Dee", "?", " ", "Ann"],
    "Result": ["1-0", "0-1", "1/2-1/2", "*", "2-0", " 1-0 "],
    "UTCDate": [
        "2024.03.01", "2024.02.30", "2024.??.??", "2024-03-02", "x", "0000.01.01", "2024.13.01",
    ],
    "UTCTime": ["10:00:00", "9:05", "24:00:00", "??:??:??", "", "10:61:00", "x"],
    "Date": ["2024.01.05", "2023.12.31", "????.??.??"],
    "Time": ["18:30:00", "7:00:59"],
    "TimeControl": ["180+2", "-", "?", "", "1/259200", "40/5400+30:1800+30", "blitz", "*180"],
    "Termination": [
        "Normal", "Time forfeit", "Abandoned", "Rules infraction", "Unterminated", "",
        "Ann won by resignation", "Bob won on time", "Game drawn by agreement",
        "Game drawn by timeout vs insufficient material", "Game abandoned", "bogus", "resign",
    ],
    "Event": ["Rated Blitz game", "Casual Rapid game", " casual", "Open"],
    "Site": [
        "https://lichess.org/abcdEFGH", "https://lichess.org/abcdEFGH1234", "Oslo", "",
        "http://lichess.org/abcdefgh/", "https://lichess.org/abcdEFG/",
    ],
    "Variant": ["Standard", "Chess960", "", "chess"],
    "FEN": ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "8/8/8/8/8/8/8/K6k w"],
    "GameId": ["g1", "g2", " ", "bad\x01id", "g1"],
    "Link": ["https://www.chess.com/game/live/1", "nowhere"],
    "PlyCount": ["12", "0", " ", "x", "0999", "100001", "99999999999", "\u00b2", "\u0663"],
    "WhiteFideId": ["123", "0", ""],
    "BlackFideId": ["456", "123", "000"],
    "Round": ["1", "2.1"],
}  # fmt: skip


@st.composite
def games(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 8))):
        tags = draw(st.lists(st.sampled_from(sorted(VALUES)), max_size=10, unique=True))
        lines = [f'[{tag} "{draw(st.sampled_from(VALUES[tag]))}"]' for tag in tags]
        for tag in ("White", "Black", "Result", "UTCDate"):  # mostly valid games
            if tag not in tags and draw(st.integers(0, 4)):
                lines.append(
                    f'[{tag} "{VALUES[tag][0 if tag != "White" else draw(st.integers(0, 2))]}"]'
                )
        parts.append("\n".join(lines) + "\n\n1. e4 *\n\n")
    return "".join(parts)


@pytest.mark.slow  # 150 generated files
@settings(max_examples=150, deadline=None)
@given(games(), st.sampled_from(["name", "fide"]))
def test_property_batch_equals_encoded_records(text: str, player_ids: PlayerIds) -> None:
    """Random games: valid and refused values of every tag a record reads, repeated
    ids and players, white = black, chess.com sentences naming the wrong winner."""
    compare(text.encode("utf-8"), player_ids)
