"""Shared by the ledger tests: a fixed clock, game records built from fields, and a
ledger with the site sample loaded, copied from a template."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import UTC, datetime

import psycopg
import pytest
from sqlalchemy import func, select

from chessrate.ledger import Ledger
from chessrate.ledger.schema import changes, events, games, ratings
from chessrate.records import GameRecord, Player
from chessrate.samples import load_sample
from tests.support import postgres

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def game(game_id: str, white: str = "ana", black: str = "ben", **fields: object) -> GameRecord:
    """A site-style rated rapid game (10 minutes, 40 plies), white wins, unless told."""
    data: dict[str, object] = {
        "id": game_id, "played_at": "2026-01-02T10:00:00Z", "white": white, "black": black,
        "result": "1-0", "time_control": "10m", "plies": 40,
    }  # fmt: skip
    data.update(fields)
    return GameRecord.from_mapping(data, f"test:{game_id}")


def ledger_with(url: str, system_id: str, *player_ids: str) -> Ledger:
    ledger = Ledger.create(url, system_id, NOW)
    for player_id in player_ids:
        ledger.create_player(Player(player_id), NOW)
    return ledger


def table_counts(ledger: Ledger) -> dict[str, int]:
    """Rows in the tables a game writes: nothing stored means none of them moved."""
    with ledger.reader.connect() as conn:
        return {
            table.name: conn.execute(select(func.count()).select_from(table)).scalar_one()
            for table in (events, games, changes, ratings)
        }


TEMPLATE_DATABASE = f"chessrate_site_sample_template_{postgres.worker_index()}"
_templates: dict[str, str] = {}


def copy_of_site_sample(request: pytest.FixtureRequest, url: str) -> str:
    """Make the empty database at ``url`` a site ledger with the site sample loaded (43
    players, 485 games, 3 annulments); return ``url``.

    Loading the sample takes seconds; so it is loaded once per session and database kind
    into a template, then copied (SQLite: ``VACUUM INTO``; PostgreSQL: ``CREATE DATABASE
    ... TEMPLATE``). The PostgreSQL template has a fixed name per xdist worker (a server
    given by ``CHESSRATE_TEST_POSTGRES_URL`` is shared), replaced by each session.
    """
    if url.startswith("sqlite"):
        template = _templates.get("sqlite")
        if template is None:
            factory: pytest.TempPathFactory = request.getfixturevalue("tmp_path_factory")
            template = str(factory.mktemp("template") / "site.db")
            _load_site_sample(f"sqlite:///{template}")
            _templates["sqlite"] = template
        with closing(sqlite3.connect(template)) as conn:
            conn.execute("VACUUM INTO ?", (url.removeprefix("sqlite:///"),))
        return url
    admin: str = request.getfixturevalue("postgres_admin_url")
    name = url.partition("?")[0].rsplit("/", 1)[1]
    with psycopg.connect(postgres._libpq(admin), autocommit=True) as conn:
        if "postgres" not in _templates:
            conn.execute(f'DROP DATABASE IF EXISTS "{TEMPLATE_DATABASE}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{TEMPLATE_DATABASE}"')
            base, _, query = admin.partition("?")
            _load_site_sample(f"{base.rsplit('/', 1)[0]}/{TEMPLATE_DATABASE}?{query}")
            _templates["postgres"] = TEMPLATE_DATABASE
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{TEMPLATE_DATABASE}"')
    return url


def _load_site_sample(url: str) -> None:
    ledger = Ledger.create(url, "site", NOW)
    try:
        load_sample(ledger, NOW)
    finally:
        ledger.dispose()
