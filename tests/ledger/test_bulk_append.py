"""The bulk import into a ledger that already holds games (the compiled replay going on
from the stored ratings), quickly: on a small stream, SQLite and PostgreSQL. It stores
what game-by-game import stores, a refusal at the end of the file leaves the ledger as
it was, and the compiled ``verify`` of the result catches a tampered change of the
appended games."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from chessrate.errors import InvalidRecord
from chessrate.io.games import games_text, read_games
from chessrate.ledger import Ledger
from chessrate.ledger.verify import Verifier
from chessrate.operations import import_file, import_records
from chessrate.rating import read_compiled_batch
from chessrate.records import GameRecord, Player

from .test_bulk import NOW, TABLES, sample, table_rows, two_urls  # noqa: F401 (fixture)

GAMES = 160
"""The site sample's first games (played_at order) the tests use: a quick stream."""


def halves(tmp_path: Path) -> tuple[list[Player], list[GameRecord], Path, Path]:
    """The site sample's players (without the ones the second half brings), its first
    games in two files: the second file's games all played after the first's."""
    _path, roster, _ = sample("site")
    records = sorted(read_games(_path), key=lambda r: r.played_at)[:GAMES]
    middle = len(records) // 2
    while records[middle].played_at == records[middle - 1].played_at:
        middle += 1
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_text(games_text(records[:middle]), encoding="utf-8")
    second.write_text(games_text(records[middle:]), encoding="utf-8")
    return roster, records, first, second


def late_players(roster: list[Player], records: list[GameRecord], middle: int) -> list[Player]:
    """The players of ``roster`` who play no game before ``middle``: the second import
    brings them (their events come after the first file's games)."""
    early = {side for r in records[:middle] for side in (r.white, r.black)}
    return [p for p in roster if p.id not in early]


def test_an_appended_file_stores_what_game_by_game_stores(
    two_urls: tuple[str, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    """Two imports (the second with players of its own and implicit ones), bulk and
    game by game: every table equal, and the bulk ledger verifies."""
    roster, records, first, second = halves(tmp_path)
    middle = len(read_games(first))
    late = {p.id for p in late_players(roster, records, middle)}
    early_roster = [p for p in roster if p.id not in late]
    late_roster = [p for p in roster if p.id in late]
    one = Ledger.create(two_urls[0], "site", NOW)
    import_records(one, read_games(first), early_roster, NOW)
    import_records(one, read_games(second), late_roster, NOW)
    bulk = Ledger.create(two_urls[1], "site", NOW)
    import_file(bulk, first, None, early_roster, NOW)
    assert bulk.bulk.appendable(read_compiled_batch(second, None, None))
    report = import_file(bulk, second, None, late_roster, NOW)
    assert report.new_games == len(records) - middle
    mine, theirs = table_rows(bulk), table_rows(one)
    for name in TABLES:
        assert mine[name] == theirs[name], name
    # the late players' events come after the first games, before their own
    assert Verifier(bulk).compiled_verifiable()
    assert bulk.verify("compiled") == [] == bulk.verify("reference")
    one.dispose()
    bulk.dispose()


@pytest.mark.parametrize("refused", ["a game", "an annulment"])
def test_a_refusal_at_the_end_leaves_the_ledger_as_it_was(
    two_urls: tuple[str, str],  # noqa: F811
    tmp_path: Path,
    refused: str,
) -> None:
    """A ledger that holds games, then a file refused at its last line (a game that
    cannot be rated; or an annulment of no game, refused after every game was
    written): nothing of the file is stored, in any table."""
    roster, records, first, second = halves(tmp_path)
    ledger = Ledger.create(two_urls[0], "site", NOW)
    import_file(ledger, first, None, roster, NOW)
    before = table_rows(ledger)
    annulments: list[tuple[str, str, str]] = []
    if refused == "a game":
        lines = second.read_text(encoding="utf-8").splitlines()
        last = (
            lines[-1].replace('"result": "', '"result": "2-').replace('"result":"', '"result":"2-')
        )
        assert last != lines[-1]
        second.write_text("\n".join([*lines[:-1], last]) + "\n", encoding="utf-8")
    else:
        annulments = [("annul.txt:1", "no-such-game", "engine use")]
    with pytest.raises(InvalidRecord) as caught:
        import_file(ledger, second, None, [Player("newcomer")], NOW, annulments, by="test")
    where = "annul.txt:1" if annulments else f"{second}:{len(records) - len(read_games(first))}"
    assert str(caught.value).startswith(where), caught.value
    assert table_rows(ledger) == before
    ledger.dispose()


def test_the_compiled_verify_catches_a_tampered_appended_change(
    ledger_url: str, tmp_path: Path
) -> None:
    """Two bulk imports (every player in the first): the compiled verify replays the
    ledger, finds nothing, then names the appended game whose change was altered and
    the rating it left."""
    roster, _records, first, second = halves(tmp_path)
    ledger = Ledger.create(ledger_url, "site", NOW)
    import_file(ledger, first, None, roster, NOW)
    import_file(ledger, second, None, [], NOW)
    assert Verifier(ledger).compiled_verifiable()
    assert ledger.verify("compiled") == []
    appended = {record.id for record in read_games(second)}
    with ledger.engine.begin() as conn:
        seq, game_id = conn.execute(
            sa.text("SELECT seq, id FROM games WHERE outcome = 0 ORDER BY seq DESC LIMIT 1")
        ).one()
        conn.execute(
            sa.text("UPDATE changes SET after = after + 1 WHERE seq = :s AND slot = 0"),
            {"s": seq},
        )
    assert game_id in appended
    found = ledger.verify("compiled")
    assert f"game {game_id}: stored changes differ from the replay" in found
    ledger.dispose()
