"""Migration 0006 (a period names its ruleset and its list's date) on a ledger that
already holds closed periods: SQLite's ``batch_alter_table`` copies the table whole, so
every period, its files and its results must come through it, on both databases."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from chessrate.ledger import Ledger
from chessrate.samples import load_sample

NOW = datetime(2026, 12, 1, tzinfo=UTC)
MIGRATIONS = Path(__file__).parents[2] / "src" / "chessrate" / "ledger" / "migrations"
TABLES = ("fide_periods", "fide_files", "fide_results")


def counts(conn: sa.Connection) -> dict[str, int]:
    return {t: conn.execute(sa.text(f"SELECT count(*) FROM {t}")).scalar_one() for t in TABLES}


def test_0006_keeps_every_stored_period(ledger_url: str) -> None:
    ledger = Ledger.create(ledger_url, "fide", NOW)
    load_sample(ledger, NOW)  # three closed periods: the seed's, then two by fide-2024
    assert ledger.verify() == []
    ledger.dispose()
    engine = sa.create_engine(ledger_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    try:
        with engine.begin() as conn:
            before = counts(conn)
            assert before["fide_periods"] == 3 and before["fide_results"] > 0
            config.attributes["connection"] = conn
            command.downgrade(config, "0005")  # the schema before the migration
            assert "rules" not in {c["name"] for c in sa.inspect(conn).get_columns("fide_periods")}
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "0006")
            assert counts(conn) == before
            rows = conn.execute(
                sa.text("SELECT id, rules, list_date FROM fide_periods ORDER BY id")
            ).all()
            # periods stored before the migration are the seed's, without a list date
            assert [(r.rules, r.list_date) for r in rows] == [("seed", None)] * 3
            if engine.dialect.name == "sqlite":
                assert conn.execute(sa.text("PRAGMA foreign_key_check")).all() == []
            command.upgrade(config, "head")
    finally:
        engine.dispose()
    ledger = Ledger(ledger_url)
    try:
        problems = ledger.verify()
    finally:
        ledger.dispose()
    # The seed's period (the standard list) re-rates exactly; the other two were rated
    # by fide-2024, which the downgrade forgot, so re-rated by the seed's rules their
    # numbers differ (and so do the rapid and blitz ratings they published).
    assert problems
    for problem in problems:
        assert problem.startswith(("period 2 ", "period 3 ")) or (
            " fide-rapid: " in problem or " fide-blitz: " in problem
        ), problem
