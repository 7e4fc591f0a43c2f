"""The bulk import (compiled replay, rows written in bulk) stores exactly the rows the
per-game path stores: every table, row for row, for every system's sample (SQLite and
PostgreSQL) and for random streams; and it is all or nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessrate.errors import InvalidRecord
from chessrate.io.games import games_text, parse_annulments, parse_players, read_games
from chessrate.ledger import Ledger
from chessrate.operations import import_file, import_records
from chessrate.records import GameRecord, Player
from chessrate.samples import SAMPLE_FILES, sample_location, sample_text
from tests.fast.test_replay_properties import games, players
from tests.support import postgres, templates

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
TABLES = {  # each table's rows in a fixed order
    "players": "id", "events": "seq", "games": "seq", "changes": "player, pool, seq",
    "ratings": "player_id, pool", "annulments": "game_id",
}  # fmt: skip


@pytest.fixture(params=["sqlite", "postgres"])
def two_urls(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """Two empty databases of one kind."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"
        return
    admin = request.getfixturevalue("postgres_admin_url")
    urls = (
        templates.new_migrated_postgres(request),
        templates.new_migrated_postgres(request),
    )
    try:
        yield urls
    finally:
        for url in urls:
            postgres.drop_database(admin, url)


def sample(system_id: str) -> tuple[Path, list[Player], list[tuple[str, str, str]]]:
    """A system's sample: its games file, its players, its annulments."""
    files = SAMPLE_FILES[system_id]
    roster = parse_players(sample_text(files[1]), files[1])
    wanted = parse_annulments(sample_text(files[2]), files[2]) if len(files) > 2 else []
    return Path(str(sample_location(files[0]))), roster, wanted


def table_rows(ledger: Ledger) -> dict[str, list[tuple[Any, ...]]]:
    with ledger.engine.connect() as conn:
        return {
            name: [tuple(row) for row in conn.execute(sa.text(f"SELECT * FROM {name} "
                                                              f"ORDER BY {order}"))]
            for name, order in TABLES.items()
        }  # fmt: skip


def refusal(url: str, system_id: str, path: Path, roster: list[Player]) -> str | None:
    """The per-game path's refusal of the file (None: it imports); the ledger is left
    as it was: empty."""
    one = Ledger.create(url, system_id, NOW)
    try:
        import_records(one, read_games(path), roster, NOW)
    except InvalidRecord as error:
        return str(error)
    finally:
        one.dispose()
    Path(url.removeprefix("sqlite:///")).unlink()
    return None


def both_ways(
    urls: tuple[str, str], system_id: str, path: Path, roster: list[Player],
    annulments: list[tuple[str, str, str]],
) -> tuple[Ledger, Ledger]:  # fmt: skip
    """The file imported game by game into the first ledger, in bulk into the second."""
    one = Ledger.create(urls[0], system_id, NOW)
    report_one = import_records(one, read_games(path), roster, NOW, annulments, by="test")
    bulk = Ledger.create(urls[1], system_id, NOW)
    assert not bulk.games.any()
    report_bulk = import_file(bulk, path, None, roster, NOW, annulments, by="test")
    assert bulk.games.any() == (report_bulk.new_games > 0)
    assert report_bulk == report_one
    return one, bulk


@pytest.mark.slow  # each sample stored twice
@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
def test_the_bulk_path_stores_the_rows_of_the_per_game_path(
    two_urls: tuple[str, str], system_id: str
) -> None:
    path, roster, wanted = sample(system_id)
    one, bulk = both_ways(two_urls, system_id, path, roster, wanted)
    mine, theirs = table_rows(bulk), table_rows(one)
    for name in TABLES:
        assert mine[name] == theirs[name], name
    assert bulk.verify() == []
    one.dispose()
    bulk.dispose()


@pytest.mark.slow  # generated streams stored twice
@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])  # fmt: skip
@given(data=st.data())
def test_random_streams_store_the_same_rows_both_ways(
    tmp_path_factory: pytest.TempPathFactory, system_id: str, data: st.DataObject
) -> None:
    roster = data.draw(players(system_id))
    records: list[GameRecord] = data.draw(games(system_id))
    folder = tmp_path_factory.mktemp("stream")
    path = folder / "games.jsonl"
    path.write_text(games_text(records), encoding="utf-8")
    urls = f"sqlite:///{folder / 'a.db'}", f"sqlite:///{folder / 'b.db'}"
    refused = refusal(urls[0], system_id, path, roster)
    if refused is not None:
        # a refused stream is refused alike by both paths, and nothing is stored
        bulk = Ledger.create(urls[1], system_id, NOW)
        with pytest.raises(InvalidRecord, match=re.escape(refused)):
            import_file(bulk, path, None, roster, NOW)
        assert not bulk.games.any()
        bulk.dispose()
        return
    one, bulk = both_ways(urls, system_id, path, roster, [])
    mine, theirs = table_rows(bulk), table_rows(one)
    for name in TABLES:
        assert mine[name] == theirs[name], name
    one.dispose()
    bulk.dispose()


def test_a_refused_annulment_leaves_the_ledger_empty(tmp_path: Path) -> None:
    path, roster, _ = sample("site")
    bulk = Ledger.create(f"sqlite:///{tmp_path / 'b.db'}", "site", NOW)
    with pytest.raises(InvalidRecord) as caught:
        import_file(bulk, path, None, roster, NOW, [("annul.txt:3", "nosuch", "x")])
    assert str(caught.value) == "annul.txt:3: id: nosuch: no such game to annul"
    assert not bulk.games.any()
    assert bulk.players.all() == []
    bulk.dispose()


@pytest.mark.slow  # each sample stored twice
@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
def test_groups_of_the_service_store_the_rows_of_the_per_game_path(
    two_urls: tuple[str, str], system_id: str
) -> None:
    """The service's group commit (Ledger.submit_group: rated in memory, one statement
    per table) stores what game-by-game submission stores, with a refused game and
    repeated ids inside the groups."""
    path, roster, _ = sample(system_id)
    records = read_games(path)
    one = Ledger.create(two_urls[0], system_id, NOW)
    import_records(one, [], roster, NOW)
    for record in records:
        one.games.submit(record, NOW)
    grouped = Ledger.create(two_urls[1], system_id, NOW)
    import_records(grouped, [], roster, NOW)
    stranger = replace(records[0], id="refused", black="nobody")
    answers = []
    for start in range(0, len(records), 40):
        group = records[start : start + 40]
        items = [(r, NOW) for r in [*group, stranger, group[0]]]
        answers += grouped.games.submit_group(items)
    refusals = [a for a in answers if isinstance(a, Exception)]
    assert len(refusals) == len(range(0, len(records), 40))
    assert all(isinstance(a, InvalidRecord) and "nobody" in str(a) for a in refusals)
    repeated = [a for a in answers if isinstance(a, tuple) and not a[1]]
    assert len(repeated) == len(refusals)  # each group's repeated first game
    mine, theirs = table_rows(grouped), table_rows(one)
    for name in TABLES:
        assert mine[name] == theirs[name], name
    assert grouped.verify() == []
    one.dispose()
    grouped.dispose()


@pytest.mark.slow  # each sample stored twice
@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
def test_a_later_file_is_appended_in_bulk_from_the_ledger_s_ratings(
    two_urls: tuple[str, str], system_id: str, tmp_path: Path
) -> None:
    """A file whose games were all played after the ledger's last game continues from
    the ledger's current ratings (site: after its annulments) in bulk, and stores what
    game-by-game import stores; a file that goes back in time is imported game by
    game."""
    path, roster, wanted = sample(system_id)
    records = sorted(read_games(path), key=lambda r: r.played_at)
    middle = len(records) // 2
    while records[middle].played_at == records[middle - 1].played_at:
        middle += 1
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_text(games_text(records[:middle]), encoding="utf-8")
    second.write_text(games_text(records[middle:]), encoding="utf-8")
    early = {r.id for r in records[:middle]}
    annul_first = [a for a in wanted if a[1] in early]

    one = Ledger.create(two_urls[0], system_id, NOW)
    import_records(one, read_games(first), roster, NOW, annul_first, by="test")
    import_records(one, read_games(second), [], NOW)
    bulk = Ledger.create(two_urls[1], system_id, NOW)
    import_file(bulk, first, None, roster, NOW, annul_first, by="test")
    from chessrate.rating import read_compiled_batch

    assert bulk.bulk.appendable(read_compiled_batch(second, None, None))
    assert not bulk.bulk.appendable(read_compiled_batch(first, None, None))
    import_file(bulk, second, None, [], NOW)
    mine, theirs = table_rows(bulk), table_rows(one)
    for name in TABLES:
        assert mine[name] == theirs[name], name
    assert bulk.verify() == []
    one.dispose()
    bulk.dispose()
