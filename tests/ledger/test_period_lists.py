"""The three lists in a fide ledger, on SQLite and PostgreSQL: each list chains on its
own and publishes into its own pool, a rapid or blitz period rates unrated players with
their standard rating (R&B 7.2.1), uploads must belong to the period's list, and
migration 0014 keeps the periods closed before it verifying (rated as they were)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from chessrate.errors import InvalidRecord
from chessrate.ledger import Ledger
from chessrate.ledger import periods as ledger_periods
from chessrate.ledger.schema import fide_periods
from chessrate.samples import sample_text
from chessrate.systems.fide import LIST_POOLS, FideRules

from .helpers import NOW

MIGRATIONS = Path(__file__).resolve().parents[2] / "src/chessrate/ledger/migrations"
DATA = Path(__file__).parents[1] / "data"
SEED_TRF = (DATA / "trf" / "seed_round_robin.trf").read_text(encoding="utf-8")
SEED_LIST = (DATA / "fide" / "seed_round_robin_list.csv").read_text(encoding="utf-8")
RAPID_TRF = sample_text("fide_rapid_round_robin.trf")
RAPID_LIST = sample_text("fide_rapid_list.csv")
BLITZ_TRF = sample_text("fide_blitz_round_robin.trf")
LIST_DATE = date(2026, 2, 1)


def _close(ledger: Ledger, name: str, trf: str, start: str | None, **fields: object) -> int:
    periods = ledger.periods
    period = periods.create(name, start, NOW, **fields)  # type: ignore[arg-type]
    periods.add_file(period.id, f"{name}.trf", trf)
    return periods.close(period.id, NOW + timedelta(minutes=period.id)).id


def _rapid(ledger: Ledger, name: str, start: str | None, trf: str = RAPID_TRF) -> int:
    return _close(ledger, name, trf, start, rules="fide-2024", list_date=LIST_DATE,
                  list_kind="rapid")  # fmt: skip


def _ratings(ledger: Ledger, player_id: str) -> dict[str, int | None]:
    return {
        r.pool: None if r.rating is None else int(r.rating)
        for r in ledger.players.get(player_id).ratings
    }


def test_each_list_chains_on_its_own_and_publishes_into_its_pool(ledger_url: str) -> None:
    ledger = Ledger.create(ledger_url, "fide", NOW)
    _close(ledger, "S1", SEED_TRF, SEED_LIST, bonus=Decimal(15))
    assert _ratings(ledger, "9000001") == {"fide": 2613}
    rapid = _rapid(ledger, "R1", RAPID_LIST)
    rapid_list = {e.player: e.new_rating for e in ledger.periods.new_list(rapid)}
    assert rapid_list["9000001"] == 2552  # from the rapid list's 2550, not 2613
    # the rapid period left the standard rating alone, beside it
    assert _ratings(ledger, "9000001") == {"fide": 2613, "fide-rapid": 2552}

    # a second rapid period without a list starts from the rapid list, not the standard
    second = ledger.periods.create("R2", None, NOW, rules="fide-2024", list_date=LIST_DATE,
                                   list_kind="rapid")  # fmt: skip
    started = {e.player: e.old_rating for e in _rated(ledger, second.id, RAPID_TRF)}
    assert started == rapid_list
    # and a second standard period from the standard list
    again = _close(ledger, "S2", SEED_TRF, None, bonus=Decimal(15))
    assert ledger.periods.new_list(again)[0].old_rating == 2613
    assert [p.list_kind for p in ledger.periods.all()] == [
        "standard", "rapid", "rapid", "standard",
    ]  # fmt: skip
    board, total = ledger.boards.leaderboard("fide", limit=100)
    assert total == 10
    assert {v.player: v.rating for v in board} == {
        e.player: Decimal(e.new_rating) for e in ledger.periods.new_list(again) if e.new_rating
    }
    problems, closed = ledger.periods.verify()
    assert (problems, closed) == ([], 4)
    ledger.dispose()


def _rated(ledger: Ledger, period_id: int, trf: str) -> list[ledger_periods.PeriodEntry]:
    ledger.periods.add_file(period_id, "r2.trf", trf)
    ledger.periods.close(period_id, NOW + timedelta(hours=1))
    return ledger.periods.new_list(period_id)


def test_rapid_and_blitz_rate_unrated_players_with_their_standard_rating(
    ledger_url: str,
) -> None:
    ledger = Ledger.create(ledger_url, "fide", NOW)
    blitz_kind = {"rules": "fide-2024", "list_date": LIST_DATE, "list_kind": "blitz"}
    before = _close(ledger, "B0", BLITZ_TRF, None, **blitz_kind)  # no standard list yet
    assert all(e.new_rating is None for e in ledger.periods.new_list(before))
    standard = _close(ledger, "S1", SEED_TRF, SEED_LIST, bonus=Decimal(15))
    blitz = _close(ledger, "B1", BLITZ_TRF, None, **blitz_kind)
    listed = {e.player: e for e in ledger.periods.new_list(blitz)}
    standard_list = {e.player: e.new_rating for e in ledger.periods.new_list(standard)}
    for player in ("9000001", "Player C", "9000006"):
        assert listed[player].old_rating == standard_list[player]  # rated with it
        assert listed[player].new_rating is not None
    report = ledger.periods.report(blitz, "Player C")
    assert report["standard_rating"] == standard_list["Player C"] == 2423
    with ledger.engine.connect() as conn:
        stored = conn.execute(
            sa.select(fide_periods.c.id, fide_periods.c.standard_from).order_by(fide_periods.c.id)
        ).all()
    assert [tuple(r) for r in stored] == [(before, None), (standard, None), (blitz, standard)]
    # a later standard period does not change what the blitz period was rated with
    _close(ledger, "S2", SEED_TRF, None, bonus=Decimal(15))
    assert ledger.periods.verify() == ([], 4)
    assert set(_ratings(ledger, "Player C")) == {"fide", "fide-blitz"}
    assert LIST_POOLS == {"standard": "fide", "rapid": "fide-rapid", "blitz": "fide-blitz"}
    ledger.dispose()


def test_a_file_must_belong_to_the_periods_list(ledger_url: str) -> None:
    ledger = Ledger.create(ledger_url, "fide", NOW)
    periods = ledger.periods
    standard = periods.create("S", SEED_LIST, NOW, rules="fide-2024", list_date=LIST_DATE)
    with pytest.raises(InvalidRecord) as refused:
        periods.add_file(standard.id, "rapid.trf", RAPID_TRF)
    assert (refused.value.where, refused.value.field) == ("rapid.trf:11", "122")
    assert "a rapid game" in refused.value.reason and "standard list" in refused.value.reason
    rapid = periods.create("R", None, NOW, rules="fide-2024", list_date=LIST_DATE,
                           list_kind="rapid")  # fmt: skip
    with pytest.raises(InvalidRecord, match="blitz game"):
        periods.add_file(rapid.id, "blitz.trf", BLITZ_TRF)
    assert periods.add_file(rapid.id, "rapid.trf", RAPID_TRF).files == ("rapid.trf",)
    # the seed's edition has one list: it takes the file, and says so
    seed = periods.create("seed", SEED_LIST, NOW)
    taken = periods.add_file(seed.id, "rapid.trf", RAPID_TRF)
    assert taken.files == ("rapid.trf",)
    assert "rated on the seed's one list all the same" in taken.warnings[0]
    ledger.dispose()


@pytest.mark.parametrize(
    ("fields", "field", "says"),
    [
        ({"list_kind": "rapid"}, "list_kind", "the seed's edition has no rapid or blitz rules"),
        ({"list_kind": "classical"}, "list_kind", "unknown list 'classical'"),
        ({"rules": "fide-2024", "list_date": date(2024, 2, 1)}, "list_date", "before 1 March"),
        ({"rules": "fide-1990"}, "rules", "unknown FIDE ruleset"),
    ],
)
def test_a_period_the_rules_cannot_rate_is_refused_naming_the_field(
    ledger_url: str, fields: dict[str, object], field: str, says: str
) -> None:
    ledger = Ledger.create(ledger_url, "fide", NOW)
    with pytest.raises(InvalidRecord) as refused:
        ledger.periods.create("P", None, NOW, **fields)  # type: ignore[arg-type]
    assert (refused.value.where, refused.value.field) == ("period P", field)
    assert says in refused.value.reason
    assert ledger.periods.count() == 0
    ledger.dispose()


def test_migration_0014_keeps_old_periods_rated_as_they_were_closed(
    ledger_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fide-2024 period of June 2025 closed before the lists, by the rules as they then
    stood (``FideRules.named``: the 2650 rule of October 2025 for every date): migrated,
    it is a standard period, re-rated the same way, and verify passes; rated by the
    rules of its date it would differ (Player A, 2750, meets players 400+ below)."""
    ledger = Ledger.create(ledger_url, "fide", NOW)

    def as_before(period: object) -> FideRules:
        rules = FideRules.named(period.rules)  # type: ignore[attr-defined]
        return replace(
            rules, bonus_per_half_point=Decimal(period.bonus),  # type: ignore[attr-defined]
            floor=period.floor,  # type: ignore[attr-defined]
        )  # fmt: skip

    with monkeypatch.context() as patch:
        patch.setattr(ledger_periods, "stored_rules", as_before)
        start = SEED_LIST.replace("Player A,2600", "Player A,2750")
        old = _close(ledger, "June 2025", SEED_TRF, start, rules="fide-2024",
                     list_date=date(2025, 6, 1))  # fmt: skip
        opened = ledger.periods.create("open", None, NOW, rules="fide-2024",
                                       list_date=date(2025, 7, 1)).id  # fmt: skip
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with ledger.engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0013")
        columns = {c["name"] for c in sa.inspect(conn).get_columns("fide_periods")}
        assert not columns & {"list_kind", "rules_by_date", "standard_from"}
    ledger.dispose()

    migrated = Ledger(ledger_url)
    migrated.migrate()
    view = migrated.periods.get(old)
    assert (view.list_kind, view.rules_by_date) == ("standard", False)
    assert migrated.periods.get(opened).rules_by_date is False
    assert migrated.periods.verify() == ([], 1)
    assert migrated.verify() == []
    # the rules of its date would re-rate it differently: what rules_by_date is for
    with migrated.engine.begin() as conn:
        conn.execute(sa.update(fide_periods).values(rules_by_date=True))
    problems, _ = migrated.periods.verify()
    assert any(p.startswith(f"period {old} 9000001: stored") for p in problems), problems
    with migrated.engine.begin() as conn:
        conn.execute(sa.update(fide_periods).values(rules_by_date=False))
    # new periods are rated by date and chain from the migrated standard list
    fresh = migrated.periods.create("next", None, NOW, rules="fide-2024",
                                    list_date=date(2025, 12, 1))  # fmt: skip
    assert (fresh.list_kind, fresh.rules_by_date) == ("standard", True)
    migrated.dispose()
