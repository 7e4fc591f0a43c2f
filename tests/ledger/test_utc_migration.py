"""Migration 0010: a SQLite ledger's moments written with an offset become
UTC text in the one form SQLAlchemy writes; PostgreSQL's are left as they are.

How the old code stored them, found out here: through SQLAlchemy's SQLite ``DateTime``
an aware moment lost its offset (``2026-06-01T10:00:00+02:00`` became the text
``2026-06-01 10:00:00.000000``, read back as 10:00 UTC): nothing in the file says it
was not UTC, so no migration can repair that wall time (the first test pins it). A
moment written past SQLAlchemy keeps its offset in the text: Python's ``sqlite3``
adapter writes ``datetime.isoformat(" ")`` (``2026-06-01 10:00:00+02:00``), other
tools ``2026-06-01T08:00:00Z``; those the migration rewrites, in every ``DateTime``
column."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from click.testing import CliRunner

from chessrate.cli import main
from chessrate.ledger import Ledger, connection
from chessrate.ledger.live import OtbRegistration
from chessrate.ledger.schema import UtcDateTime, fide_periods, metadata
from chessrate.records import Result, Venue
from chessrate.samples import load_sample
from chessrate.systems.site_live import LiveGame
from chessrate.timecontrol import parse_time_control

from .helpers import NOW

PLUS_TWO = timezone(timedelta(hours=2))
STORED = "%Y-%m-%d %H:%M:%S.%f"


def test_sqlalchemy_sqlite_datetime_dropped_the_offset(tmp_path: Path) -> None:
    """The old write path (a plain ``DateTime(timezone=True)`` column), and the new one."""
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    table = sa.Table(
        "t", sa.MetaData(), sa.Column("old", sa.DateTime(timezone=True)),
        sa.Column("new", UtcDateTime()),
    )  # fmt: skip
    table.metadata.create_all(engine)
    moment = datetime(2026, 6, 1, 10, 0, tzinfo=PLUS_TWO)
    with engine.begin() as conn:
        conn.execute(table.insert().values(old=moment, new=moment))
        assert conn.exec_driver_sql("SELECT old, new FROM t").one() == (
            "2026-06-01 10:00:00.000000",  # the wall time; the offset is gone
            "2026-06-01 08:00:00.000000",
        )
        old, new = conn.execute(sa.select(table)).one()
    assert old == datetime(2026, 6, 1, 10, 0)  # naive: the ledger read it as 10:00 UTC
    assert new == datetime(2026, 6, 1, 8, 0, tzinfo=UTC) == moment
    engine.dispose()


def every_moment_written(url: str) -> Ledger:
    """A site ledger with a row in every table that has a moment column: the sample
    (players, games, events, annulments, the audit log), a token, a report and its
    review, a live game, a seek, an analysis and a fide period (written as its row)."""
    ledger = Ledger.create(url, "site", NOW)
    load_sample(ledger, NOW)
    later = NOW + timedelta(hours=1)
    secret = ledger.tokens.create("writer", "w", NOW, expires_at=NOW + timedelta(days=30))
    found = ledger.tokens.find(secret)
    assert found is not None
    ledger.tokens.revoke(found.id, later, by="test")
    game = next(iter(ledger.games.export()))
    ledger.reviews.file_report(game.id, game.black, "too good", None, "player", NOW)
    ledger.reviews.dismiss(game.id, "fine", "mod", later)
    live = ledger.live
    live.open(LiveGame("L1", "ana", "ben", NOW, parse_time_control("3+2")), NOW)
    otb = LiveGame("O1", "ana", "ben", NOW, parse_time_control("90+30"), venue=Venue.OTB)
    live.open(otb, NOW, OtbRegistration(Result.WHITE_WINS, "ana", NOW - timedelta(days=1)))
    live.confirm("O1", "ben", later)
    seeks = ledger.seeks
    blitz = parse_time_control("5+3")
    for player in ("cleo", "dev"):
        seeks.create(player, blitz, True, None, None, NOW)
    assert seeks.pair(NOW).pairs
    seeks.cancel(seeks.create("eli", blitz, True, None, None, NOW).id, NOW + timedelta(minutes=1))
    ledger.analyses.store(game.id, "test", {}, None, False, "no moves", NOW)
    with ledger.engine.begin() as conn:
        conn.execute(
            fide_periods.insert().values(
                name="p", bonus="12.5", floor=1000, rules="seed", start_list="",
                closed_at=later, created_at=NOW,
            )
        )  # fmt: skip
    return ledger


def moment_columns() -> list[tuple[str, str]]:
    return [
        (table.name, column.name)
        for table in metadata.sorted_tables
        if table.name not in LATER
        for column in table.columns
        if isinstance(column.type, UtcDateTime)
    ]


def stored_moments(ledger: Ledger) -> dict[tuple[str, str], list[Any]]:
    with ledger.engine.connect() as conn:
        return {
            (table, column): sorted(
                conn.exec_driver_sql(f"SELECT {column} FROM {table} WHERE {column} IS NOT NULL")
                .scalars()
                .all()
            )
            for table, column in moment_columns()
        }


LATER = ("sessions", "player_marks")
"""Tables of migrations after 0010: a ledger at 0009 has none of them."""


def back_to_0009(ledger: Ledger) -> None:
    """The ledger as it was at 0009 with its rows: the later migrations undone (their
    downgrades), then the version set back."""
    config = Config()
    config.set_main_option("script_location", str(Path(connection.__file__).parent / "migrations"))
    with ledger.transaction() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0010")
    with ledger.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = '0009'")


def offset_forms(text: str, n: int) -> str:
    """The instant of a stored UTC text, written as tools that keep an offset write it."""
    moment = datetime.strptime(text, STORED).replace(tzinfo=UTC)
    forms = [
        moment.astimezone(PLUS_TWO).isoformat(" "),  # sqlite3's adapter: +02:00
        moment.isoformat().replace("+00:00", "Z"),  # 2026-06-01T12:00:00Z
        moment.astimezone(timezone(timedelta(hours=-5, minutes=-30))).isoformat(),
        moment.astimezone(PLUS_TWO).strftime(f"{STORED}%z"),  # +0200, with microseconds
        moment.replace(tzinfo=None).isoformat(" ", "seconds"),  # UTC, no microseconds
    ]
    return forms[n % len(forms)]


@pytest.mark.slow  # a sample ledger migrated
def test_0010_rewrites_every_moment_with_an_offset_as_utc_on_sqlite(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    ledger = every_moment_written(url)
    expected = stored_moments(ledger)
    empty = [name for name, values in expected.items() if not values]
    assert empty == [], f"no row to migrate in {empty}"
    assert all(len(v) == 26 for values in expected.values() for v in values)
    back_to_0009(ledger)
    n = 0
    with ledger.engine.begin() as conn:
        for (table, column), values in expected.items():
            for value in sorted(set(values)):
                conn.exec_driver_sql(
                    f"UPDATE {table} SET {column} = ? WHERE {column} = ?",
                    (offset_forms(value, n), value),
                )
                n += 1
    written = stored_moments(ledger)
    assert written != expected
    assert any("+02:00" in v for values in written.values() for v in values)
    ledger.dispose()

    migrated = Ledger(url)
    migrated.migrate()
    assert stored_moments(migrated) == expected
    assert migrated.verify() == []
    annulment = migrated.annulments.list()[0]
    assert annulment.at == NOW and annulment.at.tzinfo is UTC
    migrated.dispose()
    result = CliRunner().invoke(main, ["verify", "--db", url])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("OK")


def test_0010_leaves_postgresql_as_it_is(postgres_url: str) -> None:
    ledger = every_moment_written(postgres_url)
    before = stored_moments(ledger)
    back_to_0009(ledger)
    ledger.migrate()
    assert stored_moments(ledger) == before
    assert all(v.tzinfo is not None for values in before.values() for v in values)
    assert ledger.verify() == []
    ledger.dispose()
