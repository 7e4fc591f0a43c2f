"""A ``fide`` ledger's rating periods: upload the starting list and the TRF files,
close the period (rate it), read the new list and each player's report, and verify
every closed period by rating it again from what is stored."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, func, insert, select, text, update

from ..errors import Conflict, InvalidInput, InvalidRecord, NotFound
from ..folding import search_key
from ..identifiers import text_problem
from ..io.fide import (
    NEW_LIST_FIELDS,
    check_rate_of_play,
    event_from_tournament,
    json_value,
    new_list_rows,
    new_list_text,
    parse_start_list,
)
from ..io.trf import Tournament, parse_trf
from ..lab.periods import Chain, Period, noon, played_on
from ..numbers import from_hundredths, to_hundredths
from ..systems.fide import (
    LIST_POOLS,
    POOL,
    Event,
    FideRules,
    FideSystem,
    ListKind,
    PeriodResult,
    Ruleset,
)
from . import codec, common
from .connection import as_utc
from .schema import fide_files, fide_periods, fide_results, players, ratings

if TYPE_CHECKING:
    from .store import Ledger

CLOSE_LOCK = 0x5EE6_0018
"""The PostgreSQL advisory lock key that makes periods close one at a time. Each lock
has its own key: the pairing pass ``0x5EE6_0016`` (:data:`.seeks.PAIR_LOCK`), the
writers' lock ``0x5EE6_0017`` (:data:`.connection.WRITERS`, which every write
transaction holds shared: a closing that shared its key deadlocked)."""

LARGEST_ID = 2**63 - 1
"""The largest period id the database can hold (a 64-bit integer): a number past it
(from an address) names no period, and is never sent to the database."""


def _no_such_period(period_id: int) -> NotFound | None:
    """NotFound for an id no period can have (below 1, past :data:`LARGEST_ID`)."""
    if 1 <= period_id <= LARGEST_ID:
        return None
    return NotFound(f"period {period_id}: no such period")


@dataclass(frozen=True, slots=True)
class PeriodView:
    id: int
    name: str
    bonus: Decimal
    floor: int
    closed_at: datetime | None
    created_at: datetime
    files: tuple[str, ...]
    rules: str = "seed"
    list_date: date | None = None
    warnings: tuple[str, ...] = ()
    """What the last upload left out and why (a player entered twice, one entry never
    paired)."""
    list_kind: str = ListKind.STANDARD.value
    rules_by_date: bool = True
    """Rated by the rules in force on the list's date (:meth:`FideRules.for_period`);
    false: a period stored before the lists (migration 0014), rated by the ruleset as
    it then stood (:meth:`FideRules.named`)."""


@dataclass(frozen=True, slots=True)
class PeriodEntry:
    """A player's line in a closed period's new list; ``k`` and ``change`` (K × ΣΔR,
    F2) come from the player's stored report, ``period_games`` is the rated games the
    period counted (new games − old games)."""

    position: int
    player: str
    name: str
    old_rating: int | None
    new_rating: int | None
    games: int
    k: int | None = None
    change: Decimal | None = None
    period_games: int = 0
    flag: str = ""  # the list's Flag: i (inactive, 7.2.2), w (woman), wi


@dataclass(frozen=True, slots=True)
class PlayerPeriod:
    """A player's line in one closed period (the rating by period)."""

    period_id: int
    period_name: str
    closed_at: datetime
    entry: PeriodEntry
    list_kind: str = ListKind.STANDARD.value
    next_k: int | None = None
    """The K published with the period's new list (for the next period)."""


@dataclass(frozen=True, slots=True)
class PeriodFile:
    """A period's tournament file: its number in the period (1-based, upload order)."""

    number: int
    name: str
    content: str
    round_robin: bool | None


class Periods:
    """The rating periods of a ``fide`` ledger."""

    def __init__(self, ledger: Ledger) -> None:
        if not ledger.info.rates_periods:
            raise InvalidInput(f"rating periods belong to a fide ledger, not {ledger.system_id}")
        self.ledger = ledger

    def create(
        self, name: str, start_list: str | None, now: datetime,
        bonus: Decimal | None = None, floor: int | None = None, rules: str = "seed",
        list_date: date | None = None, list_kind: str = ListKind.STANDARD.value,
    ) -> PeriodView:  # fmt: skip
        """Open a period with its starting list (CSV text, validated now), or, without
        one, the new list of the last closed period of the same list (each list chains
        on its own: its ratings, games, K, birth years and pending results; no such
        period: an empty list, everyone from the files). ``rules`` names the ruleset
        (``seed``, ``fide-2024``), ``list_kind`` the list (standard, rapid, blitz): the
        period is rated by :meth:`FideRules.for_period` for the list and its date;
        ``bonus`` and ``floor`` default to that ruleset's."""
        for field, value in (("name", name), ("start_list", start_list or "")):
            refused = text_problem(value)  # (PostgreSQL refuses a NUL: a 500)
            if refused is not None:
                raise InvalidRecord("period", field, refused)
        ruleset = period_rules(f"period {name}", rules, list_kind, list_date)
        with self.ledger.transaction() as conn:
            chained = start_list is None
            if start_list is None:
                start_list = self._chained_list(conn, list_kind)
            parse_start_list(start_list, f"{name}: start list", stored=chained)
            result = conn.execute(
                insert(fide_periods)
                .values(name=name, bonus=str(ruleset.bonus_per_half_point if bonus is None
                                             else bonus),
                        floor=ruleset.floor if floor is None else floor, rules=rules,
                        list_date=list_date, list_kind=list_kind, rules_by_date=True,
                        start_list=start_list, created_at=now)
                .returning(fide_periods.c.id)
            )  # fmt: skip
            period_id = int(result.scalar_one())
        return self.get(period_id)

    def _chained_list(self, conn: Connection, list_kind: str) -> str:
        """The new list of the last closed period of ``list_kind`` as the next starting
        list (CSV in the columns ``fide rate --out`` writes); an empty list when no
        period of that list is closed."""
        last = _last_closed(conn, list_kind)
        if last is None:
            return ",".join(NEW_LIST_FIELDS) + "\n"
        result, system = _rate(
            last, _files(conn, last.id), _standard_ratings(conn, last.standard_from)
        )
        return new_list_text(new_list_rows(result, system), Path("next.csv"), last.list_date)

    def add_file(
        self, period_id: int, name: str, content: str, round_robin: bool | None = None
    ) -> PeriodView:
        """Add a tournament (TRF-16 text) to an open period; validated now, and its
        rate of play (``122``) must belong to the period's list (:func:`check_rate_of_play`:
        InvalidRecord naming the line and the rule; the seed's edition, which has one
        list and no rate of play rule, rates it all the same and says so in the
        warnings). The view's ``warnings`` say what the file's reading left out (a
        player entered twice)."""
        warnings: list[str] = []
        refused = text_problem(name)
        if refused is not None:
            raise InvalidRecord("file", "name", refused)
        tournament = parse_trf(content, name)
        event_from_tournament(tournament, round_robin, warnings)
        with self.ledger.transaction() as conn:
            row = self._open(conn, period_id)
            try:
                check_rate_of_play(tournament, stored_rules(row))
            except InvalidRecord as error:
                if row.rules != Ruleset.SEED.value:
                    raise
                warnings.insert(0, f"{error}; rated on the seed's one list all the same")
            conn.execute(
                insert(fide_files).values(
                    period_id=period_id, name=name, content=content, round_robin=round_robin
                )
            )
        return replace(self.get(period_id), warnings=tuple(warnings))

    def _open(self, conn: Any, period_id: int) -> Any:
        if missing := _no_such_period(period_id):
            raise missing
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
        become the new list. Closings run one at a time (PostgreSQL: a transaction's
        advisory lock, :data:`CLOSE_LOCK`; SQLite: the write lock): two periods closing
        at once would each publish the players new to the ledger, and the second
        insert of a player would break the key."""
        with self.ledger.transaction() as conn:
            if self.ledger.postgres:
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": CLOSE_LOCK})
            row = self._open(conn, period_id)
            files = _files(conn, period_id)
            if not files:
                raise InvalidInput(f"period {period_id}: no tournament files to rate")
            standard_from = None
            if row.list_kind != ListKind.STANDARD.value:  # R&B 7.2.1: the standard list
                source = _last_closed(conn, ListKind.STANDARD.value)
                standard_from = None if source is None else int(source.id)
            result, _system = _rate(row, files, _standard_ratings(conn, standard_from))
            pool = LIST_POOLS[row.list_kind]
            for position, report in enumerate(result.reports, start=1):
                conn.execute(
                    insert(fide_results).values(
                        period_id=period_id, player_id=report.player, position=position,
                        name=report.name, old_rating=report.old_rating,
                        new_rating=report.new_rating, games=report.new_games,
                        report=codec.dumps(json_value(asdict(report))),
                    )
                )  # fmt: skip
                self._publish(conn, report.player, report.name, report.new_rating,
                              report.new_games, period_id, now, pool)  # fmt: skip
            conn.execute(
                update(fide_periods)
                .where(fide_periods.c.id == period_id)
                .values(closed_at=now, standard_from=standard_from)
            )
        return self.get(period_id)

    def _publish(
        self, conn: Any, player_id: str, name: str, rating: int | None, games: int,
        period_id: int, now: datetime, pool: str = POOL,
    ) -> None:  # fmt: skip
        attributes = codec.dumps({"id": player_id, "name": name})
        if conn.execute(select(players.c.id).where(players.c.id == player_id)).first() is None:
            conn.execute(
                insert(players).values(id=player_id, key=common.next_player_key(self.ledger, conn),
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
            .where(ratings.c.player_id == player_id, ratings.c.pool == pool)
            .values(**values)
        )
        if done.rowcount == 0:
            conn.execute(insert(ratings).values(player_id=player_id, pool=pool, **values))

    def get(self, period_id: int) -> PeriodView:
        if missing := _no_such_period(period_id):
            raise missing
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
            tuple(names), row.rules, row.list_date, list_kind=row.list_kind,
            rules_by_date=bool(row.rules_by_date),
        )  # fmt: skip

    def all(self, offset: int = 0, limit: int | None = None) -> list[PeriodView]:
        """The periods, oldest first: at most ``limit`` (None: all) from ``offset``."""
        query = select(fide_periods.c.id).order_by(fide_periods.c.id).offset(offset).limit(limit)
        with self.ledger.reading() as conn:
            wanted = list(conn.execute(query).scalars())
        return [self.get(i) for i in wanted]

    def count(self) -> int:
        with self.ledger.reading() as conn:
            return int(conn.execute(select(func.count()).select_from(fide_periods)).scalar_one())

    def new_list(
        self, period_id: int, offset: int = 0, limit: int | None = None
    ) -> list[PeriodEntry]:
        """The closed period's new list by position: at most ``limit`` (None: all) from
        ``offset``."""
        period = self.get(period_id)
        if period.closed_at is None:
            raise Conflict(f"period {period_id}: not closed yet")
        with self.ledger.reading() as conn:
            rows = conn.execute(
                select(fide_results).where(fide_results.c.period_id == period_id)
                .order_by(fide_results.c.position).offset(offset).limit(limit)
            ).all()  # fmt: skip
        return [_entry(r) for r in rows]

    def list_size(self, period_id: int) -> int:
        """The number of players on the period's new list (0 while it is open)."""
        with self.ledger.reading() as conn:
            return int(
                conn.execute(
                    select(func.count()).select_from(fide_results)
                    .where(fide_results.c.period_id == period_id)
                ).scalar_one()
            )  # fmt: skip

    def names(self, period_id: int) -> dict[str, str]:
        """The names of a period's players in its results (empty while it is open)."""
        if _no_such_period(period_id):
            return {}
        with self.ledger.reading() as conn:
            rows = conn.execute(
                select(fide_results.c.player_id, fide_results.c.name)
                .where(fide_results.c.period_id == period_id)
            ).all()  # fmt: skip
        return {r.player_id: r.name for r in rows}

    def file(self, period_id: int, number: int) -> PeriodFile:
        """The period's ``number``-th tournament file (1-based, in upload order)."""
        period = self.get(period_id)
        if not 1 <= number <= len(period.files):
            has = f"its tournaments are 1 to {len(period.files)}" if period.files else "it has none"
            raise NotFound(f"period {period_id}: no tournament {number} ({has})")
        with self.ledger.reading() as conn:
            row = _files(conn, period_id)[number - 1]
        return PeriodFile(number, row.name, row.content, row.round_robin)

    def of_player(self, player_id: str) -> list[PlayerPeriod]:
        """The player's lines in every closed period, oldest first."""
        with self.ledger.reading() as conn:
            rows = conn.execute(
                select(fide_results, fide_periods.c.name.label("period_name"),
                       fide_periods.c.closed_at, fide_periods.c.list_kind)
                .join(fide_periods, fide_periods.c.id == fide_results.c.period_id)
                .where(fide_results.c.player_id == player_id,
                       fide_periods.c.closed_at.is_not(None))
                .order_by(fide_periods.c.closed_at, fide_periods.c.id)
            ).all()  # fmt: skip
        return [
            PlayerPeriod(r.period_id, r.period_name, as_utc(r.closed_at), _entry(r),
                         r.list_kind, json.loads(r.report).get("next_k"))
            for r in rows
        ]  # fmt: skip

    def report(self, period_id: int, player_id: str) -> dict[str, Any]:
        if missing := _no_such_period(period_id):
            raise missing
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

    # -- the rating lab -----------------------------------------------------------------

    def history(self) -> Chain:
        """The closed periods as the rating lab's chain (:mod:`chessrate.lab.periods`),
        in the order they were closed, each with the rules it was rated by. A period
        whose stored starting list is the new list of the period of its list closed
        before it (the ledger chained it) starts, under each variant, from that
        variant's list; a period opened with an uploaded list starts from that list
        under every variant. A rapid or blitz period takes its unrated players'
        standard ratings from the standard period it was closed with."""
        periods: list[Period] = []
        index: dict[int, int] = {}
        last: dict[str, tuple[Any, PeriodResult, FideSystem]] = {}
        with self.ledger.reading() as conn:
            closed = conn.execute(
                select(fide_periods)
                .where(fide_periods.c.closed_at.is_not(None))
                .order_by(fide_periods.c.closed_at, fide_periods.c.id)
            ).all()
            for row in closed:
                start = parse_start_list(row.start_list, f"{row.name}: start list", stored=True)
                tournaments = _tournaments(_files(conn, row.id))
                events = [event_from_tournament(t, r, stored=True) for t, r in tournaments]
                system = FideSystem(stored_rules(row))
                standard = _standard_ratings(conn, row.standard_from)
                result = system.rate_period(start, events, row.list_date, standard)
                chained = False
                if row.list_kind in last:
                    before, rated, by = last[row.list_kind]
                    rows = new_list_rows(rated, by)
                    chained = row.start_list == new_list_text(rows, Path("next.csv"),
                                                              before.list_date)  # fmt: skip
                day = played_on([t for t, _ in tournaments], row.list_date)
                played = as_utc(row.closed_at) if day is None else noon(day)
                periods.append(
                    Period(
                        f"period {row.id} ({row.name})", row.list_kind, row.list_date, played,
                        tuple(events), system.rules, None if chained else start,
                        None if row.standard_from is None else index.get(row.standard_from),
                    )
                )  # fmt: skip
                index[row.id] = len(periods) - 1
                last[row.list_kind] = (row, result, system)
        return Chain(tuple(periods))

    # -- verify -------------------------------------------------------------------------

    def verify(self) -> tuple[list[str], int]:
        """Re-rate every closed period from its stored starting list and tournament
        files, compare each player's new rating, games and position with the stored
        results, and every current rating of the three lists (:data:`LIST_POOLS`) with
        the results of the period that published it. Each period is re-rated as it was
        closed: by the rules for its list and date, or, closed before the lists
        (``rules_by_date`` false), by its ruleset as it then stood. Returns the
        differences and the number of closed periods."""
        problems: list[str] = []
        expected: dict[tuple[int, str], tuple[int | None, int]] = {}
        kinds: dict[int, str] = {}
        with self.ledger.reading() as conn:
            closed = conn.execute(
                select(fide_periods)
                .where(fide_periods.c.closed_at.is_not(None))
                .order_by(fide_periods.c.id)
            ).all()
            for period in closed:
                kinds[period.id] = LIST_POOLS[period.list_kind]
                result, _system = _rate(
                    period, _files(conn, period.id), _standard_ratings(conn, period.standard_from)
                )
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
            board = conn.execute(
                select(ratings).where(ratings.c.pool.in_(LIST_POOLS.values()))
            ).all()
        published: set[tuple[str, str]] = set()
        for row in board:
            published.add((row.pool, row.player_id))
            want = expected.get((row.seq, row.player_id))
            if want is None or kinds.get(row.seq) != row.pool:
                problems.append(f"{row.player_id} {row.pool}: not published by period {row.seq}")
                continue
            rating, games = want
            found_rating = None if row.rating_cents is None else from_hundredths(row.rating_cents)
            if found_rating != rating or row.games != games:
                problems.append(
                    f"{row.player_id} {row.pool}: stored {found_rating} ({row.games} games), "
                    f"period {row.seq} published {rating} ({games} games)"
                )
        for period_id, player_id in sorted(expected.keys() - {(r.seq, r.player_id) for r in board}):
            pool = kinds[period_id]
            if (pool, player_id) not in published:
                published.add((pool, player_id))
                problems.append(f"{player_id} {pool}: rated in a period but has no current rating")
        return problems, len(closed)


def _entry(row: Any) -> PeriodEntry:
    """A stored result as a list entry, with K, the change and the period's games from
    its report."""
    report = json.loads(row.report)
    change = report.get("change")
    return PeriodEntry(
        row.position, row.player_id, row.name, row.old_rating, row.new_rating, row.games,
        k=report.get("k"), change=None if change is None else Decimal(change),
        period_games=row.games - int(report["old_games"]), flag=report.get("flag") or "",
    )  # fmt: skip


def _files(conn: Connection, period_id: int) -> Sequence[Any]:
    """A period's stored tournament files, in upload order."""
    return conn.execute(
        select(fide_files).where(fide_files.c.period_id == period_id).order_by(fide_files.c.id)
    ).all()


def period_rules(where: str, rules: str, list_kind: str, list_date: date | None) -> FideRules:
    """The rules a new period is rated by (:meth:`FideRules.for_period`), or
    InvalidRecord naming the field at fault: ``rules`` (no such ruleset),
    ``list_kind`` (no such list, or none of that ruleset's), ``list_date`` (a date the
    ruleset does not rate)."""
    try:
        FideRules.named(rules)
    except ValueError as error:
        raise InvalidRecord(where, "rules", str(error)) from error
    try:
        FideRules.for_period(rules, list_kind)
    except ValueError as error:
        raise InvalidRecord(where, "list_kind", str(error)) from error
    try:
        return FideRules.for_period(rules, list_kind, list_date)
    except ValueError as error:
        raise InvalidRecord(where, "list_date", str(error)) from error


def stored_rules(period: Any) -> FideRules:
    """The rules a stored period is rated by, with its bonus and floor: for its list
    and date (:meth:`FideRules.for_period`), or, a period stored before the lists
    (``rules_by_date`` false), its ruleset as it then stood (:meth:`FideRules.named`,
    the rules of today for every date, without the games left out since: the rate of
    play bands and matches, which the rules read then did not have)."""
    if period.rules_by_date:
        rules = FideRules.for_period(period.rules, period.list_kind, period.list_date)
    else:
        rules = replace(FideRules.named(period.rules), rate_of_play_bands=False, match_rules=False)
    return replace(rules, bonus_per_half_point=Decimal(period.bonus), floor=period.floor)


def _last_closed(conn: Connection, list_kind: str) -> Any:
    """The last closed period of ``list_kind`` (by closing, then id), else None."""
    query = select(fide_periods).where(
        fide_periods.c.closed_at.is_not(None), fide_periods.c.list_kind == list_kind
    )
    order = (fide_periods.c.closed_at.desc(), fide_periods.c.id.desc())
    return conn.execute(query.order_by(*order).limit(1)).first()


def _standard_ratings(conn: Connection, standard_from: int | None) -> dict[str, int]:
    """For a rapid or blitz period: the ratings of the standard list it was closed
    with (``standard_from``: the last standard period closed when it closed; R&B
    7.2.1: an unrated player with a standard rating is rated with it), read from the
    stored results; a standard period, or none closed then: none."""
    if standard_from is None:
        return {}
    rows = conn.execute(
        select(fide_results.c.player_id, fide_results.c.new_rating).where(
            fide_results.c.period_id == standard_from,
            fide_results.c.new_rating.is_not(None),
        )
    )
    return {r.player_id: int(r.new_rating) for r in rows}


def _rate(
    period: Any, files: Sequence[Any], standard: Mapping[str, int] | None = None
) -> tuple[PeriodResult, FideSystem]:
    """Rate a stored period: its starting list and files, by its rules
    (:func:`stored_rules`) for the date of its list; ``standard``: the standard
    ratings a rapid or blitz period gives its unrated players (R&B 7.2.1)."""
    start = parse_start_list(period.start_list, f"{period.name}: start list", stored=True)
    events = _events(files)
    system = FideSystem(stored_rules(period))
    return system.rate_period(start, events, period.list_date, standard), system


def _tournaments(files: Sequence[Any]) -> list[tuple[Tournament, bool | None]]:
    """A period's stored tournament files, read, with their round robin setting."""
    return [(parse_trf(f.content, f.name), f.round_robin) for f in files]


def _events(files: Sequence[Any]) -> list[Event]:
    """A period's stored tournament files as its events, in upload order."""
    return [event_from_tournament(t, r, stored=True) for t, r in _tournaments(files)]
