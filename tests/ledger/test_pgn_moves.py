"""``chessrate import --moves``: a PGN file's movetext stored as each game's moves, on
SQLite and PostgreSQL, the games then waiting for the fair-play detector; each game
gets its own moves (a headers-only game between two has none); a movetext that is not
a legal game, or a PlyCount that disagrees with it, refuses the whole file naming the
game's first line, as does a result the moves' last position contradicts (checkmate,
stalemate); without --moves nothing changes."""

from __future__ import annotations

from pathlib import Path

import chess.pgn
import pytest
from click.testing import CliRunner

from chessrate.cli import main
from chessrate.errors import InvalidInput, InvalidRecord
from chessrate.ledger import Ledger
from chessrate.operations import import_file
from chessrate.rating import read_compiled_batch

from .helpers import NOW

FIRST = """[Event "Rated blitz game"]
[Site "https://lichess.org/aaaa1111"]
[Date "2024.01.02"]
[White "ana"]
[Black "ben"]
[Result "1-0"]
[UTCDate "2024.01.02"]
[UTCTime "10:00:00"]
[TimeControl "180+2"]

1. e4 { [%clk 0:03:00] } 1... e5 { [%clk 0:03:00] } 2. Nf3 Nc6 3. Bb5 a6 (3... Nf6 4. O-O)
4. Ba4 Nf6 5. O-O $1 Be7 1-0
"""
HEADERS_ONLY = """[Event "Rated blitz game"]
[Site "https://lichess.org/bbbb2222"]
[Date "2024.01.02"]
[White "ben"]
[Black "cat"]
[Result "0-1"]
[UTCDate "2024.01.02"]
[UTCTime "11:00:00"]
[TimeControl "180+2"]
"""
THIRD = """[Event "Rated blitz game"]
[Site "https://lichess.org/cccc3333"]
[Date "2024.01.02"]
[White "cat"]
[Black "ana"]
[Result "1/2-1/2"]
[UTCDate "2024.01.02"]
[UTCTime "12:00:00"]
[TimeControl "180+2"]
[PlyCount "4"]

1. d4 d5 2. c4 e6 1/2-1/2
"""


def pgn(tmp_path: Path, *games: str) -> Path:
    path = tmp_path / "games.pgn"
    path.write_text("\n".join(games), encoding="utf-8")
    return path


def python_chess_moves(path: Path) -> list[tuple[str, ...]]:
    found = []
    with path.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            found.append(tuple(m.uci() for m in game.mainline_moves()))
    return found


def test_each_game_gets_its_own_moves_and_waits_for_analysis(
    ledger_url: str, tmp_path: Path
) -> None:
    ledger = Ledger.create(ledger_url, "site", NOW)
    path = pgn(tmp_path, FIRST, HEADERS_ONLY, THIRD)
    report = import_file(ledger, path, None, [], NOW, moves=True)
    assert report.new_games == 3
    stored = {r.id: r for r in ledger.games.export()}
    assert stored["aaaa1111"].moves == python_chess_moves(tmp_path / "games.pgn")[0]
    assert stored["aaaa1111"].moves[:3] == ("e2e4", "e7e5", "g1f3")  # the main line
    assert len(stored["aaaa1111"].moves) == 10 and stored["aaaa1111"].plies == 10
    assert stored["bbbb2222"].moves is None
    assert stored["cccc3333"].moves == ("d2d4", "d7d5", "c2c4", "e7e6")
    pending = {game.id for game in ledger.analyses.pending(10, 1)}
    assert pending == {"aaaa1111", "cccc3333"}
    ledger.dispose()


def test_without_moves_the_movetext_is_not_stored(ledger_url: str, tmp_path: Path) -> None:
    ledger = Ledger.create(ledger_url, "site", NOW)
    import_file(ledger, pgn(tmp_path, FIRST, THIRD), None, [], NOW)
    assert all(r.moves is None for r in ledger.games.export())
    ledger.dispose()


def refusal_of_second_game(ledger_url: str, tmp_path: Path, second: str, field: str) -> str:
    """Import FIRST then ``second`` with their moves: the file is refused at the second
    game's first tag, on ``field``, and nothing is stored; returns the reason."""
    ledger = Ledger.create(ledger_url, "site", NOW)
    path = pgn(tmp_path, FIRST, second)
    with pytest.raises(InvalidRecord) as refused:
        import_file(ledger, path, None, [], NOW, moves=True)
    line = FIRST.count("\n") + 2  # the second game's first tag
    assert (refused.value.where, refused.value.field) == (f"{path}:{line}", field)
    assert list(ledger.games.export()) == []  # nothing stored
    ledger.dispose()
    return refused.value.reason


@pytest.mark.parametrize(
    ("game", "reason"),
    [
        (THIRD.replace("2. c4 e6", "2. c4 Ke7"), "Ke7"),  # not legal here
        (THIRD.replace('[PlyCount "4"]', '[PlyCount "6"]'), "PlyCount tag says 6"),
        (THIRD.replace("2. c4 e6", "2. c4 hello"), "hello"),
    ],
)
def test_a_bad_movetext_refuses_the_file_naming_the_game(
    ledger_url: str, tmp_path: Path, game: str, reason: str
) -> None:
    refused = refusal_of_second_game(ledger_url, tmp_path, game, "movetext")
    assert "game cccc3333" in refused and reason in refused


@pytest.mark.parametrize(
    ("result", "ending"),
    [("1-0", "checkmate after ply 4: the game's result is 0-1"),
     ("*", "checkmate after ply 4")],
)  # fmt: skip
def test_a_result_the_moves_contradict_refuses_the_file_naming_the_game(
    ledger_url: str, tmp_path: Path, result: str, ending: str
) -> None:
    mated = (
        THIRD.replace('[PlyCount "4"]\n', "")
        .replace('"1/2-1/2"', f'"{result}"')
        .replace("1. d4 d5 2. c4 e6 1/2-1/2", f"1. f3 e5 2. g4 Qh4# {result}")
    )
    refused = refusal_of_second_game(ledger_url, tmp_path, mated, "result")
    assert f"is {result} but the moves end in {ending}" in refused


def test_moves_is_for_pgn_files(tmp_path: Path) -> None:
    ledger = Ledger.create(f"sqlite:///{tmp_path / 'l.db'}", "site", NOW)
    games = tmp_path / "games.csv"
    games.write_text("id,played_at,white,black,result\ng1,2024-01-02T10:00:00Z,a,b,1-0\n")
    with pytest.raises(InvalidInput, match="for PGN files"):
        import_file(ledger, games, None, [], NOW, moves=True)
    ledger.dispose()


def test_the_command_line_flag(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    runner = CliRunner()
    assert runner.invoke(main, ["init", "--system", "site", "--db", str(db)]).exit_code == 0
    done = runner.invoke(main, ["import", "--db", str(db), "--moves", str(pgn(tmp_path, FIRST))])
    assert done.exit_code == 0, done.output
    ledger = Ledger(f"sqlite:///{db}")
    (record,) = ledger.games.export()
    assert record.moves is not None and len(record.moves) == 10
    ledger.dispose()


VARIANT = FIRST.replace("aaaa1111", "dddd4444").replace(
    '[TimeControl "180+2"]', '[TimeControl "180+2"]\n[Variant "Chess960"]'
)
CSV = (
    "id,played_at,white,black,result,time_control\n"
    "c1,2024-01-01T10:00:00Z,ana,ben,1-0,180+2\n"
    "c2,2024-01-01T11:00:00Z,ana,ben,2-0,180+2\n"  # not a result
    "c3,2024-01-01T12:00:00Z,ben,ana,0-1,180+2\n"
)


@pytest.mark.parametrize("moves", [False, True])
def test_skip_invalid_leaves_out_what_cannot_be_read(
    ledger_url: str, tmp_path: Path, moves: bool
) -> None:
    ledger = Ledger.create(ledger_url, "site", NOW)
    path = pgn(tmp_path, FIRST, VARIANT, THIRD)
    with pytest.raises(InvalidRecord, match="Variant"):
        import_file(ledger, path, None, [], NOW, moves=moves)
    report = import_file(ledger, path, None, [], NOW, moves=moves, skip_invalid=True)
    assert report.new_games == 2
    (skipped,) = report.skipped
    assert skipped.where == f"{path}:{FIRST.count(chr(10)) + 2}" and skipped.field == "Variant"
    stored = {r.id: r.moves is not None for r in ledger.games.export()}
    assert stored == {"aaaa1111": moves, "cccc3333": moves}
    assert ledger.verify() == []
    ledger.dispose()


def test_skip_invalid_lists_each_record_once_on_every_path(ledger_url: str, tmp_path: Path) -> None:
    """The bulk path into an empty ledger, and the game-by-game path it falls back to
    when the ledger holds a later game (the file is read twice then)."""
    games = tmp_path / "games.csv"
    games.write_text(CSV, encoding="utf-8")
    fresh = Ledger.create(f"sqlite:///{tmp_path / 'fresh.db'}", "site", NOW)
    report = import_file(fresh, games, None, [], NOW, skip_invalid=True)
    assert (report.new_games, [e.where for e in report.skipped]) == (2, [f"{games}:3"])
    fresh.dispose()
    later = Ledger.create(ledger_url, "site", NOW)
    import_file(later, pgn(tmp_path, THIRD), None, [], NOW)  # played the next day
    refused: list[InvalidRecord] = []
    assert not later.bulk.appendable(read_compiled_batch(games, None, None, refused.append))
    report = import_file(later, games, None, [], NOW, skip_invalid=True)
    assert (report.new_games, [e.where for e in report.skipped]) == (2, [f"{games}:3"])
    assert later.verify() == []
    later.dispose()


OTHER_MOVES = FIRST.replace("5. O-O $1 Be7 1-0", "5. O-O $1 b5 1-0")  # the same tags
"""The same game written twice in a collection, with another last move (as
pgnmentor.com's Carlsen collection holds Kramnik-Carlsen, World Blitz 2010)."""


@pytest.mark.parametrize("skip", [False, True])
def test_a_game_that_reuses_an_earlier_games_id_is_skipped_only_when_asked(
    ledger_url: str, tmp_path: Path, skip: bool
) -> None:
    """Read with its moves, the copy is another game under the same id (its tags make
    the id): it refuses the file, or with --skip-invalid is listed and left out, the
    first kept. Without the moves the two are the same game: a repeat, skipped."""
    ledger = Ledger.create(ledger_url, "site", NOW)
    path = pgn(tmp_path, FIRST, OTHER_MOVES, THIRD)
    second = f"{path}:{FIRST.count(chr(10)) + 2}"
    if not skip:
        with pytest.raises(InvalidRecord) as refused:
            import_file(ledger, path, None, [], NOW, moves=True)
        assert (refused.value.where, refused.value.field) == (second, "id")
        assert "already used for a different game" in refused.value.reason
        assert list(ledger.games.export()) == []
    else:
        report = import_file(ledger, path, None, [], NOW, moves=True, skip_invalid=True)
        assert report.new_games == 2
        (skipped,) = report.skipped
        assert (skipped.where, skipped.field) == (second, "id")
        assert f"'aaaa1111' was already used for a different game (at {path}:1)" in str(skipped)
        stored = {r.id: r.moves for r in ledger.games.export()}
        assert stored["aaaa1111"] is not None and stored["aaaa1111"][-1] == "f8e7"  # the first
        assert ledger.verify() == []
    plain = Ledger.create(f"sqlite:///{tmp_path / 'plain.db'}", "site", NOW)
    report = import_file(plain, path, None, [], NOW, skip_invalid=skip)
    assert (report.new_games, report.repeated_games, report.skipped) == (2, 1, ())
    plain.dispose()
    ledger.dispose()


def test_skip_invalid_leaves_out_a_reused_id_on_every_path(ledger_url: str, tmp_path: Path) -> None:
    """A CSV file whose fifth line reuses the second's id for another game, into an
    empty ledger (the bulk path, which then reads the file game by game) and into one
    that holds a later game; the skipped records in file order."""
    games = tmp_path / "games.csv"
    games.write_text(CSV + "c1,2024-01-01T13:00:00Z,ben,ana,1-0,180+2\n", encoding="utf-8")
    fresh = Ledger.create(f"sqlite:///{tmp_path / 'fresh.db'}", "site", NOW)
    with pytest.raises(InvalidRecord, match="is not one of"):
        import_file(fresh, games, None, [], NOW)
    report = import_file(fresh, games, None, [], NOW, skip_invalid=True)
    wanted = ([f"{games}:3", f"{games}:5"], ["result", "id"])
    assert ([e.where for e in report.skipped], [e.field for e in report.skipped]) == wanted
    assert report.new_games == 2 and fresh.verify() == []
    fresh.dispose()
    later = Ledger.create(ledger_url, "site", NOW)
    import_file(later, pgn(tmp_path, THIRD), None, [], NOW)  # played the next day
    report = import_file(later, games, None, [], NOW, skip_invalid=True)
    assert ([e.where for e in report.skipped], [e.field for e in report.skipped]) == wanted
    assert report.new_games == 2 and later.verify() == []
    later.dispose()


def test_the_command_line_lists_the_skipped_records(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    runner = CliRunner()
    assert runner.invoke(main, ["init", "--system", "site", "--db", str(db)]).exit_code == 0
    path = pgn(tmp_path, FIRST, VARIANT)
    refused = runner.invoke(main, ["import", "--db", str(db), str(path)])
    assert refused.exit_code == 2 and "Variant" in refused.output
    done = runner.invoke(main, ["import", "--db", str(db), "--skip-invalid", str(path)])
    assert done.exit_code == 0, done.output
    assert f"skipped {path}:{FIRST.count(chr(10)) + 2}: Variant:" in done.output
    assert "games: 1 stored" in done.output and "1 invalid records skipped" in done.output


def test_a_termination_marker_that_is_not_the_result_tag_refuses_the_file(
    ledger_url: str, tmp_path: Path
) -> None:
    """PGN's termination marker must be the Result tag's: a game whose movetext ends
    with another result is refused, naming its first line, as a field's would be."""
    other = THIRD.replace("1. d4 d5 2. c4 e6 1/2-1/2", "1. d4 d5 2. c4 e6 0-1")
    refused = refusal_of_second_game(ledger_url, tmp_path, other, "result")
    assert "is 1/2-1/2 but the movetext ends with 0-1" in refused
