"""The ledger: durable players, games, rating changes and current ratings.

Writes follow lila's order: check eligibility, compute purely (the same system
functions as the batch engine), store the per-game diff, update the players'
ratings, all in one transaction. Concurrent writers are serialized per player:
PostgreSQL locks the players' rows (``SELECT ... FOR UPDATE``, in id order, so
no deadlock); SQLite takes its database write lock at ``BEGIN IMMEDIATE``. A
game's ``seq`` is drawn inside that lock, so games that share a player are
committed in ``seq`` order, and ``verify`` replays them in that order.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    Connection,
    Engine,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, IntegrityError, NoSuchModuleError, OperationalError

from ..engine import Engine as ReplayEngine
from ..errors import Conflict, InvalidInput, InvalidRecord, LedgerUnavailable, NotFound
from ..records import GameRecord, Outcome, Player, Result
from ..systems import REGISTRY, SystemInfo, get_system, system_info
from ..systems.base import Change, GameRating, PoolKey, RatingSystem
from . import codec
from .schema import annulments, changes, events, games, players, ratings, settings, tokens

DEFAULT_DATABASE = "chessrate.db"
ROLES = ("writer", "moderator")


def database_url(given: str | None = None) -> str:
    """``--db`` or ``CHESSRATE_DATABASE_URL``, else ``./chessrate.db``. A plain path
    means a SQLite file."""
    url = given or os.environ.get("CHESSRATE_DATABASE_URL") or DEFAULT_DATABASE
    if "://" not in url:
        url = f"sqlite:///{Path(url).resolve()}"
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return url


@contextmanager
def url_errors() -> Iterator[None]:
    """A URL SQLAlchemy cannot use (``ArgumentError``, ``NoSuchModuleError``) as
    :class:`LedgerUnavailable` (``url`` True)."""
    try:
        yield
    except (ArgumentError, NoSuchModuleError) as error:
        raise LedgerUnavailable(f"not a usable database URL ({error})", url=True) from error


@contextmanager
def connection_errors() -> Iterator[None]:
    """A database that does not answer (SQLAlchemy's ``OperationalError``: cannot
    connect, locked past the timeout, gone) as :class:`LedgerUnavailable`."""
    try:
        yield
    except OperationalError as error:
        reason = (str(error.orig).strip() if error.orig else "") or str(error)
        raise LedgerUnavailable(f"database: {reason.splitlines()[0]}") from error


def display_url(url: str) -> str:
    """The URL as printed: without its password."""
    with url_errors():
        return make_url(url).render_as_string(hide_password=True)


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL (None for other databases and in-memory ones)."""
    if not url.startswith("sqlite"):
        return None
    with url_errors():
        database = make_url(url).database
    return Path(database) if database and database != ":memory:" else None


def _cents(value: Decimal | None) -> int | None:
    return None if value is None else int(value * 100)


def _decimal(cents: int | None) -> Decimal | None:
    return None if cents is None else Decimal(cents).scaleb(-2)


def as_utc(moment: datetime) -> datetime:
    """SQLite returns naive datetimes: they are UTC. Aware ones are converted to UTC."""
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


# -- views returned to the service and the command line ---------------------------------


@dataclass(frozen=True, slots=True)
class RatingView:
    player: str
    pool: str
    rating: Decimal | None
    display: str
    state: str
    games: int
    listed: bool


@dataclass(frozen=True, slots=True)
class PlayerView:
    player: Player
    ratings: tuple[RatingView, ...]


@dataclass(frozen=True, slots=True)
class GameView:
    id: str
    seq: int
    record: GameRecord
    outcome: str
    reason: str
    annulled: bool
    changes: tuple[Change, ...]
    submitted_at: datetime


@dataclass(frozen=True, slots=True)
class HistoryItem:
    seq: int
    kind: str  # "game" or "annulment"
    played_at: datetime
    change: Change


@dataclass(frozen=True, slots=True)
class AnnulmentView:
    game_id: str
    seq: int
    at: datetime
    by: str | None
    reason: str
    changes: tuple[Change, ...]


# -- the ledger -------------------------------------------------------------------------


def _make_engine(url: str, write: bool = True) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            # WAL with synchronous=NORMAL: a commit is atomic and consistent; only the
            # last commits before a power cut (not a crash of the process) can be lost.
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        if not write:
            return engine

        @event.listens_for(engine, "begin")
        def _begin(connection: Connection) -> None:
            # Take the write lock at the start: the read-compute-write of a game is
            # then serialized, and no transaction fails on a lock upgrade.
            connection.exec_driver_sql("BEGIN IMMEDIATE")

        return engine
    return create_engine(url, pool_size=10, max_overflow=20, pool_recycle=1800)


class Ledger:
    """One rating system's ledger in one database."""

    def __init__(self, url: str) -> None:
        self.url = url
        with url_errors():
            self.engine = _make_engine(url)
            # Reads never take SQLite's write lock (WAL lets them run beside a writer).
            self.reader = (
                _make_engine(url, write=False) if url.startswith("sqlite") else self.engine
            )
        self.postgres = self.engine.dialect.name == "postgresql"
        upsert = (postgresql_insert if self.postgres else sqlite_insert)(ratings)
        columns = ("rating_cents", "display", "state_name", "games", "listed", "state", "seq")
        # One cached statement, run with many rows (insertmanyvalues makes it one trip).
        self._upsert_rating = upsert.on_conflict_do_update(
            index_elements=[ratings.c.player_id, ratings.c.pool],
            set_={name: upsert.excluded[name] for name in columns},
        )
        self._system_id: str | None = None
        self._system: RatingSystem[Any] | None = None

    # -- set-up -------------------------------------------------------------------------

    @classmethod
    def create(cls, url: str, system_id: str, now: datetime | None = None) -> Ledger:
        """Create (migrate) the schema and fix the ledger's rating system."""
        if system_id not in REGISTRY:
            raise InvalidInput(
                f"unknown rating system {system_id!r} (known: {', '.join(REGISTRY)})"
            )
        ledger = cls(url)
        ledger.migrate()
        with ledger.transaction() as conn:
            existing = conn.execute(
                select(settings.c.value).where(settings.c.key == "system")
            ).scalar()
            if existing is not None and existing != system_id:
                raise InvalidInput(
                    f"this ledger already rates by {existing!r}; one system per ledger"
                )
            if existing is None:
                moment = (now or datetime.now(UTC)).isoformat()
                conn.execute(
                    insert(settings),
                    [{"key": "system", "value": system_id}, {"key": "created_at", "value": moment}],
                )
        return ledger

    def migrate(self) -> None:
        """Bring the schema to the latest migration (Alembic)."""
        config = Config()
        config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
        with self.transaction() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "head")

    @property
    def system_id(self) -> str:
        """The ledger's rating system (read once; InvalidInput when the database holds
        no ledger)."""
        if self._system_id is None:
            self._system_id = self._stored_system_id()
        return self._system_id

    def _stored_system_id(self) -> str:
        with self.reading() as conn:
            try:
                value = conn.execute(
                    select(settings.c.value).where(settings.c.key == "system")
                ).scalar()
            except Exception as error:  # no tables yet
                raise InvalidInput(
                    f"{self.url}: not a chessrate ledger (run chessrate init): {error}"
                ) from None
        if value is None:
            raise InvalidInput(f"{self.url}: not a chessrate ledger (run chessrate init)")
        return str(value)

    def ping(self) -> str:
        """Ask the database now (nothing cached): the ledger's system id when the
        database answers and holds a ledger, else :class:`LedgerUnavailable`."""
        try:
            return self._stored_system_id()
        except InvalidInput as error:
            raise LedgerUnavailable(str(error)) from None

    @property
    def info(self) -> SystemInfo:
        """The registry's entry of the ledger's system (its kind, its pools)."""
        return system_info(self.system_id)

    @property
    def pools(self) -> tuple[str, ...]:
        """The pools of the ledger's system, in the system's order."""
        return self.info.pools

    @property
    def system(self) -> RatingSystem[Any]:
        """The system that rates the ledger's games (InvalidInput for a system that
        rates periods)."""
        if self._system is None:
            if not self.info.rates_games:
                raise InvalidInput(f"a {self.system_id} ledger rates periods, not single games")
            self._system = get_system(self.system_id)
        return self._system

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One write transaction (SQLite: the database write lock from its start).
        A database that does not answer raises :class:`LedgerUnavailable`."""
        with connection_errors(), self.engine.begin() as conn:
            yield conn

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A read connection; on SQLite it never takes the write lock. A database that
        does not answer raises :class:`LedgerUnavailable`."""
        with connection_errors(), self.reader.connect() as conn:
            yield conn

    def dispose(self) -> None:
        self.engine.dispose()
        self.reader.dispose()

    # -- players ------------------------------------------------------------------------

    def create_player(self, player: Player, now: datetime) -> PlayerView:
        """Register a player; refused (409) if the id exists."""
        with self.transaction() as conn:
            self._create_player(conn, player, now)
        return self.get_player(player.id)

    def _create_player(self, conn: Connection, player: Player, now: datetime) -> None:
        self.system.check_player(player)
        if conn.execute(select(players.c.id).where(players.c.id == player.id)).first():
            raise Conflict(f"player {player.id}: id: already exists")
        self._store_player(conn, player, now, new=True)

    def update_player(
        self, player_id: str, fields: Mapping[str, object], now: datetime
    ) -> PlayerView:
        """Change some attributes (name, membership, bot and its rating, imports)."""
        with self.transaction() as conn:
            self._update_player(conn, player_id, fields, now)
        return self.get_player(player_id)

    def _update_player(
        self, conn: Connection, player_id: str, fields: Mapping[str, object], now: datetime
    ) -> None:
        current = self._locked_players(conn, [player_id]).get(player_id)
        if current is None:
            raise NotFound(f"player {player_id}: no such player")
        data = {**current.to_mapping(), **fields, "id": player_id}
        data = {k: v for k, v in data.items() if v is not None}
        player = Player.from_mapping(data, f"player {player_id}")
        self.system.check_player(player)
        self._store_player(conn, player, now, new=False)

    def import_all(
        self,
        new_players: Sequence[Player],
        updates: Sequence[tuple[str, Mapping[str, object]]],
        records: Sequence[GameRecord],
        annulments_wanted: Sequence[tuple[str, str]],
        by: str | None,
        now: datetime,
    ) -> tuple[list[tuple[GameView, bool]], list[AnnulmentView]]:
        """Players created and updated, games rated in the given order, annulments
        (game id, reason) applied: all in ONE transaction, all or nothing."""
        with self.transaction() as conn:
            for player in new_players:
                self._create_player(conn, player, now)
            for player_id, fields in updates:
                self._update_player(conn, player_id, fields, now)
            if records:
                self._locked_players(conn, {p for r in records for p in (r.white, r.black)})
            stored = [self._submit(conn, record, now) for record in records]
            annulled = [
                self._annul(conn, game_id, reason, by, now) for game_id, reason in annulments_wanted
            ]
        return stored, annulled

    def _store_player(self, conn: Connection, player: Player, now: datetime, new: bool) -> None:
        attributes = codec.dumps(player.to_mapping())
        values = {"name": player.name, "attributes": attributes, "bot": player.bot,
                  "updated_at": now}  # fmt: skip
        if new:
            conn.execute(insert(players).values(id=player.id, created_at=now, **values))
        else:
            conn.execute(update(players).where(players.c.id == player.id).values(**values))
        seq = self._event(conn, "player", player.id, attributes, now)
        # An imported rating is on the lists at once, before the player's first game;
        # until a game moves it, it follows the player's current import.
        moved = set(
            conn.execute(
                select(changes.c.pool).where(changes.c.player_id == player.id).distinct()
            ).scalars()
        )
        conn.execute(
            delete(ratings).where(ratings.c.player_id == player.id, ratings.c.pool.not_in(moved))
        )
        seeded = {
            (player.id, pool): self.system.initial_state(player, pool)
            for pool in player.imported
            if pool not in moved
        }
        self._store_states(conn, seq, seeded, {player.id: player})

    def _locked_players(self, conn: Connection, ids: Iterable[str]) -> dict[str, Player]:
        """Load players, locking their rows (PostgreSQL) in id order."""
        return self.load_players(conn, ids, lock=True)

    def load_players(self, conn: Connection, ids: Iterable[str], lock: bool) -> dict[str, Player]:
        """The players among ``ids`` that exist (rows locked in id order when ``lock``)."""
        wanted = sorted(set(ids))
        query = select(players.c.id, players.c.attributes).where(players.c.id.in_(wanted))
        query = query.order_by(players.c.id)
        if lock:
            query = query.with_for_update()
        return {row.id: codec.player_from_json(row.attributes) for row in conn.execute(query)}

    def get_player(self, player_id: str) -> PlayerView:
        with self.reading() as conn:
            row = conn.execute(
                select(players.c.attributes).where(players.c.id == player_id)
            ).first()
            if row is None:
                raise NotFound(f"player {player_id}: no such player")
            rows = conn.execute(select(ratings).where(ratings.c.player_id == player_id)).all()
        player = codec.player_from_json(row.attributes)
        order = {pool: n for n, pool in enumerate(self.pools)}
        views = sorted((self._rating_view(r) for r in rows), key=lambda v: order.get(v.pool, 99))
        return PlayerView(player, tuple(views))

    def search_players(self, text: str, limit: int = 20) -> list[Player]:
        """Players whose id or name contains ``text`` (case-insensitive)."""
        pattern = f"%{text.lower()}%"
        query = (
            select(players.c.attributes)
            .where(
                func.lower(players.c.id).like(pattern)
                | func.lower(func.coalesce(players.c.name, "")).like(pattern)
            )
            .order_by(players.c.id)
            .limit(limit)
        )
        with self.reading() as conn:
            return [codec.player_from_json(row.attributes) for row in conn.execute(query)]

    # -- games --------------------------------------------------------------------------

    def submit_game(self, record: GameRecord, now: datetime) -> tuple[GameView, bool]:
        """Rate and store one game. The same id with the same content returns the stored
        answer (``created`` False); with different content it is refused (409)."""
        try:
            with self.transaction() as conn:
                return self._submit(conn, record, now)
        except IntegrityError:
            # The same id was committed by another worker in the meantime.
            with self.transaction() as conn:
                return self._submit(conn, record, now)

    def submit_games(
        self, records: Sequence[GameRecord], now: datetime
    ) -> list[tuple[GameView, bool]]:
        """Rate and store a batch in one transaction: all or nothing."""
        with self.transaction() as conn:
            self._locked_players(conn, {p for r in records for p in (r.white, r.black)})
            return [self._submit(conn, record, now) for record in records]

    def submit_in(
        self, conn: Connection, record: GameRecord, now: datetime
    ) -> tuple[GameView, bool]:
        """Rate and store one game inside the caller's transaction (live games end so)."""
        return self._submit(conn, record, now)

    def _submit(self, conn: Connection, record: GameRecord, now: datetime) -> tuple[GameView, bool]:
        locked = self._locked_players(conn, (record.white, record.black))
        existing = conn.execute(select(games.c.record).where(games.c.id == record.id)).first()
        if existing is not None:
            stored = GameRecord.from_mapping(json.loads(existing.record), f"game {record.id}")
            if replace(stored, source="") == replace(record, source=""):
                return self._game_view(conn, record.id), False
            raise Conflict(f"game {record.id}: id: already used for a different game")
        for side, player_id in (("white", record.white), ("black", record.black)):
            if player_id not in locked:
                raise InvalidRecord(record.where, side, f"unknown player {player_id!r}")
        states = _StateCache(conn, self.system_id, self.system, locked)
        states.prefetch((record.white, record.black))
        rating = self.system.rate(record, locked.__getitem__, states)
        text = codec.dumps(record.to_mapping())
        seq = self._event(conn, "game", record.id, text, now)
        conn.execute(
            insert(games).values(
                id=record.id, seq=seq, record=text,
                played_at=record.played_at, white=record.white, black=record.black,
                outcome=rating.outcome.value, reason=rating.reason, annulled=False,
                submitted_at=now,
            )
        )  # fmt: skip
        self._store_changes(conn, seq, rating.changes)
        self._store_states(conn, seq, rating.states, locked)
        view = GameView(
            record.id, seq, replace(record, source=""), rating.outcome.value, rating.reason,
            False, rating.changes, now,
        )  # fmt: skip
        return view, True

    def _event(self, conn: Connection, kind: str, ref: str, payload: str, now: datetime) -> int:
        result = conn.execute(
            insert(events).values(kind=kind, ref=ref, payload=payload, at=now)
            .returning(events.c.seq)
        )  # fmt: skip
        return int(result.scalar_one())

    def _store_changes(self, conn: Connection, seq: int, items: Sequence[Change]) -> None:
        if not items:
            return
        conn.execute(
            insert(changes),
            [
                {"seq": seq, "game_id": c.game_id, "player_id": c.player, "pool": c.pool,
                 "rule": c.rule, "after_cents": _cents(c.after),
                 "detail": codec.dumps(codec.change_to_mapping(c))}
                for c in items
            ],
        )  # fmt: skip

    def _store_states(
        self,
        conn: Connection,
        seq: int,
        states: Mapping[PoolKey, Any],
        people: Mapping[str, Player],
    ) -> None:
        """Upsert the players' current ratings, one statement for all of them."""
        if not states:
            return
        rows = [
            {"player_id": player_id, "pool": pool, "seq": seq,
             **self._rating_row(people[player_id], pool, state)}
            for (player_id, pool), state in states.items()
        ]  # fmt: skip
        conn.execute(self._upsert_rating, rows)

    def _rating_row(self, player: Player, pool: str, state: Any) -> dict[str, Any]:
        """The stored form of a current rating: what lists and pages show, and the
        system's state for the next game."""
        entry = self.system.list_entry(player, pool, state)
        rating = entry.rating if entry else getattr(state, "rating", None)
        return {
            "rating_cents": _cents(rating),
            "display": entry.display if entry else "",
            "state_name": entry.state if entry else _state_name(state),
            "games": entry.games if entry else 0,
            "listed": entry is not None,
            "state": codec.state_to_json(state),
        }

    def get_game(self, game_id: str) -> GameView:
        with self.reading() as conn:
            return self._game_view(conn, game_id)

    def _game_view(self, conn: Connection, game_id: str) -> GameView:
        row = conn.execute(select(games).where(games.c.id == game_id)).first()
        if row is None:
            raise NotFound(f"game {game_id}: no such game")
        rows = conn.execute(
            select(changes.c.detail).where(changes.c.game_id == game_id).order_by(changes.c.id)
        ).all()
        return GameView(
            id=row.id,
            seq=row.seq,
            record=GameRecord.from_mapping(json.loads(row.record), f"game {row.id}"),
            outcome=Outcome.VOID.value if row.annulled else row.outcome,
            reason=row.reason,
            annulled=row.annulled,
            changes=tuple(codec.change_from_mapping(json.loads(r.detail)) for r in rows),
            submitted_at=as_utc(row.submitted_at),
        )

    def history(self, player_id: str, pool: str) -> list[HistoryItem]:
        """Every change of a player's rating in a pool, oldest first (games and
        annulments)."""
        query = (
            select(changes.c.seq, changes.c.detail, events.c.kind, games.c.played_at, events.c.at)
            .join(events, events.c.seq == changes.c.seq)
            .join(games, games.c.id == changes.c.game_id)
            .where(changes.c.player_id == player_id, changes.c.pool == pool)
            .order_by(changes.c.seq, changes.c.id)
        )
        with self.reading() as conn:
            if conn.execute(select(players.c.id).where(players.c.id == player_id)).first() is None:
                raise NotFound(f"player {player_id}: no such player")
            rows = conn.execute(query).all()
        return [
            HistoryItem(
                seq=row.seq,
                kind=row.kind,
                played_at=as_utc(row.played_at if row.kind == "game" else row.at),
                change=codec.change_from_mapping(json.loads(row.detail)),
            )
            for row in rows
        ]

    def leaderboard(
        self, pool: str, offset: int = 0, limit: int = 50
    ) -> tuple[list[RatingView], int]:
        """A pool's rating list, best first, paged; and the number of listed players."""
        if pool not in self.pools:
            raise NotFound(f"pool {pool}: not a pool of {self.system_id} ({', '.join(self.pools)})")
        where = (ratings.c.pool == pool) & ratings.c.listed
        query = (
            select(ratings)
            .where(where)
            .order_by(
                ratings.c.rating_cents.is_(None),
                ratings.c.rating_cents.desc(),
                ratings.c.games.desc(),
                ratings.c.player_id,
            )
            .offset(offset)
            .limit(limit)
        )
        with self.reading() as conn:
            rows = conn.execute(query).all()
            total = conn.execute(
                select(func.count()).select_from(ratings).where(where)
            ).scalar_one()
        return [self._rating_view(r) for r in rows], int(total)

    def _rating_view(self, row: Any) -> RatingView:
        return RatingView(
            row.player_id, row.pool, _decimal(row.rating_cents), row.display, row.state_name,
            row.games, row.listed,
        )  # fmt: skip

    def preview(self, record: GameRecord) -> dict[str, GameRating[Any]]:
        """What a win, a draw or a loss (for White) of this game would do now; stores
        nothing."""
        with self.reading() as conn:
            people = self.load_players(conn, (record.white, record.black), lock=False)
            for side, player_id in (("white", record.white), ("black", record.black)):
                if player_id not in people:
                    raise InvalidRecord(record.where, side, f"unknown player {player_id!r}")
            states = _StateCache(conn, self.system_id, self.system, people)
            return {
                result.value: self.system.rate(
                    replace(record, result=result), people.__getitem__, states
                )
                for result in (Result.WHITE_WINS, Result.DRAW, Result.BLACK_WINS)
            }

    # -- annulments ---------------------------------------------------------------------

    def annul(self, game_id: str, reason: str, by: str | None, now: datetime) -> AnnulmentView:
        """site S10: reverse a rated game's changes, take it out of the games counts,
        keep the annulment (who, when, why)."""
        with self.transaction() as conn:
            return self._annul(conn, game_id, reason, by, now)

    def _annul(
        self, conn: Connection, game_id: str, reason: str, by: str | None, now: datetime
    ) -> AnnulmentView:
        row = conn.execute(select(games).where(games.c.id == game_id)).first()
        if row is None:
            raise NotFound(f"game {game_id}: no such game")
        people = self._locked_players(conn, (row.white, row.black))
        row = conn.execute(select(games).where(games.c.id == game_id)).one()
        if row.annulled:
            raise Conflict(f"game {game_id}: id: already annulled")
        if row.outcome != Outcome.RATED.value:
            raise InvalidRecord(
                f"game {game_id}", "id", f"the game is {row.outcome}: no rating to annul"
            )
        record = GameRecord.from_mapping(json.loads(row.record), f"game {game_id}")
        original = tuple(
            codec.change_from_mapping(json.loads(r.detail))
            for r in conn.execute(
                select(changes.c.detail)
                .where(changes.c.game_id == game_id, changes.c.seq == row.seq)
                .order_by(changes.c.id)
            )
        )
        rating: GameRating[Any] = GameRating(record, Outcome.RATED, row.reason, original)
        states = _StateCache(conn, self.system_id, self.system, people)
        reversed_changes, new_states = self.system.annul(rating, states)
        payload = codec.dumps({"reason": reason, "by": by})
        seq = self._event(conn, "annulment", game_id, payload, now)
        conn.execute(
            insert(annulments).values(game_id=game_id, seq=seq, at=now, by=by, reason=reason)
        )
        conn.execute(update(games).where(games.c.id == game_id).values(annulled=True))
        self._store_changes(conn, seq, reversed_changes)
        self._store_states(conn, seq, new_states, people)
        return AnnulmentView(game_id, seq, now, by, reason, reversed_changes)

    def annulments(self) -> list[AnnulmentView]:
        with self.reading() as conn:
            rows = conn.execute(select(annulments).order_by(annulments.c.seq)).all()
            details = conn.execute(
                select(changes.c.seq, changes.c.detail)
                .where(changes.c.seq.in_([r.seq for r in rows]))
                .order_by(changes.c.id)
            ).all()
        by_seq: dict[int, list[Change]] = {}
        for d in details:
            by_seq.setdefault(d.seq, []).append(codec.change_from_mapping(json.loads(d.detail)))
        return [
            AnnulmentView(
                r.game_id, r.seq, as_utc(r.at), r.by, r.reason, tuple(by_seq.get(r.seq, ()))
            )
            for r in rows
        ]

    # -- tokens -------------------------------------------------------------------------

    def create_token(self, role: str, label: str, now: datetime) -> str:
        """A new bearer token for ``role``; only its SHA-256 is stored."""
        if role not in ROLES:
            raise InvalidInput(f"unknown role {role!r} (roles: {', '.join(ROLES)})")
        token = "cr_" + secrets.token_urlsafe(32)
        with self.transaction() as conn:
            conn.execute(
                insert(tokens).values(hash=_hash(token), role=role, label=label, created_at=now)
            )
        return token

    def token_label(self, token: str) -> str | None:
        """The label a token was created with (who it belongs to), or None."""
        with self.reading() as conn:
            label = conn.execute(
                select(tokens.c.label).where(tokens.c.hash == _hash(token))
            ).scalar()
        return None if label is None else str(label)

    def token_role(self, token: str) -> str | None:
        with self.reading() as conn:
            role = conn.execute(select(tokens.c.role).where(tokens.c.hash == _hash(token))).scalar()
        return None if role is None else str(role)

    # -- replay and transfer ------------------------------------------------------------

    def events(self) -> Iterator[tuple[int, str, str, str, datetime]]:
        """(seq, kind, ref, payload, at) of every event in commit order."""
        with self.reading() as conn:
            for row in conn.execute(select(events).order_by(events.c.seq)):
                yield row.seq, row.kind, row.ref, row.payload, as_utc(row.at)

    def verify(self) -> list[str]:
        """Replay every event in commit order through the engine and compare every stored
        outcome, change and current rating to the hundredth. Returns the differences."""
        replay: ReplayEngine[Any] = ReplayEngine(self.system)
        problems: list[str] = []
        for seq, kind, ref, payload, at in self.events():
            if kind == "player":
                replay.set_player(Player.from_mapping(json.loads(payload), f"event {seq}"))
            elif kind == "game":
                record = GameRecord.from_mapping(json.loads(payload), f"event {seq}")
                rating = replay.apply(record)
                try:
                    stored = self.get_game(ref)
                except (ValueError, ArithmeticError, KeyError, TypeError) as error:
                    problems.append(f"game {ref}: the stored game cannot be read ({error!r})")
                    continue
                outcome = stored.outcome if not stored.annulled else rating.outcome.value
                if outcome != rating.outcome.value:
                    problems.append(f"game {ref}: outcome {outcome}, replay {rating.outcome.value}")
                kept = tuple(c for c in stored.changes if not c.rule.endswith("S10"))
                if kept != rating.changes:
                    problems.append(f"game {ref}: stored changes differ from the replay")
            elif kind == "annulment":
                data = json.loads(payload)
                replay.annul(ref, data["reason"], at, data["by"])
        with self.reading() as conn:
            stored_rows = {(r.player_id, r.pool): r for r in conn.execute(select(ratings))}
        for (player_id, pool), state in replay.states.items():
            row = stored_rows.pop((player_id, pool), None)
            if row is None:
                problems.append(f"{player_id} {pool}: missing from the ledger")
                continue
            problems += self._compare_row(replay.player(player_id), pool, state, row)
        for (player_id, pool), row in stored_rows.items():
            # A rating seeded from an import, not moved by any game yet.
            state = replay.state(player_id, pool)
            problems += self._compare_row(replay.player(player_id), pool, state, row)
        return problems

    def _compare_row(self, player: Player, pool: str, state: Any, row: Any) -> list[str]:
        """Every column of a stored rating against the replay's, to the hundredth."""
        expected = self._rating_row(player, pool, state)
        return [
            f"{player.id} {pool}: {name} is {getattr(row, name)!r} in the ledger, "
            f"{value!r} by the replay"
            for name, value in expected.items()
            if getattr(row, name) != value
        ]

    def players(self) -> list[Player]:
        with self.reading() as conn:
            return [
                codec.player_from_json(r.attributes)
                for r in conn.execute(select(players.c.attributes).order_by(players.c.id))
            ]

    def export_games(self) -> Iterator[GameRecord]:
        """Every game record in commit order."""
        with self.reading() as conn:
            for row in conn.execute(select(games.c.id, games.c.record).order_by(games.c.seq)):
                yield GameRecord.from_mapping(json.loads(row.record), f"game {row.id}")

    def counts(self) -> dict[str, int]:
        with self.reading() as conn:
            return {
                "players": conn.execute(select(func.count()).select_from(players)).scalar_one(),
                "games": conn.execute(select(func.count()).select_from(games)).scalar_one(),
            }


class _StateCache:
    """The system's state lookup over the ledger, inside one transaction."""

    def __init__(
        self,
        conn: Connection,
        system_id: str,
        system: RatingSystem[Any],
        people: Mapping[str, Player],
    ) -> None:
        self.conn = conn
        self.system_id = system_id
        self.system = system
        self.people = people
        self.cache: dict[PoolKey, Any] = {}

    def prefetch(self, player_ids: Iterable[str]) -> None:
        """Load every stored state of these players in one query."""
        wanted = sorted(set(player_ids))
        rows = self.conn.execute(
            select(ratings.c.player_id, ratings.c.pool, ratings.c.state).where(
                ratings.c.player_id.in_(wanted)
            )
        )
        for row in rows:
            self.cache[(row.player_id, row.pool)] = codec.state_from_json(self.system_id, row.state)
        for player_id in wanted:
            for pool in self.system.pools:
                if (player_id, pool) not in self.cache:
                    player = self.people.get(player_id) or Player(player_id)
                    self.cache[(player_id, pool)] = self.system.initial_state(player, pool)

    def __call__(self, player_id: str, pool: str) -> Any:
        key = (player_id, pool)
        if key not in self.cache:
            text = self.conn.execute(
                select(ratings.c.state).where(
                    ratings.c.player_id == player_id, ratings.c.pool == pool
                )
            ).scalar()
            player = self.people.get(player_id) or Player(player_id)
            self.cache[key] = (
                self.system.initial_state(player, pool)
                if text is None
                else codec.state_from_json(self.system_id, text)
            )
        return self.cache[key]


def _state_name(state: object) -> str:
    status = getattr(state, "status", None)
    return str(getattr(status, "value", "rated"))


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
