"""Marks in the ledger, on SQLite and PostgreSQL: migration 0013 (down and up again
under a ledger holding rows), marking and lifting with their audit rows, one mark in
force per player however many moderators mark at once, and the pairing pass keeping
marked players apart."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from chessrate.errors import Conflict, InvalidRecord, NotFound
from chessrate.ledger import Ledger
from chessrate.ledger.schema import player_marks
from chessrate.records import Player
from chessrate.timecontrol import parse_time_control

from .helpers import NOW, ledger_with

MIGRATIONS = Path(__file__).resolve().parents[2] / "src/chessrate/ledger/migrations"
BLITZ = parse_time_control("180+2")


def test_migration_0013_goes_down_and_up_under_a_ledger_with_rows(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "ann", "ben")
    ledger.seeks.create("ann", BLITZ, True, None, None, NOW)
    ledger.marks.mark("ann", "confirmed", "mod", NOW)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with ledger.engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0010")
        assert "player_marks" not in sa.inspect(conn).get_table_names()
    ledger.dispose()
    again = Ledger(ledger_url)
    again.migrate()
    assert again.marks.current("ann") is None  # the table is new and empty
    assert again.marks.mark("ben", "confirmed", "mod", NOW).in_force
    assert [s.player for s in again.seeks.page(NOW)[1]] == ["ann"]  # the rows stayed
    again.dispose()


def test_mark_and_lift_with_their_audit_rows(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "ann")
    made = ledger.marks.mark("ann", "  engine use  ", "mod", NOW)
    assert (made.player_id, made.marked_by, made.reason, made.in_force) == (
        "ann", "mod", "engine use", True,
    )  # fmt: skip
    assert ledger.marks.marked(["ann", "ben"]) == {"ann": NOW}
    with pytest.raises(Conflict, match="marked already"):
        ledger.marks.mark("ann", "again", "mod", NOW)
    later = NOW + timedelta(days=1)
    lifted = ledger.marks.unmark("ann", "appeal", "lead", later)
    assert (lifted.lifted_by, lifted.lifted_at, lifted.lift_reason) == ("lead", later, "appeal")
    assert ledger.marks.current("ann") is None
    with pytest.raises(Conflict, match="not marked"):
        ledger.marks.unmark("ann", "again", "lead", later)
    with pytest.raises(NotFound):
        ledger.marks.mark("zed", "x", "mod", NOW)
    with pytest.raises(InvalidRecord, match="control character"):
        ledger.marks.mark("ann", "bell\x07", "mod", NOW)
    entries, total = ledger.audit.log(target="player ann")
    assert total == 2
    assert [(e.who, e.action, e.details) for e in entries] == [
        ("lead", "unmark", "appeal"), ("mod", "mark", "engine use"),
    ]  # fmt: skip
    assert [m.reason for m in ledger.marks.history("ann")] == ["engine use"]
    ledger.dispose()


def test_one_mark_in_force_per_player_in_the_schema(ledger_url: str) -> None:
    ledger = ledger_with(ledger_url, "site", "ann")
    row = {"player_id": "ann", "marked_by": "m", "marked_at": NOW, "reason": "r"}
    with ledger.engine.begin() as conn:
        conn.execute(sa.insert(player_marks).values(row))
    with pytest.raises(sa.exc.IntegrityError), ledger.engine.begin() as conn:
        conn.execute(sa.insert(player_marks).values(row))
    ledger.dispose()


def test_moderators_marking_at_once_make_one_mark(ledger_url: str) -> None:
    ledger_with(ledger_url, "site", "ann").dispose()
    ledgers = [Ledger(ledger_url) for _ in range(4)]
    barrier = threading.Barrier(len(ledgers))
    outcomes: list[str] = []

    def run(ledger: Ledger, n: int) -> None:
        barrier.wait()
        try:
            ledger.marks.mark("ann", f"moderator {n}", f"m{n}", NOW)
            outcomes.append("marked")
        except Conflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=run, args=(ledger, n)) for n, ledger in enumerate(ledgers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["conflict", "conflict", "conflict", "marked"]
    assert len(ledgers[0].audit.log(target="player ann")[0]) == 1
    for ledger in ledgers:
        ledger.dispose()


def test_the_pass_keeps_marked_players_apart(ledger_url: str) -> None:
    ledger = Ledger.create(ledger_url, "site", NOW)
    for player_id, rating in (("ann", "1500"), ("ben", "1501"), ("cat", "1520"), ("dan", "1521")):
        ledger.players.create(Player.from_mapping({"id": player_id, "rating_site": rating,
                                                   "games_site": "12"}, "test"), NOW)  # fmt: skip
    ledger.marks.mark("ben", "confirmed", "mod", NOW)
    ledger.marks.mark("dan", "confirmed", "mod", NOW)
    for player_id in ("ann", "ben", "cat", "dan"):
        ledger.seeks.create(player_id, BLITZ, True, None, None, NOW)
    report = ledger.seeks.pair(NOW)
    assert sorted(sorted((a.player, b.player)) for a, b, _ in report.pairs) == [
        ["ann", "cat"], ["ben", "dan"],
    ]  # fmt: skip
    ledger.dispose()
