"""The compiled PGN scanner (chessrate.io.pgn.scan_numba) and the columnar reader
(chessrate.fast.pgn.columns) against the pure-Python scanner: same games, same lines,
same tags, on every fixture, on random tag sections and on the quirks the kernel
hands back to Python."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessrate.fast.pgn import read_pgn_columns
from chessrate.io.pgn import RECORD_TAGS, read_pgn_games, scan, scan_headers, source
from chessrate.io.pgn.scan import FALLBACK, PLAIN
from chessrate.io.pgn.scan_numba import scan_buffer

DATA = Path(__file__).resolve().parent.parent / "data" / "pgn"
FILES = sorted(path.name for path in DATA.glob("*.pgn"))


def both(data: bytes) -> tuple[list[tuple[int, dict[str, str]]], list[tuple[int, dict[str, str]]]]:
    compiled = list(scan_headers(io.BytesIO(data), compiled=True))
    python = list(scan_headers(io.BytesIO(data), compiled=False))
    return compiled, python


def assert_columns(data: bytes, expected: list[tuple[int, dict[str, str]]]) -> None:
    columns = read_pgn_columns(io.BytesIO(data))
    assert len(columns) == len(expected)
    assert columns.lines.tolist() == [line for line, _ in expected]
    for game, (_, tags) in enumerate(expected):
        assert columns.tags(game) == {k: v for k, v in tags.items() if k in RECORD_TAGS}
    for tag, values in columns.values.items():  # one code per distinct value
        assert len(set(values)) == len(values)
        assert columns.codes[tag].dtype == np.int32


@pytest.mark.parametrize("name", FILES)
def test_compiled_scan_equals_python_scan_on_every_fixture(name: str) -> None:
    data = (DATA / name).read_bytes()
    compiled, python = both(data)
    assert compiled == python == list(scan_headers(DATA / name))
    assert_columns(data, python)


def test_compiled_scan_with_small_chunks_crlf_bom_and_gzip(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "".join((DATA / name).read_text(encoding="utf-8") + "\n\n" for name in FILES)
    data = text.encode()
    expected = list(scan_headers(io.BytesIO(data), compiled=False))
    variant = b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n").rstrip(b"\r\n")
    for size in (64, 333, 4096):
        monkeypatch.setattr(source, "CHUNK_BYTES", size)
        assert list(scan_headers(io.BytesIO(data), compiled=True)) == expected
        assert list(scan_headers(io.BytesIO(variant), compiled=True)) == expected
    assert list(scan_headers(io.BytesIO(gzip.compress(data)), compiled=True)) == expected
    assert_columns(gzip.compress(variant), expected)


def test_latin1_chunk_goes_to_the_python_scanner(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chunk that is not UTF-8 is read as Latin-1 by the Python scanner, from there on."""
    games = [f'[White "w{i}"]\n[Black "b{i}"]\n\n1. e4 1-0\n\n'.encode() for i in range(40)]
    games[25] = '[White "Jürgen"]\n[Black "x"]\n\n1. e4 1-0\n\n'.encode("latin-1")
    data = b"".join(games)
    monkeypatch.setattr(source, "CHUNK_BYTES", 100)
    compiled, python = both(data)
    assert compiled == python
    assert compiled[25][1]["White"] == "Jürgen"
    assert_columns(data, python)


def test_sections_the_kernel_leaves_to_python() -> None:
    raw = (
        b'[White "a\\"b"]\n[Black "c"]\n\n1. e4 1-0\n\n'  # escape: decoded in Python
        b'[White "lone\rcr"]\n[Black "d"]\n\n*\n\n'  # a lone CR on a tag line
        b'[White\x0b"vt"]\n[Black\xc2\xa0"nbsp"]\n[Event "e"]\n\n*\n\n'  # \s or not
        b'[White  "two spaces"] \t\n[Black "e"]\n\n*\n\n'
    )
    scanned = scan_buffer(raw, 1, True)
    assert scanned.games == 4 and not scanned.bailed
    flags = scanned.sec_flag[:4].tolist()
    assert flags == [0, FALLBACK, FALLBACK, 0]
    assert scanned.tag_escaped[0]
    plain = scan_buffer(b'[White "a"]\n[Black "b"]\n\n*\n', 1, True)
    assert plain.sec_flag[0] == PLAIN
    compiled, python = both(raw)
    assert compiled == python
    assert compiled[0][1]["White"] == 'a"b'
    assert compiled[2][1] == {"White": "vt", "Black": "nbsp", "Event": "e"}
    assert compiled[3][1]["White"] == "two spaces"
    assert_columns(raw, python)


def test_header_only_games_and_bailing_out() -> None:
    raw = (
        b'[Event "a"]\n[White "w"]\n\n[Round "1"]\n\n1. e4 *\n\n'  # one blank line: merged
        b'[Event "b"]\n\n[Event "c"]\n\n*\n\n'  # repeated first tag: two games
        b'[Event "d"]\n\xe3\x80\x80\n[Event "e"]\n\n*\n'  # an ideographic space line
    )
    scanned = scan_buffer(raw, 1, True)
    assert scanned.bailed  # str.strip() decides: the Python scanner reads it
    compiled, python = both(raw)
    assert compiled == python
    assert [tags for _, tags in compiled[:3]] == [
        {"Event": "a", "White": "w", "Round": "1"},
        {"Event": "b"},
        {"Event": "c"},
    ]
    assert_columns(raw, python)


def test_scan_headers_uses_the_compiled_scanner_on_big_input(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(scan, "COMPILED_MIN_BYTES", 1000)
    used: list[str] = []
    original = scan.choose_scanner

    def recording(*args: object) -> scan.Scanner:
        chosen = original(*args)  # type: ignore[arg-type]
        used.append(type(chosen).__name__)
        return chosen

    monkeypatch.setattr(scan, "choose_scanner", recording)
    path = tmp_path / "many.pgn"
    path.write_bytes((DATA / "lichess_cmrade.pgn").read_bytes() * 3)
    games = read_pgn_games(path)
    assert used == ["CompiledScanner"] and len(games) == 3 * 46
    assert list(scan_headers(path, compiled=False)) == list(scan_headers(path))
    assert used == ["CompiledScanner", "PythonScanner", "CompiledScanner"]


NAMES = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_+#=:-]{0,8}", fullmatch=True) | st.sampled_from(
    ["White", "Black", "Result", "Event", "Site", "TimeControl"]
)
VALUES = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\n\x85\u2028\u2029"),
    max_size=12,
)
SPACES = st.sampled_from([" ", " ", " ", "  ", "\t", "\x0b", "\xa0", ""])
TRAILING = st.sampled_from(["", "", "", " ", "\t ", "\r", " x"])
MOVETEXT = st.sampled_from(
    [
        "1. e4 e5 1-0",
        '1. e4 { [%clk 0:01:00] "x" } e5 *',
        '1. d4 {multi\n[Event "no"]\nline} d5 ; semi { \n2. c4 0-1',
        '%[Event "escape"]\n1/2-1/2',
        "1. e4 (1. d4 {[v]}) $2 *",
        "",
        " ",
        "1. e4\n\n2. e5 *",
        "{open",
    ]
)
LINES = st.sampled_from(["", "", "", "% a % line", "; a ; line", "[not a tag", '[_bad "x"]'])


@st.composite
def pgn_texts(draw: st.DrawFn) -> str:
    parts = [draw(st.sampled_from(["", "", "junk before\n", "% first\n\n"]))]
    for _ in range(draw(st.integers(1, 4))):
        for _ in range(draw(st.integers(1, 5))):
            value = draw(VALUES)
            if draw(st.booleans()):
                value = value.replace("\\", "\\\\").replace('"', '\\"')
            parts.append(f'[{draw(NAMES)}{draw(SPACES)}"{value}"]{draw(TRAILING)}\n')
            extra = draw(LINES)
            if extra:
                parts.append(extra + "\n")
        parts.append(draw(st.sampled_from(["\n", "\n", "", "\n\n"])))
        movetext = draw(MOVETEXT)
        if movetext:
            parts.append(movetext + "\n")
        parts.append(draw(st.sampled_from(["\n", "\n", ""])))
    return "".join(parts)


@pytest.mark.slow  # 150 generated files
@settings(max_examples=150, deadline=None)
@given(pgn_texts(), st.booleans(), st.sampled_from([0, 97, 1 << 20]))
def test_property_compiled_scan_equals_python_scan(text: str, crlf: bool, chunk: int) -> None:
    """Random tag sections (escapes, odd whitespace, trailing bytes, lone CRs, %/;
    lines, non-tag lines), comments holding brackets, header-only games, CRLF: the
    compiled scan, with or without small chunks, and the columns give the Python
    scanner's games."""
    if crlf:
        text = text.replace("\n", "\r\n")
    data = text.encode("utf-8")
    saved = source.CHUNK_BYTES
    try:
        if chunk:
            source.CHUNK_BYTES = chunk
        compiled, python = both(data)
        assert compiled == python
        assert_columns(data, python)
    finally:
        source.CHUNK_BYTES = saved


@pytest.mark.parametrize(
    "tail",
    [
        b"",
        b'[White "cr"]\r\n[Black "x"]\r\n\r\n*\r\n',
        '[White "J\u00fcrgen"]\n\n*\n'.encode("latin-1"),
    ],
)
def test_memory_mapped_files_and_their_fallback(
    tmp_path: Path, tail: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plain file of a megabyte or more is read through a memory map, in windows;
    one with a carriage return or a byte that is not UTF-8 after the first window is
    read again chunk by chunk, and progress still counts each byte once."""
    monkeypatch.setattr(scan, "MAPPED_WINDOW", 1 << 18)
    text = "".join((DATA / name).read_text(encoding="utf-8") + "\n\n" for name in FILES)
    data = text.encode() * (1 + (3 << 20) // len(text)) + tail
    path = tmp_path / "big.pgn"
    path.write_bytes(data)
    expected = list(scan_headers(io.BytesIO(data), compiled=False))
    seen: list[int] = []
    columns = read_pgn_columns(path, progress=seen.append)
    assert sum(seen) == len(data)
    assert len(columns) == len(expected)
    assert columns.lines.tolist() == [line for line, _ in expected]
    assert columns.tags(len(expected) - 1) == {
        k: v for k, v in expected[-1][1].items() if k in RECORD_TAGS
    }
    sample = range(0, len(expected), 97)
    assert [columns.tags(g) for g in sample] == [
        {k: v for k, v in expected[g][1].items() if k in RECORD_TAGS} for g in sample
    ]
