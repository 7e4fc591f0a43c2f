"""The columnar reader (chessrate.fast.columnar) against the reference reader: the same
records, ids, sources and errors in the same order, on many spellings of every field;
its screens (plain ids, plain timestamps) against the reference field readers."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessrate.errors import InvalidInput, InvalidRecord
from chessrate.fast import GameBatch, encode
from chessrate.fast import columnar as columnar_module
from chessrate.fast.columnar import read_batch
from chessrate.fast.csvscan import plain_ids, timestamps
from chessrate.fast.fields import INTERNED, decide, refused_pairs
from chessrate.identifiers import PLAIN_ID
from chessrate.io.games import read_games
from chessrate.records import FieldReader, GameFields, GameRecord, microseconds

SPELLINGS: dict[str, list[str]] = {
    "id": ["g{n}", "g{n}", "g{n}", " g{n}", "g {n}", "ĝ{n}", "", "x" * 201, "g1", "g\t{n}"],
    "played_at": [
        "2026-03-01T10:00:00Z", "2026-03-01T10:00:00", "2026-03-01T10:00:00+00:00",
        "2026-03-01T10:00:00+02:00", "2026-03-01T10:00:00-05:30", "2026-03-01T10:00:00.5Z",
        "2026-03-01T10:00:00.123456+01:00", "2026-03-01T10:00:00.1234567Z",
        "2024-02-29T23:59:59Z", "2023-02-29T10:00:00Z", "2026-02-30T10:00:00Z",
        "2026-03-01T24:00:00Z", "2026-03-01 10:00:00Z", "2026-03-01T10:00Z",
        "20260301T100000Z", "2026-03-01T10:00:00+0200", "2026-03-01T10:00:00+02",
        "2026-03-01T10:00:00z", " 2026-03-01T10:00:00Z ", "0999-03-01T10:00:00Z",
        "3000-01-01T00:00:00Z", "2026-03-01T10:00:00.Z",
        "2026-03-01T10:00:00+24:00", "2026-03-01T10:00:00+23:59", "2026-03-01", "",
        "yesterday", "2000-02-29T00:00:00Z", "1900-02-29T00:00:00Z",
        "2100-02-28T23:59:59-23:59", "1000-01-01T00:00:00+01:00",
    ],
    "white": ["ann", "bob", "cy", " ann", "Ann", "", "é", "ann bob", "x" * 201],
    "black": ["bob", "ann", "dee", "bob ", "", "cy"],
    "result": ["1-0", "0-1", "1/2-1/2", "*", "", "2-0", " 1-0", "½-½", "1/2-½", "draw"],
    "rated": ["", "true", "FALSE", "Yes", "n", "t", "0", "1", "maybe", " true", "TRUE"],
    "time_control": [
        "", "5m+3s", "5m + 3s", "3m + 2s", "300+3", "15m", "300s+5s", "-", "3d", " 3d",
        "3 d", "0d", "0+0", "0m", "1234567", "5+", " 5+3", "60", "14d", "2d+1", "10m+0",
        "1h+30s", "1H", "5m+1m", "90S", "7x", "+3", "300 + 3 ", "5M+3S",
    ],
    "termination": [
        "", "normal", "resign", "RESIGN", "timeout", "forfeit", "bot_no_move", "expired",
        "Timeout", "abandon", "disconnect", "checkmate", " resign",
    ],
    "plies": ["", "0", "40", "007", "-3", "+5", "100000", "100001", "1234567890", "12a", " 12"],
    "venue": ["", "online", "otb", "OTB", " otb", "home"],
    "confirmed": ["", "", "", "true", "no", "x", "Y"],
    "note": ["", "", "", "hello", " "],
}  # fmt: skip
PLAIN = {"id": "g{n}", "played_at": "2026-03-01T10:00:00Z", "white": "ann", "black": "bob",
         "result": "1-0", "note": "", "confirmed": ""}  # fmt: skip


def reference(path: Path) -> tuple[list[object], list[str]]:
    """The reference reader's records (with their sources) and errors, skipping."""
    errors: list[InvalidRecord] = []
    records = read_games(path, None, errors.append)
    return [(r, r.source) for r in records], [str(e) for e in errors]


def columnar(path: Path) -> tuple[list[object], list[str]]:
    errors: list[InvalidRecord] = []
    batch = read_batch(path, None, errors.append)
    records = [batch.record(i) for i in range(len(batch))]
    return [(r, r.source) for r in records], [str(e) for e in errors]


def ids(batch: GameBatch) -> list[tuple[str, str, str]]:
    """Each row's game id and players as strings (codes are the reader's own)."""
    return [(batch.game_ids[int(batch.game[i])], batch.player_ids[int(batch.white[i])],
             batch.player_ids[int(batch.black[i])]) for i in range(len(batch))]  # fmt: skip


def assert_same_as_reference(path: Path) -> None:
    """Rows, ids, sources and errors (skipping, and stopping at the first) as
    ``encode(read_games(...))``; a file the reference refuses whole (e.g. a row with
    more cells than the header), refused alike."""
    failure: Exception | None
    try:
        expected = reference(path)
    except Exception as error:  # whatever it is, the same
        failure = error
    else:
        assert columnar(path) == expected
        failure = None
    if failure is not None:
        with pytest.raises(type(failure)) as caught:
            columnar(path)
        assert str(caught.value) == str(failure)
        return
    if expected[1]:
        with pytest.raises(InvalidRecord) as stopped:
            read_batch(path)
        assert str(stopped.value) == expected[1][0]
    else:
        batch, encoded = read_batch(path), encode(read_games(path))
        assert ids(batch) == ids(encoded)
        for name in ("played_at", "result", "rated", "tc_kind", "tc_base", "tc_increment",
                     "tc_days", "termination", "plies", "venue", "confirmed"):  # fmt: skip
            assert (getattr(batch, name) == getattr(encoded, name)).all(), name


def rows_of(draw: st.DrawFn, names: list[str], count: int) -> list[dict[str, str]]:
    rows = []
    for n in range(count):
        row = {name: draw(st.sampled_from(SPELLINGS[name])).format(n=n) for name in names}
        if draw(st.booleans()):  # mostly plain rows, so that both paths are exercised
            row.update({k: v.format(n=n) for k, v in PLAIN.items() if k in row})
        rows.append(row)
    return rows


@st.composite
def csv_files(draw: st.DrawFn) -> str:
    names = [name for name in SPELLINGS if draw(st.integers(0, 9)) > 0]
    rows = rows_of(draw, names, draw(st.integers(0, 40)))
    lines = [",".join(names)] + [",".join(row.values()) for row in rows]
    if rows and bool(draw(st.booleans())):
        lines.insert(draw(st.integers(1, len(lines))), "")  # an empty line
    return "\n".join(lines) + ("\n" if draw(st.booleans()) else "")


@pytest.mark.slow  # 150 generated files
@given(text=csv_files(), mapped=st.booleans())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_csv_reader_is_the_reference_on_any_spelling(text: str, mapped: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "games.csv"
        path.write_text(text, encoding="utf-8")
        with mock.patch.object(columnar_module, "MAPPED_MIN_BYTES", 1 if mapped else 1 << 20):
            assert_same_as_reference(path)


@st.composite
def jsonl_files(draw: st.DrawFn) -> str:
    names = [name for name in SPELLINGS if name != "note" and draw(st.integers(0, 9)) > 0]
    lines = []
    for row in rows_of(draw, names, draw(st.integers(0, 30))):
        typed: dict[str, object] = {k: v for k, v in row.items() if v or draw(st.booleans())}
        for name in ("rated", "confirmed"):  # JSON's own types, or text
            if name in typed and draw(st.booleans()):
                typed[name] = draw(st.sampled_from([True, False, None, 1, 0]))
        for name in ("plies", "time_control"):
            if name in typed and draw(st.booleans()):
                typed[name] = draw(st.sampled_from([0, 1, 40, 60, -3, 100_001, None]))
        lines.append(json.dumps(typed, ensure_ascii=draw(st.booleans())))
        if draw(st.integers(0, 20)) == 0:
            lines.append("")
    return "\n".join(lines) + "\n"


@pytest.mark.slow  # 100 generated files
@given(text=jsonl_files())
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_jsonl_reader_is_the_reference_on_any_spelling(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "games.jsonl"
        path.write_text(text, encoding="utf-8")
        assert_same_as_reference(path)


def many_rows(count: int) -> list[dict[str, str]]:
    """Every spelling of every field, each row mixing them at random."""
    import random

    rng = random.Random(12)
    rows = []
    for n in range(count):
        row = {name: rng.choice(spellings).format(n=n) for name, spellings in SPELLINGS.items()}
        if rng.random() < 0.5:
            row.update({k: v.format(n=n) for k, v in PLAIN.items()})
        rows.append(row)
    return rows


@contextmanager
def row_parser_calls() -> Iterator[list[int]]:
    """The number of rows the reference row parser reads, for the columnar reader; a
    whole-file fallback to the reference reader fails."""
    calls = [0]
    parse = GameRecord.from_mapping.__func__  # type: ignore[attr-defined]

    def counted(cls: type[GameRecord], data: object, where: str) -> GameRecord:
        calls[0] += 1
        return parse(cls, data, where)  # type: ignore[no-any-return]

    def no_fallback(*args: object) -> object:
        raise AssertionError("the whole file went to the reference reader")

    with (
        mock.patch.object(columnar_module, "read_games", no_fallback),
        mock.patch.object(GameRecord, "from_mapping", classmethod(counted)),
    ):
        yield calls


@pytest.mark.slow  # every spelling, both readers
@pytest.mark.parametrize("name", ["games.csv", "mapped.csv", "games.jsonl"])
def test_every_spelling_is_read_as_the_reference_reads_it(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every spelling of every field mixed at random over 4000 rows: the reference's
    records and errors, with only the rows holding a cell it refuses (or one the screens
    do not pass) read by the reference row parser. ``mapped.csv``: the file mapped into
    memory, as a big one is."""
    if name == "mapped.csv":
        monkeypatch.setattr(columnar_module, "MAPPED_MIN_BYTES", 1)
    rows = many_rows(4000)
    path = tmp_path / name
    if name.endswith(".csv"):
        lines = [",".join(SPELLINGS)] + [",".join(row.values()) for row in rows]
    else:
        lines = [json.dumps({k: v for k, v in row.items() if v and k != "note"}) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = reference(path)
    assert len(expected[0]) > 200 and len(expected[1]) > 1000
    with row_parser_calls() as calls:
        got = columnar(path)
    assert got == expected
    assert len(expected[1]) <= calls[0] < len(rows)
    assert_same_as_reference(path)

    # the rows the reference accepts with plain ids and timestamps: no row parser at all
    def accepted(row: dict[str, str]) -> bool:
        try:
            GameRecord.from_mapping({k: v for k, v in row.items() if k != "note" and v}, "")
        except InvalidRecord:
            return False
        cells = [row["id"], row["white"], row["black"]]
        return all(map(PLAIN_ID.fullmatch, cells)) and bool(screened([row["played_at"]])[0][0])

    kept = [{**row, "note": ""} for row in rows if accepted(row)]  # " ": the reference's
    assert len(kept) > 300 and len({row["time_control"] for row in kept}) > 15
    if name.endswith(".csv"):
        lines = [",".join(SPELLINGS)] + [",".join(row.values()) for row in kept]
    else:
        lines = [json.dumps({k: v for k, v in row.items() if v and k != "note"}) for row in kept]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = reference(path)
    with row_parser_calls() as calls:
        assert columnar(path) == expected
    assert calls[0] == 0


@pytest.mark.parametrize(
    "shape",
    [
        pytest.param(lambda text: text.replace("\n", "\r\n"), id="crlf"),
        pytest.param(lambda text: "\ufeff" + text, id="bom"),
        pytest.param(lambda text: text.replace("ann,", '"ann",', 3), id="quoted"),
        pytest.param(lambda text: text.replace("\n", ",\n", 2), id="ragged"),
        pytest.param(lambda text: text.replace("id,", "id,id,", 1), id="repeated-column"),
        pytest.param(lambda text: text + "g9," + "x" * 140_000 + "\n", id="huge-cell"),
        pytest.param(lambda text: text.replace("ann", "a\x00n", 1), id="nul"),
    ],
)
def test_csv_shapes_the_scanner_leaves_to_the_reference(
    tmp_path: Path, shape: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(columnar_module, "MAPPED_MIN_BYTES", 1)  # mapped, as big files are
    path = tmp_path / "games.csv"
    rows = many_rows(300)
    text = "\n".join([",".join(SPELLINGS)] + [",".join(row.values()) for row in rows]) + "\n"
    path.write_text(shape(text), encoding="utf-8", newline="")  # type: ignore[operator]
    assert_same_as_reference(path)


@pytest.mark.parametrize("mapped", [False, True])
def test_csv_not_utf8_is_the_reference_error(
    tmp_path: Path, mapped: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if mapped:
        monkeypatch.setattr(columnar_module, "MAPPED_MIN_BYTES", 1)
    path = tmp_path / "games.csv"
    path.write_bytes(b"id,played_at,white,black,result\ng1,2026-03-01T10:00:00Z,\xe9,b,1-0\n")
    with pytest.raises(InvalidRecord) as caught:
        read_games(path)
    with pytest.raises(InvalidRecord) as again:
        read_batch(path)
    assert str(again.value) == str(caught.value)
    assert (
        str(caught.value)
        == f"{path}:2: record: not UTF-8 text (invalid continuation byte at byte 25)"
    )


def test_jsonl_values_pyarrow_types_otherwise_go_to_the_reference(tmp_path: Path) -> None:
    """Floats (json.loads gives Decimals of their spelling), unknown fields, a field
    typed two ways, two records on a line: the reference reads the file."""
    base = {"id": "g1", "played_at": "2026-03-01T10:00:00Z", "white": "a", "black": "b",
            "result": "1-0"}  # fmt: skip
    for extra in ({"plies": 4.0}, {"rated": 1.5}, {"x": None}, {"id": 7}):
        path = tmp_path / "games.jsonl"
        path.write_text(json.dumps({**base, **extra}) + "\n" + json.dumps(base) + "\n")
        assert_same_as_reference(path)
    path.write_text(json.dumps(base) + " " + json.dumps(base) + "\n")
    with pytest.raises(InvalidRecord) as caught:
        read_batch(path)
    assert "not valid JSON" in str(caught.value)


def test_read_batch_refuses_pgn_and_names_the_pgn_batch_reader(tmp_path: Path) -> None:
    path = tmp_path / "games.pgn"
    path.write_text('[Event "x"]\n\n1. e4 *\n', encoding="utf-8")
    for fmt in (None, "pgn"):
        with pytest.raises(InvalidInput) as caught:
            read_batch(path, fmt)
        assert "read_batch reads CSV and JSON Lines" in str(caught.value)
        assert "read_pgn_batch" in str(caught.value)


# -- the screens and the decisions by distinct value ------------------------------------


def screened(cells: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The timestamp and id screens over cells: (plain timestamp, its instant, plain id)."""
    data = "".join(cells).encode("utf-8")
    ends = np.cumsum([len(cell.encode("utf-8")) for cell in cells]).astype(np.int64)
    starts = ends - np.array([len(cell.encode("utf-8")) for cell in cells], np.int64)
    buffer = np.frombuffer(data, np.uint8) if data else np.zeros(1, np.uint8)
    instants, plain = np.empty(len(cells), np.int64), np.empty(len(cells), np.bool_)
    timestamps(buffer, starts, ends, instants, plain)
    ids = np.empty(len(cells), np.bool_)
    plain_ids(buffer, starts, ends, ids)
    return plain, instants, ids


def reference_instant(cell: str) -> int | None:
    try:
        return microseconds(FieldReader({"t": cell}, "").timestamp("t"))
    except InvalidRecord:
        return None


TIMESTAMP_PARTS = st.tuples(
    st.integers(0, 10_000).map(lambda y: f"{y:04d}"),
    st.integers(0, 13).map(lambda m: f"{m:02d}"),
    st.integers(0, 32).map(lambda d: f"{d:02d}"),
    st.sampled_from(["T", " ", "t", "_"]),
    st.integers(0, 25).map(lambda h: f"{h:02d}"),
    st.integers(0, 61).map(lambda m: f"{m:02d}"),
    st.integers(0, 61).map(lambda s: f"{s:02d}"),
    st.sampled_from(["", ".", ".5", ".05", ".123", ".123456", ".1234567", ",5"]),
    st.sampled_from(["", "Z", "z", "+00:00", "-00:00", "+02:00", "-05:30", "+23:59", "-23:59",
                     "+24:00", "+02", "+0200", "+02:60", "Z+01:00", " ", "+02:00:30"]),
)  # fmt: skip


@pytest.mark.slow  # 3,000 examples
@given(parts=TIMESTAMP_PARTS)
@settings(max_examples=3000, deadline=None)
def test_a_plain_timestamp_is_one_the_reference_reads_as_the_same_instant(
    parts: tuple[str, ...],
) -> None:
    """The screen accepts a subset of what FieldReader.timestamp accepts (dates like
    Feb 30, leap years, offsets, fractions, Z or no offset) and gives the same instant."""
    cell = "{}-{}-{}{}{}:{}:{}{}{}".format(*parts)
    plain, instants, _ = screened([cell])
    if plain[0]:
        assert reference_instant(cell) == int(instants[0]), cell


def test_the_timestamp_screen_on_hand_picked_spellings() -> None:
    cells = SPELLINGS["played_at"]
    plain, instants, _ = screened(cells)
    for cell, ok, instant in zip(cells, plain.tolist(), instants.tolist(), strict=True):
        if ok:
            assert reference_instant(cell) == instant, cell
    accepted = {cell for cell, ok in zip(cells, plain.tolist(), strict=True) if ok}
    assert {"2026-03-01T10:00:00Z", "2026-03-01T10:00:00", "2026-03-01T10:00:00.5Z",
            "2026-03-01T10:00:00-05:30", "2024-02-29T23:59:59Z", "2000-02-29T00:00:00Z",
            "2100-02-28T23:59:59-23:59"} <= accepted  # fmt: skip
    assert not {"2026-02-30T10:00:00Z", "2023-02-29T10:00:00Z", "1900-02-29T00:00:00Z",
                "2026-03-01T24:00:00Z", "2026-03-01T10:00:00+24:00"} & accepted  # fmt: skip
    assert instants[cells.index("2026-03-01T10:00:00-05:30")] == microseconds(
        datetime(2026, 3, 1, 15, 30, tzinfo=UTC)
    )


@pytest.mark.slow  # 1,000 examples
@given(cell=st.text(min_size=0, max_size=210) | st.text("ab \t~!é/", max_size=5))
@settings(max_examples=1000, deadline=None)
def test_a_plain_id_is_one_the_reference_takes_as_it_is(cell: str) -> None:
    _, _, plain = screened([cell])
    assert bool(plain[0]) == bool(PLAIN_ID.fullmatch(cell))
    if plain[0]:
        assert FieldReader({"id": cell}, "").ident("id") == cell


def test_every_ascii_character_of_a_plain_id_is_one_the_reference_takes() -> None:
    """``/`` is refused in ids, so the screen sends it to the reference."""
    cells = [f"a{chr(code)}b" for code in range(128)]
    _, _, plain = screened(cells)
    for cell, ok in zip(cells, plain.tolist(), strict=True):
        try:
            taken = FieldReader({"id": cell}, "").ident("id") == cell
        except InvalidRecord:
            taken = False
        assert ok == bool(PLAIN_ID.fullmatch(cell)), cell
        assert not ok or taken, cell
    assert not plain[ord("/")]


@pytest.mark.parametrize("name", INTERNED)
def test_each_distinct_value_is_decided_by_the_reference_field_reader(name: str) -> None:
    values: list[object] = [*SPELLINGS[name], None, True, False, 0, 7, 100_001]
    decided = decide(name, values)
    for i, value in enumerate(values):
        try:
            getattr(GameFields({} if value is None else {name: value}, ""), name)()
        except InvalidRecord:
            assert decided.refused[i], value
        else:
            assert not decided.refused[i], value


def test_refused_pairs_are_the_reference_checks() -> None:
    ending, confirmation = refused_pairs()
    assert int(ending.sum()) == 4  # a draw by resign, abandon, disconnect or forfeit
    assert confirmation.tolist() == [[False, True, True], [False, False, False]]


@pytest.mark.slow  # the reader again in a process without pyarrow
def test_csv_is_read_without_pyarrow(tmp_path: Path) -> None:
    """CSV reading does not import pyarrow (its import is a JSON Lines cost)."""
    path = tmp_path / "games.csv"
    path.write_text("id,played_at,white,black,result\ng1,2026-03-01T10:00:00Z,a,b,1-0\n")
    probe = (
        "import sys; from pathlib import Path; from chessrate.fast.columnar import read_batch\n"
        f"assert len(read_batch(Path({str(path)!r}))) == 1\n"
        "print('pyarrow' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=300)  # fmt: skip
    assert run.stdout.strip() == "False"
