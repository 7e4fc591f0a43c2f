"""PGN reader (chessrate.io.pgn): the tag scanner against python-chess on real and
hand-made files, compressed input, time controls, terminations, variants, every
error naming FILE:LINE, the tag and the reason, and ``chessrate rate`` on PGN."""

from __future__ import annotations

import gzip
import io
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import chess.pgn
import pytest
import zstandard
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from chessrate.cli import main
from chessrate.errors import InvalidInput, InvalidRecord
from chessrate.io.games import read_games
from chessrate.io.pgn import (
    game_from_tags,
    map_termination,
    parse_pgn_time_control,
    read_pgn_games,
    scan_headers,
)
from chessrate.io.tabular import detect_format
from chessrate.records import GameRecord, Result, Termination
from chessrate.timecontrol import ClockKind, TimeControl

DATA = Path(__file__).resolve().parent.parent / "data" / "pgn"
FILES = sorted(path.name for path in DATA.glob("*.pgn"))
WITH_MOVETEXT = ["lichess_bfx.pgn", "lichess_cmrade.pgn", "chesscom.pgn"]


def python_chess_headers(text: str) -> list[dict[str, str]]:
    handle = io.StringIO(text)
    games = []
    while (headers := chess.pgn.read_headers(handle)) is not None:
        games.append(dict(headers))
    return games


def unescape(value: str) -> str:
    """python-chess keeps a tag value's escapes; the scanner undoes them."""
    return re.sub(r'\\(["\\])', r"\1", value)


def scan(text: str) -> list[tuple[int, dict[str, str]]]:
    return list(scan_headers(io.BytesIO(text.encode())))


# -- the scanner ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", WITH_MOVETEXT)
def test_scanner_equals_python_chess_on_files_with_movetext(name: str) -> None:
    text = (DATA / name).read_text(encoding="utf-8")
    assert [tags for _, tags in scan_headers(DATA / name)] == python_chess_headers(text)


@pytest.mark.parametrize("name", FILES)
def test_scanner_equals_python_chess_game_by_game(name: str) -> None:
    """Every fixture, header-only and quirky ones included: the game count is the
    number of White tags, and python-chess reads the same tags from each game's text."""
    text = (DATA / name).read_text(encoding="utf-8")
    lines = text.split("\n")
    games = list(scan_headers(DATA / name))
    assert len(games) == sum(line.startswith("[White ") for line in lines)
    bounds = [line for line, _ in games] + [len(lines) + 1]
    for (line, tags), next_line in zip(games, bounds[1:], strict=True):
        assert lines[line - 1].startswith("[")
        piece = "\n".join(lines[line - 1 : next_line - 1])
        expected = python_chess_headers(piece)[0]
        assert tags == {key: unescape(value) for key, value in expected.items()}


def test_scanner_line_numbers_and_quirks() -> None:
    games = list(scan_headers(DATA / "quirks.pgn"))
    assert [line for line, _ in games] == [4, 19, 32, 44, 53]
    first = games[0][1]
    assert list(first)[:3] == ["White", "Black", "Event"]  # any tag order, file order kept
    assert first["White"] == 'Ann "The Rock" O\'Neil'
    assert first["Black"] == "back\\slash"
    assert "escaped line" not in str(games) and "tag-like" not in str(games)
    assert games[2][1]["White"] == "Dee"  # a blank line inside the tag section
    assert games[3][1]["Event"] == "Header only"
    assert games[4][1]["Event"] == "Header only, next"


def test_header_only_games_are_separate_games() -> None:
    games = list(scan_headers(DATA / "fwwrc_2024_rapid.pgn"))
    assert len(games) == 6
    assert [line for line, _ in games] == [1, 21, 41, 61, 81, 101]
    games = list(scan_headers(DATA / "uzchesscup_2025.pgn"))
    assert [tags["Round"] for _, tags in games] == ["1.1", "1.2", "1.3", "1.4", "1.5"]
    assert "Event" in games[0][1] and "Event" not in games[1][1]


def test_crlf_bom_and_no_final_newline() -> None:
    text = (DATA / "quirks.pgn").read_text(encoding="utf-8")
    expected = scan(text)
    variant = "\ufeff" + text.replace("\n", "\r\n").rstrip("\r\n")
    assert scan(variant) == expected


@pytest.mark.parametrize("name", FILES)
def test_gzip_and_zstd_input(tmp_path: Path, name: str) -> None:
    raw = (DATA / name).read_bytes()
    expected = list(scan_headers(DATA / name))
    gz = tmp_path / f"{name}.gz"
    gz.write_bytes(gzip.compress(raw))
    zst = tmp_path / f"{name}.zst"
    zst.write_bytes(zstandard.ZstdCompressor().compress(raw))
    assert list(scan_headers(gz)) == expected
    assert list(scan_headers(zst)) == expected
    read: list[int] = []
    assert read_pgn_games(zst, lambda e: None, progress=read.append) == read_pgn_games(
        DATA / name, lambda e: None
    )
    assert sum(read) == zst.stat().st_size


def test_chunk_boundaries_do_not_change_the_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small chunks split games, comments and blank-line decisions anywhere."""
    from chessrate.io.pgn import source

    text = "".join((DATA / name).read_text(encoding="utf-8") + "\n\n" for name in FILES)
    expected = scan(text)
    for size in (7, 64, 333):
        monkeypatch.setattr(source, "CHUNK_BYTES", size)
        assert scan(text) == expected


def test_progress_counts_every_byte() -> None:
    read: list[int] = []
    list(scan_headers(DATA / "lichess_bfx.pgn", progress=read.append))
    assert sum(read) == (DATA / "lichess_bfx.pgn").stat().st_size


def test_unreadable_input() -> None:
    with pytest.raises(InvalidInput, match="cannot read"):
        list(scan_headers(DATA / "missing.pgn"))
    broken = io.BytesIO(gzip.compress(b'[White "a"]\n' * 100)[:-20])
    with pytest.raises(InvalidInput, match="cannot decompress"):
        list(scan_headers(broken))


NAMES = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_+#=:-]{0,12}", fullmatch=True)
VALUES = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\r\n\x85\u2028\u2029"),
    max_size=20,
)
MOVETEXT = st.sampled_from(
    [
        "1. e4 e5 1-0",
        '1. e4 { [%clk 0:01:00] "x" } e5 *',
        '1. d4 {multi\n[Event "no"]\nline} d5 ; semi { \n2. c4 0-1',
        '%[Event "escape"]\n1/2-1/2',
        "1. e4 (1. d4 {[v]}) $2 *",
    ]
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.dictionaries(NAMES, VALUES, min_size=1, max_size=6), MOVETEXT),
        min_size=1,
        max_size=4,
    ),
    st.booleans(),
)
def test_property_random_tag_sections_match_python_chess(
    games: list[tuple[dict[str, str], str]], crlf: bool
) -> None:
    """Random tag names and values with quotes and backslashes, escaped the PGN way,
    read back as written, equal to python-chess's (unescaped) reading."""
    parts = []
    for tags, movetext in games:
        section = "".join(
            '[{} "{}"]\n'.format(k, v.replace("\\", "\\\\").replace('"', '\\"'))
            for k, v in tags.items()
        )
        parts.append(section + "\n" + movetext + "\n\n")
    text = "".join(parts)
    if crlf:
        text = text.replace("\n", "\r\n")
    scanned = [tags for _, tags in scan(text)]
    assert scanned == [tags for tags, _ in games]
    reference = python_chess_headers(text.replace("\r\n", "\n"))
    assert scanned == [{k: unescape(v) for k, v in h.items()} for h in reference]


# -- time controls -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("300+3", TimeControl(ClockKind.CLOCKED, 300, 3)),
        ("60", TimeControl(ClockKind.CLOCKED, 60, 0)),
        ("-", TimeControl(ClockKind.UNCLOCKED)),
        ("1/259200", TimeControl(ClockKind.CORRESPONDENCE, days_per_move=3)),
        ("1/86400", TimeControl(ClockKind.CORRESPONDENCE, days_per_move=1)),
        ("40/5400+30:1800+30", TimeControl(ClockKind.CLOCKED, 7200, 30)),
        ("40/7200:3600", TimeControl(ClockKind.CLOCKED, 10800, 0)),
        ("*180", TimeControl(ClockKind.CLOCKED, 180, 0)),
        ("15 min. + 10 s. per move", TimeControl(ClockKind.CLOCKED, 900, 10)),
        (
            "15 minutes + 10 seconds increment per move, starting from move 1",
            TimeControl(ClockKind.CLOCKED, 900, 10),
        ),
        ("90 min/40 moves + 30 min + 30 s. per move", TimeControl(ClockKind.CLOCKED, 7200, 30)),
        (
            "90 min for 40 moves, then 30 min + 30 sec/move",
            TimeControl(ClockKind.CLOCKED, 7200, 30),
        ),
        ("3 days per move", TimeControl(ClockKind.CORRESPONDENCE, days_per_move=3)),
        ("25 min", TimeControl(ClockKind.CLOCKED, 1500, 0)),
        ("5m+3s", TimeControl(ClockKind.CLOCKED, 300, 3)),
    ],
)
def test_time_controls(text: str, expected: TimeControl) -> None:
    assert parse_pgn_time_control(text) == expected


@pytest.mark.parametrize("text", ["", "?"])
def test_unknown_time_control_is_none(text: str) -> None:
    assert parse_pgn_time_control(text) is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("1/100", "not whole days per move"),
        ("40/x", "is not a time control"),
        ("40/", "not a PGN time control"),
        ("0+0", "needs a base time or an increment"),
        ("blitz", "is not a time control"),
        ("5 min + 2 s. per move + 3 s. per move", "more than one increment"),
        ("3 days", "N days per move"),
        ("0 min", "needs a base time"),
    ],
)
def test_bad_time_controls(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_pgn_time_control(text)


# -- records -------------------------------------------------------------------------------


def test_lichess_records() -> None:
    skipped: list[InvalidRecord] = []
    games = read_pgn_games(DATA / "lichess_bfx.pgn", skipped.append)
    assert [error.field for error in skipped] == ["Variant"] * 3
    assert all("From Position" in e.reason and "standard" in e.reason for e in skipped)
    first = games[0]
    assert first.id == "ttgKfhyW"
    assert (first.white, first.black, first.result) == (
        "Bfx-de-Blr",
        "Prophetman",
        Result.WHITE_WINS,
    )
    assert first.played_at == datetime(2026, 1, 16, 8, 32, 44, tzinfo=UTC)
    assert str(first.time_control) == "300+0"
    assert first.rated is True and first.termination is Termination.NORMAL
    assert first.source == f"{DATA / 'lichess_bfx.pgn'}:1"
    assert len(games) == 11 and all(g.rated for g in games)  # the casual ones are From Position
    assert {str(g.time_control) for g in games} == {"300+0", "600+0"}


def test_lichess_terminations_and_casual_events() -> None:
    games = read_pgn_games(DATA / "lichess_cmrade.pgn")
    tags = [t for _, t in scan_headers(DATA / "lichess_cmrade.pgn")]
    assert len(games) == len(tags) == 46
    expected = {"Normal": "normal", "Time forfeit": "timeout", "Abandoned": "abandon"}
    for game, tag in zip(games, tags, strict=True):
        assert game.termination.value == expected[tag["Termination"]]
        assert game.rated == (not tag["Event"].startswith("Casual"))
        assert game.id == tag["Site"].rsplit("/", 1)[1]
    assert any(g.time_control == TimeControl(ClockKind.UNCLOCKED) for g in games)


def test_chess_com_terminations() -> None:
    games = read_pgn_games(DATA / "chesscom.pgn")
    assert [g.termination.value for g in games] == [
        "resign", "timeout", "abandon", "normal", "timeout", "normal",
    ]  # fmt: skip
    assert games[0].id == "chess.com:game:live:100000001"  # (Link, without its "/")
    assert str(games[-1].time_control) == "1d"


@pytest.mark.parametrize(
    ("text", "result", "expected"),
    [
        ("Normal", Result.WHITE_WINS, Termination.NORMAL),
        ("time forfeit", Result.BLACK_WINS, Termination.TIMEOUT),
        ("Abandoned", Result.NO_RESULT, Termination.ABANDON),
        ("Rules infraction", Result.WHITE_WINS, Termination.FORFEIT),
        ("Unterminated", Result.NO_RESULT, Termination.NORMAL),
        ("resign", Result.WHITE_WINS, Termination.RESIGN),
        ("w won by resignation", Result.WHITE_WINS, Termination.RESIGN),
        ("b won on time", Result.BLACK_WINS, Termination.TIMEOUT),
        ("Game abandoned", Result.NO_RESULT, Termination.ABANDON),
        ("Game drawn by stalemate", Result.DRAW, Termination.NORMAL),
    ],
)
def test_map_termination(text: str, result: Result, expected: Termination) -> None:
    assert map_termination(text, "w", "b", result) is expected


def test_broadcast_records() -> None:
    games = read_pgn_games(DATA / "fwwrc_2024_rapid.pgn")
    assert {str(g.time_control) for g in games} == {"900+10"}
    assert all(g.rated and g.id.startswith("pgn-") for g in games)
    assert len({g.id for g in games}) == len(games)
    assert games[0].white == "Charkhalashvili, Inga"
    assert games[0].played_at == datetime(2024, 12, 26, tzinfo=UTC)
    by_fide = read_pgn_games(DATA / "fwwrc_2024_rapid.pgn", player_ids="fide")
    assert (by_fide[0].white, by_fide[0].black) == ("13601431", "8603006")
    uz = read_pgn_games(DATA / "uzchesscup_2025.pgn")
    assert uz[0].played_at == datetime(2025, 6, 18, 7, 57, 5, tzinfo=UTC)
    assert all(g.time_control is None for g in uz)


def test_records_equal_from_mapping() -> None:
    """The direct construction validates like GameRecord.from_mapping."""
    for name in FILES:
        for game in read_pgn_games(DATA / name, lambda e: None):
            data = game.to_mapping()
            assert GameRecord.from_mapping(data, game.source) == game


BASE = {
    "Event": "Rated Blitz game",
    "Site": "https://lichess.org/abcdefgh",
    "UTCDate": "2024.01.02",
    "UTCTime": "03:04:05",
    "White": "ann",
    "Black": "bob",
    "Result": "1-0",
    "TimeControl": "180+0",
}


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"White": "?"}, "White", "is required"),
        ({"Black": None}, "Black", "is required"),
        ({"Black": "ann"}, "Black", "cannot play himself"),
        ({"White": "a\x01b"}, "White", "is not a valid id (no control characters)"),
        ({"White": "a/b"}, "White", "'/' is not allowed in an id"),
        ({"Black": "x\x85y"}, "Black", "no control characters"),
        ({"Result": None}, "Result", "is required"),
        ({"Result": "1-1"}, "Result", "is not one of"),
        ({"UTCDate": None}, "Date", "is required"),
        ({"UTCDate": "2024.??.??"}, "UTCDate", "is partial"),
        ({"UTCDate": "????.??.??"}, "UTCDate", "is partial"),
        ({"UTCDate": "yesterday"}, "UTCDate", "is not a date"),
        ({"UTCDate": "2024.02.30"}, "UTCDate", "day is out of range"),
        ({"UTCTime": "noon"}, "UTCTime", "is not a time"),
        ({"UTCTime": "25:00:00"}, "UTCTime", "hour must be"),
        ({"UTCDate": None, "Date": "2024.??.??"}, "Date", "is partial"),
        ({"TimeControl": "fast"}, "TimeControl", "is not a time control"),
        ({"Termination": "Stopped by aliens"}, "Termination", "is not a known termination"),
        ({"Termination": "bob won on time"}, "Termination", "but the result is 1-0"),
        ({"Termination": "Game drawn by agreement"}, "Termination", "but the result is 1-0"),
        ({"Result": "1/2-1/2", "Termination": "resign"}, "Result", "is not a draw"),
        ({"Variant": "Chess960"}, "Variant", "'Chess960' is not standard chess"),
        ({"Variant": "Crazyhouse"}, "Variant", "not standard chess"),
        ({"FEN": "8/8/8/8/8/8/8/K1k5 w - - 0 1"}, "FEN", "set-up position"),
        ({"PlyCount": "many"}, "PlyCount", "is not a whole number"),
        ({"PlyCount": "9" * 5000}, "PlyCount", "must be at most 100,000"),
        ({"UTCDate": "1799.12.31"}, "UTCDate", "is out of range"),
        ({"GameId": "x" * 201}, "GameId", "is 201 characters long; at most 200"),
        ({"GameId": "round/7"}, "GameId", "'/' is not allowed in an id"),
        ({"GameId": None, "Site": "", "Link": "https:///1"}, "Link", "no host"),
        (
            {"GameId": None, "Site": "", "Link": "https://x.org/" + "y" * 200},
            "Link",
            "the id it gives is 206 characters long",
        ),
        (
            {"GameId": None, "Site": "", "Link": "https://x.org/a\tb"},
            "Link",
            "no control characters",
        ),
    ],
)
def test_every_error_names_file_line_tag_and_reason(
    tmp_path: Path, change: dict[str, str | None], field: str, reason: str
) -> None:
    tags = {**BASE, **change}
    section = "".join(f'[{k} "{v}"]\n' for k, v in tags.items() if v is not None)
    good = "".join(f'[{k} "{v}"]\n' for k, v in BASE.items())
    path = tmp_path / "games.pgn"
    path.write_text(good.replace("abcdefgh", "zzzzzzzz") + "\n1. e4 1-0\n\n" + section + "\n*\n")
    with pytest.raises(InvalidRecord) as raised:
        read_pgn_games(path)
    error = raised.value
    assert (error.where, error.field) == (f"{path}:12", field)
    assert reason in error.reason
    assert str(error).startswith(f"{path}:12: {field}: ")
    skipped: list[InvalidRecord] = []
    assert len(read_pgn_games(path, skipped.append)) == 1
    assert [e.where for e in skipped] == [f"{path}:12"]


def test_valid_variants_and_defaults() -> None:
    for variant in ("Standard", "standard", ""):
        game = game_from_tags({**BASE, "Variant": variant}, "x:1")
        assert game.rated
    game = game_from_tags({**BASE, "PlyCount": "1", "Event": "Casual Blitz game"}, "x:1")
    assert (game.plies, game.rated, game.venue.value, game.confirmed) == (1, False, "online", None)
    game = game_from_tags({**BASE, "UTCTime": "??:??:??"}, "x:1")
    assert game.played_at == datetime(2024, 1, 2, tzinfo=UTC)
    no_id = {k: v for k, v in BASE.items() if k != "Site"}
    assert (
        game_from_tags(no_id, "x:1").id == game_from_tags({**no_id, "Result": "0-1"}, "x:2").id
    )  # the hash id leaves out the result


# -- wiring --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a.pgn", "a.PGN", "a.pgn.gz", "a.pgn.zst"])
def test_detect_format(name: str) -> None:
    assert detect_format(Path(name)) == "pgn"


def test_detect_format_refuses_other_compressed_files() -> None:
    with pytest.raises(InvalidInput, match=r"\.pgn\.gz"):
        detect_format(Path("a.csv.gz"))


def test_read_games_reads_pgn(tmp_path: Path) -> None:
    path = tmp_path / "games.pgn.gz"
    path.write_bytes(gzip.compress((DATA / "chesscom.pgn").read_bytes()))
    assert read_games(path) == read_pgn_games(DATA / "chesscom.pgn")


@pytest.mark.parametrize("suffix", [".pgn", ".pgn.zst"])
def test_cli_rates_a_pgn_file(tmp_path: Path, suffix: str) -> None:
    raw = (DATA / "lichess_cmrade.pgn").read_bytes()
    path = tmp_path / f"games{suffix}"
    path.write_bytes(raw if suffix == ".pgn" else zstandard.ZstdCompressor().compress(raw))
    out = tmp_path / "list.json"
    result = CliRunner().invoke(main, ["rate", str(path), "--system", "site", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "46 games from" in result.stderr
    entries = json.loads(out.read_text())
    mine = [e for e in entries if e["player"] == "cmrade" and e["pool"] == "site"]
    assert len(mine) == 1 and mine[0]["games"] > 0


def test_cli_reports_an_invalid_pgn_game(tmp_path: Path) -> None:
    path = tmp_path / "bfx.pgn"
    path.write_bytes((DATA / "lichess_bfx.pgn").read_bytes())
    result = CliRunner().invoke(main, ["rate", str(path), "--system", "site"])
    assert result.exit_code == 2
    assert re.search(rf"error: {re.escape(str(path))}:\d+: Variant: 'From Position'", result.stderr)
    result = CliRunner().invoke(main, ["rate", str(path), "--system", "site", "--skip-invalid"])
    assert result.exit_code == 0
    assert "3 invalid records skipped" in result.stderr
