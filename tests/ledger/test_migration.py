"""Migration 0003: a ledger made by the previous schema (0002: games, changes and
events as JSON) becomes the numeric one, on SQLite and PostgreSQL, and then reads and
verifies exactly as a ledger made today from the same data.

``tests/data/ledgers/{system}_v2.json.gz`` holds every table's rows of each system's
sample ledger as chessrate at commit bacbb72 stored it (made by ``dump_v2.py`` beside
them).
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from chessrate.folding import fold
from chessrate.ledger import GameView, Ledger
from chessrate.records import Player
from chessrate.samples import load_sample

DATA = Path(__file__).parents[1] / "data" / "ledgers"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # when dump_v2.py made the ledgers
MIGRATIONS = Path(__file__).parents[2] / "src" / "chessrate" / "ledger" / "migrations"


def _value(column: Any, value: Any) -> Any:
    if value is None:
        return None
    if isinstance(column.type, sa.Boolean):
        return bool(value)
    if isinstance(column.type, sa.DateTime):
        moment = datetime.fromisoformat(value)
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return value


def old_ledger(url: str, system_id: str) -> None:
    """The schema of migration 0002, holding the rows the previous version stored."""
    engine = sa.create_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    tables = json.loads(gzip.decompress((DATA / f"{system_id}_v2.json.gz").read_bytes()))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0002")
        meta = sa.MetaData()
        meta.reflect(conn)
        for name in ("settings", "players", "events", "games", "changes", "ratings",
                     "annulments"):  # fmt: skip
            table = meta.tables[name]
            found = tables[name]
            rows = [
                {c: _value(table.c[c], v) for c, v in zip(found["columns"], row, strict=True)}
                for row in found["rows"]
            ]
            if rows:
                conn.execute(table.insert(), rows)
    engine.dispose()


@dataclass(frozen=True)
class Today:
    """What a ledger made today from a system's sample reads: the games in order, each
    game, every (player, pool) history, every leaderboard, the annulments and each
    player's search (by the folded id and name)."""

    players: list[Player]
    games: dict[str, GameView]
    histories: dict[tuple[str, str], Any]
    leaderboards: dict[str, Any]
    annulments: Any
    searches: dict[str, Any]


_today: dict[str, Today] = {}


def today(system_id: str, folder: Path) -> Today:
    """:class:`Today` of ``system_id``, read once per session (the SQLite and PostgreSQL
    cases of a system compare with the same one)."""
    if system_id not in _today:
        fresh = Ledger.create(f"sqlite:///{folder}/fresh.db", system_id, NOW)
        load_sample(fresh, NOW)
        players = fresh.players.all()
        folded = {
            fold(text)[1:] for player in players for text in filter(None, (player.id, player.name))
        }
        _today[system_id] = Today(
            players=players,
            games={r.id: fresh.games.get(r.id) for r in fresh.games.export()},
            histories={
                (player.id, pool): fresh.players.history(player.id, pool)
                for player in players
                for pool in fresh.pools
            },
            leaderboards={pool: fresh.boards.leaderboard(pool, limit=1000) for pool in fresh.pools},
            annulments=fresh.annulments.list(),
            searches={text: fresh.players.search(text, 500) for text in sorted(folded)},
        )
        fresh.dispose()
    return _today[system_id]


@pytest.mark.slow  # a sample ledger through every migration
@pytest.mark.parametrize("system_id", ["arena", "corr", "site"])
def test_a_ledger_of_the_previous_schema_is_converted(
    empty_ledger_url: str, tmp_path: Path, system_id: str
) -> None:
    old_ledger(empty_ledger_url, system_id)
    migrated = Ledger(empty_ledger_url)
    migrated.migrate()
    assert migrated.verify() == []

    expected = today(system_id, tmp_path)
    assert [record.id for record in migrated.games.export()] == list(expected.games)
    for game_id, game in expected.games.items():
        assert migrated.games.get(game_id) == game
    for (player_id, pool), history in expected.histories.items():
        assert migrated.players.history(player_id, pool) == history
    for pool, board in expected.leaderboards.items():
        assert migrated.boards.leaderboard(pool, limit=1000) == board
    assert migrated.annulments.list() == expected.annulments
    # 0004: the players' folded search keys are filled in
    for text, found in expected.searches.items():
        assert migrated.players.search(text, 500) == found

    # and it goes on: a new player and a new game get the next key and seq
    newcomer = migrated.players.all()[0]
    assert migrated.players.get(newcomer.id).player == newcomer
    migrated.dispose()
