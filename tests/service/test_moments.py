"""Every moment is stored in UTC on both databases. SQLite's
``DateTime`` drops an offset it is given (10:00+02:00 was stored, and read back, as
10:00 UTC; PostgreSQL answered 08:00 UTC): each write path below gets moments with an
offset (an otb result's ``played_at``; a clock in UTC+02:00, as a library caller's
local ``now``), and every ``DateTime`` column then holds the UTC instant."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import sqlalchemy as sa

from chessrate.ledger.schema import UtcDateTime, metadata

from .conftest import NOW, Api

PLUS_TWO = timezone(timedelta(hours=2))


def moment_columns() -> list[tuple[str, str]]:
    return [
        (table.name, column.name)
        for table in metadata.sorted_tables
        for column in table.columns
        if isinstance(column.type, UtcDateTime)
    ]


def test_every_datetime_column_of_the_ledger_is_utc() -> None:
    """One type for every moment: no column left with the plain ``DateTime``."""
    for table in metadata.sorted_tables:
        for column in table.columns:
            if isinstance(column.type, sa.DateTime):
                raise AssertionError(f"{table.name}.{column.name} is a plain DateTime")
    assert len(moment_columns()) == 27  # sessions (0012): 2; player marks (0013): 2


def test_an_otb_result_played_at_an_offset_is_stored_at_its_utc_instant(site_pair: Api) -> None:
    """The report: a game at 2026-06-01T10:00:00+02:00 read back as 10:00:00Z on SQLite."""
    api = site_pair
    answer = api.post(
        "/live-games",
        {"id": "o1", "white": "alice", "black": "bob", "venue": "otb", "result": "1-0",
         "by": "alice", "played_at": "2026-02-01T10:00:00+02:00", "time_control": "90m+30s"},
    )  # fmt: skip
    assert answer.status_code == 201, answer.text
    assert answer.json()["played_at"] == "2026-02-01T08:00:00Z"
    confirmed = api.post("/live-games/o1/confirm", {"by": "bob"})
    assert confirmed.status_code == 200, confirmed.text
    assert api.get("/live-games/o1").json()["played_at"] == "2026-02-01T08:00:00Z"
    assert api.get("/games/o1").json()["played_at"] == "2026-02-01T08:00:00Z"
    assert api.ledger.verify() == []


def test_every_write_path_stores_utc_whatever_the_offset_of_now(site_pair: Api) -> None:
    """The app's clock answers 14:00+02:00 (12:00 UTC): players, games, annulments,
    reports and reviews, the audit log, tokens, live games, seeks, marks. Every moment read
    back is 12:00 UTC; on SQLite no stored text holds the wall time 14:00."""
    api = site_pair
    local = NOW.astimezone(PLUS_TWO)
    assert local.hour == 14
    api.clock.now = local
    api.player("carol")
    api.game("g1", "alice", "bob", "1-0", time_control="300+3", played_at="2026-02-01T12:00:00Z")
    assert api.post("/games/g1/reports", {"by": "bob", "reason": "too good"}).status_code == 201
    decided = api.post("/reviews/g1/confirm", {"reason": "engine"}, auth="moderator")
    assert decided.status_code == 200, decided.text
    opened = api.post(
        "/live-games", {"id": "L1", "white": "alice", "black": "carol", "time_control": "3+2"}
    )
    assert opened.status_code == 201, opened.text
    assert api.post("/live-games/L1/moves", {"ply": 1, "move": "e4"}).status_code == 200
    assert api.post("/live-games/L1/abort", {"by": "carol"}).status_code == 200
    seek = api.post("/seeks", {"player": "bob", "time_control": "5+3"})
    assert seek.status_code == 201, seek.text
    assert api.post("/players/carol/mark", {"reason": "x"}, auth="moderator").status_code == 201
    lifted = api.client.request(
        "DELETE", "/api/v1/players/carol/mark", json={"reason": "y"}, headers=api.moderator
    )
    assert lifted.status_code == 200, lifted.text
    assert (lifted.json()["marked_at"], lifted.json()["lifted_at"]) == (
        "2026-03-01T12:00:00Z", "2026-03-01T12:00:00Z"
    )  # fmt: skip
    token = api.ledger.tokens.create("writer", "local", local, expires_at=local + timedelta(days=1))
    assert api.ledger.tokens.role(token, local) == "writer"
    found = api.ledger.tokens.find(token)
    assert found is not None
    api.ledger.tokens.revoke(found.id, local, by="test")

    assert api.get("/games/g1").json()["annulment"]["at"] == "2026-03-01T12:00:00Z"
    assert api.get("/live-games/L1").json()["opened_at"] == "2026-03-01T12:00:00Z"
    assert api.get(f"/seeks/{seek.json()['id']}").json()["created_at"] == "2026-03-01T12:00:00Z"
    review = api.get("/reviews/g1", headers=api.moderator).json()
    assert (review["opened_at"], review["decided_at"]) == (
        "2026-03-01T12:00:00Z", "2026-03-01T12:00:00Z"
    )  # fmt: skip
    stored = next(t for t in api.ledger.tokens.list() if t.label == "local")
    assert (stored.created_at, stored.expires_at, stored.revoked_at) == (
        NOW, NOW + timedelta(days=1), NOW
    )  # fmt: skip
    assert stored.revoked_at is not None
    assert all(moment.tzinfo is UTC for moment in (stored.created_at, stored.revoked_at))

    written = 0
    with api.ledger.engine.connect() as conn:
        for table, column in moment_columns():
            for (value,) in conn.exec_driver_sql(f"SELECT {column} FROM {table}"):
                if value is None:
                    continue
                written += 1
                if isinstance(value, str):  # SQLite: the text as stored
                    assert " 14:00:00" not in value, (table, column, value)
                    value = datetime.fromisoformat(value).replace(tzinfo=UTC)
                assert value.astimezone(UTC).hour != 14, (table, column, value)
    assert written >= 15
    assert api.ledger.verify() == []
