"""The scanner contract (chessrate.io.pgn.scan): the Python and the compiled scanner
fill the same ScannedGames (lines, tags by game, tags by iteration) on every fixture
and on generated input (escapes, comments, CRLF, bytes that are not UTF-8,
header-only games), and choose_scanner takes the Python one for small input and the
compiled one for big input or once it is loaded."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessrate.io.pgn.scan import (
    CompiledScanner,
    PythonScanner,
    ScannedGames,
    Scanner,
    TagSpans,
    scan_games,
)

DATA = Path(__file__).resolve().parent.parent / "data" / "pgn"
FILES = sorted(path.name for path in DATA.glob("*.pgn"))


def contract(games: ScannedGames) -> list[tuple[int, dict[str, str]]]:
    """The games by iteration, checked against ``lines()``, ``tags(game)`` and len."""
    found = list(games)
    assert len(games) == len(found)
    assert games.lines() == [line for line, _ in found]
    assert [games.tags(game) for game in range(len(games))] == [tags for _, tags in found]
    return found


def feed(scanner: Scanner, data: bytes, size: int) -> list[tuple[int, dict[str, str]]]:
    """Every game, the input fed in pieces of about ``size`` bytes cut at line ends."""
    games: list[tuple[int, dict[str, str]]] = []
    lines = data.splitlines(keepends=True)
    piece = b""
    first = True
    for line in lines:
        piece += line
        if len(piece) >= size and piece.endswith(b"\n"):
            if isinstance(scanner, CompiledScanner) and not piece.isascii():
                try:
                    piece.decode("utf-8")
                except UnicodeDecodeError:
                    scanner = scanner.python()
            games += contract(scanner.feed(piece, first, False))
            piece, first = b"", False
    if isinstance(scanner, CompiledScanner):
        try:
            piece.decode("utf-8")
        except UnicodeDecodeError:
            scanner = scanner.python()
    games += contract(scanner.feed(piece, first, True))
    return games


@pytest.mark.parametrize("name", FILES)
def test_both_scanners_fill_the_same_contract_on_every_fixture(name: str) -> None:
    data = (DATA / name).read_bytes()
    compiled = CompiledScanner().feed(data, True, True)
    assert isinstance(compiled.spans, TagSpans) and not compiled.spans.bailed
    python = PythonScanner().feed(data, True, True)
    assert python.spans is None
    assert contract(compiled) == contract(python)
    for size in (50, 700):
        assert feed(CompiledScanner(), data, size) == feed(PythonScanner(), data, size)


GAME = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["White", "Event", "Site", "Annotator"]),
        "value": st.text(
            st.characters(blacklist_categories=["Cs"], blacklist_characters="\n\r\x85\u2028\u2029"),
            max_size=8,
        ),
        "escape": st.booleans(),
        "movetext": st.sampled_from(
            ["1. e4 e5 1-0", '1. e4 { [%clk 0:01:00] "x" } *', "; c {\n1. d4 *", "", "1. e4\n\n*"]
        ),
        "blank": st.sampled_from(["\n", "", "\n\n"]),
        "latin1": st.booleans(),
    }
)


@settings(max_examples=150, deadline=None)
@given(st.lists(GAME, min_size=1, max_size=6), st.booleans(), st.sampled_from([40, 300, 1 << 20]))
def test_property_both_scanners_give_the_same_games(
    games: list[dict[str, object]], crlf: bool, size: int
) -> None:
    """Generated input: escaped quotes and backslashes, comments holding brackets,
    header-only games, CRLF, and games encoded as Latin-1 among UTF-8 ones (the
    compiled scanner hands the rest over to the Python one)."""
    parts = []
    for game in games:
        value = str(game["value"])
        if game["escape"]:
            value = value.replace("\\", "\\\\").replace('"', '\\"')
        text = f'[{game["name"]} "{value}"]\n[Black "b"]\n{game["blank"]}{game["movetext"]}\n\n'
        if crlf:
            text = text.replace("\n", "\r\n")
        encoding = "latin-1" if game["latin1"] else "utf-8"
        parts.append(text.encode(encoding, errors="replace"))
    data = b"".join(parts)
    assert feed(CompiledScanner(), data, size) == feed(PythonScanner(), data, size)


CHOOSER = """
import sys
from chessrate.io.pgn import read_pgn_games
from chessrate.io.pgn.scan import COMPILED_MIN_BYTES, choose_scanner

def name(size, compiled=None):
    return type(choose_scanner(size, compiled)).__name__

print(name(1000), name(COMPILED_MIN_BYTES - 1), name(1000, True))
print(len(read_pgn_games(sys.argv[1])), "numba" in sys.modules)
print(name(COMPILED_MIN_BYTES), name(1000), name(1000, False))
"""


@pytest.mark.slow  # a big PGN input
def test_choose_scanner_takes_python_for_small_input_and_numba_for_big() -> None:
    """In a fresh interpreter: small input is scanned in Python without importing
    numba; from COMPILED_MIN_BYTES, or once the compiled scanner is loaded, by numba."""
    done = subprocess.run(
        [sys.executable, "-c", CHOOSER, str(DATA / "lichess_cmrade.pgn")],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    assert done.stdout.split("\n")[:3] == [
        "PythonScanner PythonScanner CompiledScanner",
        "46 True",
        "CompiledScanner CompiledScanner PythonScanner",
    ]


def test_small_input_is_read_without_numba() -> None:
    done = subprocess.run(
        [
            sys.executable, "-c",
            "import sys; from chessrate.io.pgn import read_pgn_games;"
            f"read_pgn_games({str(DATA / 'lichess_cmrade.pgn')!r}); print('numba' in sys.modules)",
        ],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    assert done.stdout.strip() == "False"


def test_scan_games_switches_scanner_at_a_piece_that_is_not_utf8(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from chessrate.io.pgn import source

    games = [f'[White "w{i}"]\n[Black "b{i}"]\n\n1. e4 1-0\n\n'.encode() for i in range(30)]
    games[20] = '[White "J\u00fcrgen"]\n[Black "x"]\n\n*\n\n'.encode("latin-1")
    monkeypatch.setattr(source, "CHUNK_BYTES", 100)
    pieces = list(scan_games(io.BytesIO(b"".join(games)), compiled=True))
    kinds = ["spans" if piece.spans is not None else "text" for piece in pieces]
    assert kinds[0] == "spans" and kinds[-1] == "text"
    assert kinds == sorted(kinds)  # (spans before text: no way back)
    tags = [tags for piece in pieces for _, tags in piece]
    assert len(tags) == 30 and tags[20]["White"] == "J\u00fcrgen"
