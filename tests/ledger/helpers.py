"""Shared by the ledger tests: a fixed clock, game records built from fields, and a
ledger with the site sample loaded, copied from a template."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from chessrate.ledger import Ledger
from chessrate.ledger.schema import changes, events, games, ratings
from chessrate.records import GameRecord, Player
from chessrate.samples import load_sample
from tests.support import templates

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
        ledger.players.create(Player(player_id), NOW)
    return ledger


def table_counts(ledger: Ledger) -> dict[str, int]:
    """Rows in the tables a game writes: nothing stored means none of them moved."""
    with ledger.reader.connect() as conn:
        return {
            table.name: conn.execute(select(func.count()).select_from(table)).scalar_one()
            for table in (events, games, changes, ratings)
        }


def copy_of_site_sample(request: pytest.FixtureRequest, url: str) -> str:
    """Make the empty database at ``url`` a site ledger with the site sample loaded (43
    players, 485 games, 3 annulments); return ``url``.

    Loading the sample takes seconds; so it is loaded once per session and database kind
    into a template, then copied (:mod:`tests.support.templates`).
    """
    return templates.copy_of(request, url, "site_sample", _load_site_sample)


def _load_site_sample(url: str) -> None:
    ledger = Ledger.create(url, "site", NOW)
    try:
        load_sample(ledger, NOW)
    finally:
        ledger.dispose()
