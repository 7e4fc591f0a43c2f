"""A ``fide`` ledger's rating periods: upload the starting list and the TRF files,
close the period (rate it), read the new list and each player's report, and verify
every closed period by rating it again from what is stored."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, func, insert, select, update

from ..errors import Conflict, InvalidInput, NotFound
from ..folding import search_key
from ..io.fide import event_from_tournament, parse_start_list
from ..io.trf import parse_trf
from ..numbers import from_hundredths, to_hundredths
from ..systems.fide import POOL, FideRules, FideSystem, PeriodResult
from . import codec
from .connection import as_utc
from .schema import fide_files, fide_periods, fide_results, players, ratings
from .store import Ledger


@dataclass(frozen=True, slots=True)
class PeriodView:
    id: int
    name: str
    bonus: Decimal
    floor: int
    closed_at: datetime | None
    created_at: datetime
    files: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PeriodEntry:
    position: int
    player: str
    name: str
    old_rating: int | None
    new_rating: int | None
    games: int


def _json(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return {k: _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    return value


class Periods:
    """The rating periods of a ``fide`` ledger."""

    def __init__(self, ledger: Ledger) -> None:
        if not ledger.info.rates_periods:
            raise InvalidInput(f"rating periods belong to a fide ledger, not {ledger.system_id}")
        self.ledger = ledger

    def create(
        self, name: str, start_list: str, now: datetime, bonus: Decimal = Decimal("12.5"),
        floor: int = 1000,
    ) -> PeriodView:  # fmt: skip
        """Open a period with its starting list (CSV text, validated now)."""
        parse_start_list(start_list, f"{name}: start list")
        with self.ledger.transaction() as conn:
            result = conn.execute(
                insert(fide_periods)
                .values(name=name, bonus=str(bonus), floor=floor, start_list=start_list,
                        created_at=now)
                .returning(fide_periods.c.id)
            )  # fmt: skip
            period_id = int(result.scalar_one())
        return self.get(period_id)

    def add_file(
        self, period_id: int, name: str, content: str, round_robin: bool | None = None
    ) -> PeriodView:
        """Add a tournament (TRF-16 text) to an open period; validated now."""
        event_from_tournament(parse_trf(content, name), round_robin)
        with self.ledger.transaction() as conn:
            self._open(conn, period_id)
            conn.execute(
                insert(fide_files).values(
                    period_id=period_id, name=name, content=content, round_robin=round_robin
                )
            )
        return self.get(period_id)

    def _open(self, conn: Any, period_id: int) -> Any:
        row = conn.execute(
            select(fide_periods).where(fide_periods.c.id == period_id).with_for_update()
        ).first()
        if row is None:
            raise NotFound(f"period {period_id}: no such period")
        if row.closed_at is not None:
            raise Conflict(f"period {period_id}: closed on {row.closed_at}")
        return row

    def close(self, period_id: int, now: datetime) -> PeriodView:
        """Rate the period and publish its list: the players' ratings in the ledger
        become the new list."""
        with self.ledger.transaction() as conn:
            row = self._open(conn, period_id)
            files = _files(conn, period_id)
            if not files:
                raise InvalidInput(f"period {period_id}: no tournament files to rate")
            result = _rate(row, files)
            for position, report in enumerate(result.reports, start=1):
                conn.execute(
                    insert(fide_results).values(
                        period_id=period_id, player_id=report.player, position=position,
                        name=report.name, old_rating=report.old_rating,
                        new_rating=report.new_rating, games=report.new_games,
                        report=codec.dumps(_json(asdict(report))),
                    )
                )  # fmt: skip
                self._publish(conn, report.player, report.name, report.new_rating,
                              report.new_games, period_id, now)  # fmt: skip
            conn.execute(
                update(fide_periods).where(fide_periods.c.id == period_id).values(closed_at=now)
            )
        return self.get(period_id)

    def _publish(
        self, conn: Any, player_id: str, name: str, rating: int | None, games: int,
        period_id: int, now: datetime,
    ) -> None:  # fmt: skip
        attributes = codec.dumps({"id": player_id, "name": name})
        if conn.execute(select(players.c.id).where(players.c.id == player_id)).first() is None:
            conn.execute(
                insert(players).values(id=player_id, key=self.ledger.next_player_key(conn),
                                       name=name, search=search_key(player_id, name),
                                       attributes=attributes, bot=False,
                                       created_at=now, updated_at=now)
            )  # fmt: skip
        values = {
            "rating_cents": None if rating is None else to_hundredths(Decimal(rating)),
            "display": "" if rating is None else str(rating),
            "state_name": "unrated" if rating is None else "rated",
            "games": games,
            "listed": rating is not None,
            "state": codec.dumps({"rating": rating, "games": games, "period": period_id}),
            "seq": period_id,
        }
        done = conn.execute(
            update(ratings)
            .where(ratings.c.player_id == player_id, ratings.c.pool == POOL)
            .values(**values)
        )
        if done.rowcount == 0:
            conn.execute(insert(ratings).values(player_id=player_id, pool=POOL, **values))

    def get(self, period_id: int) -> PeriodView:
        with self.ledger.reading() as conn:
            row = conn.execute(select(fide_periods).where(fide_periods.c.id == period_id)).first()
            if row is None:
                raise NotFound(f"period {period_id}: no such period")
            names = conn.execute(
                select(fide_files.c.name).where(fide_files.c.period_id == period_id)
                .order_by(fide_files.c.id)
            ).scalars().all()  # fmt: skip
        return PeriodView(
            row.id, row.name, Decimal(row.bonus), row.floor,
            None if row.closed_at is None else as_utc(row.closed_at), as_utc(row.created_at),
            tuple(names),
        )  # fmt: skip

    def all(self) -> list[PeriodView]:
        with self.ledger.reading() as conn:
            ids = conn.execute(select(fide_periods.c.id).order_by(fide_periods.c.id)).scalars()
            wanted = list(ids)
        return [self.get(i) for i in wanted]

    def new_list(self, period_id: int) -> list[PeriodEntry]:
        period = self.get(period_id)
        if period.closed_at is None:
            raise Conflict(f"period {period_id}: not closed yet")
        with self.ledger.reading() as conn:
            rows = conn.execute(
                select(fide_results).where(fide_results.c.period_id == period_id)
                .order_by(fide_results.c.position)
            ).all()  # fmt: skip
        return [
            PeriodEntry(r.position, r.player_id, r.name, r.old_rating, r.new_rating, r.games)
            for r in rows
        ]

    def report(self, period_id: int, player_id: str) -> dict[str, Any]:
        with self.ledger.reading() as conn:
            text = conn.execute(
                select(fide_results.c.report).where(
                    fide_results.c.period_id == period_id, fide_results.c.player_id == player_id
                )
            ).scalar()
            if text is None:
                count = conn.execute(
                    select(func.count()).select_from(fide_results)
                    .where(fide_results.c.period_id == period_id)
                ).scalar_one()  # fmt: skip
                what = "no such player in" if count else "no results yet for"
                raise NotFound(f"period {period_id}: {what} period ({player_id})")
        data: dict[str, Any] = json.loads(text)
        return data

    # -- verify -------------------------------------------------------------------------

    def verify(self) -> tuple[list[str], int]:
        """Re-rate every closed period from its stored starting list and tournament
        files, compare each player's new rating, games and position with the stored
        results, and every current ``fide`` rating with the results of the period that
        published it. Returns the differences and the number of closed periods."""
        problems: list[str] = []
        expected: dict[tuple[int, str], tuple[int | None, int]] = {}
        with self.ledger.reading() as conn:
            closed = conn.execute(
                select(fide_periods)
                .where(fide_periods.c.closed_at.is_not(None))
                .order_by(fide_periods.c.id)
            ).all()
            for period in closed:
                result = _rate(period, _files(conn, period.id))
                stored = {
                    row.player_id: row
                    for row in conn.execute(
                        select(fide_results).where(fide_results.c.period_id == period.id)
                    )
                }
                for position, report in enumerate(result.reports, start=1):
                    expected[(period.id, report.player)] = (report.new_rating, report.new_games)
                    row = stored.pop(report.player, None)
                    if row is None:
                        problems.append(f"period {period.id} {report.player}: missing from results")
                        continue
                    found = (row.new_rating, row.games, row.position)
                    wanted = (report.new_rating, report.new_games, position)
                    if found != wanted:
                        problems.append(
                            f"period {period.id} {report.player}: stored (rating, games, "
                            f"position) {found}, re-rated {wanted}"
                        )
                problems += [f"period {period.id} {p}: not in the re-rating" for p in stored]
            board = conn.execute(select(ratings).where(ratings.c.pool == POOL)).all()
        published: set[str] = set()
        for row in board:
            published.add(row.player_id)
            want = expected.get((row.seq, row.player_id))
            if want is None:
                problems.append(f"{row.player_id} {POOL}: not published by period {row.seq}")
                continue
            rating, games = want
            found_rating = None if row.rating_cents is None else from_hundredths(row.rating_cents)
            if found_rating != rating or row.games != games:
                problems.append(
                    f"{row.player_id} {POOL}: stored {found_rating} ({row.games} games), "
                    f"period {row.seq} published {rating} ({games} games)"
                )
        for _, player_id in expected.keys() - {(r.seq, r.player_id) for r in board}:
            if player_id not in published:
                problems.append(f"{player_id} {POOL}: rated in a period but has no current rating")
        return problems, len(closed)


def _files(conn: Connection, period_id: int) -> Sequence[Any]:
    """A period's stored tournament files, in upload order."""
    return conn.execute(
        select(fide_files).where(fide_files.c.period_id == period_id).order_by(fide_files.c.id)
    ).all()


def _rate(period: Any, files: Sequence[Any]) -> PeriodResult:
    """Rate a stored period: its starting list and files, with its bonus and floor."""
    start = parse_start_list(period.start_list, f"{period.name}: start list")
    events = [event_from_tournament(parse_trf(f.content, f.name), f.round_robin) for f in files]
    rules = FideRules(bonus_per_half_point=Decimal(period.bonus), floor=period.floor)
    return FideSystem(rules).rate_period(start, events)
