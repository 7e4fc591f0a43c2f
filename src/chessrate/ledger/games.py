"""A ledger's games (``ledger.games``): rated as they are stored, read, previewed,
and the whole ledger in commit order (events, games) for export and replay.

Writes follow lila's order: check eligibility, compute purely (the same system
functions as the batch engine), store the per-game diff, update the players'
ratings, all in one transaction. Concurrent writers are serialized per player:
PostgreSQL locks the players' rows (``SELECT ... FOR UPDATE``, in id order, so
no deadlock); SQLite takes its database write lock at ``BEGIN IMMEDIATE``. A
game's ``seq`` is drawn inside that lock, so games that share a player are
committed in ``seq`` order, and ``verify`` replays them in that order. Reads never
take SQLite's write lock. A whole file into a ledger without games: ``bulk``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, func, select
from sqlalchemy.exc import IntegrityError

from ..errors import ChessrateError, Conflict, InvalidRecord, LedgerUnavailable, NotFound
from ..records import GameRecord, Player, Result, moment
from ..systems.base import GameRating, PoolKey
from . import codec, common, rows
from .connection import as_utc, note_stored
from .direct import Direct, GameRows
from .schema import events, game_moves, games, players
from .views import AnnulmentView, GameView

if TYPE_CHECKING:
    from .store import Ledger


PLAYERS_KEPT = 4096
"""How many players' parsed attributes the group commit keeps (then it starts again)."""


class Games:
    """A ledger's games (``ledger.games``)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self._players: dict[str, Player] = {}
        """The group commit's players by their stored attributes (JSON text): the same
        text is the same (frozen) player, read again by every group it plays in."""

    def _player(self, attributes: str) -> Player:
        player = self._players.get(attributes)
        if player is None:
            if len(self._players) >= PLAYERS_KEPT:
                self._players.clear()
            player = self._players[attributes] = codec.player_from_json(attributes)
        return player

    def submit(self, record: GameRecord, now: datetime) -> tuple[GameView, bool]:
        """Rate and store one game. The same id with the same content returns the stored
        answer (``created`` False); with different content it is refused (409)."""
        try:
            with self.ledger.transaction() as conn:
                return self._submit(conn, record, now)
        except IntegrityError:
            # The same id was committed by another worker in the meantime.
            with self.ledger.transaction() as conn:
                return self._submit(conn, record, now)

    def submit_many(
        self, records: Sequence[GameRecord], now: datetime
    ) -> list[tuple[GameView, bool]]:
        """Rate and store a batch in one transaction: all or nothing. When another writer
        committed one of its ids meanwhile (PostgreSQL: both saw no such game, the
        second insert breaks the key), the batch runs again: that game is then answered
        as stored (the same content) or refused (409), never a server error."""
        for attempt in (1, 2):
            try:
                with self.ledger.transaction() as conn:
                    common.locked_players(conn, {p for r in records for p in (r.white, r.black)})
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
        in the given order as :meth:`submit` would, then one commit. Each game
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
            # (the writers' lock: the first of the group's reads, direct.Direct.read)
            with self.ledger.transaction(writers_lock=False) as conn:
                return self._submit_batched(conn, items)
        except IntegrityError:
            pass  # an id was just committed by another worker: game by game, below
        try:
            with self.ledger.transaction() as conn:
                self._lock_group(conn, items)
                return [self._submit_saved(conn, record, now) for record, now in items]
        except LedgerUnavailable:
            raise
        except Exception:
            # The group failed as a whole (its commit, or an error that is not a game's
            # refusal): nothing of it is stored. Each game then goes in its own
            # transaction, as submit does, so that it answers for itself.
            return [self._submit_alone(record, now) for record, now in items]

    def _submit_batched(
        self, conn: Connection, items: Sequence[tuple[GameRecord, datetime]]
    ) -> list[tuple[GameView, bool] | Exception]:
        """A group's games rated in order against states kept in memory, then stored:
        the players (locked, id order) and their ratings read once, each current
        rating written once, with its last game (the statements: :mod:`.direct`;
        PostgreSQL: the reads in one round trip, the writes and the commit in
        another). A refused game writes nothing, so it needs no savepoint. Raises
        IntegrityError when another worker committed one of the ids meanwhile (the
        caller then takes the savepoint path)."""
        direct = Direct(conn, self.ledger.postgres)
        named = sorted({p for record, _ in items for p in (record.white, record.black)})
        reads = direct.read(named, sorted({record.id for record, _ in items}))
        keys = {player_id: key for player_id, key, _ in reads.players}
        people = {player_id: self._player(text) for player_id, _, text in reads.players}
        stored: dict[str, Any] = {}
        if reads.stored:  # resubmissions: their stored rows, read as game_view reads them
            query = select(games).where(games.c.id.in_(sorted(reads.stored)))
            stored = {row.id: row for row in conn.execute(query)}
        stored_moves = common.stored_moves(conn, stored)
        states = common.StateCache(conn, self.ledger.system_id, self.ledger.system, people)
        states.fill(people, reads.states)
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
                    same = (
                        common.stored_record(conn, row, common.namer(conn, row), stored_moves)
                        == clean
                    )
                if not same:
                    answers.append(
                        Conflict(f"game {record.id}: id: already used for a different game")
                    )
                elif earlier is not None:
                    answers.append(record.id)  # answered as this group's game, not created
                else:
                    answers.append((common.game_view(self.ledger, conn, record.id), False))
                continue
            try:
                for side, player_id in (("white", record.white), ("black", record.black)):
                    if player_id not in people:
                        raise InvalidRecord(record.where, side, f"unknown player {player_id!r}")
                rating = self.ledger.system.rate(record, people.__getitem__, states)
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
        last: dict[PoolKey, int] = {}
        """Each state's last game in the group: its current rating is written with it."""
        for index, (_, _, rating) in enumerate(rated):
            last.update(dict.fromkeys(rating.states, index))
        system = self.ledger.system
        written = [
            GameRows(
                common.game_values(0, rating, keys, now),
                [{**rows.change_row(system, c, slot, keys.__getitem__), "seq": 0, "game": None}
                 for slot, c in enumerate(rating.changes)],
                common.move_rows((record,)),
                [{"player_id": p, "pool": pool, "seq": 0,
                  **common.rating_row(self.ledger, people[p], pool, state)}
                 for (p, pool), state in rating.states.items() if last[(p, pool)] == index],
            )
            for index, (record, now, rating) in enumerate(rated)
        ]  # fmt: skip
        seqs = direct.store(reads, written) if written else []
        for seq, (record, _, _) in zip(seqs, rated, strict=True):
            mine[record.id] = replace(mine[record.id], seq=seq)
        for _, _, rating in rated:
            note_stored(conn, _pool(rating), rating.outcome.value)
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
        if not self.ledger.postgres:
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
            return self.submit(record, now)
        except Exception as error:  # this game's answer, whatever it is
            return error

    def submit_in(
        self, conn: Connection, record: GameRecord, now: datetime
    ) -> tuple[GameView, bool]:
        """Rate and store one game inside the caller's transaction (live games end so)."""
        return self._submit(conn, record, now)

    def _submit(self, conn: Connection, record: GameRecord, now: datetime) -> tuple[GameView, bool]:
        keys: dict[str, int] = {}
        locked = common.load_players(conn, (record.white, record.black), lock=True, keys=keys)
        existing = common.game_row(conn, record.id)
        if existing is not None:
            stored = common.stored_record(conn, existing, common.namer(conn, existing))
            if stored == replace(record, source=""):
                return common.game_view(self.ledger, conn, record.id), False
            raise Conflict(f"game {record.id}: id: already used for a different game")
        for side, player_id in (("white", record.white), ("black", record.black)):
            if player_id not in locked:
                raise InvalidRecord(record.where, side, f"unknown player {player_id!r}")
        states = common.StateCache(conn, self.ledger.system_id, self.ledger.system, locked)
        states.prefetch((record.white, record.black))
        rating = self.ledger.system.rate(record, locked.__getitem__, states)
        seq = common.next_seq(self.ledger, conn)
        conn.execute(common.INSERT_GAME, common.game_values(seq, rating, keys, now))
        common.store_moves(conn, (record,))
        common.store_changes(self.ledger, conn, seq, None, rating.changes, keys)
        common.store_states(self.ledger, conn, seq, rating.states, locked)
        view = GameView(
            record.id, seq, replace(record, source=""), rating.outcome.value, rating.reason,
            False, rating.changes, now,
        )  # fmt: skip
        note_stored(conn, _pool(rating), rating.outcome.value)
        return view, True

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
        with self.ledger.transaction() as conn:
            for player in new_players:
                self.ledger.players.create_in(conn, player, now)
            for player_id, fields in updates:
                self.ledger.players.update_in(conn, player_id, fields, now)
            if records:
                common.locked_players(conn, {p for r in records for p in (r.white, r.black)})
            stored = [self._submit(conn, record, now) for record in records]
            annulled = [
                self.ledger.annulments.annul_in(conn, game_id, reason, by, now)
                for game_id, reason in annulments_wanted
            ]
        return stored, annulled

    def preview(self, record: GameRecord) -> dict[str, GameRating[Any]]:
        """What a win, a draw or a loss (for White) of this game would do now; stores
        nothing."""
        with self.ledger.reading() as conn:
            people = common.load_players(conn, (record.white, record.black), lock=False)
            for side, player_id in (("white", record.white), ("black", record.black)):
                if player_id not in people:
                    raise InvalidRecord(record.where, side, f"unknown player {player_id!r}")
            states = common.StateCache(conn, self.ledger.system_id, self.ledger.system, people)
            return {
                result.value: self.ledger.system.rate(
                    replace(record, result=result), people.__getitem__, states
                )
                for result in (Result.WHITE_WINS, Result.DRAW, Result.BLACK_WINS)
            }

    # -- reads ---------------------------------------------------------------------------

    def get(self, game_id: str) -> GameView:
        with self.ledger.reading() as conn:
            return common.game_view(self.ledger, conn, game_id)

    def any(self) -> bool:
        """Whether the ledger holds a game (a bulk import needs one that does not)."""
        with self.ledger.reading() as conn:
            return common.has_games(conn)

    def events(self) -> Iterator[tuple[int, str, str, Any, datetime]]:
        """(seq, kind, ref, data, at) of every event in commit order: a player's
        event's data is its attributes (JSON text), an annulment's its reason and who
        decided (JSON text), a game's its stored row (``at`` its submission)."""
        with self.ledger.reading() as conn:
            others = conn.execute(select(events).order_by(events.c.seq))
            played = conn.execute(select(games).order_by(games.c.seq))
            other = next(others, None)
            game = next(played, None)
            while other is not None or game is not None:
                if game is None or (other is not None and other.seq < game.seq):
                    assert other is not None
                    yield other.seq, other.kind, other.ref, other.payload, as_utc(other.at)
                    other = next(others, None)
                else:
                    yield game.seq, "game", game.id, game, moment(game.submitted_at)
                    game = next(played, None)

    def export_marks(self) -> tuple[int, list[str]]:
        """What keeps an export from re-importing exactly: the number of games committed
        after the first annulment, and the players whose attributes changed after the
        first game (from the events table only: no game is read)."""
        with self.ledger.reading() as conn:
            first_game = conn.execute(select(func.min(games.c.seq))).scalar()
            first_annulment = conn.execute(
                select(func.min(events.c.seq)).where(events.c.kind == "annulment")
            ).scalar()
            late = 0
            if first_annulment is not None:
                late = conn.execute(
                    select(func.count()).select_from(games).where(games.c.seq > first_annulment)
                ).scalar_one()
            registered: set[str] = set()
            changed: list[str] = []
            query = select(events.c.seq, events.c.ref).where(events.c.kind == "player")
            for seq, ref in conn.execute(query.order_by(events.c.seq)):
                late_change = first_game is not None and seq > first_game
                if ref in registered and late_change and ref not in changed:
                    changed.append(ref)
                registered.add(ref)
        return int(late), changed

    def export(self) -> Iterator[GameRecord]:
        """Every game record in commit order."""
        with self.ledger.reading() as conn:
            names = dict(conn.execute(select(players.c.key, players.c.id)).all())
            query = (
                select(games, game_moves.c.moves.label("uci_moves"))
                .outerjoin(game_moves, game_moves.c.game_id == games.c.id)
                .order_by(games.c.seq)
            )
            for row in conn.execute(query):
                record = rows.record_from_row(row._mapping, names.__getitem__)
                if row.uci_moves is not None:
                    record = replace(record, moves=tuple(row.uci_moves.split()))
                yield record


def _pool(rating: GameRating[Any]) -> str:
    """The pool a game was rated in, for the metrics ("none": no change, a void game)."""
    return rating.changes[0].pool if rating.changes else "none"
