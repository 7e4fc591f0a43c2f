"""The columnar players CSV reader (chessrate.io.players) against the reference: the same
players (with their sources) or the same first error, on many spellings of every
field; files of other shapes go to the reference reader."""

from __future__ import annotations

import tempfile
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessrate.errors import InvalidInput, InvalidRecord
from chessrate.io.games import read_players
from chessrate.io.players import read_players_csv
from chessrate.io.tabular import read_records
from chessrate.records import Player

SPELLINGS: dict[str, list[str]] = {
    "id": ["p{n}", "p{n}", "p{n}", " p{n}", "p {n}", "", "é{n}", "x" * 201, "p1"],
    "name": ["", "", "Ann", " Ann ", "Ann Bee", "é"],
    "membership_until": ["", "2026-12-31", "2026-02-30", "31/12/2026", " 2026-12-31",
                         "2024-02-29"],
    "bot": ["", "", "", "true", "FALSE", "yes", "maybe", "1"],
    "bot_rating": ["", "", "", "1500", "1500.5", "1500.505", "-3", "abc", "1e3", "NaN"],
    "rating_rapid": ["", "1500.00", "1500", "1500.5", "1500.505", "0", "-1", "abc", "1E3",
                     " 1612.25 ", "1.00", "Infinity", "0.01"],
    "games_rapid": ["", "0", "12", "-1", "+5", "abc", "007", " 3"],
    "rating_blitz": ["", "", "1712.40", "2000"],
    "games_blitz": ["", "", "3", "40"],
    "rating_x": ["", "1500.00"],
    "games_x": ["", "2"],
    "note": ["", "", "", " ", "x"],
}  # fmt: skip
PLAIN = {"id": "p{n}", "name": "", "membership_until": "", "bot": "", "bot_rating": "",
         "note": ""}  # fmt: skip


def reference(path: Path) -> object:
    """The reference reader's players with their sources, or its error."""
    try:
        players = [Player.from_mapping(fields, where) for where, fields in read_records(path)]
    except (InvalidRecord, InvalidInput) as error:
        return type(error), str(error)
    return [(player, player.source) for player in players]


def columnar(path: Path) -> object:
    try:
        players = read_players(path)
    except (InvalidRecord, InvalidInput) as error:
        return type(error), str(error)
    return [(player, player.source) for player in players]


@st.composite
def players_files(draw: st.DrawFn) -> str:
    names = [name for name in SPELLINGS if name == "id" or draw(st.integers(0, 4)) > 0]
    lines = [",".join(names)]
    for n in range(draw(st.integers(0, 30))):
        row = {name: draw(st.sampled_from(SPELLINGS[name])).format(n=n) for name in names}
        if draw(st.integers(0, 3)) > 0:  # mostly valid rows: later errors are reached
            row.update({k: v.format(n=n) for k, v in PLAIN.items() if k in row})
            for pool in ("rapid", "blitz", "x"):
                if f"rating_{pool}" in row and f"games_{pool}" in row:
                    row[f"rating_{pool}"], row[f"games_{pool}"] = draw(
                        st.sampled_from([("", ""), ("1500.00", "3"), ("1612.5", "0")])
                    )
        lines.append(",".join(row.values()))
        if draw(st.integers(0, 10)) == 0:
            lines.append("")
    return "\n".join(lines) + ("\n" if draw(st.booleans()) else "")


@pytest.mark.slow  # 300 generated files
@given(text=players_files())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_players_reader_is_the_reference_on_any_spelling(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "players.csv"
        path.write_text(text, encoding="utf-8")
        assert columnar(path) == reference(path)


def test_a_valid_players_file_is_read_column_by_column(tmp_path: Path) -> None:
    path = tmp_path / "players.csv"
    lines = ["id,name,membership_until,bot,bot_rating,rating_rapid,games_rapid,rating_blitz,"
             "games_blitz,note"]  # fmt: skip
    for n in range(2000):
        rapid = (f"{1000 + n * 0.37:.2f}", str(n % 50)) if n % 3 else ("", "")
        bot = ("true", "1600") if n % 97 == 0 else ("", "")
        lines.append(f"p{n},Player {n % 7},2026-0{1 + n % 9}-1{n % 10},{bot[0]},{bot[1]},"
                     f"{rapid[0]},{rapid[1]},,,")  # fmt: skip
        if n % 500 == 0:
            lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    players = read_players_csv(path)
    assert players is not None and len(players) == 2000
    assert [(p, p.source) for p in players] == reference(path)
    assert players[4].imported["rapid"].rating == Decimal("1001.48")


@pytest.mark.parametrize(
    "text",
    [
        'id,name\n"p1",Ann\n',  # quotes: the csv module's rules
        "id,name\r\np1,Ann\r\n",
        "\ufeffid,name\np1,Ann\n",
        "id,name\np1,Ann,x\n",  # ragged: the reference's record error
        "id,id\np1,p2\n",  # the reference's header error
        "",
        "id\n",
    ],
)
def test_other_shapes_are_the_reference_readers(tmp_path: Path, text: str) -> None:
    path = tmp_path / "players.csv"
    path.write_bytes(text.encode("utf-8"))
    if text.count(",") and ('"' in text or "\r" in text or "\ufeff" in text or ",x" in text
                            or "id,id" in text):  # fmt: skip
        assert read_players_csv(path) is None
    assert columnar(path) == reference(path)
