"""The bulk import (``ledger.bulk``): a whole file rated by the compiled replay and
written in bulk.

A ledger that holds no game yet, or whose games all came before the file's
(:meth:`Bulk.appendable`), can take a whole file at once (:meth:`Bulk.run`): the
compiled replay (:func:`chessrate.fast.replay`, in file order: the ledger rates in commit order)
rates it and emits every game's decision and every change as the ledger's numbers
(:class:`chessrate.fast.rows.RowChunk`), which are written as they come, a chunk at
a time: ``executemany`` on SQLite, ``COPY`` on PostgreSQL. Then the current ratings
(each (player, pool)'s last change, through the system's ``state_after``) and the
annulments (the per-game path's :meth:`Annulments.annul_in
<chessrate.ledger.annulments.Annulments.annul_in>`). All of it is one
transaction: a refused record raises before anything is written, and any failure
leaves the ledger as it was. It is the ledger's only writer while it runs (SQLite's
write lock; on PostgreSQL the writers' lock, exclusive): the service's writes wait
for it.

The rows are the per-game path's, number for number and in the same ``seq`` order
(players' events, then the games, then the annulments): ``tests/ledger/test_bulk.py``
compares every table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import Connection, func, insert, select

from ..errors import Conflict, InvalidRecord, NotFound
from ..folding import search_key
from ..numbers import display_hundredths
from ..records import Player, Venue, microseconds
from ..systems.base import CHANGE_COLUMNS, PoolKey, RatingSystem
from ..systems.registry import system_of
from ..systems.site import SiteSystem
from . import codec, common, rows
from .schema import events, games, players, ratings
from .views import AnnulmentView

if TYPE_CHECKING:
    from .store import Ledger

GAME_INSERT = ("seq", *rows.GAME_COLUMNS, "outcome", "reason", "annulled", "submitted_at")
CHANGE_INSERT = (
    "player", "pool", "seq", "game",
    *(name for name in CHANGE_COLUMNS if name not in ("player", "pool")),
)  # fmt: skip
"""The columns in the order the bulk writer sends them."""

STATE_COLUMNS = ("rule", "score", "after", "state_after", "games_after", "opponent_rating",
                 "basis")  # fmt: skip
"""What ``system.state_after`` reads of a change (the writer keeps each (player,
pool)'s last)."""

FILLER: dict[str, Any] = {
    name: None if name in ("before", "d", "pd", "k", "code") else 0 for name in CHANGE_COLUMNS
}
"""A change row's other columns when only its state is rebuilt."""

BULK_CACHE_KIB = 1_048_576
"""SQLite's page cache during a bulk import, in KiB (1 GiB at most; given back when
the connection closes)."""

WRITE_ROWS = 100_000
"""Changes bound per ``executemany`` on SQLite (the Python rows of one slice at a
time)."""

RATING_COLUMNS = ("rating_cents", "display", "state_name", "games", "listed", "state")

I64 = npt.NDArray[np.int64]


class Bulk:
    """A ledger's bulk import (``ledger.bulk``)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def run(
        self,
        batch: Any,
        new_players: Sequence[Player],
        updates: Sequence[tuple[str, Mapping[str, object]]],
        roster: Iterable[Player],
        annulments_wanted: Sequence[tuple[str, str, str]],
        by: str | None,
        now: datetime,
        progress: Callable[[int], None] | None = None,
    ) -> tuple[dict[str, int], list[AnnulmentView]]:
        """Players created and updated, every game of ``batch`` (a
        :class:`~chessrate.fast.batch.GameBatch`) rated in batch order by the compiled
        replay against ``roster`` (every player's final attributes), the annulments
        ((where, game id, reason)) applied: one transaction, all or nothing. Returns
        the number of games by outcome and the annulments."""
        from ..fast import replay
        from ..fast.rows import NULL, NULLABLE, RowChunk

        system = self.ledger.system
        counts: dict[str, int] = {}
        with self.ledger.transaction() as conn:
            # No other writer meanwhile: the import numbers its events itself, and
            # rates from the current ratings it reads now.
            self.ledger.exclusive(conn)
            people = {player.id: player for player in roster}
            start = self._current_states(conn, people) if common.has_games(conn) else {}
            if not self.ledger.postgres:
                # a page cache as big as the tables being written (SQLite's default,
                # 2 MB, writes the changes' pages out and reads them back again)
                conn.exec_driver_sql(f"PRAGMA cache_size = -{BULK_CACHE_KIB}")
            self._bulk_players(conn, new_players, now)
            for player_id, fields in updates:
                self.ledger.players.update_in(conn, player_id, fields, now)
            keys = common.player_keys(conn, people)
            first_seq = common.next_seq(self.ledger, conn)
            writer = _Writer(self.ledger, conn, batch, people, keys, first_seq, now, start)

            def on_rows(chunk: RowChunk) -> None:
                writer.write(chunk, NULL, NULLABLE)
                if progress is not None:
                    progress(len(chunk))

            result = replay(
                system, batch, list(people.values()), in_order=True, on_rows=on_rows,
                states=start,
            )  # fmt: skip
            assert list(result.names[: len(writer.names)]) == writer.names
            writer.finish(NULL, NULLABLE)
            writer.finish_sequence()
            self._bulk_ratings(conn, writer, people, new_players, NULL)
            for outcome, count in zip(rows.OUTCOMES, writer.outcomes.tolist(), strict=True):
                if count:
                    counts[outcome.value] = int(count)
            annulled = []
            for where, game_id, reason in annulments_wanted:
                try:
                    annulled.append(self.ledger.annulments.annul_in(conn, game_id, reason, by, now))
                except InvalidRecord as error:
                    raise InvalidRecord(where, "id", f"{game_id}: {error.reason}") from None
                except NotFound:  # worded as the game-by-game import words them
                    raise InvalidRecord(where, "id", f"{game_id}: no such game to annul") from None
                except Conflict:
                    text = f"{game_id}: already annulled at {now.isoformat()}"
                    raise InvalidRecord(where, "id", text) from None
        return counts, annulled

    def _bulk_players(self, conn: Connection, new: Sequence[Player], now: datetime) -> None:
        """New players as the per-game path creates them, in one statement each: their
        rows (keys in order), their events, their imported ratings."""
        if not new:
            return
        for player in new:
            self.ledger.system.check_player(player)
        key = common.next_player_key(self.ledger, conn)
        seq = common.next_seq(self.ledger, conn)
        texts = [codec.dumps(p.to_mapping()) for p in new]
        conn.execute(
            insert(players),
            [{"id": p.id, "key": key + n, "name": p.name, "search": search_key(p.id, p.name),
              "attributes": text, "bot": p.bot, "created_at": now, "updated_at": now}
             for n, (p, text) in enumerate(zip(new, texts, strict=True))],
        )  # fmt: skip
        conn.execute(
            insert(events),
            [{"seq": seq + n, "kind": "player", "ref": p.id, "payload": text, "at": now}
             for n, (p, text) in enumerate(zip(new, texts, strict=True))],
        )  # fmt: skip
        if not self.ledger.postgres:
            return
        # PostgreSQL's sequences follow the numbers taken here.
        conn.exec_driver_sql(f"SELECT setval('player_keys', {key + len(new) - 1})")
        conn.exec_driver_sql(f"SELECT setval('ledger_seq', {seq + len(new) - 1})")

    def _bulk_ratings(
        self,
        conn: Connection,
        writer: _Writer,
        people: Mapping[str, Player],
        new_players: Sequence[Player],
        null: int,
    ) -> None:
        """The current ratings: each (player, pool)'s state after its last change, and
        the new players' imported ratings no game moved (at the player's event)."""
        with_events = self._player_event_seqs(conn, [p for p in new_players if p.imported])
        tracker = writer.tracker
        data = site_rating_rows(tracker, null) if isinstance(tracker.system, SiteSystem) else None
        if data is None:
            data = []
            for (player_id, pool), (state, seq) in tracker.states(null, {}).items():
                row = common.rating_row(self.ledger, people[player_id], pool, state)
                data.append((player_id, pool, seq, *(row[n] for n in RATING_COLUMNS)))
        moved = {(row[0], row[1]) for row in data} if with_events else set()
        for player_id, seq in with_events.items():  # imported ratings no game moved
            player = people[player_id]
            for pool in player.imported:
                if (player_id, pool) not in moved:
                    state = self.ledger.system.initial_state(player, pool)
                    row = common.rating_row(self.ledger, player, pool, state)
                    data.append((player_id, pool, seq, *(row[n] for n in RATING_COLUMNS)))
        if not data:
            return
        fields = ("player_id", "pool", "seq", *RATING_COLUMNS)
        marks = ", ".join(("?" if not self.ledger.postgres else "%s") for _ in fields)
        updates = ", ".join(f"{n} = excluded.{n}" for n in ("seq", *RATING_COLUMNS))
        sql = (
            f"INSERT INTO ratings ({', '.join(fields)}) VALUES ({marks}) "
            f"ON CONFLICT (player_id, pool) DO UPDATE SET {updates}"
        )
        conn.exec_driver_sql(sql, data)

    def _current_states(self, conn: Connection, ids: Iterable[str]) -> dict[PoolKey, Any]:
        """The stored current ratings' states of these players (the games of an
        appended file continue from them; the ledger's other players are not read)."""
        wanted = sorted(set(ids))
        found: dict[PoolKey, Any] = {}
        system_id = self.ledger.system_id
        for at in range(0, len(wanted), common.IN_CHUNK):
            query = select(ratings.c.player_id, ratings.c.pool, ratings.c.state).where(
                ratings.c.player_id.in_(wanted[at : at + common.IN_CHUNK])
            )
            for row in conn.execute(query):
                found[(row.player_id, row.pool)] = codec.state_from_json(system_id, row.state)
        return found

    def appendable(self, batch: Any) -> bool:
        """Whether a batch can be imported in bulk: the ledger has no game, or every
        stored game was played before the batch's first game and none of its ids is
        stored (the file then continues the ledger's ratings exactly as game by game)."""
        with self.ledger.reading() as conn:
            last = conn.execute(select(func.max(games.c.played_at))).scalar()
            if last is None:
                return True
            if len(batch) == 0 or int(batch.played_at.min()) <= int(last):
                return False
            ids = list(batch.game_ids)
            for start in range(0, len(ids), 900):
                query = select(games.c.id).where(games.c.id.in_(ids[start : start + 900]))
                if conn.execute(query.limit(1)).first() is not None:
                    return False
        return True

    def _player_event_seqs(self, conn: Connection, chosen: Sequence[Player]) -> dict[str, int]:
        """The seq of each player's last event."""
        from sqlalchemy import func, select

        if not chosen:
            return {}
        query = (
            select(events.c.ref, func.max(events.c.seq))
            .where(events.c.kind == "player", events.c.ref.in_([p.id for p in chosen]))
            .group_by(events.c.ref)
        )
        return {ref: int(seq) for ref, seq in conn.execute(query).all()}


class _Writer:
    """Writes the replay's row chunks into the ledger's games and changes tables, and
    remembers what the current ratings need: each (player, pool)'s last change, and
    for arena the states of the qualifying games (folded in order)."""

    def __init__(
        self,
        ledger: Ledger,
        conn: Connection,
        batch: Any,
        people: Mapping[str, Player],
        keys: Mapping[str, int],
        first_seq: int,
        now: datetime,
        start: Mapping[PoolKey, Any],
    ) -> None:
        self.ledger = ledger
        self.conn = conn
        self.batch = batch
        self.system = ledger.system
        self.people = people
        self.names: list[str] = list(batch.player_ids)
        """The replay's player codes (the batch's players come first)."""
        self.first_seq = first_seq
        self.next_seq = first_seq
        self.submitted_at = microseconds(now)
        self.outcomes = np.zeros(len(rows.OUTCOMES), np.int64)
        self.key_of_code = np.array([keys[name] for name in self.names], np.int64)
        from ..fast import batch as fields  # numba loads with chessrate.fast, not before

        self.result_codes = _codes(fields.RESULTS, rows.RESULTS)
        self.termination_codes = _codes(fields.TERMINATIONS, rows.TERMINATIONS)
        venues = {fields.ONLINE: Venue.ONLINE, fields.OTB: Venue.OTB}
        self.venue_codes = _codes([venues[n] for n in sorted(venues)], rows.VENUES)
        self.game_ids = np.asarray(batch.game_ids, dtype=object)
        codes, controls = batch.controls()
        self.control_code = codes
        self.control_text = np.array([None if c is None else str(c) for c in controls], object)
        self.tracker = Tracker(self.system, self.names, people, start)
        self.postgres = ledger.postgres
        self.game_sql = _insert_sql("games", GAME_INSERT)
        self.pending: list[I64] = []
        """SQLite: the changes' rows (``CHANGE_INSERT`` columns) until :meth:`finish`."""

    def write(self, chunk: Any, null: int, nullable: Sequence[str]) -> None:
        count = len(chunk)
        if count == 0:
            return
        seq = np.arange(self.next_seq, self.next_seq + count, dtype=np.int64)
        self.next_seq += count
        np.add.at(self.outcomes, chunk.outcome.astype(np.int64), 1)
        if self.postgres:
            self._copy_games(chunk, seq)
        else:
            self._insert_games(chunk, seq)
        if chunk.changes == 0:
            return
        change_seq = seq[chunk.game]
        columns = {
            "player": self._key(chunk.player),
            "seq": change_seq,
            "game": np.full(chunk.changes, null, np.int64),  # the event's own game
            "opponent": self._key(chunk.opponent),
        }
        matrix = np.stack(
            [columns[n] if n in columns else chunk.column(n) for n in CHANGE_INSERT], axis=1
        )
        self.tracker.remember(chunk, change_seq, null)
        if self.postgres:
            self._copy_changes(matrix, null, nullable)
        else:
            self.pending.append(matrix)  # written at finish, in the key's order

    def finish(self, null: int, nullable: Sequence[str]) -> None:
        """Write the buffered changes (SQLite) in the table's key order: a ledger's
        new changes then go in as appends to each player's range, each page once;
        NULLs are the sentinel turned back by ``nullif`` inside SQLite."""
        if not self.pending:
            return
        matrix = np.concatenate(self.pending)
        self.pending = []
        at = {name: n for n, name in enumerate(CHANGE_INSERT)}
        order = np.lexsort((matrix[:, at["seq"]], matrix[:, at["pool"]], matrix[:, at["player"]]))
        matrix = matrix[order]
        nulls = {"game", *nullable}
        values = ", ".join(f"nullif(?, {null})" if n in nulls else "?" for n in CHANGE_INSERT)
        sql = f"INSERT INTO changes ({', '.join(CHANGE_INSERT)}) VALUES ({values})"
        cursor = self.conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            for start in range(0, matrix.shape[0], WRITE_ROWS):
                cursor.executemany(sql, matrix[start : start + WRITE_ROWS].tolist())
        finally:
            cursor.close()

    def _copy_changes(self, matrix: I64, null: int, nullable: Sequence[str]) -> None:
        """A chunk's changes through ``COPY`` (PostgreSQL)."""
        import pyarrow as pa

        arrays = []
        for n, name in enumerate(CHANGE_INSERT):
            column = matrix[:, n]
            mask = column == null if name == "game" or name in nullable else None
            arrays.append(pa.array(column, type=pa.int64(), mask=mask))
        self._copy("changes", CHANGE_INSERT, arrays)

    def _key(self, codes: I64) -> I64:
        """Player codes as keys; a player only in the roster gets its key on demand."""
        result: I64 = self.key_of_code[codes]
        return result

    def _game_columns(self, chunk: Any, seq: I64) -> dict[str, Any]:
        """A chunk's games as the games table's columns (numpy arrays; the ids and time
        controls as object arrays)."""
        at = chunk.rows
        batch = self.batch
        count = len(chunk)
        return {
            "seq": seq,
            "id": self.game_ids[batch.game[at]],
            "played_at": batch.played_at[at],
            "white": self.key_of_code[batch.white[at]],
            "black": self.key_of_code[batch.black[at]],
            "result": self.result_codes[batch.result[at]],
            "rated": batch.rated[at],
            "time_control": self.control_text[self.control_code[at]],
            "termination": self.termination_codes[batch.termination[at]],
            "plies": batch.plies[at],  # negative: not given (NULL)
            "venue": self.venue_codes[batch.venue[at]],
            "confirmed": batch.confirmed[at],  # negative: not given (NULL)
            "outcome": chunk.outcome,
            "reason": chunk.reason,
            "annulled": np.zeros(count, np.bool_),
            "submitted_at": np.full(count, self.submitted_at, np.int64),
        }

    def _insert_games(self, chunk: Any, seq: I64) -> None:
        """A chunk's games through ``executemany`` (SQLite: its page order is the
        seq's, appends)."""
        columns = self._game_columns(chunk, seq)
        plies = columns["plies"].astype(object)
        plies[columns["plies"] < 0] = None
        confirmed = columns["confirmed"]
        flags = np.array([False, True, None], dtype=object)[np.where(confirmed < 0, 2, confirmed)]
        columns["plies"], columns["confirmed"] = plies, flags
        data = list(zip(*(columns[n].tolist() for n in GAME_INSERT), strict=True))
        self.conn.exec_driver_sql(self.game_sql, data)

    def _copy_games(self, chunk: Any, seq: I64) -> None:
        """A chunk's games through ``COPY`` (PostgreSQL), as CSV that pyarrow writes."""
        import pyarrow as pa

        columns = self._game_columns(chunk, seq)
        arrays = []
        for name in GAME_INSERT:
            values = columns[name]
            if name in ("id", "time_control"):
                arrays.append(pa.array(values.tolist(), type=pa.string()))
            elif name in ("plies", "confirmed"):
                kind = pa.bool_() if name == "confirmed" else pa.int64()
                arrays.append(
                    pa.array(
                        np.maximum(values, 0).astype(np.bool_ if name == "confirmed" else np.int64),
                        type=kind,
                        mask=values < 0,
                    )
                )
            else:
                arrays.append(pa.array(values))
        self._copy("games", GAME_INSERT, arrays)

    def _copy(self, table: str, names: Sequence[str], arrays: list[Any]) -> None:
        """Arrow columns into a table through ``COPY ... (FORMAT csv)``: pyarrow writes
        the CSV from the arrays (a NULL is an empty field, a text is quoted), psycopg
        sends it inside the import's transaction."""
        import pyarrow as pa
        import pyarrow.csv as pa_csv

        batch = pa.RecordBatch.from_arrays(arrays, names=list(names))
        sink = pa.BufferOutputStream()
        pa_csv.write_csv(batch, sink, pa_csv.WriteOptions(include_header=False))
        cursor = self.conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        with cursor.copy(f"COPY {table} ({', '.join(names)}) FROM STDIN (FORMAT csv)") as copy:
            copy.write(memoryview(sink.getvalue()))

    def finish_sequence(self) -> None:
        """PostgreSQL's event sequence follows the seqs the games took."""
        if self.postgres and self.next_seq > self.first_seq:
            self.conn.exec_driver_sql(f"SELECT setval('ledger_seq', {self.next_seq - 1})")


class Tracker:
    """What the current ratings need of a replay's emitted rows: each (player, pool)'s
    last change (its numbers and seq, in arrays indexed by player code x pool), and
    arena's qualifying changes folded in order into states (``system.state_after``).
    The bulk import writes the states it gives; the compiled ``verify`` compares them."""

    def __init__(
        self,
        system: RatingSystem[Any],
        names: Sequence[str],
        people: Mapping[str, Player],
        start: Mapping[PoolKey, Any] | None = None,
    ) -> None:
        self.system = system
        self.names = names
        self.people = people
        self.start = start or {}
        """The states the games continue from (a ledger's, for an appended file)."""
        self.width = len(system.pools)
        size = len(names) * self.width
        self.last_values = {name: np.zeros(size, np.int64) for name in STATE_COLUMNS}
        self.last_seq = np.full(size, -1, np.int64)
        self.folded: dict[tuple[int, int], Any] = {}
        folded = system_of(system).folded_rules
        self.fold_rules = {system.rules_cited.index(r) for r in folded}

    def remember(self, chunk: Any, change_seq: I64, null: int) -> None:
        """Take in a chunk's changes (``change_seq``: each change's event)."""
        codes = chunk.player
        pools = chunk.pool
        flat = codes * self.width + pools
        reverse_first = np.unique(flat[::-1], return_index=True)[1]
        last = flat.shape[0] - 1 - reverse_first
        where = flat[last]
        for name in STATE_COLUMNS:
            self.last_values[name][where] = chunk.column(name)[last]
        self.last_seq[where] = change_seq[last]
        if not self.fold_rules:
            return
        system = self.system
        for index in np.flatnonzero(np.isin(chunk.rule, list(self.fold_rules))).tolist():
            key = (int(codes[index]), int(pools[index]))
            row = dict(FILLER)
            for name in CHANGE_COLUMNS:
                value = int(chunk.column(name)[index])
                row[name] = None if value == null else value
            change = rows.change_from_row(system, row, _nobody, "", words=False)
            before = self.folded.get(key)
            if before is None:
                player_id, pool = self.names[key[0]], system.pools[key[1]]
                before = self.start.get((player_id, pool))
                if before is None:
                    before = system.initial_state(self.people[player_id], pool)
            self.folded[key] = system.state_after(change, before)

    def remember_one(
        self, code: int, pool: int, row: Mapping[str, Any], seq: int, null: int
    ) -> None:
        """Take in one change made apart from the chunks (a site S10 annulment's, with
        its event's ``seq``): the (player, pool)'s last change when no later one is
        known. Not for folded rules (arena's)."""
        assert not self.fold_rules, "an annulment of a system whose rules fold"
        flat = code * self.width + pool
        if seq <= self.last_seq[flat]:
            return
        for name in STATE_COLUMNS:
            value = row[name]
            self.last_values[name][flat] = null if value is None else int(value)
        self.last_seq[flat] = seq

    def states(self, null: int, seeded: Mapping[str, int]) -> dict[PoolKey, tuple[Any, int]]:
        """Every (player, pool)'s current state and the seq that set it: after its last
        change, or the imported rating no game moved of each player of ``seeded``
        (player id -> the seq of the player's event)."""
        system = self.system
        found: dict[PoolKey, tuple[Any, int]] = {}
        touched = np.flatnonzero(self.last_seq >= 0)
        values = {}
        for name in STATE_COLUMNS:
            column = self.last_values[name][touched]
            objects = column.astype(object)
            objects[column == null] = None
            values[name] = objects.tolist()
        seqs = self.last_seq[touched].tolist()
        for n, flat in enumerate(touched.tolist()):
            code, pool_code = divmod(flat, self.width)
            player_id = self.names[code]
            key = (player_id, system.pools[pool_code])
            if values["rule"][n] in self.fold_rules:  # folded in order already
                found[key] = self.folded[(code, pool_code)], seqs[n]
                continue
            row = dict(FILLER)
            for name in STATE_COLUMNS:
                row[name] = values[name][n]
            row["pool"] = pool_code
            change = rows.change_from_row(system, row, _nobody, "", words=False)
            initial = system.initial_state(self.people[player_id], key[1])
            found[key] = system.state_after(change, initial), seqs[n]
        for player_id, seq in seeded.items():
            player = self.people[player_id]
            for pool in player.imported:
                if (player.id, pool) not in found:
                    found[(player.id, pool)] = system.initial_state(player, pool), seq
        return found


def site_rating_rows(tracker: Tracker, null: int) -> list[tuple[Any, ...]] | None:
    """The current-rating rows (``player_id, pool, seq`` and :data:`RATING_COLUMNS`) of
    every (player, pool) a ``site`` replay moved, from the last changes' numbers as
    arrays: what ``common.rating_row`` writes of ``SiteSystem.state_after`` (the rating
    and games after the change) and ``list_entry`` (a human with games is listed;
    ``1500?`` under the provisional games), without a state object per rating. None
    when a last change has no rating after it (the general path then decides)."""
    system = tracker.system
    assert isinstance(system, SiteSystem)
    touched = np.flatnonzero(tracker.last_seq >= 0)
    after = tracker.last_values["after"][touched]
    if bool((after == null).any()) or bool((after < 0).any()):
        return None
    games = tracker.last_values["games_after"][touched]
    codes, pool_codes = np.divmod(touched, tracker.width)
    bot = np.array([tracker.people[name].bot for name in tracker.names], np.bool_)[codes]
    imported = np.zeros(tracker.last_seq.shape[0], np.bool_)
    for code, name in enumerate(tracker.names):
        for pool in tracker.people[name].imported:
            imported[code * tracker.width + system.pools.index(pool)] = True
    listed = ~bot & ((games != 0) | imported[touched])
    shown = display_hundredths(after).tolist()
    provisional = (games < system.rules.provisional_games).tolist()
    names, pools = tracker.names, system.pools
    rows: list[tuple[Any, ...]] = []
    for code, pool, seq, cents, count, is_listed, number, mark in zip(
        codes.tolist(), pool_codes.tolist(), tracker.last_seq[touched].tolist(), after.tolist(),
        games.tolist(), listed.tolist(), shown, provisional, strict=True,
    ):  # fmt: skip
        rating = f"{cents // 100}.{cents % 100:02d}"  # exact_text of the hundredths
        display = (f"{number}?" if mark else str(number)) if is_listed else ""
        state = f'{{"games":{count},"rating":"{rating}"}}'  # codec.dumps of SiteCodec.dump
        rows.append((names[code], pools[pool], seq, cents, display, "rated",
                     count if is_listed else 0, is_listed, state))  # fmt: skip
    return rows


def _insert_sql(table: str, names: Sequence[str]) -> str:
    return f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"


def _nobody(_key: int) -> str:
    """The player of a change whose player does not matter (a state is rebuilt)."""
    return ""


def _codes(batch_codes: Sequence[Any], ledger_codes: Sequence[Any]) -> I64:
    """A batch's codes of a field as the ledger's codes of it."""
    return np.array([ledger_codes.index(value) for value in batch_codes], np.int64)
