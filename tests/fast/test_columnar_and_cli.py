"""The columnar reader against the reference reader, the lookup tables against the
reference functions, and ``rate --engine`` compiled = reference on the examples."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from chessrate import rating
from chessrate.cli import main
from chessrate.errors import InvalidRecord
from chessrate.fast import encode
from chessrate.fast.columnar import read_batch
from chessrate.fast.tables import site_expected, site_expected_table
from chessrate.io.games import read_games

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

CSV_ROWS = """id,played_at,white,black,result,rated,time_control,termination,plies,venue,note
g1,2026-03-01T10:00:00Z,ann,bob,1-0,true,5m+3s,,40,,
g2,2026-03-01T10:01:00Z,ann,bob,1/2-1/2,yes,3m + 2s,,,,

g3,2026-02-30T10:00:00Z,ann,bob,1-0,,300+3,,,,
g4,2026-03-01T10:02:00,bob,ann,0-1,FALSE,-,resign,2,,
g5,2026-03-01T10:03:00Z,ann,ann,1-0,,60,,,,
g6,2026-03-01T10:04:00Z,ann,bob,2-0,,60,,,,
g7,2026-03-01T10:05:00Z,ann,bob,1-0,,60,,,,hello
g8,2026-03-01T10:06:00+02:00,ann,cy,1-0,,0+0,,,,
g9,2026-03-01T10:07:00Z,ann,cy,1/2-1/2,,3d,resign,,,
g10,2026-03-01T10:08:00Z,cy,bob,1-0,,10m,,-3,otb,
g11, 2026-03-01T10:09:00Z ,cy,bob,1-0,,10m,Timeout,7,OTB,
"""

JSONL_ROWS = """{"id": "j1", "played_at": "2026-03-01T10:00:00Z", "white": "ann", "black": "bob", "result": "1-0", "rated": true, "plies": 12}

{"id": "j2", "played_at": "2026-03-01T10:01:00Z", "white": "ann", "black": "bob", "result": "*", "time_control": "5m + 3s"}
{"id": "j3", "played_at": "2026-03-01T10:02:00Z", "white": "ann", "black": "bob", "result": "1-0", "time_control": "7x"}
{"id": "j4", "played_at": "2026-13-01T10:02:00Z", "white": "ann", "black": "bob", "result": "1-0"}
{"id": "j5", "played_at": "2026-03-01T10:03:00Z", "white": "ann bis", "black": "bob", "result": "0-1", "plies": 0}
"""  # noqa: E501


def reference(path: Path) -> tuple[list[object], list[str]]:
    errors: list[InvalidRecord] = []
    records = read_games(path, None, errors.append)
    return [(r, r.source) for r in records], [str(e) for e in errors]


def columnar(path: Path) -> tuple[list[object], list[str]]:
    errors: list[InvalidRecord] = []
    batch = read_batch(path, None, errors.append)
    records = [batch.record(i) for i in range(len(batch))]
    return [(r, r.source) for r in records], [str(e) for e in errors]


@pytest.mark.slow  # every spelling of a file, both readers
@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("games.csv", CSV_ROWS),
        ("games.jsonl", JSONL_ROWS),
        ("quoted.csv", CSV_ROWS.replace("g1,", '"g1",')),  # the whole-file fallback
        ("crlf.jsonl", JSONL_ROWS.replace("\n", "\r\n")),
    ],
)
def test_columnar_reader_gives_the_reference_records_and_errors(
    tmp_path: Path, name: str, text: str
) -> None:
    """Same records (with FILE:LINE sources) and the same FILE:LINE: field: reason
    errors in the same order, skipping or stopping at the first."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    expected_records, expected_errors = reference(path)
    assert expected_errors  # the samples hold invalid rows
    assert columnar(path) == (expected_records, expected_errors)
    with pytest.raises(InvalidRecord) as stopped:
        read_batch(path)
    assert str(stopped.value) == expected_errors[0]


def test_columnar_error_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "games.csv"
    path.write_text(CSV_ROWS, encoding="utf-8")
    errors: list[InvalidRecord] = []
    read_batch(path, None, errors.append)
    assert str(errors[0]) == f"{path}:5: played_at: '2026-02-30T10:00:00Z' is not an ISO 8601 " \
        "timestamp (e.g. 2026-03-01T18:30:00Z)"  # fmt: skip
    assert [e.where for e in errors][:3] == [f"{path}:5", f"{path}:7", f"{path}:8"]


@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
def test_encode_and_read_batch_agree_on_the_examples(system_id: str) -> None:
    path = EXAMPLES / f"{system_id}_games.jsonl"
    records = read_games(path)
    for batch in (encode(records), read_batch(path)):
        assert [batch.record(i) for i in range(len(batch))] == records
        assert [batch.where(i) for i in range(len(batch))] == [r.source for r in records]


def test_site_expected_table_is_the_reference_function() -> None:
    """site S3: every entry, and beyond the table, equals the reference expected score."""
    table = site_expected_table()
    last = len(table) - 1
    assert table[last] == 100 and table[last - 1] == 99
    assert all(site_expected(d) == table[min(d, last)] for d in range(0, last + 2000))


def rate(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["rate", *args], env={"COLUMNS": "120"})
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
def test_rate_engine_compiled_equals_reference_on_the_examples(
    system_id: str, tmp_path: Path
) -> None:
    """rate --engine compiled and --engine reference: the same tables, summary and file."""
    args = [str(EXAMPLES / f"{system_id}_games.jsonl"), "--system", system_id,
            "--players", str(EXAMPLES / f"{system_id}_players.csv")]  # fmt: skip
    if system_id == "site":
        args += ["--annul", str(EXAMPLES / "site_annulments.txt"), "--annulled-at", "2026-02-01"]
    outputs = []
    for engine in ("reference", "compiled"):
        out = tmp_path / f"{engine}.csv"
        code, stdout, stderr = rate(*args, "--engine", engine, "--out", str(out), "--all")
        assert code == 0, stderr
        outputs.append((stdout, stderr, out.read_text(encoding="utf-8")))
    assert outputs[0] == outputs[1]
    assert "games from" in outputs[0][1]


def test_rate_engine_compiled_equals_reference_on_invalid_records(tmp_path: Path) -> None:
    """Refused records: the same exit code 2 and message, or with --skip-invalid the
    same skipped lines and summary."""
    path = tmp_path / "games.csv"
    path.write_text(CSV_ROWS + "g12,2026-03-02T10:00:00Z,ann,bot,1-0,,10m,bot_no_move,4,,\n",
                    encoding="utf-8")  # fmt: skip
    for extra in ([], ["--skip-invalid"]):
        runs = [rate(str(path), "--system", "site", *extra, "--engine", engine)
                for engine in ("reference", "compiled")]  # fmt: skip
        assert runs[0] == runs[1]
        assert runs[0][0] == (0 if extra else 2)
    _, _, stderr = runs[0]
    assert "skipped" in stderr and "bot_no_move" in stderr


def test_history_needs_the_reference_engine(tmp_path: Path) -> None:
    code, _, stderr = rate(str(EXAMPLES / "corr_games.jsonl"), "--system", "corr", "--engine",
                           "compiled", "--history", str(tmp_path / "h.csv"))  # fmt: skip
    assert code == 2 and "--history needs the reference engine" in stderr


@pytest.mark.slow  # whole PGN exports, both engines
@pytest.mark.parametrize("name", ["lichess_bfx.pgn", "lichess_cmrade.pgn", "chesscom.pgn"])
def test_rate_engine_compiled_equals_reference_on_pgn(name: str) -> None:
    """A PGN export rated by site through both engines: the same lists and summary, and
    the same skipped records (variants, bad tags) with --skip-invalid."""
    path = Path(__file__).resolve().parents[1] / "data" / "pgn" / name
    runs = [rate(str(path), "--system", "site", "--skip-invalid", "--engine", engine)
            for engine in ("reference", "compiled")]  # fmt: skip
    assert runs[0] == runs[1]
    assert runs[0][0] == 0, runs[0][2]
    assert f"games from {path}" in runs[0][2]


@pytest.mark.slow  # a file big enough for the compiled replay
def test_rate_auto_takes_the_compiled_replay_for_big_files_only(tmp_path: Path) -> None:
    """--engine auto: the reference engine below rating.COMPILED_FROM_BYTES (numba is never
    loaded), the compiled replay from there on; --history always the reference."""
    small = EXAMPLES / "corr_games.jsonl"
    big = tmp_path / "big.jsonl"
    lines = small.read_text(encoding="utf-8").splitlines()
    copies = []
    for n in range(rating.COMPILED_FROM_BYTES // len("\n".join(lines)) + 1):
        copies += [line.replace('"id": "', f'"id": "c{n}-', 1) for line in lines]
    big.write_text("\n".join(copies) + "\n", encoding="utf-8")
    assert big.stat().st_size >= rating.COMPILED_FROM_BYTES > small.stat().st_size
    probe = (
        "import sys; from chessrate.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "print('numba' in sys.modules, file=sys.stderr)"
    )
    players = ["--players", str(EXAMPLES / "corr_players.csv")]
    history = ["--history", str(tmp_path / "h.csv")]
    for path, extra, compiled in ((small, [], False), (big, [], True), (big, history, False)):
        run = subprocess.run(
            [sys.executable, "-c", probe, "rate", str(path), "--system", "corr", *players, *extra],
            capture_output=True, text=True, check=False, timeout=300,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        assert run.stderr.strip().splitlines()[-1] == str(compiled), (path, extra)


CELLS = {
    "id": ["g{n}", "g{n}", " g{n}", "g {n}", "ĝ{n}", "", "x" * 201, "g1"],
    "played_at": ["2026-03-01T10:00:00Z", "2024-02-29T23:59:59Z", "2026-02-29T10:00:00Z",
                  "2026-03-01T24:00:00Z", "2026-03-01T10:00:00", "2026-03-01T10:00:00+00:00",
                  "2026-03-01T10:00:00+02:00", "0999-03-01T10:00:00Z", "2026-3-01T10:00:00Z",
                  "2026-03-01 10:00:00Z", "", "2026-12-31T10:60:00Z"],
    "white": ["ann", "bob", "cy", " ann", "Ann", "", "é"],
    "black": ["bob", "ann", "dee", "bob ", ""],
    "result": ["1-0", "0-1", "1/2-1/2", "*", "", "2-0", " 1-0", "½-½"],
    "rated": ["", "true", "FALSE", "Yes", "n", "t", "0", "maybe", " true"],
    "time_control": ["", "5m+3s", "3m + 2s", "300+3", "15m", "300s+5s", "-", "3d", "0d",
                     "0+0", "0m", "1234567", "5+", " 5+3", "60", "14d", "2d+1", "10m+0"],
    "termination": ["", "normal", "resign", "timeout", "forfeit", "bot_no_move", "expired",
                    "Timeout", "abandon", "disconnect"],
    "plies": ["", "0", "40", "007", "-3", "1234567890", "12a"],
    "venue": ["", "online", "otb", "OTB"],
    "confirmed": ["", "", "", "true", "no", "x"],
    "note": ["", "", "", "", "hello", " "],
}  # fmt: skip


@pytest.mark.slow  # many spellings, both readers
@pytest.mark.parametrize("without", [None, "id", "played_at", "black", "plies"])
def test_csv_scanner_gives_the_reference_records_and_errors_on_many_spellings(
    tmp_path: Path, without: str | None
) -> None:
    """Every plain and not so plain spelling of every field, mixed at random: the
    scanner's records and errors are the reference reader's (the cells it does not
    decide go to the reference parser)."""
    import random

    rng = random.Random(8)
    names = [name for name in CELLS if name != without]
    lines = [",".join(names)]
    for n in range(3000):
        cells = [rng.choice(CELLS[name]).format(n=n) for name in names]
        if rng.random() < 0.6:  # mostly valid rows, so that both paths are exercised
            white, black = rng.choice([("ann", "bob"), ("cy", "dee"), ("bob", "cy")])
            plain = {"id": f"g{n}", "result": rng.choice(["1-0", "0-1", "*"]),
                     "played_at": "2026-03-01T10:00:00Z", "note": "", "confirmed": "",
                     "white": white, "black": black}  # fmt: skip
            cells = [plain.get(name, cell) for name, cell in zip(names, cells, strict=True)]
        lines.append(",".join(cells))
        if rng.random() < 0.02:
            lines.append("")
    path = tmp_path / "games.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected_records, expected_errors = reference(path)
    got_records, got_errors = columnar(path)
    assert len(expected_errors) > 300
    if without in (None, "plies"):  # else every row lacks a required field
        assert len(expected_records) > 500
    assert got_errors == expected_errors
    assert got_records == expected_records


@pytest.mark.slow  # both engines, through the CLI
def test_rate_engine_compiled_equals_reference_on_csv_with_annulments(tmp_path: Path) -> None:
    """The site examples as CSV (read by the scanner, game ids kept as bytes and found
    by hash for the annulments): the same output from both engines."""
    import json

    rows = [json.loads(line) for line in (EXAMPLES / "site_games.jsonl").read_text().splitlines()
            if line.strip()]  # fmt: skip
    names = list(dict.fromkeys(name for row in rows for name in row))

    def cell(value: object) -> str:
        return (
            "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
        )

    path = tmp_path / "site_games.csv"
    lines = [",".join(names)] + [",".join(cell(row.get(n)) for n in names) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    batch = read_batch(path)
    ids = [str(row["id"]) for row in rows]
    assert [batch.game_ids[batch.game[i]] for i in range(len(batch))] == ids
    assert batch.game_ids.code("no such game") is None  # type: ignore[attr-defined]
    args = [str(path), "--system", "site", "--players", str(EXAMPLES / "site_players.csv"),
            "--annul", str(EXAMPLES / "site_annulments.txt"),
            "--annulled-at", "2026-02-01"]  # fmt: skip
    runs = [rate(*args, "--engine", engine) for engine in ("reference", "compiled")]
    assert runs[0] == runs[1]
    assert runs[0][0] == 0 and "annulled" in runs[0][1]


@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
def test_kernel_again_rebuilds_the_same_states(system_id: str) -> None:
    """kernel_again (what bench/run.py times as "kernel only") reruns the kernel from the
    initial states and ends in the states and lists of the replay."""
    from chessrate.fast import Roster, kernel_again, replay
    from chessrate.io.games import read_players

    roster = Roster(system_id, read_players(EXAMPLES / f"{system_id}_players.csv"))
    result = replay(system_id, read_batch(EXAMPLES / f"{system_id}_games.jsonl"), roster)
    before = {name: array.copy() for name, array in result.states.items()}
    lists = result.rating_lists()
    assert kernel_again(result) == len(result.rated_rows) > 0
    assert before.keys() == result.states.keys()
    for name, array in before.items():
        assert (array == result.states[name]).all(), name
    assert result.rating_lists() == lists
