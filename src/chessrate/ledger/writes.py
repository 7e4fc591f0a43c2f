"""The ledger's writes: players, games and annulments, rated as they are stored.

Writes follow lila's order: check eligibility, compute purely (the same system
functions as the batch engine), store the per-game diff, update the players'
ratings, all in one transaction. Concurrent writers are serialized per player:
PostgreSQL locks the players' rows (``SELECT ... FOR UPDATE``, in id order, so
no deadlock); SQLite takes its database write lock at ``BEGIN IMMEDIATE``. A
game's ``seq`` is drawn inside that lock, so games that share a player are
committed in ``seq`` order, and ``verify`` replays them in that order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from ..errors import ChessrateError, Conflict, InvalidRecord, LedgerUnavailable, NotFound
from ..folding import search_key
from ..numbers import to_hundredths
from ..records import GameRecord, Outcome, Player, Result, microseconds, text_problem
from ..systems.base import Change, GameRating, PoolKey, RatingSystem
from . import audit, codec, rows
from .queries import LedgerQueries
from .schema import annulments, changes, events, games, players, ratings, reviews
from .views import AnnulmentView, GameView, PlayerView


class LedgerWrites(LedgerQueries):
    """Writes that rate (the :class:`~chessrate.ledger.Ledger`'s share), and the preview
    that rates without storing."""

    def __init__(self, url: str, busy_seconds: float | None = None) -> None:
        super().__init__(url, busy_seconds)
        upsert = (postgresql_insert if self.postgres else sqlite_insert)(ratings)
        columns = ("rating_cents", "display", "state_name", "games", "listed", "state", "seq")
        # One cached statement, run with many rows (insertmanyvalues makes it one trip).
        self._upsert_rating = upsert.on_conflict_do_update(
            index_elements=[ratings.c.player_id, ratings.c.pool],
            set_={name: upsert.excluded[name] for name in columns},
        )
        self._insert_game = insert(games)
        self._insert_change = insert(changes)

    # -- players ------------------------------------------------------------------------

    def create_player(self, player: Player, now: datetime) -> PlayerView:
        """Register a player; refused (409) if the id exists, also when another writer
        registered it at the same moment (PostgreSQL: both saw no such id, the second
        insert breaks the unique key; that is the same conflict, not an error)."""
        try:
            with self.transaction() as conn:
                self._create_player(conn, player, now)
        except IntegrityError:
            if self.player_exists(player.id):
                raise Conflict(f"player {player.id}: id: already exists") from None
            raise
        return self.get_player(player.id)

    def player_exists(self, player_id: str) -> bool:
        with self.reading() as conn:
            found = conn.execute(select(players.c.id).where(players.c.id == player_id))
            return found.first() is not None

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
        player = Player.from_mapping(data, f"player {player_id}", stored=True)
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
        values = {"name": player.name, "search": search_key(player.id, player.name),
                  "attributes": attributes, "bot": player.bot, "updated_at": now}  # fmt: skip
        if new:
            key = self.next_player_key(conn)
            conn.execute(insert(players).values(id=player.id, key=key, created_at=now, **values))
        else:
            conn.execute(update(players).where(players.c.id == player.id).values(**values))
            key = self.player_keys(conn, [player.id])[player.id]
        seq = self._event(conn, "player", player.id, attributes, now)
        # An imported rating is on the lists at once, before the player's first game;
        # until a game moves it, it follows the player's current import.
        moved = {
            self.pools[pool]
            for pool in conn.execute(
                select(changes.c.pool).where(changes.c.player == key).distinct()
            ).scalars()
        }
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
        """Rate and store a batch in one transaction: all or nothing. When another writer
        committed one of its ids meanwhile (PostgreSQL: both saw no such game, the
        second insert breaks the key), the batch runs again: that game is then answered
        as stored (the same content) or refused (409), never a server error."""
        for attempt in (1, 2):
            try:
                with self.transaction() as conn:
                    self._locked_players(conn, {p for r in records for p in (r.white, r.black)})
                    return [self._submit(conn, record, now) for record in records]
            except IntegrityError:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def submit_group(
        self, items: Sequence[tuple[GameRecord, datetime]]
    ) -> list[tuple[GameView, bool] | Exception]:
        """Rate and store games that arrived together (the service's group commit), in
        ONE transaction: every player of the group locked (id order), then each game
        in the given order as :meth:`submit_game` would, then one commit. Each game
        answers for itself: its (view, created), or the error that refused it
        (:class:`Conflict`, :class:`InvalidRecord`, :class:`NotFound`) and nothing of
        it is stored. Nothing is stored unless the commit returns.

        A group is rated in memory and stored with one statement per table
        (:meth:`_submit_batched`; a refused game writes nothing). When another worker
        committed one of its ids meanwhile, the transaction is rolled back and the
        group runs again with each game in its own savepoint, so that only that game
        is answered as stored."""
        if not items:
            return []
        try:
            with self.transaction() as conn:
                return self._submit_batched(conn, items)
        except IntegrityError:
            pass  # an id was just committed by another worker: game by game, below
        try:
            with self.transaction() as conn:
                self._lock_group(conn, items)
                return [self._submit_saved(conn, record, now) for record, now in items]
        except LedgerUnavailable:
            raise
        except Exception:
            # The group failed as a whole (its commit, or an error that is not a game's
            # refusal): nothing of it is stored. Each game then goes in its own
            # transaction, as submit_game does, so that it answers for itself.
            return [self._submit_alone(record, now) for record, now in items]

    def _submit_batched(
        self, conn: Connection, items: Sequence[tuple[GameRecord, datetime]]
    ) -> list[tuple[GameView, bool] | Exception]:
        """A group's games rated in order against states kept in memory, then stored
        with one statement per table: the players (locked, id order) and their ratings
        read once, the games, changes and ratings written once. A refused game writes
        nothing, so it needs no savepoint. Raises IntegrityError when another worker
        committed one of the ids meanwhile (the caller then takes the savepoint path)."""
        keys: dict[str, int] = {}
        named = {p for record, _ in items for p in (record.white, record.black)}
        people = self.load_players(conn, named, lock=True, keys=keys)
        ids = sorted({record.id for record, _ in items})
        stored = {row.id: row for row in conn.execute(select(games).where(games.c.id.in_(ids)))}
        states = _StateCache(conn, self.system_id, self.system, people)
        states.prefetch(people)
        answers: list[tuple[GameView, bool] | Exception | str] = []
        """A refusal, a stored game's answer, or the id of a game of this group (its
        view gets its seq at the end)."""
        mine: dict[str, GameView] = {}
        rated: list[tuple[GameRecord, datetime, GameRating[Any]]] = []
        for record, now in items:
            clean = replace(record, source="")
            if record.id in mine or record.id in stored:
                earlier = mine.get(record.id)
                if earlier is not None:
                    same = earlier.record == clean
                else:
                    row = stored[record.id]
                    same = rows.record_from_row(row._mapping, self._namer(conn, row)) == clean
                if not same:
                    answers.append(
                        Conflict(f"game {record.id}: id: already used for a different game")
                    )
                elif earlier is not None:
                    answers.append(record.id)  # answered as this group's game, not created
                else:
                    answers.append((self._game_view(conn, record.id), False))
                continue
            try:
                for side, player_id in (("white", record.white), ("black", record.black)):
                    if player_id not in people:
                        raise InvalidRecord(record.where, side, f"unknown player {player_id!r}")
                rating = self.system.rate(record, people.__getitem__, states)
            except InvalidRecord as error:
                answers.append(error)
                continue
            states.cache.update(rating.states)
            view = GameView(
                record.id, 0, clean, rating.outcome.value, rating.reason, False,
                rating.changes, now,
            )  # fmt: skip
            mine[record.id] = view
            rated.append((record, now, rating))
            answers.append(record.id)
        created = {record.id for record, _, _ in rated}
        seqs = self.next_seqs(conn, len(rated)) if rated else []
        game_rows, change_rows = [], []
        latest: dict[PoolKey, tuple[int, Any]] = {}
        for seq, (record, now, rating) in zip(seqs, rated, strict=True):
            game_rows.append(_game_values(seq, rating, keys, now))
            change_rows += [
                {**rows.change_row(self.system, c, slot, keys.__getitem__), "seq": seq,
                 "game": None}
                for slot, c in enumerate(rating.changes)
            ]  # fmt: skip
            for key, state in rating.states.items():
                latest[key] = (seq, state)
            view = mine[record.id]
            mine[record.id] = replace(view, seq=seq)
        if game_rows:
            conn.execute(self._insert_game, game_rows)
        if change_rows:
            conn.execute(self._insert_change, change_rows)
        if latest:
            conn.execute(
                self._upsert_rating,
                [{"player_id": p, "pool": pool, "seq": seq,
                  **self._rating_row(people[p], pool, state)}
                 for (p, pool), (seq, state) in latest.items()],
            )  # fmt: skip
        result: list[tuple[GameView, bool] | Exception] = []
        for answer in answers:
            if isinstance(answer, str):
                result.append((mine[answer], answer in created))
                created.discard(answer)  # a second copy of it: answered, not created
            else:
                result.append(answer)
        return result

    def _lock_group(self, conn: Connection, items: Sequence[tuple[GameRecord, datetime]]) -> None:
        """Lock every player of a group at its start, in id order, as one statement, so
        that two workers' groups never wait for each other in a circle (each game then
        locks its two players again: rows this transaction already holds). SQLite holds
        the whole database from ``BEGIN IMMEDIATE`` on: nothing to do."""
        if not self.postgres:
            return
        wanted = sorted({p for record, _ in items for p in (record.white, record.black)})
        conn.execute(
            select(players.c.id)
            .where(players.c.id.in_(wanted))
            .order_by(players.c.id)
            .with_for_update()
        ).all()

    def _submit_saved(
        self, conn: Connection, record: GameRecord, now: datetime
    ) -> tuple[GameView, bool] | ChessrateError:
        """One game of a group, inside a savepoint; its refusal is returned, not raised."""
        for attempt in (1, 2):
            try:
                with conn.begin_nested():
                    return self._submit(conn, record, now)
            except (Conflict, InvalidRecord, NotFound) as error:
                return error
            except IntegrityError:
                # The same id was committed by another worker in the meantime: the next
                # statement sees it (read committed), so the game is answered as stored.
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _submit_alone(self, record: GameRecord, now: datetime) -> tuple[GameView, bool] | Exception:
        try:
            return self.submit_game(record, now)
        except Exception as error:  # this game's answer, whatever it is
            return error

    def submit_in(
        self, conn: Connection, record: GameRecord, now: datetime
    ) -> tuple[GameView, bool]:
        """Rate and store one game inside the caller's transaction (live games end so)."""
        return self._submit(conn, record, now)

    def _submit(self, conn: Connection, record: GameRecord, now: datetime) -> tuple[GameView, bool]:
        keys: dict[str, int] = {}
        locked = self.load_players(conn, (record.white, record.black), lock=True, keys=keys)
        existing = self._game_row(conn, record.id)
        if existing is not None:
            stored = rows.record_from_row(existing._mapping, self._namer(conn, existing))
            if stored == replace(record, source=""):
                return self._game_view(conn, record.id), False
            raise Conflict(f"game {record.id}: id: already used for a different game")
        for side, player_id in (("white", record.white), ("black", record.black)):
            if player_id not in locked:
                raise InvalidRecord(record.where, side, f"unknown player {player_id!r}")
        states = _StateCache(conn, self.system_id, self.system, locked)
        states.prefetch((record.white, record.black))
        rating = self.system.rate(record, locked.__getitem__, states)
        seq = self.next_seq(conn)
        conn.execute(self._insert_game, _game_values(seq, rating, keys, now))
        self._store_changes(conn, seq, None, rating.changes, keys)
        self._store_states(conn, seq, rating.states, locked)
        view = GameView(
            record.id, seq, replace(record, source=""), rating.outcome.value, rating.reason,
            False, rating.changes, now,
        )  # fmt: skip
        return view, True

    def _event(self, conn: Connection, kind: str, ref: str, payload: str, now: datetime) -> int:
        seq = self.next_seq(conn)
        conn.execute(insert(events).values(seq=seq, kind=kind, ref=ref, payload=payload, at=now))
        return seq

    def _store_changes(
        self,
        conn: Connection,
        seq: int,
        game: int | None,
        items: Sequence[Change],
        keys: Mapping[str, int],
    ) -> None:
        if not items:
            return
        system = self.system
        conn.execute(
            self._insert_change,
            [
                {**rows.change_row(system, c, slot, keys.__getitem__), "seq": seq, "game": game}
                for slot, c in enumerate(items)
            ],
        )

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
            "rating_cents": _hundredths(rating),
            "display": entry.display if entry else "",
            "state_name": entry.state if entry else _state_name(state),
            "games": entry.games if entry else 0,
            "listed": entry is not None,
            "state": codec.state_to_json(self.system_id, state),
        }

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
        for name, text in (("reason", reason), ("by", by or "")):
            refused = text_problem(text)  # (PostgreSQL refuses a NUL: a 500)
            if refused is not None:
                raise InvalidRecord(f"game {game_id}", name, refused)
        row = self._game_row(conn, game_id)
        if row is None:
            raise NotFound(f"game {game_id}: no such game")
        namer = self._namer(conn, row)
        white, black = namer(row.white), namer(row.black)
        keys: dict[str, int] = {}
        people = self.load_players(conn, (white, black), lock=True, keys=keys)
        row = self._game_row(conn, game_id)
        assert row is not None
        if row.annulled:
            raise Conflict(f"game {game_id}: id: already annulled")
        outcome = rows.OUTCOMES[row.outcome]
        if outcome is not Outcome.RATED:
            raise InvalidRecord(
                f"game {game_id}", "id", f"the game is {outcome.value}: no rating to annul"
            )
        record = rows.record_from_row(row._mapping, namer)
        original = self._changes_of(conn, row, (row.seq,), namer)
        reason_text = self.system.reason(record, row.reason, original)
        rating: GameRating[Any] = GameRating(record, Outcome.RATED, reason_text, original)
        states = _StateCache(conn, self.system_id, self.system, people)
        reversed_changes, new_states = self.system.annul(rating, states)
        payload = codec.dumps({"reason": reason, "by": by})
        seq = self._event(conn, "annulment", game_id, payload, now)
        conn.execute(
            insert(annulments).values(game_id=game_id, seq=seq, at=now, by=by, reason=reason)
        )
        conn.execute(update(games).where(games.c.seq == row.seq).values(annulled=True))
        self._store_changes(conn, seq, row.seq, reversed_changes, keys)
        self._store_states(conn, seq, new_states, people)
        audit.record(conn, now, by or "unknown", "annul", game_id, reason)
        # A case under review is decided by the annulment, however it was made.
        conn.execute(
            update(reviews)
            .where(reviews.c.game_id == game_id, reviews.c.status != "confirmed")
            .values(status="confirmed", decided_by=by, decided_at=now, note=reason,
                    updated_at=now)
        )  # fmt: skip
        return AnnulmentView(game_id, seq, now, by, reason, reversed_changes)


def _game_values(
    seq: int, rating: GameRating[Any], keys: Mapping[str, int], now: datetime
) -> dict[str, Any]:
    """A rated game's row in ``games``: its record, the decision's codes, when it came."""
    return {
        "seq": seq, **rows.game_row(rating.game, keys.__getitem__),
        "outcome": rows.OUTCOMES.index(rating.outcome), "reason": rating.reason_code,
        "annulled": False, "submitted_at": microseconds(now),
    }  # fmt: skip


def _hundredths(rating: Decimal | None) -> int | None:
    return None if rating is None else to_hundredths(rating)


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
